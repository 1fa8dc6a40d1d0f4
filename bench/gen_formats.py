"""Bench corpora of the formats beyond Claude Code and Codex (`gen_corpus.py` makes those): one
generator per format, registered in `FORMATS`, each writing `files` sessions of about `file_kb` KB
laid out as the agent lays them out. A generator is `gen(out, rng, files, file_kb) -> paths`.

The record mix follows the real files (../shared/corpus, FORMATS.md): prompts, replies, tool calls
with their outputs (most of the bytes), token usage. Text comes from a Zipf-ish vocabulary, a
tool's output and a reply in lines (`text_lines`), as real ones are.
"""
from __future__ import annotations

import hashlib
import json
import random
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Callable

Gen = Callable[[Path, random.Random, int, int], "list[Path]"]
_VOCAB = [f"w{i}" for i in range(2000)] + "the a to of and in is it for on with that this cart webhook test".split()
_WEIGHTS = [1 / (i + 1) for i in range(len(_VOCAB))]
_T0 = datetime(2026, 3, 1, tzinfo=timezone.utc)


def words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choices(_VOCAB, weights=_WEIGHTS, k=n))


def text_lines(rng: random.Random, n: int) -> str:
    """`n` words as a tool's output or a long reply reads: lines of a few words, one in ten
    quoted. (JSON writes them escaped, `\\n` and `\\"`, as every real transcript holds them: a
    listing that searches bytes for an escape crawled on real files and not on words alone.)"""
    ws = rng.choices(_VOCAB, weights=_WEIGHTS, k=n)
    out, i = [], 0
    while i < n:
        k = rng.randint(4, 14)
        line = " ".join(ws[i:i + k])
        out.append(f'"{line}"' if rng.random() < 0.1 else line)
        i += k
    return "\n".join(out)


def _iso(t: datetime) -> str:
    return t.isoformat(timespec="milliseconds").replace("+00:00", "Z")


# -- Copilot CLI, pi, OpenCode ---------------------------------------------------------------------

def _session_turns(rng: random.Random, size: int):
    """(kind, text, extra) steps of a session of about `size` bytes: a prompt, then replies with
    tool calls and their outputs, as the real files mix them."""
    total, n = 0, 0
    while total < size:
        n += 1
        if n % 5 == 1:
            text = words(rng, rng.randint(5, 40))
            yield "user", text, None
        elif n % 5 == 3:
            tool = rng.choice(["bash", "read", "edit"])
            args = {"command": f"pytest -q {words(rng, 2)}"} if tool == "bash" else {"path": f"src/{words(rng, 1)}.py"}
            out = text_lines(rng, rng.randint(50, 600))
            text = out
            yield "tool", out, (f"call_{n}", tool, args)
        else:
            text = text_lines(rng, rng.randint(10, 120))
            yield "assistant", text, None
        total += len(text) + 120


class CopilotStream:
    """One Copilot CLI session's events, made a part at a time (a generator writes them at once,
    the growth bench appends them): session.start, user/assistant messages, each tool call as a
    request, an execution_start and an execution_complete, turn markers; the shutdown metrics."""

    def __init__(self, rng: random.Random, sid: str, t: datetime, cwd: str) -> None:
        self.rng, self.sid, self.t, self.cwd = rng, sid, t, cwd
        self.last: str | None = None

    def _event(self, etype: str, data: dict) -> dict:
        self.t += timedelta(seconds=self.rng.randint(1, 20))
        ident = str(uuid.UUID(int=self.rng.getrandbits(128)))
        event = {"type": etype, "data": data, "id": ident, "timestamp": _iso(self.t), "parentId": self.last}
        self.last = ident
        return event

    def start(self) -> list[dict]:
        return [self._event("session.start", {
            "sessionId": self.sid, "version": 1, "producer": "copilot-agent", "copilotVersion": "1.0.34",
            "startTime": _iso(self.t), "context": {"cwd": self.cwd, "branch": "main"}})]

    def more(self, size: int) -> list[dict]:
        ev, add, sid = [], self._event, self.sid
        for kind, text, call in _session_turns(self.rng, size):
            if kind == "user":
                ev += [add("user.message", {"content": text, "transformedContent": text, "attachments": []}),
                       add("assistant.turn_start", {"turnId": "0"})]
            elif kind == "assistant":
                ev.append(add("assistant.message", {"messageId": sid[:8], "content": text, "toolRequests": [],
                                                    "outputTokens": 90}))
            else:
                cid, tool, args = call
                ev += [add("assistant.message", {"messageId": sid[:8], "content": "", "outputTokens": 40,
                                                 "toolRequests": [{"toolCallId": cid, "name": tool, "arguments": args}]}),
                       add("tool.execution_start", {"toolCallId": cid, "toolName": tool, "arguments": args}),
                       add("tool.execution_complete", {"toolCallId": cid, "success": True, "result": {"content": text}})]
        return ev

    def end(self) -> list[dict]:
        return [self._event("session.shutdown", {"modelMetrics": {"gpt-5": {"usage": {
            "inputTokens": 90000, "outputTokens": 3000, "cacheReadTokens": 60000}}}})]


def gen_copilot(out: Path, rng: random.Random, files: int, file_kb: int) -> list[Path]:
    """`session-state/<id>/events.jsonl` (`CopilotStream`)."""
    paths = []
    for i in range(files):
        sid = str(uuid.UUID(int=rng.getrandbits(128)))
        stream = CopilotStream(rng, sid, _T0 + timedelta(hours=i), f"/home/dev/p{i % 7}")
        ev = stream.start() + stream.more(file_kb * 1024) + stream.end()
        p = out / "copilot" / "session-state" / sid / "events.jsonl"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("".join(json.dumps(e) + "\n" for e in ev))
        paths.append(p)
    return paths


class PiStream:
    """One pi session's records (v3), made a part at a time: the header and a model change, then
    tree-linked messages with thinking/text/toolCall parts and toolResult messages."""

    def __init__(self, rng: random.Random, sid: str, t: datetime, cwd: str) -> None:
        self.rng, self.sid, self.t, self.cwd = rng, sid, t, cwd
        self.parent: str | None = None

    def _record(self, rec: dict) -> dict:
        self.t += timedelta(seconds=self.rng.randint(1, 20))
        rid = f"{self.rng.getrandbits(32):08x}"
        out = {**rec, "id": rid, "parentId": self.parent, "timestamp": _iso(self.t)}
        self.parent = rid
        return out

    def start(self) -> list[dict]:
        return [{"type": "session", "version": 3, "id": self.sid, "timestamp": _iso(self.t), "cwd": self.cwd},
                self._record({"type": "model_change", "provider": "anthropic", "modelId": "claude-sonnet-4-5"})]

    def more(self, size: int) -> list[dict]:
        lines, add, rng = [], self._record, self.rng
        for kind, text, call in _session_turns(rng, size):
            ms = int(self.t.timestamp() * 1000)
            if kind == "user":
                lines.append(add({"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": text}],
                                                                 "timestamp": ms}}))
            elif kind == "assistant":
                lines.append(add({"type": "message", "message": {"role": "assistant", "model": "claude-sonnet-4-5",
                                  "content": [{"type": "thinking", "thinking": words(rng, 20)}, {"type": "text", "text": text}],
                                  "usage": {"input": 900, "output": 80, "cacheRead": 4000, "cacheWrite": 0},
                                  "stopReason": "stop", "timestamp": ms}}))
            else:
                cid, tool, args = call
                lines.append(add({"type": "message", "message": {"role": "assistant", "model": "claude-sonnet-4-5",
                                  "content": [{"type": "toolCall", "id": cid, "name": tool, "arguments": args}],
                                  "usage": {"input": 900, "output": 30}, "stopReason": "toolUse", "timestamp": ms}}))
                lines.append(add({"type": "message", "message": {"role": "toolResult", "toolCallId": cid, "toolName": tool,
                                  "content": [{"type": "text", "text": text}], "isError": False, "timestamp": ms}}))
        return lines


def gen_pi(out: Path, rng: random.Random, files: int, file_kb: int) -> list[Path]:
    """`sessions/--<cwd>--/<time>_<id>.jsonl` (`PiStream`)."""
    paths = []
    for i in range(files):
        sid = str(uuid.UUID(int=rng.getrandbits(128)))
        cwd = f"/home/dev/p{i % 7}"
        stream = PiStream(rng, sid, _T0 + timedelta(hours=i), cwd)
        lines = stream.start() + stream.more(file_kb * 1024)
        folder = "--" + cwd.lstrip("/").replace("/", "-") + "--"
        p = out / "pi" / "sessions" / folder / f"{_iso(_T0 + timedelta(hours=i)).replace(':', '-')}_{sid}.jsonl"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("".join(json.dumps(x) + "\n" for x in lines))
        paths.append(p)
    return paths


def _opencode_records(rng: random.Random, i: int, file_kb: int):
    """(session info, [(message info, [parts])]) of one OpenCode session of about `file_kb` KB."""
    sid = f"ses_{rng.getrandbits(96):024x}"
    t = int((_T0 + timedelta(hours=i)).timestamp() * 1000)
    info = {"id": sid, "slug": "s", "version": "1.1.53", "projectID": "p" * 40, "directory": f"/home/dev/p{i % 7}",
            "title": words(rng, 6), "time": {"created": t, "updated": t}}
    messages: list[tuple[dict, list[dict]]] = []
    for n, (kind, text, call) in enumerate(_session_turns(rng, file_kb * 1024)):
        t += rng.randint(1000, 20000)
        if kind == "user" or not messages or messages[-1][0]["role"] == "user":
            role = "user" if kind == "user" else "assistant"
            msg = {"id": f"msg_{t:012x}{n:04d}", "sessionID": sid, "role": role, "time": {"created": t}}
            if role == "assistant":
                msg.update(modelID="claude-sonnet-4-5", providerID="anthropic",
                           tokens={"input": 900, "output": 80, "reasoning": 10, "cache": {"read": 4000, "write": 0}})
            messages.append((msg, []))
        parts = messages[-1][1]
        pid = f"prt_{t:012x}{n:04d}"
        if call is not None:
            cid, tool, args = call
            parts.append({"id": pid, "type": "tool", "callID": cid, "tool": tool,
                          "state": {"status": "completed", "input": args, "output": text, "time": {"start": t, "end": t}}})
        else:
            parts.append({"id": pid, "type": "text", "text": text})
    info["time"]["updated"] = t
    return info, messages


def gen_opencode_tree(out: Path, rng: random.Random, files: int, file_kb: int) -> list[Path]:
    """`storage/session/<project>/ses_*.json` with `message/<ses>/msg_*.json` and
    `part/<msg>/prt_*.json` beside it (pretty-printed, as OpenCode writes them)."""
    storage = out / "opencode" / "storage"
    paths = []
    for i in range(files):
        info, messages = _opencode_records(rng, i, file_kb)
        p = storage / "session" / info["projectID"] / f"{info['id']}.json"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(info, indent=2))
        for msg, parts in messages:
            m = storage / "message" / info["id"] / f"{msg['id']}.json"
            m.parent.mkdir(parents=True, exist_ok=True)
            m.write_text(json.dumps(msg, indent=2))
            for part in parts:
                q = storage / "part" / msg["id"] / f"{part['id']}.json"
                q.parent.mkdir(parents=True, exist_ok=True)
                q.write_text(json.dumps({**part, "messageID": msg["id"], "sessionID": info["id"]}, indent=2))
        paths.append(p)
    return paths


def gen_opencode_db(out: Path, rng: random.Random, files: int, file_kb: int) -> list[Path]:
    """One `opencode.db` holding `files` sessions (rows of session, message and part; bodies as JSON
    in `data`), checkpointed (OpenCode not running)."""
    db = out / "opencode-db" / "opencode.db"
    db.parent.mkdir(parents=True, exist_ok=True)
    con = opencode_db(db)
    for i in range(files):
        opencode_db_add(con, *_opencode_records(rng, i, file_kb))
    con.commit()
    con.close()
    return [db]


def opencode_db(db: Path):
    """A connection to a new OpenCode database at `db` (its tables and the indexes OpenCode keeps)."""
    import sqlite3

    con = sqlite3.connect(db)
    con.executescript(
        "CREATE TABLE session (id text PRIMARY KEY, project_id text, parent_id text, slug text, directory text,"
        " title text, version text, time_created integer, time_updated integer);"
        "CREATE TABLE message (id text PRIMARY KEY, session_id text, time_created integer, time_updated integer, data text);"
        "CREATE TABLE part (id text PRIMARY KEY, message_id text, session_id text, time_created integer,"
        " time_updated integer, data text);"
        "CREATE INDEX message_session_idx ON message (session_id); CREATE INDEX part_session_idx ON part (session_id);")
    return con


def opencode_db_add(con, info: dict, messages: list, session_id: str | None = None) -> None:
    """Insert a session's rows (`_opencode_records`); with `session_id`, its messages and parts
    only, written on to that session (its `time_updated` moved on), as OpenCode writes a turn."""
    sid = session_id or info["id"]
    if session_id is None:
        t = info["time"]
        con.execute("INSERT INTO session VALUES (?, ?, NULL, 's', ?, ?, '1.2.0', ?, ?)",
                    (sid, info["projectID"], info["directory"], info["title"], t["created"], t["updated"]))
    else:
        con.execute("UPDATE session SET time_updated = ? WHERE id = ?", (info["time"]["updated"], sid))
    for msg, parts in messages:
        body = {k: v for k, v in msg.items() if k not in ("id", "sessionID")}
        con.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)",
                    (msg["id"], sid, msg["time"]["created"], msg["time"]["created"], json.dumps(body)))
        con.executemany("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                        [(p["id"], msg["id"], sid, msg["time"]["created"], msg["time"]["created"],
                          json.dumps({k: v for k, v in p.items() if k != "id"})) for p in parts])


# -- Gemini CLI, Aider -------------------------------------------------------------------------------

def _gemini_messages(rng: random.Random, size: int, start: datetime) -> list[dict]:
    """User and gemini messages (thoughts, tool calls with results, tokens) of about `size` bytes."""
    out: list[dict] = []
    t, n, total = start, 0, 0
    while total < size:
        n += 1
        t += timedelta(seconds=rng.randint(2, 40))
        if n % 4 == 1:
            m = {"id": str(uuid.UUID(int=rng.getrandbits(128))), "timestamp": _iso(t), "type": "user",
                 "content": [{"text": words(rng, rng.randint(5, 40))}]}
        else:
            calls = [{"id": f"c{n}{k}", "name": rng.choice(["read_file", "run_shell_command", "replace"]),
                      "args": {"file_path": f"src/{words(rng, 1)}.py"}, "status": "success",
                      "timestamp": _iso(t),
                      "result": [{"functionResponse": {"id": f"c{n}{k}", "name": "read_file",
                                                       "response": {"output": text_lines(rng, rng.randint(50, 600))}}}]}
                     for k in range(rng.randint(0, 2))]
            m = {"id": str(uuid.UUID(int=rng.getrandbits(128))), "timestamp": _iso(t), "type": "gemini",
                 "content": text_lines(rng, rng.randint(10, 120)), "model": "gemini-2.5-pro",
                 "thoughts": [{"subject": words(rng, 3), "description": words(rng, 40), "timestamp": _iso(t)}],
                 "tokens": {"input": 9000, "output": 300, "cached": 4000, "thoughts": 120, "tool": 0, "total": 9420},
                 "toolCalls": calls}
        out.append(m)
        total += len(json.dumps(m))
    return out


class GeminiStream:
    """One Gemini CLI JSONL chat, made a part at a time: the metadata, then messages, a gemini
    one re-appended with the same id (one in three: updated as its tool calls arrive), each
    followed by a `$set` patch of the last update time."""

    def __init__(self, rng: random.Random, sid: str, t: datetime, project_hash: str) -> None:
        self.rng, self.sid, self.t, self.hash = rng, sid, t, project_hash

    def start(self) -> list[dict]:
        return [{"sessionId": self.sid, "projectHash": self.hash, "startTime": _iso(self.t),
                 "lastUpdated": _iso(self.t), "kind": "main"}]

    def more(self, size: int) -> list[dict]:
        lines: list[dict] = []
        for m in _gemini_messages(self.rng, size, self.t):
            lines.append(m)
            if m["type"] == "gemini" and self.rng.random() < 0.33:
                lines.append(m)  # re-appended with the same id
            lines.append({"$set": {"lastUpdated": m["timestamp"]}})
            self.t = datetime.fromisoformat(m["timestamp"].replace("Z", "+00:00"))
        return lines


def gen_gemini_jsonl(out: Path, rng: random.Random, files: int, file_kb: int) -> list[Path]:
    """~/.gemini/tmp/<hash>/chats/session-*.jsonl: metadata, messages re-appended when updated
    (one in three), `$set` patches."""
    paths = []
    for i in range(files):
        project = f"/home/dev/projects/p{i % 20}"
        h = hashlib.sha256(project.encode()).hexdigest()
        sid = str(uuid.UUID(int=rng.getrandbits(128)))
        start = _T0 + timedelta(hours=i)
        stream = GeminiStream(rng, sid, start, h)
        lines = stream.start() + stream.more(file_kb * 1024)
        p = out / "gemini" / "tmp" / h / "chats" / f"session-{i:05d}-{sid[:8]}.jsonl"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines))
        paths.append(p)
    return paths


def gen_gemini_json(out: Path, rng: random.Random, files: int, file_kb: int) -> list[Path]:
    """The legacy single-document chat, pretty-printed with two spaces as Gemini wrote it."""
    paths = []
    for i in range(files):
        project = f"/home/dev/projects/p{i % 20}"
        h = hashlib.sha256(project.encode()).hexdigest()
        sid = str(uuid.UUID(int=rng.getrandbits(128)))
        start = _T0 + timedelta(hours=i)
        msgs = _gemini_messages(rng, file_kb * 1024 * 2 // 3, start)  # (indentation adds a third)
        doc = {"sessionId": sid, "projectHash": h, "startTime": _iso(start), "lastUpdated": msgs[-1]["timestamp"],
               "messages": msgs}
        p = out / "gemini-json" / "tmp" / h / "chats" / f"session-{i:05d}-{sid[:8]}.json"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(doc, indent=2, ensure_ascii=False))
        paths.append(p)
    return paths


def gen_aider(out: Path, rng: random.Random, files: int, file_kb: int) -> list[Path]:
    """<project>/.aider.chat.history.md: a few sessions per file, tool output, replies with
    SEARCH/REPLACE edits."""
    paths = []
    for i in range(files):
        lines: list[str] = []
        t = _T0 + timedelta(hours=i)
        while sum(len(x) + 1 for x in lines) < file_kb * 1024:
            t += timedelta(minutes=rng.randint(5, 300))
            lines += ["", f"# aider chat started at {t:%Y-%m-%d %H:%M:%S}", "", "> Aider v0.86.1  ",
                      "> Main model: gemini/gemini-2.5-pro with diff-fenced edit format  ", ""]
            for _ in range(rng.randint(2, 8)):
                lines += [f"#### {words(rng, rng.randint(5, 30))}  ", ""]
                lines += [words(rng, rng.randint(10, 25)) for _ in range(rng.randint(2, 12))] + [""]
                if rng.random() < 0.6:
                    lines += ["```python", f"src/{words(rng, 1)}.py", "<<<<<<< SEARCH",
                              *[words(rng, 8) for _ in range(rng.randint(1, 8))], "=======",
                              *[words(rng, 8) for _ in range(rng.randint(1, 10))], ">>>>>>> REPLACE", "```", ""]
                lines += ["> Tokens: 9.1k sent, 412 received.  ", "> Applied edit to src/x.py  ", ""]
        p = out / "aider" / f"project{i:05d}" / ".aider.chat.history.md"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("\n".join(lines) + "\n")
        paths.append(p)
    return paths


FORMATS: dict[str, Gen] = {
    "copilot-cli": gen_copilot,
    "pi": gen_pi,
    "opencode (json tree)": gen_opencode_tree,
    "opencode (sqlite)": gen_opencode_db,
    "gemini-cli (jsonl)": gen_gemini_jsonl,
    "gemini-cli (legacy json)": gen_gemini_json,
    "aider": gen_aider,
}
