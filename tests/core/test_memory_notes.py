"""Session memory notes: save (atomic, merge, validation), load-last (newest by name, damaged
notes skipped), schema 1.0 read + migration, and odd YAML that must warn, never crash."""
from __future__ import annotations

import os
import shutil
import stat
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from sessionscope.core.memory import save as memory_save
from sessionscope.core.memory.places import (
    Decision,
    NoteCorrupt,
    NoteError,
    NoteUpdate,
    SessionNote,
    ago,
    discover_memory,
    find_notes,
    load_last,
    normalize_stamp,
    note_from_json,
    note_from_source,
    parse_note,
    read_note,
    save_note,
)

NOW = datetime(2026, 11, 20, 10, 0, tzinfo=timezone.utc)


@pytest.fixture
def mem(tmp_path: Path) -> Path:
    d = tmp_path / "memory"
    d.mkdir()
    return d


@pytest.fixture
def notes(data_dir: Path) -> Path:
    return data_dir / "memory" / "notes"


@pytest.fixture
def odd(data_dir: Path) -> Path:
    return data_dir / "memory" / "odd"


def full_update() -> NoteUpdate:
    return NoteUpdate(
        mode="guided", status="in-progress", last_checkpoint="CP-S2", target_dir="/home/dev/foo",
        summary="Built the orders API.\nCP-S2 waits for approval.", active_state="Choosing pagination.",
        approve=["CP-S1"], decisions={"CP-S1": Decision("b", "keep v1")}, steps=["S1 storage", "S2 API"],
        key_decisions=["SQLite for v1"],
    )


# -- save -------------------------------------------------------------------------------------
def test_save_writes_named_note_with_schema_and_time(mem: Path) -> None:
    r = save_note(mem, "foo-system", "2026-11-17-09-30", full_update(), now=NOW)
    assert r.created and r.migrated_from is None
    assert Path(r.path) == mem / "2026-11-17-09-30-foo-system.md"
    text = Path(r.path).read_text()
    assert text.startswith("---\nschema_version: 1.1\nproject-name: foo-system\n")
    assert "last_session_at: '2026-11-20T10:00:00Z'" in text
    for heading in ("## Session summary", "## Steps completed", "## Active state", "## Key decisions"):
        assert heading in text
    note = read_note(r.path)
    assert note.warnings == []
    assert (note.status, note.mode, note.last_checkpoint) == ("in-progress", "guided", "CP-S2")
    assert note.checkpoints_approved == ["CP-S1"]
    assert note.checkpoint_decisions == {"CP-S1": Decision("b", "keep v1", 0)}
    assert note.steps == ["S1 storage", "S2 API"] and note.key_decisions == ["SQLite for v1"]
    assert note.summary == "Built the orders API.\nCP-S2 waits for approval."
    assert note.last_session_at == NOW


def test_save_same_timestamp_is_the_same_file(mem: Path) -> None:
    save_note(mem, "foo", "2026-11-17-09-30", full_update(), now=NOW)
    r = save_note(mem, "foo", "2026-11-17T09:30:59", NoteUpdate(status="paused"), now=NOW + timedelta(hours=1))
    assert not r.created
    assert [p.name for p in mem.iterdir()] == ["2026-11-17-09-30-foo.md"]
    note = read_note(r.path)
    assert note.status == "paused"
    assert note.mode == "guided" and note.steps == ["S1 storage", "S2 API"]  # not given: kept
    assert note.last_session_at == NOW + timedelta(hours=1)


def test_save_lists_add_and_decisions_keep_their_regenerated_count(mem: Path, notes: Path) -> None:
    shutil.copy(notes / "2026-11-17-09-30-foo-system.md", mem)
    save_note(mem, "foo-system", "2026-11-17-09-30",
              NoteUpdate(approve=["CP-S1", "CP-S2"], steps=["S2 orders API", "S3 pagination"],
                         decisions={"CP-S1": Decision("c", "changed mind"), "CP-S2": Decision("cursor")}), now=NOW)
    note = read_note(mem / "2026-11-17-09-30-foo-system.md")
    assert note.checkpoints_approved == ["CP-S0", "CP-S1", "CP-S2"]
    assert note.steps == ["S0 scaffold", "S1 storage layer", "S2 orders API", "S3 pagination"]
    assert note.checkpoint_decisions["CP-S1"] == Decision("c", "changed mind", 1)
    assert note.checkpoint_decisions["CP-S2"] == Decision("cursor", "", 0)


def test_save_replace_starts_from_nothing(mem: Path) -> None:
    save_note(mem, "foo", "2026-11-17-09-30", full_update(), now=NOW)
    r = save_note(mem, "foo", "2026-11-17-09-30", NoteUpdate(status="completed"), replace=True, now=NOW)
    note = read_note(r.path)
    assert note.status == "completed" and note.mode is None and note.steps == []


def test_save_sets_last_session_at_even_over_a_given_one(mem: Path) -> None:
    base = SessionNote(project="foo", session="2026-11-17-09-30", status="paused",
                       last_session_at=datetime(2020, 1, 1, tzinfo=timezone.utc))
    r = save_note(mem, "foo", "2026-11-17-09-30", base=base, now=NOW)
    assert read_note(r.path).last_session_at == NOW
    before = datetime.now(timezone.utc).replace(microsecond=0)
    r = save_note(mem, "foo", "2026-11-17-09-31", NoteUpdate(status="paused"))  # real clock
    saved = read_note(r.path).last_session_at
    assert saved is not None and before <= saved <= datetime.now(timezone.utc)


def test_save_accepts_iso_timestamps(mem: Path) -> None:
    r = save_note(mem, "foo", "2026-11-17T09:30:45+02:00", NoteUpdate(status="paused"), now=NOW)
    assert Path(r.path).name == "2026-11-17-09-30-foo.md"  # wall-clock minutes as written
    assert read_note(r.path).session == "2026-11-17-09-30"


@pytest.mark.parametrize("bad", ["yesterday", "2026-11-17", "2026-13-17-09-30", "2026-11-17-25-00", "17/11/2026 09:30", ""])
def test_save_rejects_bad_timestamps_clearly(mem: Path, bad: str) -> None:
    with pytest.raises(NoteError, match=r"session timestamp must be YYYY-MM-DD-HH-MM or ISO 8601"):
        save_note(mem, "foo", bad, NoteUpdate(status="paused"))
    assert list(mem.iterdir()) == []


@pytest.mark.parametrize("bad", ["../escape", "a/b", ".hidden", "", "x y"])
def test_save_rejects_project_names_unfit_for_a_file_name(mem: Path, bad: str) -> None:
    with pytest.raises(NoteError, match="cannot be used in a note's file name"):
        save_note(mem, bad, "2026-11-17-09-30", NoteUpdate(status="paused"))
    assert list(mem.iterdir()) == []


def test_save_rejects_unknown_status(mem: Path) -> None:
    with pytest.raises(NoteError, match="status must be one of in-progress, paused, completed"):
        save_note(mem, "foo", "2026-11-17-09-30", NoteUpdate(status="done"))
    assert list(mem.iterdir()) == []


def test_save_into_missing_memory_dir_is_an_error_and_writes_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "proj" / "memory"
    with pytest.raises(NoteError) as exc:
        save_note(missing, "foo", "2026-11-17-09-30", full_update())
    assert str(exc.value) == f"memory directory not found at {missing}"
    assert not missing.exists() and not (tmp_path / "proj").exists()


def test_save_interrupted_at_replace_keeps_the_old_file(mem: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    r = save_note(mem, "foo", "2026-11-17-09-30", full_update(), now=NOW)
    old = Path(r.path).read_bytes()

    def crash(src: str, dst: str) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(memory_save.os, "replace", crash)
    with pytest.raises(NoteError, match=r"could not write .* \(Input/output error\); the previous version is unchanged"):
        save_note(mem, "foo", "2026-11-17-09-30", NoteUpdate(status="completed", summary="new"), now=NOW)
    monkeypatch.undo()
    assert Path(r.path).read_bytes() == old
    assert [p.name for p in mem.iterdir()] == ["2026-11-17-09-30-foo.md"]  # no temp file left


def test_save_interrupted_mid_write_keeps_the_old_file(mem: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    r = save_note(mem, "foo", "2026-11-17-09-30", full_update(), now=NOW)
    old = Path(r.path).read_bytes()
    real_write = os.write
    calls: list[int] = []

    def half_then_disk_full(fd: int, data: bytes) -> int:
        if calls:
            raise OSError(28, "No space left on device")
        calls.append(fd)
        return real_write(fd, bytes(data[: len(data) // 2]))

    monkeypatch.setattr(memory_save.os, "write", half_then_disk_full)
    with pytest.raises(NoteError, match=r"\(No space left on device\); the previous version is unchanged"):
        save_note(mem, "foo", "2026-11-17-09-30", NoteUpdate(summary="x" * 3000), now=NOW)
    monkeypatch.undo()
    assert calls, "the write was not interrupted"
    assert Path(r.path).read_bytes() == old
    assert read_note(r.path).summary.startswith("Built the orders API.")
    assert [p.name for p in mem.iterdir()] == ["2026-11-17-09-30-foo.md"]


def test_failed_first_save_leaves_no_file(mem: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory_save.os, "fsync", lambda fd: (_ for _ in ()).throw(OSError(5, "I/O error")))
    with pytest.raises(NoteError, match="no note was written"):
        save_note(mem, "foo", "2026-11-17-09-30", full_update())
    assert list(mem.iterdir()) == []


def test_save_keeps_the_file_mode(mem: Path) -> None:
    old_umask = os.umask(0o022)
    try:
        r = save_note(mem, "foo", "2026-11-17-09-30", full_update(), now=NOW)
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE(os.stat(r.path).st_mode) == 0o644  # a new note: like any file the user creates
    os.chmod(r.path, 0o640)
    save_note(mem, "foo", "2026-11-17-09-30", NoteUpdate(status="paused"), now=NOW)
    assert stat.S_IMODE(os.stat(r.path).st_mode) == 0o640


def test_save_will_not_merge_into_a_damaged_note(mem: Path, odd: Path) -> None:
    target = mem / "2026-11-17-09-30-foo.md"
    shutil.copy(odd / "tabs.md", target)
    before = target.read_bytes()
    with pytest.raises(NoteError, match=r"cannot be merged into: frontmatter is not valid YAML .*--replace"):
        save_note(mem, "foo", "2026-11-17-09-30", NoteUpdate(status="paused"))
    assert target.read_bytes() == before
    save_note(mem, "foo", "2026-11-17-09-30", NoteUpdate(status="paused"), replace=True)
    assert read_note(target).status == "paused"


def test_save_will_not_merge_into_a_newer_schema(mem: Path) -> None:
    target = mem / "2026-11-17-09-30-foo.md"
    target.write_text("---\nschema_version: 2.0\nproject-name: foo\nnew_thing: [1]\n---\n## Session summary\n\nx\n")
    with pytest.raises(NoteError, match="schema_version 2.0, newer than 1.1"):
        save_note(mem, "foo", "2026-11-17-09-30", NoteUpdate(status="paused"))
    assert "new_thing" in target.read_text()


def test_save_warns_when_a_note_is_not_condensed(mem: Path) -> None:
    r = save_note(mem, "foo", "2026-11-17-09-30", NoteUpdate(summary="word " * 1200), now=NOW)
    assert any("meant to be condensed" in w for w in r.warnings)


def test_save_keeps_unknown_fields_and_sections(mem: Path) -> None:
    target = mem / "2026-11-17-09-30-foo.md"
    target.write_text("---\nschema_version: 1.1\nproject-name: foo\nsession: 2026-11-17-09-30\nstatus: paused\n"
                      "ticket: ABC-12\n---\nIntro line.\n\n## Session summary\n\nold\n\n## Links\n\n- http://x\n")
    save_note(mem, "foo", "2026-11-17-09-30", NoteUpdate(summary="new"), now=NOW)
    note = read_note(target)
    assert note.extra_meta == {"ticket": "ABC-12"}
    assert note.preamble == "Intro line." and note.extra_sections == [("Links", "- http://x")]
    assert note.summary == "new"


def test_memory_files_are_never_deleted(mem: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    removed: list[str] = []
    monkeypatch.setattr(memory_save.os, "remove", lambda p: removed.append(p))
    monkeypatch.setattr(memory_save.os, "rmdir", lambda p: removed.append(p))
    save_note(mem, "foo", "2026-11-17-09-30", full_update(), now=NOW)
    save_note(mem, "foo", "2026-11-17-09-30", NoteUpdate(status="completed"), replace=True, now=NOW)
    load_last("foo", [mem], now=NOW)
    assert removed == []


# -- load-last --------------------------------------------------------------------------------------
def test_load_last_takes_the_newest_by_name_not_by_mtime(mem: Path) -> None:
    for stamp, status in (("2026-11-10-08-15", "completed"), ("2026-11-17-09-30", "in-progress"),
                          ("2026-11-12-23-59", "paused")):
        save_note(mem, "foo", stamp, NoteUpdate(status=status), now=NOW)
    os.utime(mem / "2026-11-10-08-15-foo.md", (2_000_000_000, 2_000_000_000))  # newest mtime, oldest name
    res = load_last("foo", [mem], now=NOW)
    assert res.found and res.note is not None
    assert Path(res.note.path or "").name == "2026-11-17-09-30-foo.md"
    assert res.content == (mem / "2026-11-17-09-30-foo.md").read_text()


def test_load_last_resume_line(mem: Path, notes: Path) -> None:
    shutil.copy(notes / "2026-11-17-09-30-foo-system.md", mem)
    res = load_last("foo-system", [mem], now=datetime(2026, 11, 20, 12, 0, tzinfo=timezone.utc))
    assert res.line == "Resuming foo-system (last touched 3 days ago, status: in-progress at CP-S2)"
    assert res.warnings == []


def test_load_last_matches_the_whole_project_name(mem: Path) -> None:
    save_note(mem, "foo", "2026-11-10-08-15", NoteUpdate(status="paused"), now=NOW)
    save_note(mem, "foo-system", "2026-11-17-09-30", NoteUpdate(status="paused"), now=NOW)
    save_note(mem, "bar-foo", "2026-11-18-09-30", NoteUpdate(status="paused"), now=NOW)
    res = load_last("foo", [mem], now=NOW)
    assert res.note is not None and res.note.path == str(mem / "2026-11-10-08-15-foo.md")


def test_load_last_with_nothing_saved_is_informational(mem: Path, tmp_path: Path) -> None:
    save_note(mem, "other", "2026-11-10-08-15", NoteUpdate(status="paused"), now=NOW)
    res = load_last("foo", [mem, tmp_path / "does-not-exist"], now=NOW)
    assert not res.found and res.note is None and res.content is None
    assert res.line == "No previous memory found for project 'foo'"
    assert res.warnings == []
    assert res.to_dict()["found"] is False and res.to_dict()["message"] == res.line


def test_load_last_skips_a_corrupt_newest_note(mem: Path, odd: Path) -> None:
    save_note(mem, "foo", "2026-11-10-08-15", NoteUpdate(status="paused", last_checkpoint="CP-S1"), now=NOW)
    shutil.copy(odd / "tabs.md", mem / "2026-11-17-09-30-foo.md")
    res = load_last("foo", [mem], now=NOW)
    assert res.note is not None and res.note.path == str(mem / "2026-11-10-08-15-foo.md")
    assert len(res.warnings) == 1
    assert res.warnings[0].startswith(f"skipped {mem / '2026-11-17-09-30-foo.md'}: frontmatter is not valid YAML (line 5")


def test_load_last_skips_an_unreadable_note(mem: Path) -> None:
    save_note(mem, "foo", "2026-11-10-08-15", NoteUpdate(status="paused"), now=NOW)
    (mem / "2026-11-17-09-30-foo.md").symlink_to(mem / "gone.md")  # open() fails even for root
    res = load_last("foo", [mem], now=NOW)
    assert res.note is not None and res.note.session == "2026-11-10-08-15"
    assert res.warnings == [f"skipped {mem / '2026-11-17-09-30-foo.md'}: cannot be read (No such file or directory)"]


def test_load_last_skips_a_binary_or_frontmatterless_note(mem: Path) -> None:
    save_note(mem, "foo", "2026-11-10-08-15", NoteUpdate(status="paused"), now=NOW)
    (mem / "2026-11-17-09-30-foo.md").write_bytes(b"---\nstatus: pa\x00\x00used\n")
    (mem / "2026-11-16-09-30-foo.md").write_text("just text, no fields\n")
    (mem / "2026-11-15-09-30-foo.md").write_text("---\nstatus: paused\n")  # cut off
    res = load_last("foo", [mem], now=NOW)
    assert res.note is not None and res.note.session == "2026-11-10-08-15"
    reasons = [w.split(": ", 1)[1] for w in res.warnings]
    assert reasons == ["holds binary data (NUL bytes), not text",
                       "has no frontmatter (a note starts with a '---' block of fields)",
                       "frontmatter is not closed (no second '---' line)"]


def test_load_last_all_corrupt_is_not_found_with_warnings(mem: Path, odd: Path) -> None:
    shutil.copy(odd / "tabs.md", mem / "2026-11-17-09-30-foo.md")
    res = load_last("foo", [mem], now=NOW)
    assert not res.found and len(res.warnings) == 1


def test_load_last_searches_several_folders(tmp_path: Path) -> None:
    a, b = tmp_path / "a" / "memory", tmp_path / "b" / ".claude" / "memory"
    a.mkdir(parents=True)
    b.mkdir(parents=True)
    save_note(a, "foo", "2026-11-10-08-15", NoteUpdate(status="paused"), now=NOW)
    save_note(b, "foo", "2026-11-11-08-15", NoteUpdate(status="completed"), now=NOW)
    res = load_last("foo", [a, b], now=NOW)
    assert res.note is not None and res.note.status == "completed"
    assert res.searched == [str(a), str(b)]


def test_load_last_skips_names_with_impossible_times(mem: Path) -> None:
    save_note(mem, "foo", "2026-11-10-08-15", NoteUpdate(status="paused"), now=NOW)
    (mem / "2026-19-40-08-15-foo.md").write_text("---\nstatus: paused\n---\n")
    res = load_last("foo", [mem], now=NOW)
    assert res.note is not None and res.note.session == "2026-11-10-08-15"
    assert res.warnings == [f"skipped {mem / '2026-19-40-08-15-foo.md'}: 2026-19-40-08-15 is not a real date and time"]


# -- versions ----------------------------------------------------------------------------------------
def test_note_without_schema_version_reads_as_1_0(notes: Path) -> None:
    note = read_note(notes / "2026-11-10-08-15-foo-system.md")
    assert note.schema_version == "1.0"
    assert note.warnings == []  # 1.0 spellings and shapes are expected there, not warned about
    assert note.last_checkpoint == "CP-S1"  # from the 1.0 spelling last_checkpoint
    assert note.checkpoints_approved == ["CP-S0", "CP-S1"]  # from a comma-separated string
    assert note.checkpoint_decisions == {"CP-S1": Decision("option-b")}  # from checkpoint-decisions: text
    assert note.last_session_at is None


def test_legacy_note_resume_line_uses_the_name_time(mem: Path, notes: Path) -> None:
    shutil.copy(notes / "2026-11-10-08-15-foo-system.md", mem)
    now = datetime(2026, 11, 10, 8, 15).astimezone() + timedelta(days=2, hours=1)
    res = load_last("foo-system", [mem], now=now)
    assert res.line == "Resuming foo-system (last touched 2 days ago, status: paused at CP-S1)"
    assert res.note is not None and res.to_dict()["schema_version"] == "1.0"


def test_legacy_note_is_migrated_to_1_1_on_save(mem: Path, notes: Path) -> None:
    shutil.copy(notes / "2026-11-10-08-15-foo-system.md", mem)
    r = save_note(mem, "foo-system", "2026-11-10-08-15", NoteUpdate(status="in-progress"), now=NOW)
    assert r.migrated_from == "1.0" and not r.created
    raw = yaml.safe_load(Path(r.path).read_text().split("---\n")[1])
    assert raw["schema_version"] == 1.1
    assert raw["last-checkpoint"] == "CP-S1" and "last_checkpoint" not in raw
    assert raw["checkpoints-approved"] == ["CP-S0", "CP-S1"]
    assert raw["checkpoint_decisions"] == {"CP-S1": {"option": "option-b", "note": "", "regenerated_count": 0}}
    assert "checkpoint-decisions" not in raw
    assert raw["last_session_at"] == "2026-11-20T10:00:00Z"
    assert raw["owner"] == "kim"  # unknown fields kept
    note = read_note(r.path)
    assert note.schema_version == "1.1" and note.warnings == [] and note.status == "in-progress"
    assert note.preamble == "# foo-system, first session"
    assert note.extra_sections == [("Open questions", "- Which auth provider?")]
    assert note.summary.startswith("Scaffolded the service")
    again = save_note(mem, "foo-system", "2026-11-10-08-15", NoteUpdate(), now=NOW)
    assert again.migrated_from is None


def test_newer_schema_reads_best_effort_with_a_warning() -> None:
    note = parse_note("---\nschema_version: '1.4'\nproject-name: foo\nsession: 2026-11-17-09-30\n"
                      "status: paused\nlast_session_at: '2026-11-17T09:30:00Z'\n---\n")
    assert note.schema_version == "1.4" and note.status == "paused"
    assert note.warnings == ["schema_version 1.4 is newer than this sessionscope reads (1.1); read best-effort"]


# -- odd YAML: a clear warning, never a crash -----------------------------------------------------------
def test_tabs_in_frontmatter_give_a_clear_reason(odd: Path) -> None:
    with pytest.raises(NoteCorrupt) as exc:
        read_note(odd / "tabs.md")
    assert str(exc.value) == ("frontmatter is not valid YAML (line 5, column 1: found character that cannot "
                              "start any token; YAML does not allow tabs for indentation)")


def test_tab_after_a_colon_is_fine() -> None:
    note = parse_note("---\nschema_version: 1.1\nstatus:\tpaused\n---\n")
    assert note.status == "paused"


def test_missing_fields_are_warned_about(odd: Path) -> None:
    note = read_note(odd / "missing.md")
    assert note.mode == "quick" and note.summary == "Hardly any fields."
    assert note.warnings == ["missing field 'project-name'", "missing field 'session'", "missing field 'status'",
                             "missing field 'last_session_at'"]


def test_wrong_types_are_warned_about_and_read_as_far_as_possible(odd: Path) -> None:
    note = read_note(odd / "types.md")
    assert note.status == "5" and note.last_checkpoint is None and note.checkpoints_approved == []
    assert note.checkpoint_decisions == {"CP-S2": Decision("c", "", 0)}
    assert note.last_session_at is None
    assert note.warnings == [
        "field 'status' should be text, got the number 5; read as text",
        "unknown status '5' (expected in-progress, paused, completed)",
        "field 'last-checkpoint' should be text, got a list; ignored",
        "field 'checkpoints-approved' should be a list, got a mapping; ignored",
        "decision 'CP-S1' should be {option, note, regenerated_count}, got a list; skipped",
        "decision 'CP-S2': regenerated_count should be a whole number >= 0, got 'many'; read as 0",
        "last_session_at 'yesterday' is not an ISO 8601 time; ignored",
    ]


def test_a_body_with_rules_and_code_keeps_its_sections(odd: Path) -> None:
    note = read_note(odd / "body-rules.md")
    assert note.warnings == [] and note.status == "completed"
    assert "Below the rule, still the summary." in note.summary
    assert "## Not a heading: inside a code block" in note.summary
    assert note.steps == ["S9 ship"]


@pytest.mark.parametrize(("text", "reason"), [
    ("---\n- a\n- b\n---\nbody\n", "frontmatter is a list, not a mapping of fields"),
    ("---\njust words\n---\n", "frontmatter is a text, not a mapping of fields"),
    ("---\nlast_session_at: 2026-13-45\n---\n", "frontmatter could not be read (ValueError: month must be in 1..12)"),
    ("---\na: [1, 2\n---\n", "frontmatter is not valid YAML (line 3, column 1: did not find expected ',' or ']')"),
    ("---\nstatus: paused\n", "frontmatter is not closed (no second '---' line)"),
])
def test_unusable_frontmatter_is_named(text: str, reason: str) -> None:
    with pytest.raises(NoteCorrupt) as exc:
        parse_note(text)
    assert str(exc.value) == reason


def test_empty_frontmatter_and_non_text_keys_do_not_crash() -> None:
    note = parse_note("---\n---\n## Session summary\n\nx\n")
    assert "frontmatter is empty" in note.warnings and note.summary == "x"
    note = parse_note("---\n1: one\n2026-01-01: day\nstatus: paused\n---\n")
    assert note.extra_meta == {"1": "one", "2026-01-01": "day"}


def test_name_wins_over_frontmatter_identity(mem: Path) -> None:
    p = mem / "2026-11-17-09-30-foo.md"
    p.write_text("---\nschema_version: 1.1\nproject-name: bar\nsession: 2026-01-01-00-00\nstatus: paused\n"
                 "last_session_at: '2026-11-17T09:30:00Z'\n---\n")
    note = read_note(p)
    assert (note.project, note.session) == ("foo", "2026-11-17-09-30")
    assert note.warnings == [
        "project-name 'bar' differs from the file name's 'foo'; using the file name",
        "session '2026-01-01-00-00' differs from the file name's 2026-11-17-09-30; using the file name",
    ]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(list("-:\t\n #[]{}'\"&*!|>@`ab1.") + ["---\n", "status: ", "\x00", "\ufeff",
                                                                   "2026-13-45", "\n  - "]),
                max_size=80).map("".join))
def test_arbitrary_text_never_raises_anything_but_note_corrupt(text: str) -> None:
    try:
        note = parse_note(text)
    except NoteCorrupt:
        return
    note.to_dict()
    note.to_text()


_line = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=30).map(str.strip).filter(
    lambda s: bool(s) and not s.startswith(("#", "-", "*", "+", "`", "~", "[", ">")) and not s[0].isdigit()
)


@settings(max_examples=100, deadline=None)
@given(status=st.sampled_from(["in-progress", "paused", "completed"]), mode=st.none() | _line,
       steps=st.lists(_line, max_size=4, unique=True), decisions=st.dictionaries(_line, _line, max_size=3),
       summary=st.lists(_line, max_size=3).map("\n".join))
def test_notes_round_trip(status: str, mode: str | None, steps: list[str], decisions: dict[str, str], summary: str) -> None:
    note = SessionNote(project="foo", session="2026-11-17-09-30", status=status, mode=mode, steps=steps,
                       checkpoint_decisions={k: Decision(v, "n", 2) for k, v in decisions.items()},
                       summary=summary, last_session_at=NOW)
    back = parse_note(note.to_text())
    assert back.warnings == []
    assert (back.status, back.mode, back.steps, back.summary) == (status, mode, steps, summary)
    assert back.checkpoint_decisions == note.checkpoint_decisions and back.last_session_at == NOW


# -- small parts ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(("value", "stamp"), [
    ("2026-11-17-09-30", "2026-11-17-09-30"),
    ("2026-11-17T09:30", "2026-11-17-09-30"),
    ("2026-11-17 09:30:59.123", "2026-11-17-09-30"),
    ("2026-11-17T09:30:00Z", "2026-11-17-09-30"),
    (" 2026-11-17T23:59:00-05:00 ", "2026-11-17-23-59"),
])
def test_normalize_stamp(value: str, stamp: str) -> None:
    assert normalize_stamp(value) == stamp


@pytest.mark.parametrize(("delta", "text"), [
    (timedelta(seconds=20), "just now"), (timedelta(minutes=1), "1 minute ago"),
    (timedelta(hours=5), "5 hours ago"), (timedelta(days=1, hours=3), "1 day ago"),
    (timedelta(days=75), "2 months ago"), (timedelta(days=800), "2 years ago"), (timedelta(hours=-2), "just now"),
])
def test_ago(delta: timedelta, text: str) -> None:
    assert ago(NOW - delta, NOW) == text


def test_note_from_json_flat_and_nested() -> None:
    flat = note_from_json({"project-name": "foo", "session": "2026-11-17T09:30", "status": "paused",
                           "last_checkpoint": "CP-S1", "steps": ["S1", "S2"], "summary": "hi",
                           "checkpoint_decisions": {"CP-S1": {"option": "a", "note": "n", "regenerated_count": 2}}})
    assert (flat.project, flat.session, flat.last_checkpoint, flat.steps) == ("foo", "2026-11-17-09-30", "CP-S1", ["S1", "S2"])
    assert flat.checkpoint_decisions["CP-S1"] == Decision("a", "n", 2) and flat.summary == "hi"
    nested = note_from_json({"frontmatter": {"project-name": "foo", "status": "completed"},
                             "body": "## Session summary\n\nfrom body\n"})
    assert nested.status == "completed" and nested.summary == "from body"
    with pytest.raises(NoteError, match="must be a list of text lines"):
        note_from_json({"steps": [1, 2]})
    with pytest.raises(NoteError, match="must be an object"):
        note_from_json([1])


def test_note_from_source_reports_bad_json_and_bad_notes() -> None:
    with pytest.raises(NoteError, match=r"not valid JSON \(line 1, column 2"):
        note_from_source("{nope}")
    with pytest.raises(NoteError, match="not a note: has no frontmatter"):
        note_from_source("plain text")


# -- concurrent saves (issue 10, item 5) -----------------------------------------------------------
def _save_step_after(barrier: Any, mem: str, step: str) -> None:
    barrier.wait()
    save_note(mem, "foo", "2026-11-17-09-30", NoteUpdate(steps=[step]))


def test_parallel_saves_of_one_note_all_survive(mem: Path) -> None:
    """8 processes released at once, each adding a step: every step is in the note (without the
    lock, each merged into the same old note and the last replace won)."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    barrier = ctx.Barrier(8)
    procs = [ctx.Process(target=_save_step_after, args=(barrier, str(mem), f"step-{i}")) for i in range(8)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    assert [p.exitcode for p in procs] == [0] * 8
    note = read_note(mem / "2026-11-17-09-30-foo.md")
    assert sorted(note.steps) == [f"step-{i}" for i in range(8)]
    assert [p.name for p in mem.iterdir()] == ["2026-11-17-09-30-foo.md"]  # no lock or temp left


def test_a_save_that_cannot_get_the_lock_fails_and_writes_nothing(mem: Path) -> None:
    fcntl = pytest.importorskip("fcntl", reason="the held lock is taken with flock (POSIX)")

    save_note(mem, "foo", "2026-11-17-09-30", NoteUpdate(steps=["a"]))
    before = (mem / "2026-11-17-09-30-foo.md").read_bytes()
    held = os.open(memory_save.lock_path(mem / "2026-11-17-09-30-foo.md"), os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(held, fcntl.LOCK_EX)  # another save, still running
        with pytest.raises(NoteError, match="holds its lock.*gave up after 0.01 s, nothing was written"):
            save_note(mem, "foo", "2026-11-17-09-30", NoteUpdate(steps=["b"]), lock_timeout=0.01)
    finally:
        os.close(held)
    assert (mem / "2026-11-17-09-30-foo.md").read_bytes() == before
    save_note(mem, "foo", "2026-11-17-09-30", NoteUpdate(steps=["b"]))  # released: it goes through
    assert read_note(mem / "2026-11-17-09-30-foo.md").steps == ["a", "b"]


def test_the_next_save_removes_temp_files_a_killed_save_left(mem: Path) -> None:
    """A save killed between creating its temp file and the replace leaves `.NAME.hex.tmp`: the
    next save in the folder removes it (this note's, and another note's no save holds), and no
    listing ever shows one."""
    save_note(mem, "foo", "2026-11-17-09-30", NoteUpdate(steps=["a"]))
    stale = [mem / ".2026-11-17-09-30-foo.md.0123456789ab.tmp", mem / ".2026-11-18-10-00-bar.md.ba9876543210.tmp"]
    for p in stale:
        p.write_text("---\nhalf a note")
    assert [n[2] for n in find_notes([mem])] == [str(mem / "2026-11-17-09-30-foo.md")]
    assert all(".tmp" not in it.path for it in discover_memory([], [], memory_dirs=[str(mem)]))
    save_note(mem, "foo", "2026-11-17-09-30", NoteUpdate(steps=["b"]))
    assert sorted(p.name for p in mem.iterdir()) == ["2026-11-17-09-30-foo.md"]


def test_a_temp_file_of_a_save_in_progress_is_left_alone(mem: Path) -> None:
    fcntl = pytest.importorskip("fcntl", reason="the held lock is taken with flock (POSIX)")

    busy = mem / ".2026-11-18-10-00-bar.md.ba9876543210.tmp"
    busy.write_text("being written")
    held = os.open(memory_save.lock_path(mem / "2026-11-18-10-00-bar.md"), os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(held, fcntl.LOCK_EX)
        save_note(mem, "foo", "2026-11-17-09-30", NoteUpdate(steps=["a"]))
        assert busy.exists()
    finally:
        os.close(held)
