"""An apply_patch sent through a shell (older Codex `shell` calls, the `exec_command` tool's `cmd`
string) is shown as a diff with +N/-M, like the direct `["apply_patch", patch]` form."""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest

from sessionscope.core.catalog.store import Catalog
from sessionscope.core.read.discovery import Root
from sessionscope.core.catalog.library import Library
from sessionscope.core.model import Entry, EntryKind, Locator
from sessionscope.core.read.diffs import diff_counts, diff_of
from sessionscope.core.read.transcript import tool_summary

PATCH = ("*** Begin Patch\n*** Update File: src/app.py\n@@ def main():\n-    old()\n+    new()\n+    more()\n"
         " keep\n*** Add File: src/new.py\n+print(1)\n*** End Patch")
REAL = "codex-session-view__rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl"


def call(name: str, inp: Any) -> Entry:
    return Entry(id="c", role="assistant", kind=EntryKind.TOOL_USE, text=orjson.dumps(inp).decode(),
                 locator=Locator("/x.jsonl", 0, 1), tool_name=name, tool_input=inp, tool_use_id="t")


DIRECT = diff_of(call("shell", {"command": ["apply_patch", PATCH]}))


@pytest.mark.parametrize("inp", [
    {"command": ["bash", "-lc", f"apply_patch <<'PATCH'\n{PATCH}\nPATCH\n"]},
    {"command": ["bash", "-lc", f'apply_patch <<"EOF"\n{PATCH}\nEOF']},
    {"command": ["sh", "-c", f"apply_patch <<EOF\n{PATCH}\nEOF\n"]},
    {"command": ["/bin/zsh", "-lc", f"cd /repo && apply_patch << 'END_PATCH'\n{PATCH}\nEND_PATCH\necho done"]},
    {"command": ["bash", "-c", "apply_patch <<-EOF\n" + "\n".join("\t" + ln for ln in PATCH.split("\n"))
                 + "\n\tEOF"]},
    {"cmd": f"apply_patch <<'EOF'\n{PATCH}\nEOF\n", "workdir": "/repo"},  # exec_command
    {"command": f"apply_patch <<'EOF'\n{PATCH}\nEOF"},
])
def test_heredoc_forms_show_as_the_same_diff(inp: dict[str, Any]) -> None:
    name = "exec_command" if "cmd" in inp else "shell"
    assert DIRECT is not None and diff_counts(DIRECT) == (3, 1)
    assert diff_of(call(name, inp)) == DIRECT
    assert tool_summary(call(name, inp)) == "src/app.py, src/new.py"


@pytest.mark.parametrize("inp", [
    {"command": ["bash", "-lc", "cat <<'EOF' > notes.md\n*** Begin Patch\n*** End Patch\nEOF"]},  # not apply_patch
    {"command": ["bash", "-lc", "echo apply_patch is a tool"]},  # no heredoc
    {"command": ["bash", "-lc", "apply_patch <<'EOF'\nhello\nEOF"]},  # a heredoc but no patch
    {"command": ["python", "-c", f"apply_patch <<'EOF'\n{PATCH}\nEOF"]},  # not a shell
    {"command": ["bash", "-lc"]},
    {"command": ["bash", "-lc", None]},
    {"command": [1, 2, 3]},
    {"cmd": 42},
    {"command": "apply_patch <<'EOF'"},  # the heredoc never starts
])
def test_other_shell_calls_are_not_diffs(inp: dict[str, Any]) -> None:
    assert diff_of(call("shell", inp)) is None


def test_unterminated_heredoc_still_shows_the_patch() -> None:
    # A script cut short (a slimmed input) keeps what it has.
    got = diff_of(call("shell", {"command": ["bash", "-lc", f"apply_patch <<'PATCH'\n{PATCH}"]}))
    assert got == DIRECT


def _expected_counts(script: str) -> tuple[int, int]:
    body = script.split("*** Begin Patch\n", 1)[1].split("*** End Patch", 1)[0]
    lines = [ln for ln in body.split("\n") if not ln.startswith("***")]
    return sum(ln.startswith("+") for ln in lines), sum(ln.startswith("-") for ln in lines)


def test_real_codex_heredoc_patches_show_as_diffs(corpus_dir: Path, tmp_path: Path) -> None:
    src = corpus_dir / "codex" / REAL
    shutil.copy(src, tmp_path / REAL)
    want: dict[int, tuple[int, int]] = {}
    for n, line in enumerate(src.read_text().splitlines(), 1):
        payload = json.loads(line).get("payload") or {}
        if payload.get("type") == "function_call" and "apply_patch <<" in payload.get("arguments", ""):
            want[n] = _expected_counts(json.loads(payload["arguments"])["command"][2])
    assert sorted(want) == [269, 276]
    lib = Library([Root(str(tmp_path), "--root", explicit=True)], catalog=Catalog(None))
    lib.scan()
    [session] = lib.all_sessions()
    got = {}
    for e in lib.load(session).entries:
        if e.locator.line in want and e.kind is EntryKind.TOOL_USE:
            lines = diff_of(e, session.project)
            assert lines is not None, e.locator.line
            got[e.locator.line] = diff_counts(lines)
            assert tool_summary(e, session.project) == "components/chat/chat-helpers/index.ts"
    assert got == want
