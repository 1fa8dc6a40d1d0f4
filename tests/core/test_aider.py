"""Aider chat histories: sessions split at their headers, user/output/reply blocks, edits as
Edit calls (diffs), times from the input history, and finding the files in project folders."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from helpers import CORPUS, DATA, NO_CORPUS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessionscope.core.catalog.library import Library
from sessionscope.core.catalog.store import Catalog
from sessionscope.core.model import EntryKind
from sessionscope.core.read.adapters import default_registry
from sessionscope.core.read.adapters.aider import AiderAdapter
from sessionscope.core.read.discovery import Root, project_roots, resolve_roots
from sessionscope.core.read.listing import quick_meta
from sessionscope.core.read.resume import resume_command
from sessionscope.core.read.diffs import diff_of

REG = default_registry()
SHOP = DATA / "aider" / "shop"
HISTORY = SHOP / ".aider.chat.history.md"
REAL = CORPUS / "aider" / "Simple-Calulator__.aider.chat.history.md"


def load(path: Path):
    adapter = REG.sniff(str(path))
    assert isinstance(adapter, AiderAdapter), path
    loaded = adapter.load(str(path))
    for ls in loaded:
        assert ls.account.holds(), ls.account
    return loaded


def test_sessions_blocks_and_times() -> None:
    first, second = load(HISTORY)
    assert first.session.id != second.session.id
    assert first.session.title == "fix the rounding in cart totals"
    assert first.session.project == str(SHOP.resolve())
    assert first.session.models == ("anthropic/claude-sonnet-4",)
    # "2.1k sent, 1.5k cache hit, 120 received": the cached part is not input again
    u = first.session.usage
    assert (u.input, u.cache_read, u.output) == (600, 1500, 120)
    roles = [(e.role, e.kind) for e in first.entries]
    assert roles[:4] == [("system", EntryKind.SYSTEM), ("user", EntryKind.TEXT),
                         ("assistant", EntryKind.TEXT), ("assistant", EntryKind.TOOL_USE)]
    # the user's time from .aider.input.history; a reply takes the time before it
    assert first.entries[1].timestamp.strftime("%H:%M:%S.%f") == "14:00:05.123456"
    assert first.entries[2].timestamp == first.entries[1].timestamp
    assert second.session.title == "add a docstring to checkout keep it short"
    assert second.entries[1].text == "add a docstring to checkout\nkeep it short"  # one message
    assert second.entries[1].timestamp.strftime("%H:%M:%S") == "09:30:10"
    assert second.entries[-1].text == "^C KeyboardInterrupt"


def test_edit_blocks_are_edit_calls_shown_as_diffs() -> None:
    first, second = load(HISTORY)
    for ls, fname in ((first, "shop/cart.py"), (second, "shop/checkout.py")):  # diff and diff-fenced
        [edit] = [e for e in ls.entries if e.kind is EntryKind.TOOL_USE]
        assert edit.tool_name == "Edit" and edit.tool_input["file_path"] == fname
        lines = diff_of(edit)
        assert lines and any(d.tag == "+" for d in lines)
    text = " ".join(e.text for e in first.entries if e.kind is EntryKind.TEXT)
    assert "SEARCH" not in text and "shop/cart.py" not in text


def test_ids_stay_put_while_the_file_grows(tmp_path: Path) -> None:
    target = tmp_path / ".aider.chat.history.md"
    shutil.copy(HISTORY, target)
    before = [ls.session.id for ls in load(target)]
    with open(target, "a") as fh:
        fh.write("\n# aider chat started at 2026-03-12 08:00:00\n\n#### one more\n")
    after = load(target)
    assert [ls.session.id for ls in after][:2] == before and len(after) == 3


def test_text_before_the_first_header_is_malformed_not_lost(tmp_path: Path) -> None:
    target = tmp_path / "x.chat.history.md"
    target.write_text("stray line\n" + HISTORY.read_text())
    first = AiderAdapter().load(str(target))[0]  # (not sniffed as Aider's: its first line is not a header)
    assert first.account.malformed == 1 and first.entries[0].kind is EntryKind.MALFORMED


@pytest.mark.skipif(not REAL.exists(), reason=NO_CORPUS)
def test_real_history() -> None:
    [ls] = load(REAL)
    s = ls.session
    assert s.title == "give me a quick summarized overview of this repo"
    assert s.models[0] == "gemini/gemini-2.5-pro-exp-03-25"
    edits = [e for e in ls.entries if e.kind is EntryKind.TOOL_USE]
    assert len(edits) == 26 and all(e.tool_input["file_path"] for e in edits)
    users = [e for e in ls.entries if e.role == "user"]
    assert users[0].timestamp.strftime("%H:%M:%S") == "17:06:57"  # from the input history beside it
    assert ls.account.malformed == 0 and ls.account.lines == 2844


def test_quick_listing_agrees_with_the_full_parse() -> None:
    for path in [HISTORY] + ([REAL] if REAL.exists() else []):
        meta = quick_meta(str(path), REG)
        s = load(path)[-1].session
        assert meta.error is None and meta.agent == "aider" and meta.project == s.project
        for name, value in (("session_id", s.id), ("title", s.title), ("first_timestamp", s.first_timestamp),
                            ("last_timestamp", s.last_timestamp)):
            if meta.knows(name):
                assert getattr(meta, name) == value, name


def test_found_in_project_folders_never_by_a_walk(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("AIDER_CHAT_HISTORY_FILE", raising=False)
    code = tmp_path / "code"
    shutil.copytree(SHOP, code / "shop")
    deep = code / "shop" / "vendor" / "lib"
    deep.mkdir(parents=True)
    shutil.copy(HISTORY, deep / ".aider.chat.history.md")  # below a project: not looked at
    roots = project_roots((str(code),), env={}, cwd=str(tmp_path))
    assert [r.path for r in roots] == [str(code / "shop")]  # the folders holding a history
    assert all(r.shallow for r in roots)
    lib = Library(roots, catalog=Catalog(None))
    lib.scan()
    paths = {s.path for s in lib.sessions()}
    assert paths == {str(code / "shop" / ".aider.chat.history.md")}


def test_known_projects_folders_are_looked_in(tmp_path: Path) -> None:
    proj = tmp_path / "elsewhere"
    shutil.copytree(SHOP, proj)
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "x.jsonl").write_text('{"session_id": "s1", "agent_id": "my-agent", '
                                  f'"started_at": "2026-03-01T00:00:00Z", "cwd": "{proj}"}}\n')
    catalog = Catalog(tmp_path / "cat.db")
    lib = Library([Root(str(logs), "config", explicit=True), Root(str(tmp_path / "nope"), "claude-code")],
                  catalog=catalog)  # (a default root: the known projects are looked in)
    lib.scan()
    lib.scan()  # the second scan knows the session's project from the catalog
    assert {s.agent for s in lib.sessions()} == {"my-agent", "aider"}
    again = Library([Root(str(logs), "config", explicit=True), Root(str(tmp_path / "nope"), "claude-code")],
                    catalog=catalog)
    again.load_cached()
    assert {s.agent for s in again.sessions()} == {"my-agent", "aider"}
    named = Library([Root(str(logs), "--root")], catalog=Catalog(None))  # only the roots given
    named.scan()
    assert {s.agent for s in named.sessions()} == {"my-agent"}


def test_resolve_roots_adds_project_folders_only_with_the_defaults(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert not any(r.shallow for r in resolve_roots())  # no history here: no root
    shutil.copy(HISTORY, tmp_path / ".aider.chat.history.md")
    assert any(r.shallow and r.path == str(tmp_path) for r in resolve_roots())
    assert not any(r.shallow for r in resolve_roots([str(tmp_path)]))


def test_env_names_another_history_file(tmp_path: Path, monkeypatch) -> None:
    proj = tmp_path / "p"
    proj.mkdir()
    shutil.copy(HISTORY, proj / "chat.md")
    monkeypatch.setenv("AIDER_CHAT_HISTORY_FILE", str(proj / "chat.md"))
    adapter = AiderAdapter()
    assert adapter.project_files == (".aider.chat.history.md", "chat.md")
    assert adapter.sniff(str(proj / "chat.md"), (proj / "chat.md").read_bytes())
    roots = project_roots(cwd=str(tmp_path))
    assert str(proj) in [r.path for r in roots]


def test_resume_restores_the_history_in_its_folder() -> None:
    s = load(HISTORY)[0].session
    cmd = resume_command(s)
    assert cmd is not None and cmd.cwd == s.project
    assert cmd.argv == ("aider", "--restore-chat-history", "--chat-history-file", str(HISTORY))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=400), prefix=st.booleans())
def test_any_bytes_read_without_a_crash(tmp_path: Path, data: bytes, prefix: bool) -> None:
    target = tmp_path / ".aider.chat.history.md"
    target.write_bytes((b"# aider chat started at 2026-01-01 00:00:00\n" if prefix else b"") + data)
    loaded = AiderAdapter().load(str(target))
    for ls in loaded:
        assert ls.account.holds()
    if prefix:
        assert loaded


def test_a_growing_history_is_read_whole_by_the_watcher_and_the_index(tmp_path: Path) -> None:
    """A session appended to the file: the watcher and the index read it whole again (its new
    lines alone cannot tell which session they belong to)."""
    from sessionscope.core.live.tracker import Change, Tracker
    from sessionscope.core.search.index import SearchIndex

    root = tmp_path / "root"
    root.mkdir()
    lib = Library([Root(str(root), "--root", explicit=True)], catalog=Catalog(tmp_path / "c.sqlite"))
    lib.scan()
    tracker, index = Tracker(lib), SearchIndex(tmp_path / "index")
    target = root / ".aider.chat.history.md"
    shutil.copy(HISTORY, target)
    (ev,) = tracker.apply([str(target)])
    assert ev.kind is Change.CREATED and len(ev.sessions) == 2
    index.update(lib)
    with open(target, "a") as fh:
        fh.write("\n# aider chat started at 2026-03-12 08:00:00\n\n#### rename the flamingo module\n\nDone.\n")
    (ev,) = tracker.apply([str(target)])
    assert ev.kind is Change.REWRITTEN and len(ev.sessions) == 3
    index.update(lib)
    [hit] = index.search("flamingo").hits
    assert hit.role == "user" and hit.session_id == ev.sessions[2].id
    assert len(index.search("docstring").hits) >= 1  # the earlier sessions are still found


# -- the quick listing of a whole history (`_quick_whole`): its header and user lines only ----------

_STAMPS = ("2026-01-01 10:00:00", "2026-01-01 10:00:00", "2026-01-02 09:30:00", "2026-02-30 08:00:00")
_LINE = st.one_of(
    st.sampled_from(["", "\r", "reply text", "> Aider v0.86.1  ", "> Tokens: 1k sent, 2 received.  ",
                     "####", "#### ", "####  fix   it ", "#### add\r", "#####not user", "####x", "#### \t",
                     "```", "<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE", "# aider chat started at",
                     "# aider chat started at 2026-01-01 10:00:00 not a header", "#### caf\xe9 \u2003",
                     "# aider chat started at 2026-01-01 10:00:00\u00a0",
                     "# aider chat\x00 started at 2026-01-02 09:30:00", "#\x00### nul", "#### n\x00ul"]),
    st.sampled_from(_STAMPS).map(lambda s: f"# aider chat started at {s}"),
    st.sampled_from(_STAMPS).map(lambda s: f"# aider chat started at {s}  \r"),
    st.text(st.sampled_from("#x \t\r\u2028"), max_size=6).map(lambda s: f"#### {s}"),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(_LINE, max_size=30), bom=st.booleans(), end=st.sampled_from(["\n", "", "\r\n"]),
       junk=st.sampled_from([b"", b"\xff\xfe", b"\x00"]), inputs=st.lists(st.tuples(
           st.sampled_from(["2026-01-01 09:00:00", "2026-01-01 10:00:05.5", "2026-01-02 09:31:00",
                            "2026-01-01 10:20:00", "bad"]),
           st.sampled_from(["fix   it", "add", "", "caf\xe9", "x\n#x", "other"])), max_size=8))
def test_quick_listing_of_a_whole_history_is_its_newest_session(
        tmp_path: Path, lines: list[str], bom: bool, end: str, junk: bytes,
        inputs: list[tuple[str, str]]) -> None:
    """Headers anywhere (identical ones counted, look-alikes and unreadable times not taken),
    user blocks (runs of `####` lines, blank ones, CRs, BOM, bytes that do not decode, a NUL),
    with and without an input history: the quick listing is the full parse's last session."""
    target = tmp_path / "p" / ".aider.chat.history.md"
    target.parent.mkdir(exist_ok=True)
    body = ("\n".join(["# aider chat started at 2026-01-01 10:00:00", *lines]) + end).encode()
    target.write_bytes((b"\xef\xbb\xbf" if bom else b"") + body.replace(b"reply", b"reply" + junk, 1))
    history = target.parent / ".aider.input.history"
    history.unlink(missing_ok=True)
    if inputs:
        history.write_text("".join(f"\n# {t}\n" + "".join(f"+{x}\n" for x in text.split("\n"))
                                   for t, text in inputs))
    meta = quick_meta(str(target), REG)
    loaded = AiderAdapter().load(str(target))
    assert meta.whole and meta.error is None
    if not loaded:
        assert meta.unsure == frozenset() and meta.session_id is None
        return
    s = loaded[-1].session
    assert meta.unsure == frozenset()
    assert (meta.session_id, meta.kind, meta.project, meta.title, meta.first_timestamp, meta.last_timestamp) == (
        s.id, s.kind, s.project, s.title, s.first_timestamp, s.last_timestamp)


def test_the_session_id_is_a_uuid5_of_the_real_path(tmp_path: Path) -> None:
    """Through a symlinked folder the id is the real file's (the kernel's name of the open file,
    as `os.path.realpath` gives it), and the id is `uuid5` of it and the numbered header."""
    import uuid

    from sessionscope.core.read.adapters.aider import _session_id, real_path

    real = tmp_path / "real" / "proj"
    real.mkdir(parents=True)
    shutil.copy(HISTORY, real / ".aider.chat.history.md")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    via = tmp_path / "link" / "proj" / ".aider.chat.history.md"
    assert real_path(str(via)) == os.path.realpath(via) == str(real / ".aider.chat.history.md")
    assert real_path(str(tmp_path / "missing" / "x")) == os.path.realpath(tmp_path / "missing" / "x")
    ids = {ls.session.id for ls in AiderAdapter().load(str(via))}
    assert ids == {ls.session.id for ls in AiderAdapter().load(str(real / ".aider.chat.history.md"))}
    assert quick_meta(str(via), REG).session_id == load(via)[-1].session.id
    for name in ("x", "aider:/é\n# aider chat started at 2026-01-01 10:00:00\n3", ""):
        assert _session_id(name, "h") == str(uuid.uuid5(uuid.NAMESPACE_URL, f"aider:{name}\nh"))


def test_a_big_history_is_dated_by_its_last_complete_header_in_the_tail(tmp_path: Path) -> None:
    """Over 128 KB (read by its ends): the newest session's start is guessed from the last
    complete line of the tail that reads as a header (a look-alike, an unterminated last line
    and the cut first line of the window are not)."""
    target = tmp_path / ".aider.chat.history.md"
    filler = "".join(f"#### ask {i}\n\nreply line {i}\n\n" for i in range(6000))
    target.write_text("# aider chat started at 2026-01-01 10:00:00\n\n" + filler
                      + "# aider chat started at 2026-01-02 11:00:00\n\n#### last one\n\nok\n"
                      + "# aider chat started at 2026-01-03 12:00:00 look-alike\n"
                      + "# aider chat started at 2026-01-04 13:00:00  ")  # (unterminated)
    meta = quick_meta(str(target), REG)
    s = load(target)[-1].session
    assert not meta.whole and meta.unsure == {"session_id", "title", "first_timestamp", "last_timestamp"}
    assert meta.first_timestamp == meta.last_timestamp
    assert meta.first_timestamp.strftime("%Y-%m-%d %H:%M:%S") == "2026-01-02 11:00:00"
    assert s.first_timestamp.strftime("%d %H") == "04 13"  # (the full parse reads the last line too)


def test_a_history_is_sniffed_as_aiders_first_and_as_in_order(tmp_path: Path) -> None:
    """A chat history's name hints Aider's sniffer; sniffing in order picks the same adapter and
    the same listing (a file of that name that is not a history is still no one's)."""
    from sessionscope.core.read.adapters.base import Registry

    in_order = Registry(default_registry().adapters)
    in_order._hinting = []
    other = tmp_path / ".aider.chat.history.md"
    other.write_text("not a history\n")
    for path in (HISTORY, other, *([REAL] if REAL.exists() else [])):
        assert REG.likely(str(path)) is REG.by_name("aider")
        assert getattr(REG.sniff(str(path)), "name", None) == getattr(in_order.sniff(str(path)), "name", None)
        assert quick_meta(str(path), REG) == quick_meta(str(path), in_order)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["proj", "a", ".", "..", "", ".aider.chat.history.md"]), max_size=6),
       st.sampled_from([".aider.chat.history.md", ".", "..", ""]), st.booleans())
def test_a_historys_project_is_its_own_paths_folder(segments: list[str], name: str, absolute: bool) -> None:
    """`_project` keeps the folder by the path's folder: for any path (relative, with `.`, `..`,
    empty parts, a name that is not a name) what `abspath` names, whichever path of the folder
    was asked first."""
    import os

    from sessionscope.core.read.adapters import aider

    folder = ("/" if absolute else "") + "/".join(segments)
    for first in ("other.chat.history.md", name):
        aider._PROJECTS.clear()
        aider._project(f"{folder}/{first}")
        path = f"{folder}/{name}"
        assert aider._project(path) == os.path.dirname(os.path.abspath(path)), path
