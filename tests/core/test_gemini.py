"""Gemini CLI chats: the legacy JSON document and the JSONL of 2026, on the real files and on
fixtures (tests/data/gemini) that hold what the real ones lack (tool calls in a legacy file,
`$rewindTo`, a subagent, a broken line, a project named by Gemini's marker or only by its hash)."""
from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from helpers import CORPUS, DATA, NO_CORPUS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessionscope.core.catalog.library import Library
from sessionscope.core.catalog.store import Catalog
from sessionscope.core.model import EntryKind, SessionKind
from sessionscope.core.read.adapters import default_registry
from sessionscope.core.read.adapters.gemini import GeminiAdapter, path_hash
from sessionscope.core.read.discovery import Root, default_roots
from sessionscope.core.read.listing import CLOCK_SKEW, quick_meta
from sessionscope.core.read.resume import resume_command

REG = default_registry()
GEM = DATA / "gemini" / "tmp"
LEGACY = GEM / "webshop" / "chats" / "session-2025-11-02T09-00-7d1e0f52.json"
JSONL = GEM / "9f2c0d1e" / "chats" / "session-2026-04-01T10-00-3c9a77e1.jsonl"
SUB = GEM / "9f2c0d1e" / "chats" / "3c9a77e1-2222-4d3e-8f00-bbbbbbbbbbbb" / "5e5e5e5e-3333-4444-8888-cccccccccccc.jsonl"
REAL_JSONL = CORPUS / "gemini" / "VibeCodingTracker__test_conversation_gemini.jsonl"
REAL_JSON = CORPUS / "gemini" / "VibeCodingTracker__test_conversation_gemini@b36a8d3.json"
needs_corpus = pytest.mark.skipif(not REAL_JSONL.exists(), reason=NO_CORPUS)


def load(path: Path):
    adapter = REG.sniff(str(path))
    assert isinstance(adapter, GeminiAdapter), path
    [ls] = adapter.load(str(path))
    assert ls.account.holds(), ls.account
    return ls


@needs_corpus
def test_real_jsonl_keeps_the_last_version_of_each_reappended_message() -> None:
    ls = load(REAL_JSONL)
    ids = [e.id for e in ls.entries]
    assert len(ids) == len(set(ids))  # five message ids are written twice in this file
    lines = [json.loads(x) for x in REAL_JSONL.read_text().splitlines()]
    twice = {d["id"] for d in lines if "id" in d and sum(1 for o in lines if o.get("id") == d["id"]) > 1}
    assert len(twice) == 5
    # the earlier versions' lines are noise, with the metadata and the `$set` patches
    sets = sum(1 for d in lines if "$set" in d)
    assert ls.account.noise == 1 + sets + len(twice)
    s = ls.session
    assert s.id == "0ab84937-9fe7-4284-986a-33c832af0b6a" and s.kind is SessionKind.MAIN
    assert s.title == "/init"  # the displayContent, not the expanded prompt
    assert s.models == ("gemini-3-flash-preview", "gemini-3.1-pro-preview")
    kinds = {e.kind for e in ls.entries}
    assert {EntryKind.TOOL_USE, EntryKind.TOOL_RESULT, EntryKind.THINKING, EntryKind.SYSTEM} <= kinds
    calls = {e.tool_use_id for e in ls.entries if e.kind is EntryKind.TOOL_USE}
    results = {e.tool_use_id for e in ls.entries if e.kind is EntryKind.TOOL_RESULT}
    assert calls == results
    assert s.project == s.project and len(s.project) == 64  # no folder known here: the hash


@needs_corpus
def test_real_legacy_json_is_read_as_records() -> None:
    ls = load(REAL_JSON)
    s = ls.session
    assert s.id == "eefc44a3-0832-4bc0-ac33-fa668f038213"
    assert ls.account.lines == 1 + 19  # the header and one record per message
    assert s.usage.cache_read > 0 and s.usage.output > 0
    first = ls.entries[0]
    assert first.role == "user" and first.locator.line == 7  # where its JSON starts in the file
    assert sum(e.kind is EntryKind.THINKING for e in ls.entries) == 17


def test_legacy_tool_calls_list_content_and_marker_project() -> None:
    ls = load(LEGACY)
    s = ls.session
    assert s.project == "/home/dev/projects/webshop"  # from Gemini's .project_root marker
    assert s.title == "why does checkout fail?"  # list-typed user content joined
    by_id = {e.id: e for e in ls.entries}
    assert by_id["m2.c1"].tool_input == {"file_path": "shop/checkout.py"}
    assert by_id["m2.c1.result"].text.startswith("def checkout")
    assert by_id["m2.c2.result"].is_error and "ZeroDivisionError" in by_id["m2.c2.result"].text
    assert by_id["m3"].kind is EntryKind.SYSTEM
    # input excludes the cached part; thoughts count as output
    assert (s.usage.input, s.usage.cache_read, s.usage.output) == (600 + 200, 400 + 1000, 70 + 30)


def test_jsonl_patches_rewinds_duplicates_and_a_broken_line() -> None:
    ls = load(JSONL)
    s = ls.session
    assert s.title == "Retry for the webhook sender"  # the `$set` summary
    assert s.last_timestamp.isoformat().startswith("2026-04-01T10:03:00")
    by_id = {e.id: e for e in ls.entries}
    assert by_id["g1.t1.result"].text == "def send(): post()"  # the last version of g1
    assert not by_id["u2"].on_active_branch  # rewound
    assert all(e.on_active_branch for e in ls.entries if e.id != "u2")
    assert by_id["u3"].text == "use tenacity instead"  # what the user typed
    assert by_id["L13"].kind is EntryKind.UNKNOWN
    assert ls.account.malformed == 1 and by_id["L6"].kind is EntryKind.MALFORMED
    assert s.entry_count == sum(1 for e in ls.entries if e.kind is not EntryKind.MALFORMED) - 1


def test_subagent_names_its_parent() -> None:
    s = load(SUB).session
    assert s.kind is SessionKind.SUBAGENT and s.parent_id == "3c9a77e1-2222-4d3e-8f00-bbbbbbbbbbbb"


def _copy_tree(tmp_path: Path) -> Path:
    root = tmp_path / "gemini" / "tmp"
    shutil.copytree(GEM, root)
    return root


def test_project_named_by_the_registry_by_a_known_project_else_the_hash(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("SESSIONSCOPE_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.chdir(tmp_path)
    root = _copy_tree(tmp_path)
    path = root / "9f2c0d1e" / "chats" / JSONL.name
    digest = hashlib.sha256(b"/home/dev/projects/gemini-demo").hexdigest()
    assert load(path).session.project == digest
    # Gemini's own registry (path -> slug of the temp folder) names it
    (root.parent / "projects.json").write_text(json.dumps({"projects": {"/home/dev/projects/gemini-demo": "9f2c0d1e"}}))
    assert load(path).session.project == "/home/dev/projects/gemini-demo"
    # a configured project root names it too (its subfolder hashes to the chat's projectHash)
    (root.parent / "projects.json").unlink()
    proj = tmp_path / "code" / "shop"
    proj.mkdir(parents=True)
    lines = path.read_text().splitlines()
    meta = json.loads(lines[0])
    meta["projectHash"] = path_hash(str(proj))
    path.write_text("\n".join([json.dumps(meta), *lines[1:]]) + "\n")
    assert load(path).session.project == meta["projectHash"]
    (tmp_path / "cfg.toml").write_text(f'project_roots = ["{tmp_path / "code"}"]\n')
    monkeypatch.setenv("SESSIONSCOPE_CONFIG", str(tmp_path / "cfg.toml"))
    assert load(path).session.project == str(proj)
    (tmp_path / "cfg.toml").write_text("project_roots = []\n")  # (the config read again once changed)
    assert load(path).session.project == meta["projectHash"]


def test_library_names_a_hash_by_another_agents_project(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("SESSIONSCOPE_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.chdir(tmp_path)
    root = _copy_tree(tmp_path)
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "x.jsonl").write_text(
        json.dumps({"session_id": "other", "agent_id": "my-agent", "started_at": "2026-04-01T09:00:00Z",
                    "cwd": "/home/dev/projects/gemini-demo"}) + "\n")
    lib = Library([Root(str(root), "--root"), Root(str(logs), "--root")], catalog=Catalog(None))
    lib.scan()
    assert lib.find("3c9a77e1").project == "/home/dev/projects/gemini-demo"
    parent = lib.find("3c9a77e1")
    assert parent.child_ids == ("5e5e5e5e-3333-4444-8888-cccccccccccc",)


def test_quick_listing_agrees_with_the_full_parse() -> None:
    files = [LEGACY, JSONL, SUB] + ([REAL_JSONL, REAL_JSON] if REAL_JSONL.exists() else [])
    for path in files:
        meta = quick_meta(str(path), REG)
        s = load(path).session
        assert meta.error is None and meta.agent == "gemini-cli"
        for name, value in (("session_id", s.id), ("kind", s.kind), ("project", s.project), ("title", s.title)):
            if meta.knows(name):
                assert getattr(meta, name) == value, (path.name, name)
        if meta.knows("last_timestamp"):
            assert abs((meta.last_timestamp - s.last_timestamp).total_seconds()) <= 10


def test_quick_listing_of_a_big_jsonl_leaves_the_title_unsure(tmp_path: Path) -> None:
    big = tmp_path / JSONL.name
    pad = json.dumps({"id": "pad", "timestamp": "2026-04-01T10:02:40.000Z", "type": "info", "content": "x" * 200_000})
    lines = JSONL.read_text().splitlines()
    big.write_text("\n".join([*lines[:-1], pad, lines[-1]]) + "\n")
    meta = quick_meta(str(big), REG)
    assert "title" in meta.unsure and meta.knows("session_id") and meta.knows("last_timestamp")
    assert meta.last_timestamp.isoformat().startswith("2026-04-01T10:03:00")


def test_not_sniffed_other_json() -> None:
    assert not GeminiAdapter().sniff("x.json", b'[{"sessionId": "a", "messageId": 0, "type": "user"}]')  # logs.json
    assert not GeminiAdapter().sniff("x.jsonl", b'{"type": "user", "sessionId": "a"}\n')


def test_default_roots_and_overrides(tmp_path: Path) -> None:
    from sessionscope.core.config import load_config

    (tmp_path / "c.toml").write_text(f'gemini_home = "{tmp_path / "cfg-gemini"}"\n')
    config = load_config(tmp_path / "c.toml")
    assert not config.warnings
    roots = default_roots({"GEMINI_CLI_HOME": str(tmp_path / "alt")}, tmp_path / "home", dict(config.agent_homes))
    gem = [r.path for r in roots if r.origin == "gemini-cli"]
    assert gem == [str(tmp_path / "home" / ".gemini" / "tmp"), str(tmp_path / "alt" / ".gemini" / "tmp"),
                   str(tmp_path / "cfg-gemini" / "tmp")]


def test_resume_needs_the_project_folder() -> None:
    s = load(LEGACY).session
    cmd = resume_command(s)
    assert cmd is not None and cmd.argv == ("gemini", "--resume", s.id) and cmd.cwd == "/home/dev/projects/webshop"
    assert resume_command(load(JSONL).session) is None  # only the hash is known: no folder to start in


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cut=st.integers(0, 4000), junk=st.binary(max_size=40))
def test_a_damaged_legacy_document_is_one_counted_record(tmp_path: Path, cut: int, junk: bytes) -> None:
    data = LEGACY.read_bytes()
    target = tmp_path / LEGACY.name
    target.write_bytes(data[:cut] + junk)
    [ls] = GeminiAdapter().load(str(target))  # never raises
    assert ls.account.holds()
    if ls.account.lines:
        assert ls.account.malformed <= 1


@needs_corpus
def test_real_legacy_chat_named_by_another_agents_session_of_the_same_folder(tmp_path: Path, monkeypatch) -> None:
    """The legacy chat's projectHash is the sha256 of a folder that a Copilot CLI session of the
    same author recorded as its cwd: read together, the chat is listed under that folder."""
    monkeypatch.setenv("SESSIONSCOPE_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.chdir(tmp_path)
    lib = Library([Root(str(CORPUS), "--root")], catalog=Catalog(None))
    lib.scan()
    s = lib.find("eefc44a3")
    meta = json.loads(REAL_JSON.read_text())
    assert s.project is not None and s.project.startswith("/") and path_hash(s.project) == meta["projectHash"]


def test_a_growing_jsonl_chat_is_followed_from_where_it_stopped(tmp_path: Path) -> None:
    """The JSONL chat is appended to: the watcher reports only the new entries (the legacy
    document is re-read whole, see the Copilot and Codex tests of rewritten documents)."""
    from sessionscope.core.live.tracker import Change, Tracker

    root = _copy_tree(tmp_path)
    lib = Library([Root(str(root), "--root", explicit=True)], catalog=Catalog(tmp_path / "c.sqlite"))
    lib.scan()
    tracker = Tracker(lib)
    path = root / "9f2c0d1e" / "chats" / JSONL.name
    with open(path, "a") as fh:
        fh.write(json.dumps({"id": "u9", "timestamp": "2026-04-01T10:05:00.000Z", "type": "user",
                             "content": [{"text": "and log each retry"}]}) + "\n")
    (ev,) = tracker.apply([str(path)])
    assert ev.kind is Change.GREW and [e.id for e in ev.entries] == ["u9"]
    assert GeminiAdapter().grows(str(path)) and not GeminiAdapter().grows(str(LEGACY))


def test_quick_listing_of_a_whole_jsonl_parses_only_lines_that_may_patch_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Issue 15: once the head gave the metadata, the first prompt and the first time, only a
    # `$set` patch (a summary titles the chat) can change the listing of a small file read whole.
    from sessionscope.core.read import ends

    path = tmp_path / "tmp" / "9f2c0d1e" / "chats" / "session-2026-04-01T10-00-3c9a77e1.jsonl"
    path.parent.mkdir(parents=True)
    head = JSONL.read_text().splitlines()[:2]
    real = ends._loads  # what `Lines.values` parses a line with
    for patch, sure in (('{"$set": {"summary": "A later summary"}}', True),
                        # a key written with escapes (still `$set` once parsed, never written
                        # so by Gemini) is not looked for: the title is then a guess
                        ('{"\\u0024set": {"summary": "A later summary"}}', False)):
        lines = list(head)
        for i in range(60):
            lines.append(json.dumps({"id": f"g{i}", "timestamp": f"2026-04-01T10:{i:02d}:05.000Z", "type": "gemini",
                                     "content": f"step {i}", "model": "gemini-3-flash-preview"}))
            if i == 30:
                lines.append(patch)
        lines.append(json.dumps({"$set": {"lastUpdated": "2026-04-01T11:00:00.000Z"}}))
        path.write_text("\n".join(lines) + "\n")
        parsed: list[bytes] = []
        monkeypatch.setattr(ends, "_loads", lambda line: parsed.append(line) or real(line))
        meta = quick_meta(str(path), REG)
        monkeypatch.setattr(ends, "_loads", real)
        s = load(path).session
        assert s.title == "A later summary" and s.last_timestamp.isoformat().startswith("2026-04-01T11:00")
        assert meta.whole and meta.unsure == (frozenset() if sure else {"title"}), patch
        assert (meta.session_id, meta.project, meta.first_timestamp, meta.last_timestamp) == (
            s.id, s.project, s.first_timestamp, s.last_timestamp)
        assert meta.title == (s.title if sure else "add a retry to the webhook sender"), patch  # (its prompt)
        assert len(parsed) < 10  # the head's few lines, the patches, the last line: not the 60 replies


def test_quick_listing_of_a_small_legacy_chat_builds_no_entries(monkeypatch: pytest.MonkeyPatch) -> None:
    # Issue 15: a legacy chat read whole is listed from its parsed document by the metadata hook
    # alone, not loaded (entries built for every message) as before: the same fields.
    files = [LEGACY] + ([REAL_JSON] if REAL_JSON.exists() else [])
    full = {path: load(path).session for path in files}

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the quick listing loaded the whole chat")

    monkeypatch.setattr(GeminiAdapter, "load", refuse)
    for path, s in full.items():
        meta = quick_meta(str(path), REG)
        assert meta.error is None and meta.whole and not meta.unsure, path.name
        assert (meta.session_id, meta.kind, meta.project, meta.title) == (s.id, s.kind, s.project, s.title)
        assert s.first_timestamp <= meta.first_timestamp <= s.first_timestamp + CLOCK_SKEW
        assert s.last_timestamp - CLOCK_SKEW <= meta.last_timestamp <= s.last_timestamp


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(["reply", "plain", "escaped", "both", "broken", "blank", "updated", "compact",
                                  "updated-escaped", "dollars", "updated-cr", "updated-twice", "updated-late"]),
                max_size=25),
       st.booleans())
def test_quick_listing_of_a_whole_jsonl_finds_every_patch_wherever_it_is(
        tmp_path: Path, kinds: list[str], unterminated: bool) -> None:
    """The lines after the head that may patch a whole chat (a `$set`, several on a line, a
    broken line, an unterminated last one) are found by searching the bytes: the listing says
    what the full parse says. A key spelled with escapes is not looked for: with a backslash
    anywhere in those lines, the title is a guess (said so), all else still the full parse's."""
    path = tmp_path / "tmp" / "9f2c0d1e" / "chats" / "session-2026-04-01T10-00-3c9a77e1.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = JSONL.read_text().splitlines()[:2]
    for i, kind in enumerate(kinds):
        t = f"2026-04-01T10:{i:02d}:05.000Z"
        lines.append({
            "reply": json.dumps({"id": f"g{i}", "timestamp": t, "type": "gemini", "content": f"step {i}"}),
            "plain": json.dumps({"$set": {"summary": f"summary {i}", "lastUpdated": t}}),
            "escaped": '{"\\u0024set": {"summary": "escaped %d"}}' % i,
            "both": '{"$set": {"summary": "both %d"}, "\\u0024set": {"lastUpdated": "%s"}}' % (i, t),
            "broken": '{"$set": {"summary": "never',
            "blank": "",
            # patches of `lastUpdated` alone, parsed only when another patch or the end follows
            "updated": json.dumps({"$set": {"lastUpdated": t}}),
            "compact": '{"$set":{"lastUpdated":"%s"}}' % t,
            "updated-escaped": '{"$set":{"lastUpdated":"2026-04-01T10:%02d:0\\u0035.000Z"}}' % i,
            "dollars": json.dumps({"id": f"g{i}", "timestamp": t, "type": "gemini", "content": "$5 $$ $se$set"}),
            "updated-cr": '{"$set":{"lastUpdated":"%s"}}\r' % t,
            "updated-twice": '{"$set":{"lastUpdated":"%s"}} {"$set":{"summary":"two on a line"}}' % t,
            "updated-late": '{"$set":{"lastUpdated":"2026-04-01T12:00:00.000Z"}}',  # (then overwritten)
        }[kind])
    path.write_text("\n".join(lines) + ("" if unterminated else "\n"))
    meta = quick_meta(str(path), REG)
    s = load(path).session
    escapes = any("\\" in line for line in lines[2:])
    assert meta.whole and meta.unsure == ({"title"} if escapes else frozenset())
    assert (meta.session_id, meta.first_timestamp, meta.last_timestamp) == (s.id, s.first_timestamp, s.last_timestamp)
    assert escapes or meta.title == s.title


def test_the_project_lookup_sees_what_changed_since_the_last_chat_of_its_folder(tmp_path: Path, monkeypatch) -> None:
    """A chat folder's places (marker, registry) are kept by the folder; what is in them is
    looked at again for every chat: a marker, a registry or a config written between two
    listings of the same folder names the project at once, by the listing as by the full parse."""
    monkeypatch.setenv("SESSIONSCOPE_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.chdir(tmp_path)
    root = _copy_tree(tmp_path)
    path = root / "9f2c0d1e" / "chats" / JSONL.name
    digest = hashlib.sha256(b"/home/dev/projects/gemini-demo").hexdigest()

    def both() -> tuple[str | None, str | None]:
        return quick_meta(str(path), REG).project, load(path).session.project

    assert both() == (digest, digest)
    (root.parent / "projects.json").write_text(json.dumps({"projects": {"/srv/by-registry": "9f2c0d1e"}}))
    assert both() == ("/srv/by-registry", "/srv/by-registry")
    (root / "9f2c0d1e" / ".project_root").write_text("/srv/by-marker\n")
    assert both() == ("/srv/by-marker", "/srv/by-marker")
    (root / "9f2c0d1e" / ".project_root").unlink()
    (root.parent / "projects.json").unlink()
    assert both() == (digest, digest)
    monkeypatch.chdir("/")
    proj = tmp_path / "home" / "dev" / "projects"
    proj.mkdir(parents=True)
    (tmp_path / "cfg.toml").write_text(f'project_roots = ["{proj}"]\n')
    monkeypatch.setenv("SESSIONSCOPE_CONFIG", str(tmp_path / "cfg.toml"))
    assert both() == (digest, digest)  # (its subfolders hash otherwise)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["chats", "tmp", "p", ".", "..", "", "x.jsonl", "chats.d"]), max_size=7),
       st.sampled_from(["session-1.jsonl", ".", "..", "", "chats"]), st.booleans())
def test_the_places_of_a_chat_are_those_of_its_own_path(segments: list[str], name: str, absolute: bool) -> None:
    """`_places` keeps what a folder's chats share by the folder: for any path (relative, with
    `.`, `..`, empty parts, a name that is not a name) the places its own path gives, whichever
    path of the folder was asked first."""
    import os

    from sessionscope.core.read.adapters import gemini

    def direct(path: str):
        d = gemini._project_dir(path)
        return None if d is None else (d, os.path.join(d, ".project_root"),
                                       os.path.join(os.path.dirname(os.path.dirname(d)), "projects.json"),
                                       os.path.basename(d))

    folder = ("/" if absolute else "") + "/".join(segments)
    for first in ("other.jsonl", name):
        gemini._PLACES.clear()
        gemini._places(f"{folder}/{first}")
        path = f"{folder}/{name}"
        assert gemini._places(path) == direct(path), path


_PATCHES = {
    "reply": lambda i, t: json.dumps({"id": f"g{i}", "timestamp": t, "type": "gemini", "content": f"step {i} $5"}),
    "summary": lambda i, t: json.dumps({"$set": {"summary": f"summary {i}", "lastUpdated": t}}),
    "escaped": lambda i, t: '{"\\u0024set": {"summary": "escaped %d"}}' % i,
    "broken": lambda i, t: '{"$set": {"summary": "never',
    "blank": lambda i, t: "",
    "compact": lambda i, t: '{"$set":{"lastUpdated":"%s"}}' % t,
    "spaced": lambda i, t: json.dumps({"$set": {"lastUpdated": t}}),
    "cr": lambda i, t: '{"$set":{"lastUpdated":"%s"}}\r' % t,
    "indented": lambda i, t: ' {"$set":{"lastUpdated":"%s"}}' % t,
    "two": lambda i, t: '{"$set":{"lastUpdated":"%s"}} {"$set":{"summary":"two on a line"}}' % t,
    # shaped as Gemini writes a patch of `lastUpdated` alone, but not one or not parsing
    "control": lambda i, t: '{"$set":{"lastUpdated":"%s\x01"}}' % t,
    "backslash": lambda i, t: '{"$set":{"lastUpdated":"%s\\"}}' % t,
    "escape-in-value": lambda i, t: '{"$set":{"lastUpdated":"%s\\u0041"}}' % t,
    "not-utf8": lambda i, t: '{"$set":{"lastUpdated":"%s\udcff"}}' % t,
    "unicode": lambda i, t: '{"$set":{"lastUpdated":"%s \u00e9t\u00e9"}}' % t,
    "other-key": lambda i, t: '{"$set":{"lastUpdated":"%s","summary":"other key %d"}}' % (t, i),
    "two-lines": lambda i, t: '{"$set":{"lastUpdated":"%s\n"}}' % t,
    "empty": lambda i, t: '{"$set":{"lastUpdated":""}}',
    "no-end": lambda i, t: '{"$set":{"lastUpdated":"%s"}' % t,
    "after-quote": lambda i, t: '{"$set":{"lastUpdated":"%s"}}x' % t,
}


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(sorted(_PATCHES)), max_size=14), st.booleans())
def test_the_patches_taken_by_their_shape_leave_the_metadata_a_walk_leaves(
        kinds: list[str], unterminated: bool) -> None:
    """`_patch_lines` takes a line shaped as Gemini writes a patch of `lastUpdated` alone without
    matching it, and parses only the last of a run: the metadata it leaves is what observing every
    line holding the key `$set` from the top leaves (and what the matching of every line,
    `fast=False`, leaves), for lines of that shape that do not parse, are not one, or are cut by
    the file's end. (A key spelled with escapes is not looked for: the listing then says its
    title is a guess, `_rest_escapes`.)"""
    from sessionscope.core.read.adapters.gemini import GeminiParser, _patch_lines
    from sessionscope.core.read.ends import Lines

    head = json.dumps({"sessionId": "s", "projectHash": "h", "lastUpdated": "2026-04-01T09:00:00.000Z"})
    lines = [head, *(_PATCHES[k](i, f"2026-04-01T10:{i:02d}:0{i % 10}.000Z") for i, k in enumerate(kinds))]
    buf = ("\n".join(lines) + ("" if unterminated else "\n")).encode("utf-8", "surrogateescape")
    rest = len(head) + 1

    def metadata(values_seq) -> dict:
        parser = GeminiParser("/x/chats/session-1.jsonl")
        parser.observe(json.loads(head))
        for values in values_seq:
            for value in values:
                parser.observe(value)
        return parser.meta

    walk = Lines(buf)
    pieces = [p for p in walk.forward() if p[0] >= rest and (p[1] < len(buf) or walk.values(p) is not None)]
    expected = metadata(walk.values(p) or () for p in pieces if b"$set" in buf[p[0]:p[1]])
    assert metadata(_patch_lines(Lines(buf), rest)) == expected
    assert metadata(_patch_lines(Lines(buf), rest, fast=False)) == expected
