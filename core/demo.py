"""A deterministic demo corpus: Claude Code and Codex session files that look like a developer's.

Why generated rather than shipped: fixtures of a few MB would bloat the wheel, and generating lets
the timestamps sit in the three weeks before whenever the demo runs, so "today" and "this week"
look alive. Everything derives from `seed` and `now`: two runs with the same pair write the same
bytes (file mtimes included). The shapes are copied from real transcripts (see FORMATS.md §1-2):
split assistant replies, tool results with the tool's structured `toolUseResult`, progress noise,
a nested subagent with its `.meta.json`, a compaction, wrapped Codex rollouts with `turn_context`
and `token_count`, a `codex exec` run, one broken line, text full of console markup, and one
transcript of a few MB. Beside the transcripts it writes the projects' memory (see `_write_memory`):
session notes, Claude Code auto-memory and a CLAUDE.md/AGENTS.md pair, for the memory timeline.
"""
from __future__ import annotations

import base64
import os
import random
import re
import uuid
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import orjson

if TYPE_CHECKING:
    from .memory.agent import MemoryItem

__all__ = ["DemoCorpus", "generate_demo", "escape_project_dir", "demo_memory"]

PAYMENTS = "/home/dev/projects/payments-api"
DASHBOARD = "/home/dev/projects/web-dashboard"
INFRA = "/home/dev/projects/infra"
ML = "/home/dev/work/ml_experiments.v2"

OPUS = "claude-opus-4-6"
SONNET = "claude-sonnet-4-5-20250929"
HAIKU = "claude-haiku-4-5-20251001"

BIG_TARGET_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class DemoCorpus:
    """Where the demo corpus was written, and what it holds.

    `claude_root` and `codex_root` are the agents' config directories (what `~/.claude` and
    `~/.codex` are on a real machine); transcripts are under `claude_root/projects` and
    `codex_root/sessions`.

    The demo's projects (/home/dev/...) do not exist on disk, so their checkouts are stood in for
    by `root/workspace/<project name>/` (`project_dirs`: project path -> that folder), each with
    its session notes in `memory/` (`memory_dirs`: project path -> notes folder); auto-memory is
    in `claude_root/projects/<escaped project>/memory/`. `memory_items()` lists all of it under
    the real project paths, as the sessions have them.
    """

    root: Path
    claude_root: Path
    codex_root: Path
    claude_sessions: int
    claude_subagents: int
    codex_sessions: int
    files: int
    lines: int
    bytes: int
    big_file: Path
    broken_file: Path
    broken_line: int
    markup_file: Path
    exec_file: Path
    paths: tuple[Path, ...] = field(default=(), repr=False)
    memory_dirs: dict[str, Path] = field(default_factory=dict, repr=False, hash=False)
    project_dirs: dict[str, Path] = field(default_factory=dict, repr=False, hash=False)
    memory_files: tuple[Path, ...] = field(default=(), repr=False)

    def memory_items(self) -> list[MemoryItem]:
        """The demo's memory as the app lists it (see `demo_memory`)."""
        return demo_memory(self.root)

    @property
    def claude_projects(self) -> Path:
        return self.claude_root / "projects"

    @property
    def codex_sessions_dir(self) -> Path:
        return self.codex_root / "sessions"


def escape_project_dir(cwd: str) -> str:
    """Claude Code's project directory name for a cwd: every non-alphanumeric char becomes '-'."""
    return re.sub(r"[^a-zA-Z0-9]", "-", cwd)


def _iso(ts: datetime) -> str:
    ts = ts.astimezone(timezone.utc)
    return ts.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ts.microsecond // 1000:03d}Z"


_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


class _Ids:
    """Every id the agents write, drawn from one seeded generator."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def uuid4(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def uuid7(self, ts: datetime) -> str:
        ms = int(ts.timestamp() * 1000)
        value = (ms << 80) | (0x7 << 76) | (self.rng.getrandbits(12) << 64)
        value |= (0b10 << 62) | self.rng.getrandbits(62)
        return str(uuid.UUID(int=value))

    def b58(self, n: int) -> str:
        return "".join(self.rng.choices(_B58, k=n))

    def msg(self) -> str:
        return "msg_01" + self.b58(22)

    def req(self) -> str:
        return "req_011C" + self.b58(20)

    def toolu(self) -> str:
        return "toolu_01" + self.b58(22)

    def call(self) -> str:
        return "call_" + self.b58(24)

    def hex(self, n: int) -> str:
        return f"{self.rng.getrandbits(4 * n):0{n}x}"

    def b64(self, nbytes: int) -> str:
        return base64.b64encode(self.rng.randbytes(nbytes)).decode("ascii")


class _Clock:
    def __init__(self, start: datetime, rng: random.Random) -> None:
        self.t = start
        self.rng = rng

    def step(self, lo: float = 0.3, hi: float = 3.0) -> str:
        self.t += timedelta(seconds=self.rng.uniform(lo, hi))
        return _iso(self.t)

    def iso(self) -> str:
        return _iso(self.t)


# -- Claude Code --------------------------------------------------------------------------------


@dataclass
class _Call:
    """One tool call: what the model sent and what came back."""

    name: str
    input: dict[str, Any]
    content: Any
    result: Any = None  # toolUseResult
    is_error: bool = False
    bash_progress: int = 0
    seconds: float = 1.0


def _numbered(text: str, start: int = 1) -> str:
    lines = text.split("\n")
    return "\n".join(f"{i:>6}\u2192{line}" for i, line in enumerate(lines, start))


def bash(command: str, output: str, description: str = "", *, code: int = 0,
         stderr: str = "", progress: int = 0, seconds: float = 1.5) -> _Call:
    inp: dict[str, Any] = {"command": command}
    if description:
        inp["description"] = description
    if code:
        text = f"Exit code {code}\n{output}" + (f"\n{stderr}" if stderr else "")
        return _Call("Bash", inp, text, f"Error: {text}", True, progress, seconds)
    result = {"stdout": output, "stderr": stderr, "interrupted": False, "isImage": False}
    return _Call("Bash", inp, output or "(No content)", result, False, progress, seconds)


def read(path: str, text: str, *, start: int = 1, total: int | None = None) -> _Call:
    n = text.count("\n") + 1
    inp: dict[str, Any] = {"file_path": path}
    if start != 1:
        inp["offset"] = start
        inp["limit"] = n
    result = {"type": "text", "file": {"filePath": path, "content": text, "numLines": n,
                                       "startLine": start, "totalLines": total or n}}
    return _Call("Read", inp, _numbered(text, start), result, seconds=0.1)


def edit(path: str, old: str, new: str, *, line: int = 1, context: str = "") -> _Call:
    snippet = context.replace(old, new) if context and old in context else new
    content = (f"The file {path} has been updated. Here's the result of running `cat -n` on a "
               f"snippet of the edited file:\n{_numbered(snippet, line)}")
    old_lines, new_lines = old.split("\n"), new.split("\n")
    patch = [{"oldStart": line, "oldLines": len(old_lines), "newStart": line,
              "newLines": len(new_lines),
              "lines": [f"-{x}" for x in old_lines] + [f"+{x}" for x in new_lines]}]
    result = {"filePath": path, "oldString": old, "newString": new,
              "originalFile": context or old, "structuredPatch": patch,
              "userModified": False, "replaceAll": False}
    return _Call("Edit", {"file_path": path, "old_string": old, "new_string": new}, content,
                 result, seconds=0.2)


def write(path: str, content: str) -> _Call:
    result = {"type": "create", "filePath": path, "content": content, "structuredPatch": []}
    return _Call("Write", {"file_path": path, "content": content},
                 f"File created successfully at: {path}", result, seconds=0.1)


def grep(pattern: str, output: str, *, path: str | None = None, glob: str | None = None) -> _Call:
    inp: dict[str, Any] = {"pattern": pattern}
    if path:
        inp["path"] = path
    if glob:
        inp["glob"] = glob
    inp["output_mode"] = "content"
    inp["-n"] = True
    result = {"mode": "content", "numFiles": 0, "filenames": [], "content": output,
              "numLines": output.count("\n") + 1 if output else 0}
    return _Call("Grep", inp, output or "No matches found", result, seconds=0.3)


def todo(items: list[tuple[str, str]]) -> _Call:
    todos = [{"content": c, "status": s, "activeForm": c} for c, s in items]
    return _Call("TodoWrite", {"todos": todos},
                 "Todos have been modified successfully. Ensure that you continue to use the todo "
                 "list to track your progress. Please proceed with the current tasks if applicable",
                 {"oldTodos": [], "newTodos": todos}, seconds=0.05)


def _think(text: str) -> dict[str, Any]:
    return {"type": "thinking", "thinking": text}


def _say(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


class _Claude:
    """Writes one Claude Code transcript (2.1.x layout) record by record."""

    def __init__(self, gen: _Gen, *, cwd: str, branch: str, start: datetime,
                 model: str = SONNET, version: str = "2.1.38", slug: str | None = None,
                 session_id: str | None = None, agent_id: str | None = None) -> None:
        self.gen = gen
        self.rng = gen.rng
        self.ids = gen.ids
        self.cwd = cwd
        self.branch = branch
        self.model = model
        self.version = version
        self.slug = slug
        self.session_id = session_id or self.ids.uuid4()
        self.agent_id = agent_id
        self.start = start
        self.clock = _Clock(start, self.rng)
        self.records: list[dict[str, Any]] = []
        self.lines: list[bytes] = []
        self.parent: str | None = None
        self.cache_read = self.rng.randint(14000, 19000)
        self.broken_line = 0

    # -- plumbing ----------------------------------------------------------------------
    def _env(self, type_: str | None) -> dict[str, Any]:
        d: dict[str, Any] = {
            "parentUuid": self.parent,
            "isSidechain": self.agent_id is not None,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": self.version,
            "gitBranch": self.branch,
        }
        if self.agent_id:
            d["agentId"] = self.agent_id
        if self.slug:
            d["slug"] = self.slug
        if type_:
            d["type"] = type_
        return d

    def put(self, rec: dict[str, Any], *, advance: bool = True) -> dict[str, Any]:
        self.records.append(rec)
        self.lines.append(orjson.dumps(rec))
        if advance and "uuid" in rec:
            self.parent = rec["uuid"]
        return rec

    def broken(self) -> None:
        """A record cut short by an unclean shutdown, with valid lines after it."""
        rec = self._env(None)
        rec["message"] = {"model": self.model, "id": self.ids.msg(), "type": "message",
                          "role": "assistant",
                          "content": [_say("Applying the manifest to the staging cluster now; "
                                           "I'll watch the first Job run before reporting back.")],
                          "stop_reason": None, "stop_sequence": None}
        rec["type"] = "assistant"
        rec["uuid"] = self.ids.uuid4()
        rec["timestamp"] = self.clock.step()
        data = orjson.dumps(rec)
        self.lines.append(data[: len(data) * 11 // 20])
        self.broken_line = len(self.lines)

    # -- records -----------------------------------------------------------------------
    def hooks_start(self) -> None:
        tid = self.ids.uuid4()
        for cmd in ("~/.claude/hooks/notify.sh clear", "direnv export json"):
            rec = self._env("progress")
            rec["data"] = {"type": "hook_progress", "hookEvent": "SessionStart",
                           "hookName": "SessionStart:startup", "command": cmd}
            rec["parentToolUseID"] = tid
            rec["toolUseID"] = tid
            rec["timestamp"] = self.clock.step(0.01, 0.05)
            rec["uuid"] = self.ids.uuid4()
            self.put(rec)

    def prompt(self, text: str, *, think: tuple[float, float] = (15, 180),
               snapshot: bool = True, **extra: Any) -> str:
        self.clock.step(*think)
        uid = self.ids.uuid4()
        if snapshot:
            self.put({"type": "file-history-snapshot", "messageId": uid,
                      "snapshot": {"messageId": uid, "trackedFileBackups": {},
                                   "timestamp": self.clock.step(0.01, 0.03)},
                      "isSnapshotUpdate": False})
        rec = self._env("user")
        rec["message"] = {"role": "user", "content": text}
        rec["uuid"] = uid
        rec["timestamp"] = self.clock.step(0.01, 0.05)
        rec.update(extra)
        if not self.agent_id and "isMeta" not in extra:
            rec["thinkingMetadata"] = {"maxThinkingTokens": 31999}
            rec["permissionMode"] = "default"
        self.put(rec)
        return uid

    def meta(self, text: str) -> None:
        rec = self._env("user")
        rec["message"] = {"role": "user", "content": text}
        rec["isMeta"] = True
        rec["uuid"] = self.ids.uuid4()
        rec["timestamp"] = self.clock.step(0.01, 0.05)
        self.put(rec)

    def user_blocks(self, blocks: list[dict[str, Any]]) -> None:
        rec = self._env("user")
        rec["message"] = {"role": "user", "content": blocks}
        rec["uuid"] = self.ids.uuid4()
        rec["timestamp"] = self.clock.step(0.5, 3)
        self.put(rec)

    def system(self, subtype: str, **fields: Any) -> None:
        rec = self._env("system")
        rec["subtype"] = subtype
        rec.update(fields)
        rec["isMeta"] = False
        rec["timestamp"] = self.clock.step(0.01, 0.2)
        rec["uuid"] = self.ids.uuid4()
        self.put(rec)

    def turn_done(self) -> None:
        self.system("turn_duration", durationMs=self.rng.randint(4000, 240000))

    def reply(self, *blocks: dict[str, Any] | _Call, model: str | None = None,
              run_tools: bool = True) -> list[tuple[str, _Call]]:
        """One API message, written as one line per content block (sharing message.id)."""
        model = model or self.model
        msg_id, req_id = self.ids.msg(), self.ids.req()
        self.cache_read += self.rng.randint(200, 3000)
        usage = {"input_tokens": self.rng.randint(1, 8),
                 "cache_creation_input_tokens": self.rng.randint(100, 9000),
                 "cache_read_input_tokens": self.cache_read,
                 "cache_creation": {"ephemeral_5m_input_tokens": 0,
                                    "ephemeral_1h_input_tokens": 0},
                 "output_tokens": 0, "service_tier": "standard",
                 "inference_geo": "not_available"}
        usage["cache_creation"]["ephemeral_1h_input_tokens"] = usage["cache_creation_input_tokens"]
        final_out = self.rng.randint(40, 1400)
        calls: list[tuple[str, _Call]] = []
        self.clock.step(1.0, 6.0)
        for i, b in enumerate(blocks):
            last = i == len(blocks) - 1
            if isinstance(b, _Call):
                tid = self.ids.toolu()
                block: dict[str, Any] = {"type": "tool_use", "id": tid, "name": b.name,
                                         "input": b.input}
                calls.append((tid, b))
            elif b["type"] == "thinking":
                block = dict(b, signature=self.ids.b64(self.rng.randint(180, 420)))
            else:
                block = b
            u = dict(usage, output_tokens=final_out if last else self.rng.randint(1, 12))
            rec = self._env(None)
            rec["message"] = {"model": model, "id": msg_id, "type": "message",
                              "role": "assistant", "content": [block],
                              "stop_reason": None, "stop_sequence": None, "usage": u}
            rec["requestId"] = req_id
            rec["type"] = "assistant"
            rec["uuid"] = self.ids.uuid4()
            rec["timestamp"] = self.clock.step(0.2, 2.5) if i else self.clock.iso()
            self.put(rec)
        assistant_uuid = self.parent
        if run_tools:
            for tid, call in calls:
                self.result(tid, call, assistant_uuid)
        return calls

    def result(self, tid: str, call: _Call, source: str | None) -> None:
        for k in range(call.bash_progress):
            rec = self._env("progress")
            rec["data"] = {"type": "bash_progress",
                           "output": f"running… ({k + 1}s)", "fullOutput": "",
                           "elapsedTimeSeconds": k + 1, "totalLines": 0}
            rec["toolUseID"] = f"bash-progress-{k}"
            rec["parentToolUseID"] = tid
            rec["uuid"] = self.ids.uuid4()
            rec["timestamp"] = self.clock.step(0.9, 1.1)
            self.put(rec, advance=False)
        self.clock.step(call.seconds * 0.7, call.seconds * 1.3)
        rec = self._env("user")
        block = {"tool_use_id": tid, "type": "tool_result", "content": call.content,
                 "is_error": call.is_error}
        rec["message"] = {"role": "user", "content": [block]}
        rec["uuid"] = self.ids.uuid4()
        rec["timestamp"] = self.clock.iso()
        if call.result is not None:
            rec["toolUseResult"] = call.result
        if source:
            rec["sourceToolAssistantUUID"] = source
        self.put(rec)
        if call.name in ("Edit", "Write"):
            # PostToolUse hook: a sibling of the next message, not a link in the chain.
            hook = self._env("progress")
            hook["data"] = {"type": "hook_progress", "hookEvent": "PostToolUse",
                            "hookName": f"PostToolUse:{call.name}", "command": "ruff format"}
            hook["parentToolUseID"] = tid
            hook["toolUseID"] = tid
            hook["timestamp"] = self.clock.step(0.05, 0.3)
            hook["uuid"] = self.ids.uuid4()
            self.put(hook, advance=False)

    def task(self, description: str, prompt: str, subagent_type: str,
             build: Callable[[_Claude], str], model: str = HAIKU) -> _Claude:
        """A Task tool call: `build` writes the subagent's transcript (starting with `prompt`)
        and returns its final report; its messages are mirrored here as agent_progress records,
        then the tool_result. Returns the subagent, for the caller to save."""
        call = _Call("Task", {"description": description, "prompt": prompt,
                              "subagent_type": subagent_type}, None)
        [(tid, _)] = self.reply(_say(f"I'll hand the exploration to a subagent so the main "
                                     f"context stays small: {description.lower()}."), call,
                                run_tools=False)
        task_uuid = self.parent
        sub = self.gen.sub(self, model=model)
        sub.prompt(prompt, think=(0.2, 0.5), snapshot=False)
        final = build(sub)
        for srec in sub.records:
            if srec.get("type") not in ("user", "assistant"):
                continue
            rec = self._env("progress")
            inner = {"type": srec["type"], "message": srec["message"], "uuid": srec["uuid"],
                     "timestamp": srec["timestamp"]}
            if srec["type"] == "assistant":
                inner["requestId"] = srec["requestId"]
            rec["data"] = {"message": inner, "normalizedMessages": [], "type": "agent_progress",
                           "prompt": prompt, "agentId": sub.agent_id}
            rec["toolUseID"] = "agent_" + srec["message"].get("id", "msg_" + srec["uuid"][:8])
            rec["parentToolUseID"] = tid
            rec["uuid"] = self.ids.uuid4()
            rec["timestamp"] = srec["timestamp"]
            self.put(rec, advance=False)
        self.clock.t = max(self.clock.t, sub.clock.t) + timedelta(seconds=0.4)
        tools = sum(1 for r in sub.records if r.get("type") == "assistant"
                    and r["message"]["content"][0]["type"] == "tool_use")
        total_ms = int((sub.clock.t - sub.start).total_seconds() * 1000)
        tokens = self.rng.randint(18000, 60000)
        usage = {"input_tokens": 4, "cache_creation_input_tokens": 900,
                 "cache_read_input_tokens": 29000, "output_tokens": 2100,
                 "service_tier": "standard"}
        content = [_say(final),
                   _say(f"agentId: {sub.agent_id} (for resuming to continue this agent's work if "
                        f"needed)\n<usage>total_tokens: {tokens}\ntool_uses: {tools}\n"
                        f"duration_ms: {total_ms}</usage>")]
        rec = self._env("user")
        rec["message"] = {"role": "user", "content": [
            {"tool_use_id": tid, "type": "tool_result", "content": content}]}
        rec["uuid"] = self.ids.uuid4()
        rec["timestamp"] = self.clock.iso()
        rec["toolUseResult"] = {"status": "completed", "prompt": prompt, "agentId": sub.agent_id,
                                "content": [_say(final)], "totalDurationMs": total_ms,
                                "totalTokens": tokens, "totalToolUseCount": tools,
                                "usage": usage}
        rec["sourceToolAssistantUUID"] = task_uuid
        self.put(rec)
        return sub

    def compact(self, summary: str, pre_tokens: int) -> None:
        leaf = self.parent
        self.clock.step(20, 40)
        rec: dict[str, Any] = {"parentUuid": None, "logicalParentUuid": leaf}
        env = self._env("system")
        env.pop("parentUuid")
        rec.update(env)
        rec.update({"subtype": "compact_boundary", "content": "Conversation compacted",
                    "isMeta": False, "level": "info",
                    "compactMetadata": {"trigger": "auto", "preTokens": pre_tokens},
                    "timestamp": self.clock.iso(), "uuid": self.ids.uuid4()})
        self.put(rec)
        rec = self._env("user")
        rec["message"] = {"role": "user", "content": (
            "This session is being continued from a previous conversation that ran out of "
            "context. The conversation is summarized below:\n" + summary)}
        rec["isVisibleInTranscriptOnly"] = True
        rec["isCompactSummary"] = True
        rec["uuid"] = self.ids.uuid4()
        rec["timestamp"] = self.clock.step(0.05, 0.2)
        self.put(rec)

    def size(self) -> int:
        return sum(len(x) + 1 for x in self.lines)


# -- Codex --------------------------------------------------------------------------------------


class _Codex:
    """Writes one Codex rollout (wrapped format, 0.58-era or 0.104-era shapes)."""

    def __init__(self, gen: _Gen, *, cwd: str, start: datetime, model: str,
                 originator: str = "codex_cli_rs", source: str = "cli",
                 cli_version: str = "0.58.0", branch: str = "main",
                 repo: str = "", new_era: bool = False, effort: str = "medium") -> None:
        self.gen = gen
        self.rng = gen.rng
        self.ids = gen.ids
        self.cwd = cwd
        self.model = model
        self.originator = originator
        self.source = source
        self.cli_version = cli_version
        self.branch = branch
        self.repo = repo
        self.new_era = new_era
        self.effort = effort
        self.start = start
        self.clock = _Clock(start, self.rng)
        self.thread_id = self.ids.uuid7(start)
        self.lines: list[bytes] = []
        self.total = {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0,
                      "reasoning_output_tokens": 0, "total_tokens": 0}
        self.turn_id = ""
        self.last_message = ""

    def put(self, type_: str, payload: dict[str, Any], ts: str | None = None) -> None:
        self.lines.append(orjson.dumps({"timestamp": ts or self.clock.step(0.001, 0.01),
                                        "type": type_, "payload": payload}))

    def meta(self) -> None:
        payload: dict[str, Any] = {
            "id": self.thread_id, "timestamp": _iso(self.start), "cwd": self.cwd,
            "originator": self.originator, "cli_version": self.cli_version,
        }
        if self.new_era:
            payload["source"] = self.source
            payload["model_provider"] = "openai"
            payload["base_instructions"] = {"text": (
                "You are Codex, a coding agent based on GPT-5. You and the user share the same "
                "workspace and collaborate to achieve the user's goals.\n\n# General\n\n- Prefer "
                "`rg` for searching text and files.\n- Keep edits minimal and focused; use "
                "apply_patch for single-file edits.\n" * 6)}
        else:
            payload["instructions"] = None
            payload["source"] = self.source
            payload["model_provider"] = "openai"
        payload["git"] = {"commit_hash": self.ids.hex(40), "branch": self.branch,
                          "repository_url": self.repo}
        self.clock.step(0.05, 0.2)
        self.put("session_meta", payload)

    def _msg(self, role: str, text: str, kind: str = "input_text") -> None:
        self.put("response_item", {"type": "message", "role": role,
                                   "content": [{"type": kind, "text": text}]})

    def user(self, text: str, *, first: bool = False) -> None:
        self.clock.step(10, 120)
        if first:
            if self.new_era:
                self._msg("developer", "<permissions instructions>\nFilesystem sandboxing "
                          "defines which files can be read or written. `sandbox_mode` is "
                          "`workspace-write`.\n</permissions instructions>")
                self._msg("user", f"# AGENTS.md instructions for {self.cwd}\n\n<INSTRUCTIONS>\n"
                          "- Run the test suite before you say a change is done.\n- Never "
                          "commit directly to main.\n</INSTRUCTIONS>")
            self._msg("user", f"<environment_context>\n  <cwd>{self.cwd}</cwd>\n  "
                      "<approval_policy>on-request</approval_policy>\n  <sandbox_mode>"
                      "workspace-write</sandbox_mode>\n  <network_access>restricted"
                      "</network_access>\n  <shell>bash</shell>\n</environment_context>")
        self.turn_id = self.ids.uuid7(self.clock.t)
        if self.new_era:
            self.put("event_msg", {"type": "task_started", "turn_id": self.turn_id,
                                   "model_context_window": 258400,
                                   "collaboration_mode_kind": "default"})
        self._msg("user", text)
        self.put("event_msg", {"type": "user_message", "message": text, "images": [],
                               "local_images": [], "text_elements": []})
        ctx: dict[str, Any] = {"cwd": self.cwd, "approval_policy": "on-request"}
        if self.new_era:
            ctx = {"turn_id": self.turn_id, **ctx,
                   "sandbox_policy": {"type": "workspace-write", "writable_roots": [self.cwd],
                                      "network_access": False,
                                      "exclude_tmpdir_env_var": False,
                                      "exclude_slash_tmp": False},
                   "model": self.model, "personality": "pragmatic", "effort": self.effort,
                   "summary": "auto", "truncation_policy": {"mode": "tokens", "limit": 10000}}
        else:
            ctx.update({"sandbox_policy": {"mode": "workspace-write", "network_access": False},
                        "model": self.model, "effort": self.effort, "summary": "auto"})
        self.put("turn_context", ctx)
        self.put("event_msg", {"type": "token_count", "info": None,
                               "rate_limits": self._limits()})

    def _limits(self) -> dict[str, Any]:
        return {"primary": {"used_percent": float(self.rng.randint(2, 60)), "window_minutes": 300,
                            "resets_at": int(self.clock.t.timestamp()) + 9000},
                "secondary": {"used_percent": float(self.rng.randint(5, 40)),
                              "window_minutes": 10080,
                              "resets_at": int(self.clock.t.timestamp()) + 400000}}

    def _tokens(self) -> None:
        last = {"input_tokens": self.rng.randint(6000, 30000), "cached_input_tokens": 0,
                "output_tokens": self.rng.randint(80, 1500), "reasoning_output_tokens": 0}
        last["cached_input_tokens"] = int(last["input_tokens"] * self.rng.uniform(0.5, 0.95))
        last["reasoning_output_tokens"] = int(last["output_tokens"] * self.rng.uniform(0.2, 0.7))
        last["total_tokens"] = last["input_tokens"] + last["output_tokens"]
        for k, v in last.items():
            self.total[k] += v
        info = {"total_token_usage": dict(self.total), "last_token_usage": last,
                "model_context_window": 258400}
        self.put("event_msg", {"type": "token_count", "info": info,
                               "rate_limits": self._limits()})
        if self.rng.random() < 0.5:  # the known duplicate emission
            self.put("event_msg", {"type": "token_count", "info": info,
                                   "rate_limits": self._limits()})

    def reason(self, summary: str) -> None:
        self.clock.step(2, 9)
        self.put("event_msg", {"type": "agent_reasoning", "text": summary})
        self.put("response_item", {"type": "reasoning",
                                   "summary": [{"type": "summary_text", "text": summary}],
                                   "content": None,
                                   "encrypted_content": "gAAAAA" + self.ids.b64(
                                       self.rng.randint(600, 1600))})

    def say(self, text: str, phase: str = "commentary") -> None:
        self.clock.step(1, 6)
        payload: dict[str, Any] = {"type": "agent_message", "message": text}
        item: dict[str, Any] = {"type": "message", "role": "assistant",
                                "content": [{"type": "output_text", "text": text}]}
        if self.new_era:
            payload["phase"] = phase
            item["phase"] = phase
        self.put("event_msg", payload)
        self.put("response_item", item)
        self.last_message = text

    def shell(self, cmd: str, output: str, *, code: int = 0, seconds: float = 0.8) -> None:
        self.clock.step(1, 4)
        cid = self.ids.call()
        if self.new_era:
            args = {"cmd": cmd, "workdir": self.cwd, "yield_time_ms": 10000,
                    "max_output_tokens": 12000}
            self.put("response_item", {"type": "function_call", "name": "exec_command",
                                       "arguments": orjson.dumps(args).decode(),
                                       "call_id": cid})
            self.clock.step(seconds * 0.8, seconds * 1.2)
            out = (f"Chunk ID: {self.ids.hex(6)}\nWall time: {seconds:.4f} seconds\nProcess "
                   f"exited with code {code}\nOriginal token count: {len(output) // 4}\n"
                   f"Output:\n{output}")
        else:
            args = {"command": ["bash", "-lc", cmd], "workdir": self.cwd, "timeout_ms": 120000}
            self.put("response_item", {"type": "function_call", "name": "shell",
                                       "arguments": orjson.dumps(args).decode(),
                                       "call_id": cid})
            self.clock.step(seconds * 0.8, seconds * 1.2)
            out = orjson.dumps({"output": output, "metadata": {
                "exit_code": code, "duration_seconds": round(seconds, 1)}}).decode()
        self.put("response_item", {"type": "function_call_output", "call_id": cid,
                                   "output": out})
        self._tokens()

    def patch(self, patch: str, files: list[str]) -> None:
        self.clock.step(2, 8)
        cid = self.ids.call()
        self.put("response_item", {"type": "custom_tool_call", "status": "completed",
                                   "call_id": cid, "name": "apply_patch", "input": patch})
        changed = "".join(f"M {f}\n" for f in files)
        out = orjson.dumps({"output": f"Success. Updated the following files:\n{changed}",
                            "metadata": {"exit_code": 0, "duration_seconds": 0.0}}).decode()
        self.put("response_item", {"type": "custom_tool_call_output", "call_id": cid,
                                   "output": out})
        self._tokens()

    def plan(self, steps: list[tuple[str, str]]) -> None:
        cid = self.ids.call()
        args = {"plan": [{"step": s, "status": st} for s, st in steps]}
        self.put("response_item", {"type": "function_call", "name": "update_plan",
                                   "arguments": orjson.dumps(args).decode(), "call_id": cid})
        self.put("response_item", {"type": "function_call_output", "call_id": cid,
                                   "output": "Plan updated"})

    def end(self, final: str) -> None:
        self.say(final, "final_answer")
        self._tokens()
        if self.new_era:
            self.put("event_msg", {"type": "task_complete", "turn_id": self.turn_id,
                                   "last_agent_message": final})

    def size(self) -> int:
        return sum(len(x) + 1 for x in self.lines)


# -- the generator ------------------------------------------------------------------------------


class _Gen:
    def __init__(self, root: Path, now: datetime, seed: int) -> None:
        self.root = root
        self.now = now
        self.rng = random.Random(seed)
        self.ids = _Ids(self.rng)
        self.claude_root = root / "claude"
        self.codex_root = root / "codex"
        self.written: list[tuple[Path, int, datetime]] = []  # path, lines, mtime
        self.bytes = 0
        self.spans: list[tuple[datetime, datetime]] = []  # (start, end) of each main session

    def at(self, days_ago: float, hour: int, minute: int | None = None) -> datetime:
        day = (self.now - timedelta(days=days_ago)).replace(hour=hour, second=0, microsecond=0,
                                                            minute=0)
        if minute is None:
            minute = self.rng.randint(0, 59)
        t = day + timedelta(minutes=minute, seconds=self.rng.uniform(0, 59))
        return min(t, self.now - timedelta(hours=2))

    def _write(self, path: Path, lines: list[bytes], last: datetime) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        data = b"\n".join(lines) + b"\n"
        path.write_bytes(data)
        ts = last.timestamp()
        os.utime(path, (ts, ts))
        self.written.append((path, len(lines), last))
        self.bytes += len(data)

    def claude_path(self, s: _Claude) -> Path:
        return self.claude_root / "projects" / escape_project_dir(s.cwd) / f"{s.session_id}.jsonl"

    def save_claude(self, s: _Claude) -> Path:
        path = self.claude_path(s)
        self._write(path, s.lines, s.clock.t)
        self.spans.append((s.start, s.clock.t))
        return path

    def save_subagent(self, parent: _Claude, sub: _Claude, agent_type: str | None) -> Path:
        d = self.claude_path(parent).with_suffix("") / "subagents"
        path = d / f"agent-{sub.agent_id}.jsonl"
        self._write(path, sub.lines, sub.clock.t)
        if agent_type:
            meta = d / f"agent-{sub.agent_id}.meta.json"
            meta.write_bytes(orjson.dumps({"agentType": agent_type, "spawnDepth": 1}))
            os.utime(meta, (sub.clock.t.timestamp(),) * 2)
        return path

    def save_codex(self, s: _Codex) -> Path:
        t = s.start
        name = f"rollout-{t.strftime('%Y-%m-%dT%H-%M-%S')}-{s.thread_id}.jsonl"
        path = (self.codex_root / "sessions" / t.strftime("%Y") / t.strftime("%m")
                / t.strftime("%d") / name)
        self._write(path, s.lines, s.clock.t)
        self.spans.append((s.start, s.clock.t))
        return path

    def sub(self, parent: _Claude, model: str = HAIKU, agent_id: str | None = None) -> _Claude:
        return _Claude(self, cwd=parent.cwd, branch=parent.branch, start=parent.clock.t,
                       model=model, version=parent.version, slug=parent.slug,
                       session_id=parent.session_id,
                       agent_id=agent_id or ("a" + self.ids.hex(6)))


def generate_demo(root: Path, *, now: datetime | None = None, seed: int = 7) -> DemoCorpus:
    """Write the demo corpus under `root` (created if missing) and describe it.

    Deterministic for a given `seed` and `now` (default: the current time). Existing files of an
    earlier run are overwritten in place; nothing else under `root` is touched.
    """
    now = (now or datetime.now(timezone.utc)).astimezone(timezone.utc)
    root = Path(root)
    g = _Gen(root, now, seed)

    marks: dict[str, Any] = {}
    spans: dict[str, tuple[datetime, datetime]] = {}  # the sessions memory notes are written for

    def noted(key: str, session: Callable[..., Any], *args: Any) -> Any:
        first = len(g.spans)
        out = session(g, marks, *args)
        spans[key] = g.spans[first]
        return out

    c7 = noted("infra-backup", _infra_backup)
    noted("payments-idempotency", _payments_idempotency)
    _dashboard_dark_mode(g, marks)
    _infra_drift(g, marks)
    noted("payments-flaky", _payments_flaky_webhook)
    _payments_rich_markup(g, marks)
    noted("dashboard-charts", _dashboard_charts)
    _ml_big(g, marks)
    noted("payments-todos", _payments_todos)
    noted("dashboard-csv", _dashboard_csv)
    noted("infra-tls", _infra_tls, c7)
    noted("payments-retry", _payments_retry)

    _codex_healthz(g, marks)
    _codex_eslint(g, marks)
    _codex_exec(g, marks)
    _codex_ml_plan(g, marks)
    _codex_fastapi(g, marks)
    _codex_dashboard_i18n(g, marks)

    # After the sessions and without the seeded generator: the transcripts stay byte-identical
    # to a corpus without memory.
    memory_files = _write_memory(root, spans)

    files = [p for p, _, _ in g.written]
    claude_files = [p for p in files if p.is_relative_to(g.claude_root)]
    subagents = [p for p in claude_files if p.parent.name == "subagents"]
    return DemoCorpus(
        root=root,
        claude_root=g.claude_root,
        codex_root=g.codex_root,
        claude_sessions=len(claude_files) - len(subagents),
        claude_subagents=len(subagents),
        codex_sessions=len(files) - len(claude_files),
        files=len(files),
        lines=sum(n for _, n, _ in g.written),
        bytes=g.bytes,
        big_file=marks["big"],
        broken_file=marks["broken"],
        broken_line=marks["broken_line"],
        markup_file=marks["markup"],
        exec_file=marks["exec"],
        paths=tuple(files),
        memory_dirs={p: _workspace(root, p) / "memory" for p in _MEMORY_PROJECTS},
        project_dirs={p: _workspace(root, p) for p in _MEMORY_PROJECTS},
        memory_files=tuple(memory_files),
    )


# -- the sessions -------------------------------------------------------------------------------
# Each writes one conversation. The text is plausible developer talk, including the phrasings a
# later feature mines for decisions ("let's use X instead of Y"), corrections ("that didn't work,
# reverting"), outcomes ("tests pass") and open questions ("still open: ...").

_CHARGES_PY = '''from fastapi import APIRouter, Depends, Header, HTTPException
from sqlalchemy.orm import Session

from payments.db import get_session
from payments.models import Charge
from payments.schemas import ChargeIn, ChargeOut
from payments.stripe_client import create_payment_intent

router = APIRouter(prefix="/charges", tags=["charges"])


@router.post("", response_model=ChargeOut, status_code=201)
def create_charge(body: ChargeIn, db: Session = Depends(get_session)) -> ChargeOut:
    intent = create_payment_intent(body.amount_cents, body.currency, body.customer_id)
    charge = Charge(intent_id=intent.id, amount_cents=body.amount_cents, currency=body.currency)
    db.add(charge)
    db.commit()
    return ChargeOut.model_validate(charge)'''

_PYTEST_FAIL = '''============================= test session starts ==============================
platform linux -- Python 3.12.7, pytest-8.3.4, pluggy-1.5.0
rootdir: /home/dev/projects/payments-api
configfile: pyproject.toml
plugins: anyio-4.6.2, cov-6.0.0
collected 48 items

tests/test_charges.py ......F.                                           [ 16%]
tests/test_refunds.py ..........                                         [ 37%]
tests/test_webhooks.py ..............                                    [ 66%]
tests/test_customers.py ................                                 [100%]

=================================== FAILURES ===================================
__________________ test_replayed_request_returns_same_charge ___________________

client = <starlette.testclient.TestClient object at 0x7f3a2c1d5e50>
redis = <fakeredis.FakeRedis(...)>

    def test_replayed_request_returns_same_charge(client, redis):
        headers = {"Idempotency-Key": "7b1c7e0e-2f0a-4a43-9d55-1f8f3c0e9a11"}
        first = client.post("/charges", json=CHARGE, headers=headers)
        second = client.post("/charges", json=CHARGE, headers=headers)
>       assert second.status_code == 200
E       assert 409 == 200
E        +  where 409 = <Response [409]>.status_code

tests/test_charges.py:88: AssertionError
=========================== short test summary info ============================
FAILED tests/test_charges.py::test_replayed_request_returns_same_charge - assert 409 == 200
========================= 1 failed, 47 passed in 3.41s ========================='''


def _payments_idempotency(g: _Gen, marks: dict[str, Any]) -> None:
    s = _Claude(g, cwd=PAYMENTS, branch="feat/idempotency-keys", start=g.at(20, 9),
                model=OPUS, slug="steady-humming-lantern")
    s.hooks_start()
    s.prompt("Add idempotency keys to POST /charges. Clients retry on timeouts and we've seen "
             "double charges in prod twice this month. Header should be `Idempotency-Key`, "
             "optional for now.")
    s.reply(_think("The user wants idempotency on charge creation. I should look at the router "
                   "and whatever storage exists. Options: a unique column on charges, a Postgres "
                   "advisory lock, or Redis. Let me read the code first."),
            _say("Let me look at how charges are created today."),
            read(f"{PAYMENTS}/payments/routers/charges.py", _CHARGES_PY, total=19),
            grep("redis|Redis", "payments/cache.py:3:import redis\npayments/cache.py:9:def "
                 "get_redis() -> redis.Redis:\npayments/settings.py:14:    redis_url: str = "
                 "\"redis://localhost:6379/0\"", path=PAYMENTS))
    s.reply(_say("There's already a Redis client in `payments/cache.py`. Two ways to do this:\n\n"
                 "1. **Postgres advisory lock** keyed on a hash of the idempotency key, held for "
                 "the request, plus a unique column to remember the result.\n"
                 "2. **Redis `SET NX` with a TTL**: reserve the key, store the response once the "
                 "charge exists, return the stored response on replay.\n\n"
                 "The advisory lock keeps everything in one database but pins a connection for "
                 "the whole Stripe round-trip (p99 is ~1.8 s). Which do you prefer?"))
    s.turn_done()
    s.prompt("Let's use Redis SET NX instead of a Postgres advisory lock — the lock holds a "
             "connection for the whole request and we're already short on pool slots. TTL 24h.")
    s.reply(_think("Decision: Redis SET NX, 24h TTL. Reserve with a sentinel, then store the "
                   "serialized ChargeOut. Replays of an in-flight request should get 409, "
                   "completed ones 200 with the stored body."),
            todo([("Add idempotency helper in payments/idempotency.py", "in_progress"),
                  ("Wire the Idempotency-Key header into POST /charges", "pending"),
                  ("Tests for replay and in-flight cases", "pending")]),
            write(f"{PAYMENTS}/payments/idempotency.py", '''"""Idempotency keys for mutating endpoints, stored in Redis for 24 hours."""
from __future__ import annotations

import json
from dataclasses import dataclass

import redis

TTL_SECONDS = 24 * 3600
IN_FLIGHT = "__in_flight__"


@dataclass(frozen=True)
class Reservation:
    key: str
    stored: dict | None  # the earlier response, if the request already completed


def reserve(r: redis.Redis, scope: str, key: str) -> Reservation | None:
    """Reserve `key`; None if another request holds it right now."""
    full = f"idem:{scope}:{key}"
    if r.set(full, IN_FLIGHT, nx=True, ex=TTL_SECONDS):
        return Reservation(full, None)
    value = r.get(full)
    if value is None or value == IN_FLIGHT.encode():
        return None
    return Reservation(full, json.loads(value))


def complete(r: redis.Redis, reservation: Reservation, response: dict) -> None:
    r.set(reservation.key, json.dumps(response), ex=TTL_SECONDS)
'''))
    s.reply(edit(f"{PAYMENTS}/payments/routers/charges.py",
                 "def create_charge(body: ChargeIn, db: Session = Depends(get_session)) -> ChargeOut:\n"
                 "    intent = create_payment_intent(body.amount_cents, body.currency, body.customer_id)",
                 "def create_charge(\n    body: ChargeIn,\n    db: Session = Depends(get_session),\n"
                 "    r: redis.Redis = Depends(get_redis),\n"
                 "    idempotency_key: str | None = Header(default=None),\n) -> ChargeOut:\n"
                 "    reservation = None\n    if idempotency_key:\n"
                 "        reservation = reserve(r, \"charges\", idempotency_key)\n"
                 "        if reservation is None:\n"
                 "            raise HTTPException(409, \"request with this key is in flight\")\n"
                 "        if reservation.stored is not None:\n"
                 "            return ChargeOut.model_validate(reservation.stored)\n"
                 "    intent = create_payment_intent(body.amount_cents, body.currency, body.customer_id)",
                 line=13, context=_CHARGES_PY))
    s.reply(_say("Now the tests."),
            bash("uv run pytest -q", _PYTEST_FAIL, "Run the test suite", code=1, progress=3,
                 seconds=4.0))
    s.reply(_think("409 on the second request: the first request never called complete(), so "
                   "the key stays IN_FLIGHT. I forgot to store the response after commit."),
            _say("The replay gets 409 because the first request never stores its response — "
                 "I forgot to call `complete()` after the commit. Fixing:"),
            edit(f"{PAYMENTS}/payments/routers/charges.py",
                 "    db.commit()\n    return ChargeOut.model_validate(charge)",
                 "    db.commit()\n    out = ChargeOut.model_validate(charge)\n"
                 "    if reservation is not None:\n"
                 "        complete(r, reservation, out.model_dump(mode=\"json\"))\n    return out",
                 line=30))
    s.reply(bash("uv run pytest -q", "................................................ "
                 "[100%]\n48 passed in 3.12s", "Run the test suite", progress=3, seconds=3.6))
    s.reply(_say("All 48 tests pass.\n\n## Summary\n\n- `payments/idempotency.py`: `reserve()` "
                 "does `SET key __in_flight__ NX EX 86400`; `complete()` overwrites it with the "
                 "serialized response.\n- `POST /charges` reads the optional `Idempotency-Key` "
                 "header: a replay of a finished request returns the stored charge (200), a "
                 "replay while the first is still running gets **409**.\n\n```bash\ncurl -X POST "
                 "localhost:8000/charges -H 'Idempotency-Key: 5d6f…' -d @charge.json\n```\n\n"
                 "Still open: should a request that fails at Stripe release the key so the "
                 "client can retry immediately, or keep it for the full 24 h?"))
    s.turn_done()
    g.save_claude(s)


def _payments_flaky_webhook(g: _Gen, marks: dict[str, Any]) -> None:
    s = _Claude(g, cwd=PAYMENTS, branch="fix/flaky-webhook-retry", start=g.at(15, 14),
                model=OPUS, version="2.1.39", slug="quiet-orbiting-falcon")
    s.hooks_start()
    s.prompt("tests/test_webhooks.py::test_retry_backoff fails maybe 1 in 10 runs on CI. "
             "Can you figure out why?")
    s.reply(_say("Let me reproduce it first."),
            bash("for i in $(seq 1 20); do uv run pytest -q tests/test_webhooks.py::"
                 "test_retry_backoff -p no:randomly 2>&1 | tail -1; done",
                 "\n".join(["1 passed in 0.41s"] * 7 + ["1 failed in 0.52s"]
                           + ["1 passed in 0.40s"] * 9 + ["1 failed in 0.49s"]
                           + ["1 passed in 0.43s"] * 2),
                 "Run the flaky test 20 times", progress=6, seconds=9.0))
    s.reply(_say("2 failures in 20. My first guess is timing: the test sleeps 0.1 s and expects "
                 "the retry to have happened. I'll bump the sleep to see if it goes away."),
            edit(f"{PAYMENTS}/tests/test_webhooks.py", "    time.sleep(0.1)",
                 "    time.sleep(0.5)", line=61))
    s.reply(bash("for i in $(seq 1 20); do uv run pytest -q tests/test_webhooks.py::"
                 "test_retry_backoff -p no:randomly 2>&1 | tail -1; done",
                 "\n".join(["1 passed in 0.82s"] * 12 + ["1 failed in 0.91s"]
                           + ["1 passed in 0.80s"] * 7),
                 "Run the flaky test 20 times", progress=8, seconds=17.0))
    s.reply(_say("That didn't work, reverting the sleep change — it still fails and only makes "
                 "the test slower. The sleep isn't the real race."),
            edit(f"{PAYMENTS}/tests/test_webhooks.py", "    time.sleep(0.5)",
                 "    time.sleep(0.1)", line=61))
    s.turn_done()
    s.prompt("ok. dig through how the retry scheduler computes the delay, I suspect jitter")
    sub_prompt = ("Find how webhook retries compute their delay in payments/webhooks/. Report the "
                  "function, the formula, any randomness (jitter) and where the clock comes "
                  "from. Quote file:line for each finding. Do not edit files.")

    def explore(sub: _Claude) -> str:
        sub.reply(_say("I'll search the webhook package for the retry logic."),
                  grep("def .*delay|backoff|jitter", "payments/webhooks/retry.py:12:def "
                       "next_delay(attempt: int) -> float:\npayments/webhooks/retry.py:14:    "
                       "base = min(2 ** attempt, 300)\npayments/webhooks/retry.py:15:    return "
                       "base + random.uniform(0, base)  # full jitter\npayments/webhooks/"
                       "scheduler.py:31:        delay = next_delay(job.attempt)",
                       path=f"{PAYMENTS}/payments/webhooks"))
        sub.reply(read(f"{PAYMENTS}/payments/webhooks/scheduler.py",
                       "class RetryScheduler:\n    def __init__(self, clock=time.monotonic):\n"
                       "        self._clock = clock\n\n    def due(self, job) -> bool:\n"
                       "        delay = next_delay(job.attempt)\n"
                       "        return self._clock() - job.failed_at >= delay", start=27,
                       total=58))
        sub.reply(_say("Findings:\n\n- `payments/webhooks/retry.py:12` `next_delay(attempt)` = "
                       "`min(2**attempt, 300) + random.uniform(0, base)` — **full jitter**, so "
                       "attempt 1 waits between 2 and 4 s.\n- `payments/webhooks/scheduler.py:31` "
                       "calls `next_delay()` *inside* `due()`, so the delay is re-drawn on every "
                       "check: a job can be due on one poll and not due on the next.\n- The clock "
                       "is `time.monotonic`, injectable through `RetryScheduler(clock=...)`."))
        return ("Findings: next_delay() adds full jitter and scheduler.due() re-draws it on every "
                "poll (payments/webhooks/scheduler.py:31); the clock is injectable.")

    sub = s.task("Trace retry delay computation", sub_prompt, "Explore", explore)
    g.save_subagent(s, sub, "Explore")
    s.reply(_think("The real bug: due() recomputes a random delay each call, so the test's "
                   "assertion depends on the random draw. Fix: compute the delay once when the "
                   "job fails and store next_attempt_at. In the test, use a fake clock and seed."),
            _say("Found it. `RetryScheduler.due()` draws a **new random delay on every poll**, so "
                 "whether a job is due flips between calls. The fix is to compute the delay once "
                 "when the attempt fails and store `next_attempt_at` on the job; the test then "
                 "drives a fake clock instead of sleeping."),
            edit(f"{PAYMENTS}/payments/webhooks/scheduler.py",
                 "        delay = next_delay(job.attempt)\n"
                 "        return self._clock() - job.failed_at >= delay",
                 "        return self._clock() >= job.next_attempt_at", line=31))
    s.reply(bash("uv run pytest -q tests/test_webhooks.py --count 50",
                 "........................................................................ "
                 "[100%]\n700 passed in 6.02s", "Run webhook tests 50 times", progress=6,
                 seconds=6.5))
    s.reply(_say("Tests pass 50× in a row now (700 runs). Still open: `next_attempt_at` needs a "
                 "migration for jobs already queued in prod — right now they'd have it as NULL."))
    s.turn_done()
    g.save_claude(s)


def _payments_rich_markup(g: _Gen, marks: dict[str, Any]) -> None:
    s = _Claude(g, cwd=PAYMENTS, branch="main", start=g.at(14, 11), model=SONNET,
                slug="brittle-copper-kettle")
    s.hooks_start()
    s.prompt("The reconcile CLI prints `[bold red]ERROR[/bold red]` literally in the CI logs "
             "instead of coloring it, and locally I get raw escapes like \x1b[31mFAILED\x1b[0m "
             "when I pipe to less. What's going on? Example: [bold]x[/bold] shows up verbatim.")
    s.reply(bash("uv run payments reconcile --date 2026-01-31 2>&1 | head -5",
                 "\x1b[1m\x1b[31mERROR\x1b[0m  ledger mismatch for acct_1Qx… (Δ 1250 cents)\n"
                 "[bold red]ERROR[/bold red] [link=https://dash.example/acct_1Qx]acct_1Qx[/link]"
                 " needs review\n\x1b[33mWARN\x1b[0m   3 payouts pending > 48h\n"
                 "[dim]done in 2.4s[/dim]", "Reproduce the CLI output"),
            grep("print\\(|console\\.", "payments/cli/reconcile.py:40:    print(f\"[bold red]"
                 "ERROR[/bold red] {link(acct)} needs review\")\npayments/cli/reconcile.py:52:"
                 "    console.print(f\"[dim]done in {elapsed:.1f}s[/dim]\")",
                 path=f"{PAYMENTS}/payments/cli"))
    s.reply(_say("Two separate problems:\n\n1. Line 40 uses the builtin `print()` with Rich "
                 "markup in the string, so `[bold red]…[/bold red]` is never interpreted.\n"
                 "2. `console.print` forces color even when stdout isn't a TTY, which is why "
                 "`less` shows `\\x1b[31m`.\n\nAlso note the account id comes from the bank feed: "
                 "if it ever contains `[` Rich would treat it as markup. I'll escape it with "
                 "`rich.markup.escape`."),
            edit(f"{PAYMENTS}/payments/cli/reconcile.py",
                 "    print(f\"[bold red]ERROR[/bold red] {link(acct)} needs review\")",
                 "    console.print(f\"[bold red]ERROR[/bold red] {escape(acct)} needs review\")",
                 line=40))
    s.reply(_say("Let's use `Console(force_terminal=None)` (auto-detect) instead of stripping "
                 "escapes after the fact."),
            edit(f"{PAYMENTS}/payments/cli/__init__.py",
                 "console = Console(force_terminal=True)", "console = Console()", line=8),
            bash("uv run payments reconcile --date 2026-01-31 | cat | head -3",
                 "ERROR  ledger mismatch for acct_1Qx… (Δ 1250 cents)\nERROR acct_1Qx needs "
                 "review\nWARN   3 payouts pending > 48h", "Check plain output when piped"))
    s.reply(_say("Piped output is plain now and the TTY output keeps its colors. Tests pass "
                 "(`uv run pytest tests/cli -q`: 12 passed)."))
    s.turn_done()
    marks["markup"] = g.save_claude(s)


def _payments_todos(g: _Gen, marks: dict[str, Any]) -> None:
    s = _Claude(g, cwd=PAYMENTS, branch="main", start=g.at(6, 16), model=SONNET,
                version="2.1.39", slug="gentle-rolling-meadow")
    s.meta("<local-command-caveat>Caveat: The messages below were generated by the user while "
           "running local commands. DO NOT respond to these messages or otherwise consider them "
           "in your response unless the user explicitly asks you to.</local-command-caveat>")
    s.prompt("<command-name>/clear</command-name>\n            <command-message>clear"
             "</command-message>\n            <command-args></command-args>",
             think=(1, 3), snapshot=False)
    s.prompt("<local-command-stdout></local-command-stdout>", think=(0.1, 0.3), snapshot=False)
    s.prompt("summarize the open TODOs and FIXMEs in this repo, grouped by module")
    s.reply(grep("TODO|FIXME", "payments/routers/refunds.py:22:    # TODO: partial refunds "
                 "over multiple captures\npayments/webhooks/retry.py:9:# FIXME: cap total retry "
                 "window at 72h\npayments/idempotency.py:11:# TODO: release key when Stripe "
                 "fails?\npayments/models.py:48:    # TODO: drop legacy_customer_ref after the "
                 "March migration\ntests/conftest.py:30:# FIXME: fakeredis doesn't support "
                 "SET GET", path=PAYMENTS))
    s.reply(_say("| module | item |\n|---|---|\n| routers/refunds | partial refunds over "
                 "multiple captures |\n| webhooks/retry | cap the total retry window at 72 h |\n"
                 "| idempotency | release the key when Stripe fails? (still open from the "
                 "idempotency work) |\n| models | drop `legacy_customer_ref` after the March "
                 "migration |\n| tests/conftest | fakeredis lacks `SET … GET` |"))
    s.turn_done()
    g.save_claude(s)


def _payments_retry(g: _Gen, marks: dict[str, Any]) -> None:
    # The most recent session: started a few hours before `now`.
    start = g.now - timedelta(hours=3, minutes=g.rng.randint(0, 40))
    s = _Claude(g, cwd=PAYMENTS, branch="refactor/retry-policy", start=start,
                model=OPUS, version="2.1.39", slug="nimble-frosted-harbor")
    s.hooks_start()
    s.prompt("Refactor the retry settings (max_attempts, base_delay, cap) into a RetryPolicy "
             "dataclass and pass it into the scheduler.")
    s.reply(_think("Small refactor. Find all the places those settings are read."),
            grep("max_attempts|base_delay|retry_cap", "payments/settings.py:21:    "
                 "webhook_max_attempts: int = 8\npayments/settings.py:22:    webhook_base_delay: "
                 "float = 2.0\npayments/settings.py:23:    webhook_retry_cap: float = 300.0\n"
                 "payments/webhooks/retry.py:14:    base = min(settings.webhook_base_delay * 2 ** "
                 "attempt, settings.webhook_retry_cap)", path=PAYMENTS))
    s.reply(write(f"{PAYMENTS}/payments/webhooks/policy.py", '''from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    max_attempts: int = 8
    base_delay: float = 2.0
    cap: float = 300.0

    def delay(self, attempt: int, jitter: float) -> float:
        base = min(self.base_delay * 2 ** attempt, self.cap)
        return base + jitter * base
'''))
    s.reply(bash("uv run pytest -q tests/test_webhooks.py", "..............          [100%]\n"
                 "14 passed in 0.88s", "Run webhook tests"))
    s.reply(_say("`RetryPolicy` is in `payments/webhooks/policy.py` and the webhook tests pass. "
                 "Should the policy be per-endpoint (merchants asked for slower retries) or stay "
                 "global?"))
    s.turn_done()
    s.prompt("per-endpoint eventually, global for now. keep going with the scheduler wiring")
    s.reply(_say("Wiring `RetryPolicy` into `RetryScheduler.__init__` next."),
            read(f"{PAYMENTS}/payments/webhooks/scheduler.py",
                 "class RetryScheduler:\n    def __init__(self, clock=time.monotonic):\n"
                 "        self._clock = clock", start=27, total=58))
    g.save_claude(s)


_THEME_TSX = '''import { useEffect, useState } from "react";

export function useTheme() {
  const [theme, setTheme] = useState<"light" | "dark">("light");
  useEffect(() => {
    const saved = localStorage.getItem("theme");
    if (saved === "dark" || saved === "light") setTheme(saved);
  }, []);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem("theme", theme);
  }, [theme]);
  return { theme, toggle: () => setTheme(t => (t === "dark" ? "light" : "dark")) };
}'''


def _dashboard_dark_mode(g: _Gen, marks: dict[str, Any]) -> None:
    s = _Claude(g, cwd=DASHBOARD, branch="main", start=g.at(18, 10), model=SONNET,
                slug="amber-sleepy-otter")
    s.hooks_start()
    s.prompt("When dark mode is saved, the page flashes white for a frame on every load. Fix "
             "it please.")
    s.reply(_say("Let me look at how the theme is applied."),
            read(f"{DASHBOARD}/src/hooks/useTheme.ts", _THEME_TSX, total=14))
    s.reply(_think("Classic FOUC: the theme is applied in useEffect, after first paint. Options: "
                   "a blocking inline script in index.html that sets data-theme before React "
                   "mounts, or CSS prefers-color-scheme. The saved preference is in "
                   "localStorage, so it has to be a script."),
            _say("The theme is applied in `useEffect`, which runs **after** the first paint — "
                 "that's the white frame. Let's use a tiny blocking inline script in "
                 "`index.html` instead of the effect, so `data-theme` is set before anything "
                 "renders."),
            edit(f"{DASHBOARD}/index.html", "  <head>\n    <meta charset=\"UTF-8\" />",
                 "  <head>\n    <meta charset=\"UTF-8\" />\n    <script>\n      (function () {\n"
                 "        var t = localStorage.getItem(\"theme\");\n        if (t === \"dark\" || "
                 "t === \"light\") document.documentElement.dataset.theme = t;\n      })();\n"
                 "    </script>", line=3),
            edit(f"{DASHBOARD}/src/hooks/useTheme.ts",
                 "  const [theme, setTheme] = useState<\"light\" | \"dark\">(\"light\");",
                 "  const [theme, setTheme] = useState<\"light\" | \"dark\">(\n"
                 "    () => (document.documentElement.dataset.theme as \"light\" | \"dark\") ?? "
                 "\"light\"\n  );", line=4, context=_THEME_TSX))
    s.reply(bash("npm test -- --run", " ✓ src/hooks/useTheme.test.ts (4 tests) 22ms\n ✓ "
                 "src/components/Header.test.tsx (6 tests) 41ms\n\n Test Files  2 passed (2)\n"
                 "      Tests  10 passed (10)\n   Duration  1.37s", "Run vitest", progress=1))
    s.reply(_say("Fixed: the inline script sets the theme before first paint and the hook now "
                 "initialises from it. Tests pass (10/10). I checked with the network throttled "
                 "to Slow 3G — no flash."))
    s.turn_done()
    g.save_claude(s)


def _dashboard_charts(g: _Gen, marks: dict[str, Any]) -> None:
    s = _Claude(g, cwd=DASHBOARD, branch="feat/visx-charts", start=g.at(12, 13), model=OPUS,
                version="2.1.39", slug="wandering-paper-crane")
    s.hooks_start()
    s.prompt("We need to get rid of chart.js, it's 200 KB of our bundle. Migrate the revenue "
             "and volume charts.")
    for i, name in enumerate(["RevenueChart", "VolumeChart", "ChurnChart", "MrrChart"]):
        s.reply(_say(f"Looking at `{name}`."),
                read(f"{DASHBOARD}/src/charts/{name}.tsx",
                     f"import {{ Line }} from \"react-chartjs-2\";\nimport {{ useSeries }} from "
                     f"\"../data\";\n\nexport function {name}() {{\n  const series = useSeries("
                     f"\"{name.lower()}\");\n  return <Line data={{toChartJs(series)}} options="
                     f"{{OPTIONS}} />;\n}}", total=9))
        if i == 0:
            s.reply(_say("Options I see: **recharts** (~95 KB gz, declarative), **visx** "
                         "(~25 KB for what we use, lower level), or keeping chart.js with tree "
                         "shaking (saves maybe 40 KB). Let's use visx instead of recharts: we only "
                         "draw lines and bars, and visx lets us reuse the design tokens directly."))
        s.reply(bash("npx vite build 2>&1 | tail -3", f"dist/assets/index-{g.ids.hex(8)}.js  "
                     f"{612 - 38 * i}.{g.rng.randint(10, 99)} kB │ gzip: {201 - 12 * i}.0"
                     f"{g.rng.randint(1, 9)} kB\n✓ built in 4.{g.rng.randint(1, 9)}s",
                     "Check bundle size", progress=2))
    s.compact("Analysis:\nThe user asked to replace chart.js with a lighter library. We chose "
              "visx over recharts (smaller, we only need line and bar charts). RevenueChart, "
              "VolumeChart, ChurnChart and MrrChart were read; the bundle is 612 kB before the "
              "change.\n\nPending tasks:\n- Write src/charts/LineChart.tsx on visx\n- Port the "
              "four charts\n- Remove chart.js and react-chartjs-2 from package.json", 161203)
    sub = g.sub(s, model=SONNET, agent_id="acompact-" + g.ids.hex(6))
    # Its first record points at the pre-compaction leaf in the main file: dangling here.
    sub.parent = s.records[-2]["logicalParentUuid"]
    sub.prompt("Your task is to create a detailed summary of the conversation so far, paying "
               "close attention to the user's explicit requests and your previous actions.",
               think=(0.1, 0.2), snapshot=False)
    sub.reply(_say("<analysis>\nThe user wants chart.js gone. visx was chosen over recharts.\n"
                   "</analysis>\n<summary>\n1. Primary Request: replace chart.js...\n</summary>"))
    g.save_subagent(s, sub, None)
    s.reply(write(f"{DASHBOARD}/src/charts/LineChart.tsx", '''import { AxisBottom, AxisLeft } from "@visx/axis";
import { scaleLinear, scaleTime } from "@visx/scale";
import { LinePath } from "@visx/shape";
import { tokens } from "../theme/tokens";

export interface Point { t: Date; v: number }

export function LineChart({ data, width, height }: { data: Point[]; width: number; height: number }) {
  const x = scaleTime({ domain: [data[0].t, data[data.length - 1].t], range: [40, width - 8] });
  const y = scaleLinear({ domain: [0, Math.max(...data.map(d => d.v))], range: [height - 24, 8], nice: true });
  return (
    <svg width={width} height={height}>
      <LinePath data={data} x={d => x(d.t)} y={d => y(d.v)} stroke={tokens.accent} strokeWidth={2} />
      <AxisBottom top={height - 24} scale={x} numTicks={6} />
      <AxisLeft left={40} scale={y} numTicks={4} />
    </svg>
  );
}
'''))
    s.reply(bash("npm uninstall chart.js react-chartjs-2 && npx vite build 2>&1 | tail -2",
                 "removed 2 packages, and audited 412 packages in 2s\ndist/assets/index-"
                 f"{g.ids.hex(8)}.js  409.77 kB │ gzip: 133.40 kB\n✓ built in 3.9s",
                 "Remove chart.js and rebuild", progress=3))
    s.reply(_say("Bundle went from **612 kB → 410 kB** (gzip 201 → 133 kB). The four charts "
                 "render through the shared `LineChart`; tooltips are still open — visx needs "
                 "`@visx/tooltip` and I'd like your call on whether we want crosshairs."))
    s.turn_done()
    g.save_claude(s)


def _dashboard_csv(g: _Gen, marks: dict[str, Any]) -> None:
    s = _Claude(g, cwd=DASHBOARD, branch="feat/csv-export", start=g.at(4, 15), model=SONNET,
                version="2.1.39", slug="crisp-northern-willow")
    s.hooks_start()
    s.prompt("Add CSV export to the transactions table. The button should say „Exportieren“ in "
             "the de locale 🙂 and respect the current filters.")
    s.reply(grep("useTransactions", "src/pages/Transactions.tsx:12:  const { rows, filters } = "
                 "useTransactions();\nsrc/data/transactions.ts:30:export function "
                 "useTransactions() {", path=f"{DASHBOARD}/src"),
            write(f"{DASHBOARD}/src/lib/csv.ts", '''export function toCsv(rows: Record<string, unknown>[]): string {
  if (rows.length === 0) return "";
  const cols = Object.keys(rows[0]);
  const esc = (v: unknown) => {
    const s = String(v ?? "");
    return /[",\\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
  };
  return [cols.join(","), ...rows.map(r => cols.map(c => esc(r[c])).join(","))].join("\\n");
}
'''))
    s.reply(bash("npm test -- --run src/lib", " ❯ src/lib/csv.test.ts (3 tests | 1 failed)\n"
                 "   × escapes newlines inside quoted fields\n     → expected 'a,\"b\\nc\"' to "
                 "equal 'a,\"b\\r\\nc\"'\n\n Test Files  1 failed (1)\n      Tests  1 failed | 2 "
                 "passed (3)", "Run csv tests", code=1))
    s.reply(_say("The test expects CRLF line endings (RFC 4180, and Excel on Windows wants "
                 "them). Switching the row separator to `\\r\\n`."),
            edit(f"{DASHBOARD}/src/lib/csv.ts", '.join("\\n");', '.join("\\r\\n");', line=8))
    s.reply(bash("npm test -- --run src/lib", " ✓ src/lib/csv.test.ts (3 tests) 4ms\n\n Test "
                 "Files  1 passed (1)\n      Tests  3 passed (3)", "Run csv tests"))
    s.reply(_say("Export works and respects filters; the button label comes from "
                 "`t(\"export\")` (de: „Exportieren“). Tests pass.\n\nStill open: do we need to "
                 "stream exports over 50k rows? Right now the whole CSV is built in memory in the "
                 "browser."))
    s.turn_done()
    g.save_claude(s)


_PLAN_DRIFT = '''Terraform used the selected providers to generate the following execution plan.
Resource actions are indicated with the following symbols:
  ~ update in-place

Terraform will perform the following actions:

  # aws_db_parameter_group.main will be updated in-place
  ~ resource "aws_db_parameter_group" "main" {
        id     = "payments-pg16"
        name   = "payments-pg16"
        # (3 unchanged attributes hidden)

      - parameter {
          - apply_method = "pending-reboot" -> null
          - name         = "max_connections" -> null
          - value        = "400" -> null
        }
      + parameter {
          + apply_method = "immediate"
          + name         = "max_connections"
          + value        = "400"
        }
    }

Plan: 0 to add, 1 to change, 0 to destroy.'''


def _infra_drift(g: _Gen, marks: dict[str, Any]) -> None:
    s = _Claude(g, cwd=INFRA, branch="main", start=g.at(17, 8), model=SONNET,
                slug="patient-granite-heron")
    s.hooks_start()
    s.prompt("terraform plan in envs/staging shows a diff on the RDS parameter group every "
             "single time, even right after apply. Why?")
    s.reply(bash("cd envs/staging && terraform plan -no-color -target=aws_db_parameter_group.main",
                 _PLAN_DRIFT, "Show the drifting plan", progress=4, seconds=7.0))
    s.reply(_think("max_connections is a static parameter: AWS stores apply_method "
                   "pending-reboot regardless of what we send. Our config says immediate, so "
                   "the diff never converges."),
            _say("`max_connections` is a **static** parameter, so RDS always stores it with "
                 "`apply_method = \"pending-reboot\"`; our module sends `immediate`, so the plan "
                 "never converges. Setting it explicitly:"),
            edit(f"{INFRA}/modules/rds/params.tf",
                 "  parameter {\n    name  = \"max_connections\"\n    value = var.max_connections\n  }",
                 "  parameter {\n    name         = \"max_connections\"\n    value        = "
                 "var.max_connections\n    apply_method = \"pending-reboot\"\n  }", line=18))
    s.reply(bash("cd envs/staging && terraform plan -no-color -target=aws_db_parameter_group.main"
                 " | tail -1", "No changes. Your infrastructure matches the configuration.",
                 "Re-plan", progress=4, seconds=6.5))
    s.reply(_say("Plan is clean now. Still open: whether to bump `max_connections` in prod "
                 "(currently 400) before the Black Friday load test — that needs a reboot "
                 "window."))
    s.turn_done()
    g.save_claude(s)


def _infra_backup(g: _Gen, marks: dict[str, Any]) -> _Claude:
    s = _Claude(g, cwd=INFRA, branch="feat/pg-backups", start=g.at(10, 17), model=SONNET,
                version="2.1.38", slug="silver-tidal-badger")
    s.hooks_start()
    s.prompt("Write a k8s CronJob that dumps the staging Postgres nightly to s3://dev-backups "
             "and keeps 14 days.")
    s.reply(write(f"{INFRA}/k8s/staging/pg-backup-cronjob.yaml", '''apiVersion: batch/v1
kind: CronJob
metadata:
  name: pg-backup
  namespace: payments
spec:
  schedule: "17 2 * * *"
  concurrencyPolicy: Forbid
  jobTemplate:
    spec:
      backoffLimit: 2
      template:
        spec:
          restartPolicy: OnFailure
          serviceAccountName: pg-backup
          containers:
            - name: dump
              image: postgres:16-alpine
              envFrom:
                - secretRef: { name: pg-backup-env }
              command: ["/bin/sh", "-c"]
              args:
                - pg_dump -Fc "$DATABASE_URL" | aws s3 cp - "s3://dev-backups/pg/$(date +%F).dump"
'''))
    s.reply(bash("kubectl apply --dry-run=server -f k8s/staging/pg-backup-cronjob.yaml",
                 "cronjob.batch/pg-backup created (server dry run)", "Validate against the API"))
    s.broken()
    s.prompt("the image has no aws cli. use a lifecycle rule for the 14 days instead of "
             "deleting from the job")
    s.reply(_say("Right — `postgres:16-alpine` has no `aws`. I'll switch to an image with both "
                 "and move retention to an S3 lifecycle rule (let's use a lifecycle rule instead "
                 "of a cleanup step in the job)."),
            edit(f"{INFRA}/k8s/staging/pg-backup-cronjob.yaml",
                 "              image: postgres:16-alpine",
                 "              image: ghcr.io/acme/pg-tools:16", line=17),
            write(f"{INFRA}/modules/backups/lifecycle.tf", '''resource "aws_s3_bucket_lifecycle_configuration" "pg" {
  bucket = aws_s3_bucket.dev_backups.id
  rule {
    id     = "expire-pg-dumps"
    status = "Enabled"
    filter { prefix = "pg/" }
    expiration { days = 14 }
  }
}
'''))
    s.reply(_say("Done. The first scheduled run is tonight at 02:17 UTC; I'd trigger one "
                 "manually with `kubectl create job --from=cronjob/pg-backup pg-backup-manual` "
                 "to check the credentials."))
    s.turn_done()
    marks["broken"] = g.save_claude(s)
    marks["broken_line"] = s.broken_line
    return s


def _infra_tls(g: _Gen, marks: dict[str, Any], backup: _Claude) -> None:
    s = _Claude(g, cwd=INFRA, branch="main", start=g.at(2, 9), model=SONNET, version="2.1.39",
                slug="hollow-violet-comet")
    # An older-style summary line on top, pointing at the leaf of an earlier session's file.
    s.put({"type": "summary", "summary": "Nightly Postgres backup CronJob for staging",
           "leafUuid": backup.parent})
    s.hooks_start()
    s.prompt("The staging TLS cert expires in 5 days and cert-manager didn't renew it. Check.")
    s.reply(bash("kubectl -n ingress describe certificate staging-tls | tail -8",
                 "Status:\n  Conditions:\n    Message: Issuing certificate as Secret does not "
                 "exist\n    Reason:  DoesNotExist\n    Status:  False\n    Type:    Ready\n"
                 "Events:\n  Warning  Failed  2m  cert-manager  The certificate request has "
                 "failed to complete and will be retried: acme: DNS-01 challenge: "
                 "route53: AccessDenied", "Inspect the certificate"),
            bash("aws iam get-role-policy --role-name cert-manager --policy-name dns01 | jq "
                 "'.PolicyDocument.Statement[0].Resource'", "\"arn:aws:route53:::hostedzone/"
                 "Z0OLDZONE123\"", "Check the DNS-01 IAM policy"))
    s.reply(_say("cert-manager's IAM policy still points at the **old hosted zone** "
                 "(`Z0OLDZONE123`); the zone was recreated during the DNS migration. Updating "
                 "the policy to the new zone id from `data.aws_route53_zone.staging`."),
            edit(f"{INFRA}/modules/cert-manager/iam.tf",
                 "    resources = [\"arn:aws:route53:::hostedzone/Z0OLDZONE123\"]",
                 "    resources = [data.aws_route53_zone.staging.arn]", line=12))
    s.reply(_say("After `terraform apply` the certificate went Ready within two minutes. Still "
                 "open: prod uses the same hard-coded zone id — worth the same fix before it "
                 "bites us there."))
    s.turn_done()
    g.save_claude(s)


# -- the big transcript -------------------------------------------------------------------------

_PROFILE_FUNCS = [
    "dataset.py:88(__getitem__)", "transforms.py:41(__call__)", "decode.py:17(decode_jpeg)",
    "PIL/Image.py:3242(open)", "PIL/ImageFile.py:254(load)", "numpy/core/numeric.py:1855(asarray)",
    "torch/utils/data/_utils/collate.py:84(default_collate)", "augment.py:120(random_crop)",
    "augment.py:161(color_jitter)", "io.py:55(read_shard)", "zstd.py:30(decompress)",
    "tokenizer.py:212(encode_batch)", "{method 'read' of '_io.BufferedReader' objects}",
    "{built-in method posix.stat}", "{method 'acquire' of '_thread.lock' objects}",
    "queues.py:102(get)", "dataloader.py:1295(_next_data)", "sampler.py:76(__iter__)",
]
_MODULES = ["dataset.py", "transforms.py", "decode.py", "augment.py", "io.py", "loader.py",
            "train.py", "config.py", "metrics.py", "collate.py"]
_WORDS = ("the loader shard worker batch prefetch decode cache queue latency throughput pinned "
          "memory epoch sample index augment crop jitter resize tensor numpy profile stall "
          "reader zstd buffer page fault thread process spawn fork timeout").split()


def _profile_table(rng: random.Random, total: float) -> str:
    lines = [f"         {rng.randint(1_000_000, 9_000_000)} function calls "
             f"({rng.randint(900_000, 8_000_000)} primitive calls) in {total:.3f} seconds", "",
             "   Ordered by: cumulative time", "",
             "   ncalls  tottime  percall  cumtime  percall filename:lineno(function)"]
    for f in rng.sample(_PROFILE_FUNCS, 14):
        n = rng.randint(100, 400_000)
        tt = rng.uniform(0.01, total / 3)
        ct = tt + rng.uniform(0, total / 2)
        lines.append(f"{n:>9}  {tt:7.3f}  {tt / n:7.5f}  {ct:7.3f}  {ct / n:7.5f} {f}")
    return "\n".join(lines)


def _code_block(rng: random.Random, module: str, n: int) -> str:
    out = []
    for i in range(n):
        w = rng.sample(_WORDS, 3)
        kind = rng.random()
        if kind < 0.25:
            out.append(f"def {w[0]}_{w[1]}(self, {w[2]}: int) -> None:")
        elif kind < 0.5:
            out.append(f"    {w[0]} = self.{w[1]}.get({w[2]!r}, {rng.randint(0, 512)})")
        elif kind < 0.7:
            out.append(f"    # {w[0]} {w[1]} before {w[2]}")
        elif kind < 0.85:
            out.append(f"    if {w[0]} > {rng.randint(1, 64)}:")
        else:
            out.append(f"        return {w[1]}_{w[2]}({w[0]})")
    return "\n".join(out)


def _ml_big(g: _Gen, marks: dict[str, Any]) -> None:
    rng = g.rng
    s = _Claude(g, cwd=ML, branch="perf/loader", start=g.at(8, 8, 0), model=OPUS,
                version="2.1.39", slug="restless-iron-meridian")
    s.hooks_start()
    s.prompt("Training is input-bound: GPU utilisation sits at 35%. Profile the data loader "
             "and make it fast. Take as long as you need, run experiments, keep notes.")
    throughput = 410.0
    workers = 4
    it = 0
    while s.size() < BIG_TARGET_BYTES:
        it += 1
        roll = rng.random()
        module = rng.choice(_MODULES)
        if it % 40 == 0:
            s.turn_done()
            s.prompt(rng.choice([
                f"where are we? last number I saw was {throughput:.0f} samples/s",
                "keep going, but don't touch the augmentation semantics",
                "try more workers? the box has 32 cores",
                "is the zstd decode still the top item in the profile?",
                "write down what you tried so far before going further",
            ]), think=(60, 900))
        if roll < 0.3:
            total = rng.uniform(20, 60)
            s.reply(_say(f"Profiling run {it} with `num_workers={workers}`."),
                    bash(f"uv run python -m cProfile -s cumtime scripts/bench_loader.py "
                         f"--workers {workers} --batches 200 2>&1 | head -24",
                         _profile_table(rng, total), "Profile the loader", progress=2,
                         seconds=total))
        elif roll < 0.5:
            n = rng.randint(12, 40)
            start = rng.randint(1, 300)
            s.reply(read(f"{ML}/src/loader/{module}", _code_block(rng, module, n), start=start,
                         total=start + n + rng.randint(0, 200)))
        elif roll < 0.62:
            w = rng.choice(_WORDS)
            hits = "\n".join(f"src/loader/{rng.choice(_MODULES)}:{rng.randint(1, 400)}:    "
                             f"{' '.join(rng.sample(_WORDS, 5))}"
                             for _ in range(rng.randint(3, 25)))
            s.reply(grep(w, hits, path=f"{ML}/src"))
        elif roll < 0.77:
            old = _code_block(rng, module, rng.randint(2, 6))
            new = _code_block(rng, module, rng.randint(2, 8))
            s.reply(_think(f"In {module} the {' '.join(rng.sample(_WORDS, 4))} path allocates per "
                           f"sample; moving it out of __getitem__ should help."),
                    edit(f"{ML}/src/loader/{module}", old, new, line=rng.randint(10, 300)))
        elif roll < 0.92:
            before = throughput
            throughput = max(200.0, throughput * rng.uniform(0.9, 1.18))
            ok = rng.random() < 0.85
            if ok:
                out = (f"epoch 0: {rng.randint(180, 220)} batches, {throughput:.1f} samples/s, "
                       f"p50 batch {1000 * 64 / throughput:.1f} ms, GPU util "
                       f"{min(97, 35 + throughput / 20):.0f}%\n" * 3).rstrip()
                s.reply(bash(f"uv run python scripts/bench_loader.py --workers {workers}",
                             out, "Measure throughput", progress=3, seconds=30))
                if throughput < before:
                    s.reply(_say(f"{throughput:.0f} samples/s, down from {before:.0f}. That "
                                 f"didn't work, reverting the change in `{module}`."))
                else:
                    s.reply(_say(f"**{throughput:.0f} samples/s** (was {before:.0f}). Keeping "
                                 f"it; tests pass."))
            else:
                s.reply(bash("uv run pytest -q tests/loader", "F..........\n___ test_"
                             f"{rng.choice(_WORDS)}_order ___\nAssertionError: batches differ "
                             "at index 3\n1 failed, 10 passed in 4.02s",
                             "Run loader tests", code=1, progress=2))
                s.reply(_say("The change reorders samples across workers; reverting it and "
                             "keeping the order-preserving path."))
        else:
            if rng.random() < 0.3:
                workers = min(32, workers * 2)
            s.reply(_say(f"### Notes after {it} steps\n\n- throughput: **{throughput:.0f} "
                         f"samples/s** with {workers} workers\n- biggest remaining item: "
                         f"`{rng.choice(_PROFILE_FUNCS)}`\n- let's use a shared-memory ring "
                         f"buffer instead of the multiprocessing queue if the queue stays on "
                         f"top\n\n```python\nloader = DataLoader(ds, batch_size=64, num_workers="
                         f"{workers}, pin_memory=True, persistent_workers=True, "
                         f"prefetch_factor=4)\n```"))
    s.reply(_say(f"Final: **{throughput:.0f} samples/s**, up from 410. Still open: the "
                 f"shared-memory ring buffer is only prototyped; the multiprocessing queue "
                 f"still costs ~8% at 32 workers."))
    s.turn_done()
    marks["big"] = g.save_claude(s)


# -- Codex sessions -----------------------------------------------------------------------------


def _codex_healthz(g: _Gen, marks: dict[str, Any]) -> None:
    x = _Codex(g, cwd=PAYMENTS, start=g.at(19, 15), model="gpt-5.1-codex",
               repo="git@github.com:acme/payments-api.git")
    x.meta()
    x.user("add a /healthz endpoint that checks the db and redis, 200 or 503 with details",
           first=True)
    x.reason("**Inspecting app routing**")
    x.shell("rg -n \"include_router|APIRouter\" payments | head", "payments/main.py:14:app."
            "include_router(charges.router)\npayments/main.py:15:app.include_router(refunds."
            "router)\npayments/routers/charges.py:9:router = APIRouter(prefix=\"/charges\")")
    x.patch("*** Begin Patch\n*** Add File: payments/routers/health.py\n+from fastapi import "
            "APIRouter, Depends, Response\n+from sqlalchemy import text\n+\n+router = "
            "APIRouter()\n+\n+\n+@router.get(\"/healthz\")\n+def healthz(response: Response, "
            "db=Depends(get_session), r=Depends(get_redis)) -> dict:\n+    checks = {\"db\": "
            "_ok(lambda: db.execute(text(\"select 1\"))), \"redis\": _ok(r.ping)}\n+    if not "
            "all(checks.values()):\n+        response.status_code = 503\n+    return checks\n"
            "*** Update File: payments/main.py\n@@\n app.include_router(refunds.router)\n+app."
            "include_router(health.router)\n*** End Patch\n",
            ["payments/routers/health.py", "payments/main.py"])
    x.shell("uv run pytest -q tests/test_health.py", ".. [100%]\n2 passed in 0.31s")
    x.end("Added `GET /healthz` (payments/routers/health.py): returns `{\"db\": true, "
          "\"redis\": true}` or 503 with the failing check. Tests pass.")
    g.save_codex(x)


def _codex_eslint(g: _Gen, marks: dict[str, Any]) -> None:
    x = _Codex(g, cwd=DASHBOARD, start=g.at(13, 10), model="gpt-5.3-codex",
               originator="Codex Desktop", source="vscode", cli_version="0.104.0-alpha.1",
               repo="git@github.com:acme/web-dashboard.git", new_era=True, effort="high")
    x.meta()
    x.user("fix the eslint errors in src/components, don't just disable rules", first=True)
    x.reason("**Running lint to see current errors**")
    x.say("I'll run eslint on src/components first to see what's failing.")
    x.shell("npx eslint src/components --format unix",
            "src/components/Table.tsx:41:7: React Hook useEffect has a missing dependency: "
            "'filters'. [Warning/react-hooks/exhaustive-deps]\nsrc/components/Header.tsx:12:"
            "10: 'useMemo' is defined but never used. [Error/@typescript-eslint/no-unused-vars]"
            "\nsrc/components/Table.tsx:88:15: Unexpected any. Specify a different type. "
            "[Error/@typescript-eslint/no-explicit-any]\n\n3 problems", code=1, seconds=3.2)
    x.patch("*** Begin Patch\n*** Update File: src/components/Header.tsx\n@@\n-import { useMemo, "
            "useState } from \"react\";\n+import { useState } from \"react\";\n*** Update File: "
            "src/components/Table.tsx\n@@\n-  const onSort = (col: any) => {\n+  const onSort = "
            "(col: keyof Transaction) => {\n@@\n-  }, []);\n+  }, [filters]);\n*** End Patch\n",
            ["src/components/Header.tsx", "src/components/Table.tsx"])
    x.shell("npx eslint src/components --format unix && npm test -- --run", " Test Files  9 "
            "passed (9)\n      Tests  54 passed (54)", seconds=6.1)
    x.end("Fixed all three without disabling rules: removed the unused import, typed the sort "
          "column as `keyof Transaction`, and added `filters` to the effect's dependencies. Lint "
          "is clean and the 54 tests pass.")
    g.save_codex(x)


def _codex_exec(g: _Gen, marks: dict[str, Any]) -> None:
    x = _Codex(g, cwd=INFRA, start=g.at(11, 6), model="gpt-5.1-codex-mini",
               originator="codex_exec", source="exec", cli_version="0.63.0",
               repo="git@github.com:acme/infra.git")
    x.meta()
    x.user("Summarize what `terraform plan` would change in envs/staging. Output a short "
           "Markdown list, no changes to files.", first=True)
    x.reason("**Running terraform plan read-only**")
    x.shell("cd envs/staging && terraform plan -no-color -lock=false | tail -25", _PLAN_DRIFT,
            seconds=11.0)
    x.end("- `aws_db_parameter_group.main`: in-place update of `max_connections` "
          "(apply_method `pending-reboot` → `immediate`); this re-appears on every plan.\n"
          "- Nothing to add or destroy.")
    marks["exec"] = g.save_codex(x)


def _codex_ml_plan(g: _Gen, marks: dict[str, Any]) -> None:
    x = _Codex(g, cwd=ML, start=g.at(7, 19), model="gpt-5.3-codex", originator="codex_vscode",
               source="vscode", cli_version="0.104.0", branch="perf/loader",
               repo="git@github.com:acme/ml-experiments.git", new_era=True)
    x.meta()
    x.user("Prototype the shared-memory ring buffer for the loader that Claude suggested. Plan "
           "first.", first=True)
    x.plan([("Read loader/queue usage", "in_progress"), ("Prototype ShmRing in "
            "src/loader/shm_ring.py", "pending"), ("Benchmark against mp.Queue", "pending")])
    x.shell("rg -n \"Queue\\(\" src/loader", "src/loader/loader.py:44:        self._q = "
            "mp.Queue(maxsize=self.prefetch * self.workers)")
    x.plan([("Read loader/queue usage", "completed"), ("Prototype ShmRing in "
            "src/loader/shm_ring.py", "in_progress"), ("Benchmark against mp.Queue", "pending")])
    x.patch("*** Begin Patch\n*** Add File: src/loader/shm_ring.py\n+\"\"\"A fixed-slot ring "
            "of shared-memory batches; workers write, the main process reads.\"\"\"\n+from "
            "multiprocessing import shared_memory\n+\n+class ShmRing:\n+    def __init__(self, "
            "slots: int, slot_bytes: int) -> None:\n+        self.shm = shared_memory."
            "SharedMemory(create=True, size=slots * slot_bytes)\n*** End Patch\n",
            ["src/loader/shm_ring.py"])
    x.shell("uv run python scripts/bench_loader.py --workers 32 --ring", "epoch 0: 200 batches, "
            "1488.2 samples/s, p50 batch 43.0 ms, GPU util 91%", seconds=31.0)
    x.end("The ring buffer prototype reaches 1488 samples/s at 32 workers (queue: ~1370). Let's "
          "use the ring buffer instead of mp.Queue once it handles worker crashes; still open: "
          "what happens to a slot when its worker dies mid-write.")
    g.save_codex(x)


def _codex_fastapi(g: _Gen, marks: dict[str, Any]) -> None:
    x = _Codex(g, cwd=PAYMENTS, start=g.at(3, 11), model="gpt-5.1-codex", cli_version="0.63.0",
               repo="git@github.com:acme/payments-api.git")
    x.meta()
    x.user("bump fastapi to 0.115 and fix the deprecation warnings", first=True)
    x.reason("**Upgrading dependency and checking warnings**")
    x.shell("uv add 'fastapi>=0.115' && uv run pytest -q -W error::DeprecationWarning 2>&1 | "
            "tail -4", "E   DeprecationWarning: on_event is deprecated, use lifespan event "
            "handlers instead.\nFAILED tests/test_app.py::test_startup - DeprecationWarning\n1 "
            "failed, 47 passed in 3.60s", code=1, seconds=5.0)
    x.patch("*** Begin Patch\n*** Update File: payments/main.py\n@@\n-@app.on_event(\"startup\")"
            "\n-def _startup() -> None:\n-    init_pool()\n+@asynccontextmanager\n+async def "
            "lifespan(app: FastAPI):\n+    init_pool()\n+    yield\n+    close_pool()\n*** End "
            "Patch\n", ["payments/main.py"])
    x.shell("uv run pytest -q -W error::DeprecationWarning", "48 passed in 3.33s", seconds=3.5)
    x.end("FastAPI is at 0.115.6; replaced `on_event` with a `lifespan` handler, which also "
          "closes the pool on shutdown now. Tests pass with deprecations as errors.")
    x.user("does the worker process use on_event too?")
    x.shell("rg -n on_event payments workers", "")
    x.end("No other uses: the worker doesn't import the FastAPI app.")
    g.save_codex(x)


def _codex_dashboard_i18n(g: _Gen, marks: dict[str, Any]) -> None:
    x = _Codex(g, cwd=DASHBOARD, start=g.at(1, 14), model="gpt-5.3-codex",
               cli_version="0.104.0", branch="feat/csv-export",
               repo="git@github.com:acme/web-dashboard.git", new_era=True)
    x.meta()
    x.user("check that every key in locales/en.json also exists in locales/de.json", first=True)
    x.shell("node -e \"const en=require('./locales/en.json'),de=require('./locales/de.json');"
            "console.log(Object.keys(en).filter(k=>!(k in de)).join('\\n'))\"",
            "export\nexportStarted\nfilters.clear")
    x.patch("*** Begin Patch\n*** Update File: locales/de.json\n@@\n+  \"export\": "
            "\"Exportieren\",\n+  \"exportStarted\": \"Export gestartet …\",\n+  "
            "\"filters.clear\": \"Filter zurücksetzen\",\n*** End Patch\n", ["locales/de.json"])
    x.end("Three keys were missing in `de.json` (`export`, `exportStarted`, `filters.clear`); "
          "added them.")
    g.save_codex(x)


# -- memory -------------------------------------------------------------------------------------
# Session notes for three projects (written after the sessions they record, as an agent that
# follows the note protocol would), Claude Code auto-memory for payments-api, and a
# CLAUDE.md/AGENTS.md pair in its stand-in checkout. Two notes are deliberately imperfect: one
# is schema 1.0 (no schema_version, old field spellings), one has values of the wrong YAML type.

_MEMORY_PROJECTS = (PAYMENTS, DASHBOARD, INFRA)

_NOTE_FRONT = """---
schema_version: 1.1
project-name: {project}
session: {stamp}
mode: {mode}
status: {status}
last-checkpoint: {checkpoint}
{approved}
{decisions}
target-dir: {target}
last_session_at: '{saved}'
---

"""

# (session key, project, mode, status, last checkpoint, approved, decisions, body)
_NOTES: tuple[tuple[str, str, str, str, str, str, str, str], ...] = (
    ("payments-todos", PAYMENTS, "autonomous", "paused", "CP-S1",
     "checkpoints-approved: []", "checkpoint_decisions: {}", """\
## Session summary

Listed the open TODOs and FIXMEs by module (5 found). Paused before fixing any: the cap on the
webhook retry window needs a product decision first.

## Steps completed

- S1 inventory of TODO/FIXME comments, grouped by module

## Active state

CP-S1 proposed: cap the total retry window at 72 h first, then partial refunds over multiple
captures.

## Key decisions

- No code changes until the list is triaged
"""),
    ("payments-retry", PAYMENTS, "guided", "in-progress", "CP-S2",
     "checkpoints-approved:\n- CP-S1", """checkpoint_decisions:
  CP-S1:
    option: a
    note: one global policy now, per-endpoint later
    regenerated_count: 1""", """\
## Session summary

Moved the webhook retry settings (max_attempts, base_delay, cap) into a frozen `RetryPolicy`
dataclass; the 14 webhook tests pass. Wiring it into `RetryScheduler` is half done.

## Steps completed

- S1 `RetryPolicy` in payments/webhooks/policy.py
- S2 the scheduler takes a policy (in progress)

## Active state

`RetryScheduler.__init__` still reads `settings.webhook_*`. Next: pass the policy in, then
delete the three settings.

## Key decisions

- One global policy for now; per-endpoint policies later (merchants asked for slower retries)
- Log lines keep markup literal: `[bold red]ERROR[/bold red]` is text, not a style
"""),
    # Odd YAML: a 1.1 note with the approved checkpoints as one string and a plain-text
    # decision (both 1.0 habits), which the reader accepts with warnings.
    ("dashboard-charts", DASHBOARD, "guided", "completed", "CP-S3",
     "checkpoints-approved: CP-S1, CP-S2, CP-S3", "checkpoint_decisions:\n  CP-S1: visx", """\
## Session summary

chart.js is gone (-200 KB): RevenueChart and VolumeChart draw with visx through one shared
`LineChart`. The context was compacted once mid-way.

## Steps completed

- S1 pick a chart library
- S2 shared LineChart on visx
- S3 port RevenueChart and VolumeChart

## Active state

Done. ChurnChart and MrrChart still import chart.js types only; removed with the package.

## Key decisions

- visx instead of recharts: only line and bar charts, and visx reuses the design tokens
"""),
    ("dashboard-csv", DASHBOARD, "guided", "paused", "CP-S2",
     "checkpoints-approved:\n- CP-S1", """checkpoint_decisions:
  CP-S1:
    option: b
    note: build the CSV in the browser
    regenerated_count: 0""", """\
## Session summary

CSV export of the transactions table respects the current filters; the button label comes
from `t("export")` (de: „Exportieren“). Tests pass.

## Steps completed

- S1 `toCsv` with quoting and CRLF line ends
- S2 export button wired to the filtered rows

## Active state

Paused at CP-S2: exports over 50k rows build the whole file in memory. Stream it, or cap it?

## Key decisions

- CRLF line ends: Excel on Windows opens the file without an import dialog
"""),
    ("infra-backup", INFRA, "guided", "completed", "CP-S2",
     "checkpoints-approved:\n- CP-S1\n- CP-S2", """checkpoint_decisions:
  CP-S2:
    option: a
    note: S3 lifecycle rule, not a cleanup step
    regenerated_count: 0""", """\
## Session summary

Nightly `pg-backup` CronJob for staging dumps Postgres to s3://dev-backups at 02:17 UTC;
retention is an S3 lifecycle rule (14 days).

## Steps completed

- S1 CronJob manifest (server dry run passes)
- S2 image with pg_dump and the aws cli; lifecycle rule in modules/backups

## Active state

Done. Trigger one run by hand to check the credentials.

## Key decisions

- A lifecycle rule instead of deleting old dumps from the job
"""),
    ("infra-tls", INFRA, "guided", "in-progress", "CP-S1",
     "checkpoints-approved: []", "checkpoint_decisions: {}", """\
## Session summary

The staging certificate was not renewed because cert-manager's DNS-01 policy pointed at the
old hosted zone. Fixed for staging; the certificate is Ready again.

## Steps completed

- S1 staging policy takes the zone from `data.aws_route53_zone.staging`

## Active state

CP-S1: prod still has the hard-coded zone id `Z0OLDZONE123`; same fix, needs a prod apply window.

## Key decisions

- Look the zone up by name instead of hard-coding its id
"""),
)

# Schema 1.0: no schema_version, underscore spellings, a comma-separated list, plain decisions.
_LEGACY_NOTE = """---
project_name: payments-api
session: {stamp}
mode: guided
status: completed
last_checkpoint: CP-S3
checkpoints_approved: CP-S1, CP-S2, CP-S3
checkpoint-decisions:
  CP-S1: b
  CP-S2: a
target_dir: /home/dev/projects/payments-api
---
## Session summary

Idempotency keys for POST /charges: an optional `Idempotency-Key` header, stored with a unique
index, so a retried request gets the first charge back instead of a second one.

## Steps completed

- S1 key storage (unique column on charges)
- S2 a replayed request returns the stored charge
- S3 tests for the replay and for two requests racing

## Active state

Done; merged from feat/idempotency-keys.

## Key decisions

- A unique column instead of Redis: the key must survive a Redis flush
- The header stays optional until the clients have upgraded

## Open questions

- Release the key when Stripe fails?
"""

_MEMORY_INDEX = """- [Retry policy](project_retry_policy.md) — webhook retries live in RetryPolicy; global for now
- [Testing feedback](feedback_testing.md) — seed the jitter, never retry a flaky test
"""

_TOPIC_RETRY = """---
name: Retry policy
description: Webhook retry settings live in RetryPolicy (payments/webhooks/policy.py); one global policy for now, per-endpoint later.
type: project
---
The scheduler used to read `settings.webhook_max_attempts`, `webhook_base_delay` and
`webhook_retry_cap` directly. Since the refactor they are one frozen `RetryPolicy`; merchants
asked for slower retries, so a per-endpoint policy is expected later.
"""

_TOPIC_TESTING = """---
name: Testing feedback
description: Fix a flaky test at its cause (seed the jitter); never add reruns or sleeps.
type: feedback
---
The user turned down `pytest-rerunfailures` for `test_retry_backoff`: the jitter is seeded in
the test instead. Tests never sleep; they freeze the clock.
"""

_AGENTS_MD = """# payments-api

FastAPI service for charges, refunds and Stripe webhooks.

## Commands

- `uv run pytest -q`: all tests; they pass before every commit
- `uv run ruff check .`

## Conventions

- Money is integer cents, never a float.
- Every POST that moves money takes an `Idempotency-Key`.
- Session notes go in `memory/` as `{YYYY-MM-DD-HH-MM}-payments-api.md`.
"""

_CLAUDE_MD = """@AGENTS.md

## Claude Code

- Use the Explore subagent for searches across more than three modules.
- Ask before running a migration against staging.
"""


def _workspace(root: Path, project: str) -> Path:
    """The stand-in checkout of a demo project (whose real path does not exist here)."""
    return root / "workspace" / project.rstrip("/").rsplit("/", 1)[-1]


def _put(path: Path, text: str, when: datetime) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    ts = when.timestamp()
    os.utime(path, (ts, ts))
    return path


def _write_memory(root: Path, spans: dict[str, tuple[datetime, datetime]]) -> list[Path]:
    """Write the demo's memory files; the notes' times follow the sessions they record.

    A note's name holds its session's start (UTC wall-clock minutes), `last_session_at` the
    save a minute or two after the session ended; file mtimes are set to the same times."""
    written: list[Path] = []

    def stamp(t: datetime) -> str:
        return t.astimezone(timezone.utc).strftime("%Y-%m-%d-%H-%M")

    def saved(key: str) -> datetime:
        return (spans[key][1] + timedelta(minutes=2)).astimezone(timezone.utc).replace(microsecond=0)

    def note_path(key: str, project: str) -> Path:
        name = project.rsplit("/", 1)[-1]
        return _workspace(root, project) / "memory" / f"{stamp(spans[key][0])}-{name}.md"

    for key, project, mode, status, checkpoint, approved, decisions, body in _NOTES:
        when = saved(key)
        text = _NOTE_FRONT.format(
            project=project.rsplit("/", 1)[-1], stamp=stamp(spans[key][0]), mode=mode, status=status,
            checkpoint=checkpoint, approved=approved, decisions=decisions, target=project,
            saved=when.strftime("%Y-%m-%dT%H:%M:%SZ"),
        ) + body
        written.append(_put(note_path(key, project), text, when))
    key = "payments-idempotency"
    written.append(_put(note_path(key, PAYMENTS), _LEGACY_NOTE.format(stamp=stamp(spans[key][0])), saved(key)))

    auto = root / "claude" / "projects" / escape_project_dir(PAYMENTS) / "memory"
    written.append(_put(auto / "feedback_testing.md", _TOPIC_TESTING, saved("payments-flaky")))
    written.append(_put(auto / "project_retry_policy.md", _TOPIC_RETRY, saved("payments-retry")))
    written.append(_put(auto / "MEMORY.md", _MEMORY_INDEX, saved("payments-retry") + timedelta(seconds=30)))

    checkout = _workspace(root, PAYMENTS)
    first = spans["payments-idempotency"][0] - timedelta(days=9)
    written.append(_put(checkout / "AGENTS.md", _AGENTS_MD, first))
    written.append(_put(checkout / "CLAUDE.md", _CLAUDE_MD, first + timedelta(minutes=5)))
    return written


def demo_memory(root: Path) -> list[MemoryItem]:
    """Every memory file of the demo corpus written under `root`, newest first, each under the
    demo project it belongs to (`/home/dev/projects/payments-api`, as its sessions say), not under
    the stand-in folder or the escaped Claude folder name it was found in."""
    from .memory.agent import discover_memory

    root = Path(root)
    checkouts = {os.path.abspath(_workspace(root, p)): p for p in _MEMORY_PROJECTS}
    escaped = {escape_project_dir(p): p for p in (PAYMENTS, DASHBOARD, INFRA, ML)}
    items = discover_memory(list(checkouts), [str(root / "claude" / "projects")])
    real = {**checkouts, **escaped}
    return [replace(it, project=real.get(it.project, it.project)) for it in items]
