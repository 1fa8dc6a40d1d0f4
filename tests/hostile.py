"""A hostile home for the CLI and the app: sessions and a memory note whose every field the
attacker controls, holding terminal escapes (OSC 52 clipboard write, ESC[2J, OSC 8 link, CSI
colours, their 8-bit C1 forms), a bidi override and zero-width characters."""
from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

HOSTILE = ("OSC52:\x1b]52;c;SGVsbG8=\x07 CLEAR:\x1b[2J\x1b[H LINK:\x1b]8;;https://evil.example\x1b\\click"
           "\x1b]8;;\x1b\\ CSI:\x1b[31mred\x1b[0m C1:\x9b2J\x9d0;title\x9c BIDI:\u202eexe.txt "
           "ZW:pass\u200bword\u2060 BEL:\x07 CR:\rX")
#: what may be typed as an argument (no NUL: the OS does not pass one)
TYPED = "x\x1b]52;c;SGVsbG8=\x07\x1b[2J\u202e\u200by"

# What must never reach a terminal raw: C0 controls but newline and tab, DEL, C1 controls, and
# the format characters and separators that hide or reorder text (from the Unicode database).
_RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_HIDDEN = {chr(c) for c in (*range(0x2000, 0x2070), 0xFEFF, 0x061C, 0x180E, 0x00AD)
           if unicodedata.category(chr(c)) in ("Cf", "Zl", "Zp")}


def raw_controls(text: str) -> list[str]:
    """The characters of `text` a terminal would act on or that hide text, as their code points."""
    return [f"U+{ord(ch):04X}" for ch in text if _RAW.match(ch) or ch in _HIDDEN]


@dataclass
class HostileHome:
    root: Path  # a session-logs root
    project: Path  # the sessions' project folder, its name holding a bidi override
    memory: Path  # <project>/memory, with one note
    session_id: str  # a main session's id (plain, so that it can be typed)
    evil_id: str  # another session's id: hostile itself


def hostile_home(base: Path) -> HostileHome:
    root = base / "root"
    project = base / "proj\u202eevil"
    memory = project / "memory"
    memory.mkdir(parents=True)
    root.mkdir()
    sid, evil_id = "hostile-0001", "evil" + HOSTILE
    _session(root / "a.jsonl", {"session_id": sid, "agent_id": "agent" + HOSTILE, "started_at": "2026-11-01T09:00:00Z",
                                "project": str(project), "title": "title " + HOSTILE, "git_branch": "b" + HOSTILE}, [
        {"role": "user", "content": "please fix the widget " + HOSTILE, "id": "e1"},
        {"role": "assistant", "content": "We decided to use the widget cache. " + HOSTILE, "id": "e2"},
        {"role": "assistant", "kind": "tool_use", "tool_name": "Bash" + HOSTILE, "id": "e3",
         "tool_input": {"command": "cat widget.log " + HOSTILE}, "tool_use_id": "t1"},
        {"role": "tool", "content": "widget output " + HOSTILE, "tool_use_id": "t1", "is_error": True, "id": "e4"},
    ])
    _session(root / "b.jsonl", {"session_id": evil_id, "agent_id": "agent2", "started_at": "2026-11-02T09:00:00Z",
                                "project": str(project)}, [
        {"role": "user", "content": "widget again " + HOSTILE, "id": "f1"},
    ])
    _session(root / "c.jsonl", {"session_id": sid + "/sub", "agent_id": "agent" + HOSTILE, "kind": "subagent",
                                "parent_session_id": sid, "started_at": "2026-11-01T09:05:00Z",
                                "project": str(project)}, [
        {"role": "user", "content": "subagent widget " + HOSTILE, "id": "g1"},
    ])
    (memory / "2026-11-10-08-15-evil.md").write_text(
        "---\nproject-name: evil\nsession: 2026-11-10-08-15\nstatus: paused\nlast_checkpoint: CP-\u202e1\u200b\n---\n"
        f"# evil {HOSTILE}\n\n## Session summary\n\n{HOSTILE}\n\n## Active state\n\n{HOSTILE}\n", encoding="utf-8")
    return HostileHome(root, project, memory, sid, evil_id)


def _session(path: Path, header: dict, entries: list[dict]) -> None:
    lines = [header]
    for n, e in enumerate(entries):
        lines.append({"timestamp": f"{header['started_at'][:14]}{n + 1:02d}:00Z", **e})
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
