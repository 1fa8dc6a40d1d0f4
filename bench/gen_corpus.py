"""Bench corpus generator: Claude Code- and Codex-shaped JSONL files of a chosen count and size.

Run:
    python bench/gen_corpus.py --out bench/.corpus --files 2000 --size-mb 1000 --big-mb 100 \
        --long-line-mb 5 --codex-share 0.2 --seed 1

Or import it (later benches do): `sys.path.insert(0, "bench"); from gen_corpus import generate`,
then `generate(out, files=2000, size_mb=1000, big_mb=100)` returns a `Corpus` with the paths.

The record mix follows real transcripts (shared/docs/FORMATS.md, PERFORMANCE.md): assistant replies
split over several lines sharing `message.id`, tool results whose structured `toolUseResult`
repeats the output (about 70% of the text is tool output), progress noise, a few multi-MB lines
(huge command output or a pasted base64 screenshot), one big transcript, and Codex rollouts with
session_meta / turn_context / response_item / event_msg / token_count. Text comes from a Zipf-
distributed vocabulary, so search benches see both common and rare words.

The output directory holds `manifest.json` with the parameters; a second run with the same
parameters reuses the files (after checking that they are all there with their sizes).
"""
from __future__ import annotations

import argparse
import base64
import json
import math
import os
import random
import re
import shutil
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

GENERATOR_VERSION = 2
MB = 1024 * 1024
BASE_TIME = 1_772_323_200_000  # 2026-03-01T00:00:00Z, in ms: sessions lie in the 60 days before


@dataclass(frozen=True)
class Corpus:
    root: Path
    paths: list[Path]  # every transcript file, big one first
    big: Path | None
    total_bytes: int
    reused: bool
    seconds: float
    manifest: dict[str, Any]

    @property
    def claude_root(self) -> Path:
        return self.root / "claude"

    @property
    def codex_root(self) -> Path:
        return self.root / "codex"


# -- text ---------------------------------------------------------------------------------------

_DEV_WORDS = (
    "the to a of and in is for it that this on with be you not error test file function return "
    "import self def class None True False if else value data path config line run build "
    "request response user session token index cache query result string list dict type "
    "module package install version update fix bug issue warning failed passed assert "
    "expected actual null undefined const let var async await promise export default "
    "src lib tests main app server client api http json yaml sql select from where "
    "commit branch merge rebase diff patch status log docker kubernetes deploy node npm "
    "python pytest cargo rust go make cmake gcc clang memory thread lock timeout retry"
).split()
_SYLLABLES = ("ka lo mi ne ra tu shi po ve den tor ix qua zel bro fin gar hol jun kem lyr "
              "mox nar orb pex quin rud sol tam urk vim wex yar zor ab el im on ul").split()


class _Text:
    """A pool of Zipf-distributed words (with newlines) to cut text from, plus random base64."""

    def __init__(self, rng: random.Random, pool_bytes: int = 6 * MB) -> None:
        vocab = list(_DEV_WORDS)
        seen = set(vocab)
        while len(vocab) < 20000:
            w = "".join(rng.choices(_SYLLABLES, k=_ri(rng, 2, 4)))
            if w not in seen:
                seen.add(w)
                vocab.append(w)
        vocab.insert(3, "\n")  # a newline about every dozen words
        weights = [1.0 / (r + 1) ** 1.07 for r in range(len(vocab))]
        cum = list(_accumulate(weights))
        words = rng.choices(vocab, cum_weights=cum, k=pool_bytes // 6)
        self.pool = " ".join(words).replace(" \n ", "\n")
        self.n = len(self.pool)
        self.b64 = base64.b64encode(rng.randbytes(3 * MB)).decode("ascii")
        self.rng = rng

    def cut(self, size: int) -> str:
        size = max(1, min(size, self.n - 1))
        start = int(self.rng.random() * (self.n - size))
        return self.pool[start : start + size]

    def blob(self, size: int) -> str:
        size = min(size, len(self.b64) - 1)
        start = int(self.rng.random() * (len(self.b64) - size))
        return self.b64[start : start + size]


def _accumulate(xs: list[float]) -> list[float]:
    out, t = [], 0.0
    for x in xs:
        t += x
        out.append(t)
    return out


# -- helpers ------------------------------------------------------------------------------------


class _Ts:
    """ISO-8601 timestamps with ms and Z, formatted fast for increasing times."""

    def __init__(self) -> None:
        self._sec = -1
        self._prefix = ""

    def __call__(self, ms: int) -> str:
        sec = ms // 1000
        if sec != self._sec:
            self._sec = sec
            self._prefix = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(sec))
        return f"{self._prefix}.{ms % 1000:03d}Z"


def _uuid4(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) & 3]}{h[17:20]}-{h[20:]}"


def _uuid7(rng: random.Random, ms: int) -> str:
    value = (ms << 80) | (0x7 << 76) | (rng.getrandbits(12) << 64) | (0b10 << 62)
    return str(uuid.UUID(int=value | rng.getrandbits(62)))


def _tok(rng: random.Random, n: int) -> str:
    # Base64 of random bytes with the two symbols mapped to letters: id-like and fast.
    raw = base64.b64encode(rng.randbytes(n * 3 // 4 + 3)).decode("ascii")[:n]
    return raw.translate(_ID_MAP)


_ID_MAP = str.maketrans("+/", "xQ")


def _ri(rng: random.Random, lo: int, hi: int) -> int:
    """randint without its overhead (the generator calls it ~10 times per record)."""
    return lo + int(rng.random() * (hi - lo + 1))


def escape_project_dir(cwd: str) -> str:
    return re.sub(r"[^a-zA-Z0-9]", "-", cwd)


def _tool_size(rng: random.Random) -> int:
    # Log-normal around ~1.5 KB with a long tail, capped like Claude's own output cap.
    return int(min(60_000, max(40, rng.lognormvariate(7.9, 1.1))))


# -- Claude -------------------------------------------------------------------------------------

_TOOLS = ("Bash", "Read", "Grep", "Edit", "Bash", "Read", "Glob", "Write")


class _ClaudeFile:
    def __init__(self, rng: random.Random, text: _Text, *, cwd: str, session_id: str,
                 start_ms: int, agent_id: str | None = None) -> None:
        self.rng = rng
        self.text = text
        self.ts = _Ts()
        self.ms = start_ms
        self.cwd = cwd
        self.env = {"parentUuid": None, "isSidechain": agent_id is not None,
                    "userType": "external", "cwd": cwd, "sessionId": session_id,
                    "version": rng.choice(("2.1.38", "2.1.39", "2.1.52")),
                    "gitBranch": rng.choice(("main", "main", "dev", "feat/x"))}
        if agent_id:
            self.env["agentId"] = agent_id
        self.parent: str | None = None
        self.model = rng.choice(("claude-opus-4-6", "claude-sonnet-4-5-20250929"))
        self.cache_read = 15000

    def _tick(self, lo: int, hi: int) -> str:
        self.ms += _ri(self.rng, lo, hi)
        return self.ts(self.ms)

    def _rec(self, type_: str, advance: bool = True) -> dict[str, Any]:
        d = dict(self.env)
        d["parentUuid"] = self.parent
        d["type"] = type_
        d["uuid"] = u = _uuid4(self.rng)
        if advance:
            self.parent = u
        return d

    def start(self) -> list[bytes]:
        out: list[bytes] = []
        if "agentId" in self.env:
            return out  # a subagent's transcript starts with its prompt
        tid = _uuid4(self.rng)
        d = self._rec("progress")
        d["data"] = {"type": "hook_progress", "hookEvent": "SessionStart",
                     "hookName": "SessionStart:startup", "command": "~/.claude/hooks/start.sh"}
        d["parentToolUseID"] = d["toolUseID"] = tid
        d["timestamp"] = self._tick(5, 50)
        out.append(orjson.dumps(d))
        return out

    def turn(self, out: list[bytes], *, prompt: bool) -> None:
        """One exchange: maybe a user prompt, then an assistant reply with a tool call and its
        result (the bulk of the bytes)."""
        rng, text = self.rng, self.text
        if prompt:
            self.ms += _ri(rng, 20_000, 600_000)
            d = self._rec("user")
            out.append(orjson.dumps({"type": "file-history-snapshot", "messageId": d["uuid"],
                                     "snapshot": {"messageId": d["uuid"],
                                                  "trackedFileBackups": {},
                                                  "timestamp": self.ts(self.ms)},
                                     "isSnapshotUpdate": False}))
            d["message"] = {"role": "user", "content": text.cut(_ri(rng, 40, 500))}
            d["timestamp"] = self._tick(5, 40)
            d["permissionMode"] = "default"
            out.append(orjson.dumps(d))
        msg_id = "msg_01" + _tok(rng, 22)
        req_id = "req_011C" + _tok(rng, 20)
        self.cache_read += _ri(rng, 100, 3000)
        usage = {"input_tokens": _ri(rng, 1, 9), "cache_creation_input_tokens":
                 _ri(rng, 100, 9000), "cache_read_input_tokens": self.cache_read,
                 "output_tokens": _ri(rng, 1, 12), "service_tier": "standard"}
        blocks: list[dict[str, Any]] = []
        if rng.random() < 0.4:
            blocks.append({"type": "thinking", "thinking": text.cut(_ri(rng, 100, 900)),
                           "signature": text.blob(_ri(rng, 250, 600))})
        if rng.random() < 0.8:
            blocks.append({"type": "text", "text": text.cut(_ri(rng, 80, 1500))})
        tool = rng.choice(_TOOLS)
        tid = "toolu_01" + _tok(rng, 22)
        blocks.append({"type": "tool_use", "id": tid, "name": tool,
                       "input": self._tool_input(tool)})
        self.ms += _ri(rng, 1000, 8000)
        for i, block in enumerate(blocks):
            d = self._rec("assistant")
            if i == len(blocks) - 1:
                usage = dict(usage, output_tokens=_ri(rng, 20, 1500))
            d["message"] = {"model": self.model, "id": msg_id, "type": "message",
                            "role": "assistant", "content": [block], "stop_reason": None,
                            "stop_sequence": None, "usage": usage}
            d["requestId"] = req_id
            d["timestamp"] = self._tick(100, 2500)
            out.append(orjson.dumps(d))
        source = self.parent
        for _ in range(rng.choice((0, 0, 1, 2, 3))):
            p = self._rec("progress", advance=False)
            p["data"] = {"type": "bash_progress", "output": text.cut(_ri(rng, 20, 200)),
                         "fullOutput": "", "elapsedTimeSeconds": _ri(rng, 1, 30),
                         "totalLines": _ri(rng, 1, 400)}
            p["toolUseID"] = "bash-progress-" + str(_ri(rng, 0, 40))
            p["parentToolUseID"] = tid
            p["timestamp"] = self._tick(500, 1500)
            out.append(orjson.dumps(p))
        self.result(out, tid, tool, text.cut(_tool_size(rng)), source)

    def result(self, out: list[bytes], tid: str, tool: str, output: Any, source: str | None,
               *, image: bool = False) -> None:
        rng = self.rng
        d = self._rec("user")
        is_error = rng.random() < 0.05
        if image:
            content: Any = [{"type": "image", "source": {"type": "base64",
                                                         "media_type": "image/png",
                                                         "data": output}}]
            tur: Any = {"type": "image", "file": {"base64": "", "type": "image/png",
                                                  "originalSize": len(output) * 3 // 4}}
        else:
            content = output
            if tool == "Bash":
                tur = {"stdout": output, "stderr": "", "interrupted": False, "isImage": False}
            elif tool == "Read":
                tur = {"type": "text", "file": {"filePath": f"{self.cwd}/src/x.py",
                                                "content": output, "numLines": output.count("\n"),
                                                "startLine": 1, "totalLines": 400}}
            elif tool == "Grep":
                tur = {"mode": "content", "numFiles": 0, "filenames": [], "content": output,
                       "numLines": output.count("\n")}
            else:
                tur = {"filePath": f"{self.cwd}/src/x.py", "oldString": "", "newString": "",
                       "originalFile": output, "structuredPatch": [], "userModified": False,
                       "replaceAll": False}
            if is_error:
                content = "Exit code 1\n" + output
                tur = "Error: Exit code 1\n" + output[:2000]
        d["message"] = {"role": "user", "content": [{"tool_use_id": tid, "type": "tool_result",
                                                     "content": content,
                                                     "is_error": is_error}]}
        d["timestamp"] = self._tick(50, 20_000)
        d["toolUseResult"] = tur
        if source:
            d["sourceToolAssistantUUID"] = source
        out.append(orjson.dumps(d))

    def long_line(self, out: list[bytes], size: int) -> None:
        """One multi-MB record: a huge command output or a pasted screenshot."""
        rng = self.rng
        tid = "toolu_01" + _tok(rng, 22)
        image = rng.random() < 0.5
        d = self._rec("assistant")
        d["message"] = {"model": self.model, "id": "msg_01" + _tok(rng, 22), "type": "message",
                        "role": "assistant",
                        "content": [{"type": "tool_use", "id": tid,
                                     "name": "Read" if image else "Bash",
                                     "input": ({"file_path": f"{self.cwd}/screenshot.png"}
                                               if image else {"command": "cat build.log"})}],
                        "stop_reason": None, "stop_sequence": None}
        d["requestId"] = "req_011C" + _tok(rng, 20)
        d["timestamp"] = self._tick(1000, 5000)
        out.append(orjson.dumps(d))
        if image:
            data = base64.b64encode(rng.randbytes(size * 3 // 4)).decode("ascii")
            self.result(out, tid, "Read", data, d["uuid"], image=True)
        else:
            # Bash output repeats in toolUseResult.stdout, so half the size each.
            chunks, need = [], size // 2
            while need > 0:
                piece = self.text.cut(min(need, 1 * MB))
                chunks.append(piece)
                need -= len(piece)
            self.result(out, tid, "Bash", "".join(chunks), d["uuid"])

    def _tool_input(self, tool: str) -> dict[str, Any]:
        rng = self.rng
        if tool == "Bash":
            return {"command": self.text.cut(_ri(rng, 10, 120)).replace("\n", " "),
                    "description": "Run a command"}
        if tool in ("Read", "Write"):
            return {"file_path": f"{self.cwd}/src/{_tok(rng, 6)}.py"}
        if tool == "Edit":
            return {"file_path": f"{self.cwd}/src/{_tok(rng, 6)}.py",
                    "old_string": self.text.cut(_ri(rng, 20, 400)),
                    "new_string": self.text.cut(_ri(rng, 20, 400))}
        if tool == "Glob":
            return {"pattern": "**/*.py"}
        return {"pattern": self.text.cut(12).strip() or "x", "output_mode": "content", "-n": True}

    def turn_done(self, out: list[bytes]) -> None:
        d = self._rec("system")
        d["subtype"] = "turn_duration"
        d["durationMs"] = _ri(self.rng, 3000, 300_000)
        d["isMeta"] = False
        d["timestamp"] = self._tick(10, 200)
        out.append(orjson.dumps(d))


# -- Codex --------------------------------------------------------------------------------------


class _CodexFile:
    def __init__(self, rng: random.Random, text: _Text, *, cwd: str, thread_id: str,
                 start_ms: int) -> None:
        self.rng = rng
        self.text = text
        self.ts = _Ts()
        self.ms = start_ms
        self.cwd = cwd
        self.thread_id = thread_id
        self.model = rng.choice(("gpt-5.1-codex", "gpt-5.3-codex", "gpt-5-codex"))
        self.total = 0

    def _line(self, type_: str, payload: dict[str, Any], lo: int = 1, hi: int = 30) -> bytes:
        self.ms += _ri(self.rng, lo, hi)
        return orjson.dumps({"timestamp": self.ts(self.ms), "type": type_, "payload": payload})

    def start(self) -> list[bytes]:
        rng = self.rng
        originator = rng.choice(("codex_cli_rs", "codex_cli_rs", "codex_vscode", "codex_exec"))
        source = {"codex_vscode": "vscode", "codex_exec": "exec"}.get(originator, "cli")
        meta = {"id": self.thread_id, "timestamp": self.ts(self.ms), "cwd": self.cwd,
                "originator": originator,
                "cli_version": rng.choice(("0.58.0", "0.63.0", "0.104.0")), "source": source,
                "model_provider": "openai",
                "base_instructions": {"text": self.text.cut(_ri(rng, 6000, 14000))},
                "git": {"commit_hash": f"{rng.getrandbits(160):040x}", "branch": "main",
                        "repository_url": "git@github.com:acme/repo.git"}}
        return [self._line("session_meta", meta)]

    def turn(self, out: list[bytes], *, prompt: bool) -> None:
        rng, text = self.rng, self.text
        if prompt:
            msg = text.cut(_ri(rng, 40, 600))
            self.ms += _ri(rng, 20_000, 600_000)
            out.append(self._line("response_item", {
                "type": "message", "role": "user",
                "content": [{"type": "input_text", "text": msg}]}))
            out.append(self._line("event_msg", {"type": "user_message", "message": msg,
                                                "images": []}))
            out.append(self._line("turn_context", {
                "cwd": self.cwd, "approval_policy": "on-request",
                "sandbox_policy": {"type": "workspace-write", "network_access": False},
                "model": self.model, "effort": "medium", "summary": "auto"}))
        if rng.random() < 0.6:
            summary = text.cut(_ri(rng, 20, 120))
            out.append(self._line("event_msg", {"type": "agent_reasoning", "text": summary},
                                  500, 6000))
            out.append(self._line("response_item", {
                "type": "reasoning", "summary": [{"type": "summary_text", "text": summary}],
                "content": None, "encrypted_content": "gAAAAA" + text.blob(_ri(rng, 800, 3000))
            }))
        if rng.random() < 0.7:
            say = text.cut(_ri(rng, 60, 1200))
            out.append(self._line("event_msg", {"type": "agent_message", "message": say}))
            out.append(self._line("response_item", {
                "type": "message", "role": "assistant",
                "content": [{"type": "output_text", "text": say}]}))
        cid = "call_" + _tok(rng, 24)
        args = orjson.dumps({"cmd": text.cut(_ri(rng, 10, 100)).replace("\n", " "),
                             "workdir": self.cwd}).decode()
        out.append(self._line("response_item", {"type": "function_call", "name": "exec_command",
                                                "arguments": args, "call_id": cid}, 500, 5000))
        output = text.cut(_tool_size(rng) * 2)  # no toolUseResult duplicate here: twice as long
        out.append(self._line("response_item", {"type": "function_call_output", "call_id": cid,
                                                "output": output}, 100, 20_000))
        self.total += _ri(rng, 5000, 30000)
        info = {"total_token_usage": {"input_tokens": self.total, "cached_input_tokens":
                                      self.total // 2, "output_tokens": self.total // 20,
                                      "reasoning_output_tokens": self.total // 40,
                                      "total_tokens": self.total + self.total // 20},
                "last_token_usage": {"input_tokens": 9000, "cached_input_tokens": 4000,
                                     "output_tokens": 400, "reasoning_output_tokens": 200,
                                     "total_tokens": 9400},
                "model_context_window": 258400}
        out.append(self._line("event_msg", {"type": "token_count", "info": info,
                                            "rate_limits": None}))

    def long_line(self, out: list[bytes], size: int) -> None:
        cid = "call_" + _tok(self.rng, 24)
        out.append(self._line("response_item", {"type": "function_call", "name": "exec_command",
                                                "arguments": "{\"cmd\":\"cat build.log\"}",
                                                "call_id": cid}))
        chunks, need = [], size
        while need > 0:
            piece = self.text.cut(min(need, 1 * MB))
            chunks.append(piece)
            need -= len(piece)
        out.append(self._line("response_item", {"type": "function_call_output", "call_id": cid,
                                                "output": "".join(chunks)}))

    def turn_done(self, out: list[bytes]) -> None:
        out.append(self._line("event_msg", {"type": "task_complete", "turn_id": _uuid7(
            self.rng, self.ms), "last_agent_message": self.text.cut(200)}))


# -- planning and writing -----------------------------------------------------------------------


@dataclass
class _Plan:
    kind: str  # "claude" | "codex" | "subagent"
    size: int
    long_line: int
    path: Path
    cwd: str
    session_id: str
    start_ms: int
    agent_id: str | None = None


def _plan(out: Path, rng: random.Random, *, files: int, size: int, big: int, long_max: int,
          long_lines: int, codex_share: float, big_kind: str = "claude") -> list[_Plan]:
    projects = [f"/home/bench/src/{name}" for name in (
        "payments-api", "web-dashboard", "infra", "ml_experiments.v2", "mobile-app",
        "data-pipeline", "auth-service", "docs-site", "cli-tools", "search", "billing",
        "notifications", "gateway", "analytics", "design-system", "game-engine")]
    proj_w = [1.0 / (i + 1) for i in range(len(projects))]
    n_rest = files - (1 if big else 0)
    long_sizes = [_ri(rng, min(MB, long_max // 2), long_max) for _ in range(long_lines)]
    budget = max(0, size - big - sum(long_sizes))
    weights = [rng.lognormvariate(0, 1.2) for _ in range(n_rest)]
    scale = budget / sum(weights) if weights else 0
    sizes = [max(2048, int(w * scale)) for w in weights]
    long_at = rng.sample(range(n_rest), min(long_lines, n_rest)) if n_rest else []
    long_for = [0] * n_rest
    for i, s in zip(long_at, long_sizes):
        long_for[i] = s
    plans: list[_Plan] = []
    if big and big_kind == "codex":
        start = BASE_TIME - 9 * 86_400_000
        tid = _uuid7(rng, start)
        t = time.gmtime(start // 1000)
        name = f"rollout-{time.strftime('%Y-%m-%dT%H-%M-%S', t)}-{tid}.jsonl"
        plans.append(_Plan("codex", big, 0, out / "codex" / "sessions" / time.strftime("%Y/%m/%d", t) / name,
                           projects[0], tid, start))
    elif big:
        cwd = projects[0]
        sid = _uuid4(rng)
        plans.append(_Plan("claude", big, 0,
                           out / "claude" / "projects" / escape_project_dir(cwd) / f"{sid}.jsonl",
                           cwd, sid, BASE_TIME - 9 * 86_400_000))
    mains: dict[str, list[_Plan]] = {}
    for i in range(n_rest):
        cwd = rng.choices(projects, weights=proj_w)[0]
        start = BASE_TIME - _ri(rng, 3_600_000, 60 * 86_400_000)
        fsize = sizes[i] + long_for[i]
        if rng.random() < codex_share:
            tid = _uuid7(rng, start)
            t = time.gmtime(start // 1000)
            name = f"rollout-{time.strftime('%Y-%m-%dT%H-%M-%S', t)}-{tid}.jsonl"
            path = (out / "codex" / "sessions" / time.strftime("%Y/%m/%d", t) / name)
            plans.append(_Plan("codex", fsize, long_for[i], path, cwd, tid, start))
            continue
        pdir = out / "claude" / "projects" / escape_project_dir(cwd)
        parents = mains.get(cwd)
        if parents and rng.random() < 0.06:
            parent = rng.choice(parents)
            aid = "a" + f"{rng.getrandbits(24):06x}"
            path = pdir / parent.session_id / "subagents" / f"agent-{aid}.jsonl"
            plans.append(_Plan("subagent", fsize, long_for[i], path, cwd, parent.session_id,
                               parent.start_ms + 60_000, aid))
            continue
        sid = _uuid4(rng)
        plan = _Plan("claude", fsize, long_for[i], pdir / f"{sid}.jsonl", cwd, sid, start)
        mains.setdefault(cwd, []).append(plan)
        plans.append(plan)
    return plans


def _write_file(plan: _Plan, rng: random.Random, text: _Text) -> tuple[int, int, int]:
    """Write one file; returns (bytes, lines, last timestamp ms)."""
    if plan.kind == "codex":
        f: _ClaudeFile | _CodexFile = _CodexFile(rng, text, cwd=plan.cwd,
                                                 thread_id=plan.session_id,
                                                 start_ms=plan.start_ms)
    else:
        f = _ClaudeFile(rng, text, cwd=plan.cwd, session_id=plan.session_id,
                        start_ms=plan.start_ms, agent_id=plan.agent_id)
    plan.path.parent.mkdir(parents=True, exist_ok=True)
    lines = f.start()
    written = nlines = 0
    size = sum(len(x) + 1 for x in lines)
    long_at = int(rng.uniform(0.2, 0.9) * (plan.size - plan.long_line)) if plan.long_line else -1
    turn = 0
    with open(plan.path, "wb") as fh:
        while size < plan.size:
            before = len(lines)
            if 0 <= long_at <= size:
                f.long_line(lines, plan.long_line)
                long_at = -1
            else:
                f.turn(lines, prompt=turn % 6 == 0)
                if turn % 6 == 5:
                    f.turn_done(lines)
                turn += 1
            for ln in lines[before:]:
                size += len(ln) + 1
            if len(lines) > 4000:  # the big transcript: flush as we go
                chunk = b"\n".join(lines) + b"\n"
                fh.write(chunk)
                written += len(chunk)
                nlines += len(lines)
                lines = []
        if lines:
            chunk = b"\n".join(lines) + b"\n"
            fh.write(chunk)
            written += len(chunk)
            nlines += len(lines)
    ts = f.ms / 1000
    os.utime(plan.path, (ts, ts))
    if plan.kind == "subagent":
        meta = plan.path.with_name(plan.path.stem + ".meta.json")
        meta.write_bytes(b'{"agentType":"general-purpose","spawnDepth":1}')
    return written, nlines, f.ms


def _params(files: int, size_mb: float, big_mb: float, long_line_mb: float, long_lines: int,
            codex_share: float, seed: int, big_kind: str = "claude") -> dict[str, Any]:
    params = {"generator_version": GENERATOR_VERSION, "files": files, "size_mb": size_mb,
              "big_mb": big_mb, "long_line_mb": long_line_mb, "long_lines": long_lines,
              "codex_share": codex_share, "seed": seed}
    if big_kind != "claude":  # (so the corpora cached before this option stay valid)
        params["big_kind"] = big_kind
    return params


def _reusable(out: Path, params: dict[str, Any]) -> dict[str, Any] | None:
    try:
        manifest = json.loads((out / "manifest.json").read_text())
    except (OSError, ValueError):
        return None
    if manifest.get("params") != params:
        return None
    for entry in manifest.get("files", []):
        try:
            if os.stat(out / entry["path"]).st_size != entry["size"]:
                return None
        except OSError:
            return None
    return manifest


def default_big_mb(size_mb: float) -> float:
    return min(100.0, size_mb / 10)


def generate(out: str | os.PathLike[str], *, files: int = 2000, size_mb: float = 1000,
             big_mb: float = 100, long_line_mb: float = 5, long_lines: int | None = None,
             codex_share: float = 0.2, seed: int = 1, force: bool = False,
             verbose: bool = False, big_kind: str = "claude") -> Corpus:
    """Generate (or reuse) a corpus under `out`; see the module docstring."""
    out = Path(out)
    if files < 1 or size_mb <= 0 or not 0 <= big_mb <= size_mb:
        raise ValueError("need files >= 1 and 0 <= big_mb <= size_mb")
    if big_kind not in ("claude", "codex"):
        raise ValueError("big_kind is claude or codex")
    if long_lines is None:
        long_lines = max(1, files // 100) if long_line_mb > 0 else 0
    params = _params(files, size_mb, big_mb, long_line_mb, long_lines, codex_share, seed, big_kind)
    t0 = time.perf_counter()
    if not force:
        manifest = _reusable(out, params)
        if manifest is not None:
            return _corpus(out, manifest, True, time.perf_counter() - t0)
    _clear(out)
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    # The text pool: big enough that cuts rarely repeat, small enough to build fast.
    text = _Text(rng, pool_bytes=int(min(6 * MB, max(1 * MB, size_mb * MB / 8))))
    plans = _plan(out, rng, files=files, size=int(size_mb * MB), big=int(big_mb * MB),
                  long_max=int(long_line_mb * MB), long_lines=long_lines,
                  codex_share=codex_share, big_kind=big_kind)
    entries = []
    total = 0
    for i, plan in enumerate(plans):
        nbytes, nlines, _ = _write_file(plan, rng, text)
        total += nbytes
        entries.append({"path": plan.path.relative_to(out).as_posix(), "size": nbytes,
                        "lines": nlines, "kind": plan.kind, "long_line": plan.long_line})
        if verbose and (i % 200 == 0 or i == len(plans) - 1):
            el = time.perf_counter() - t0
            print(f"  {i + 1}/{len(plans)} files, {total / MB:.0f} MB, {total / MB / el:.0f} MB/s",
                  file=sys.stderr)
    seconds = time.perf_counter() - t0
    manifest = {"params": params, "total_bytes": total, "seconds": round(seconds, 2),
                "big": entries[0]["path"] if big_mb else None, "files": entries}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=0))
    return _corpus(out, manifest, False, seconds)


def _clear(out: Path) -> None:
    """Remove an earlier corpus; refuse to touch a directory that does not look like one."""
    if not out.exists():
        return
    extra = [p.name for p in out.iterdir() if p.name not in ("claude", "codex", "manifest.json")]
    if extra:
        raise SystemExit(f"{out} holds other files ({', '.join(sorted(extra)[:5])}); "
                         "refusing to overwrite it with a bench corpus")
    for sub in ("claude", "codex"):
        if (out / sub).exists():
            shutil.rmtree(out / sub)
    (out / "manifest.json").unlink(missing_ok=True)


def _corpus(out: Path, manifest: dict[str, Any], reused: bool, seconds: float) -> Corpus:
    paths = [out / e["path"] for e in manifest["files"]]
    big = out / manifest["big"] if manifest.get("big") else None
    return Corpus(out, paths, big, manifest["total_bytes"], reused, seconds, manifest)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(Path(__file__).parent / ".corpus"))
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--size-mb", type=float, default=1000)
    ap.add_argument("--big-mb", type=float, default=None,
                    help="size of the one big transcript (default: a tenth of --size-mb, at most "
                         "100; 0: none)")
    ap.add_argument("--long-line-mb", type=float, default=5,
                    help="largest multi-MB line (0: none)")
    ap.add_argument("--long-lines", type=int, default=None,
                    help="how many multi-MB lines (default: files/100)")
    ap.add_argument("--codex-share", type=float, default=0.2)
    ap.add_argument("--big-kind", choices=("claude", "codex"), default="claude",
                    help="the format of the big transcript")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--force", action="store_true", help="regenerate even if cached")
    a = ap.parse_args(argv)
    big_mb = a.big_mb if a.big_mb is not None else default_big_mb(a.size_mb)
    c = generate(a.out, files=a.files, size_mb=a.size_mb, big_mb=big_mb,
                 long_line_mb=a.long_line_mb, long_lines=a.long_lines,
                 codex_share=a.codex_share, seed=a.seed, force=a.force, verbose=True,
                 big_kind=a.big_kind)
    state = "reused" if c.reused else f"generated in {c.seconds:.1f} s " \
        f"({c.total_bytes / MB / max(c.seconds, 1e-9):.0f} MB/s)"
    print(f"{len(c.paths)} files, {c.total_bytes / MB:.0f} MB at {c.root}: {state}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
