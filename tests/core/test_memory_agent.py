"""Agent memory files: Claude Code auto-memory, instruction files (symlinks, nested, `@imports`),
user summaries, and `discover_memory` / `render_note` over real corpus examples and fixtures."""
from __future__ import annotations

import os
import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest

from sessionscope.core.memory.places import (
    AUTO_INDEX,
    AUTO_TOPIC,
    INSTRUCTIONS,
    SESSION_NOTE,
    SUMMARY,
    NoteUpdate,
    claude_dir_name,
    discover_memory,
    find_imports,
    group_by_project,
    render_note,
    resolve_imports,
    save_note,
)

NOW = datetime(2026, 11, 20, 10, 0, tzinfo=timezone.utc)


def by_name(items: list, name: str):  # type: ignore[no-untyped-def]
    (found,) = [i for i in items if os.path.basename(i.path) == name]
    return found


@pytest.fixture
def agterm(corpus_dir: Path, tmp_path: Path) -> Path:
    """A project whose auto-memory folder was redirected into the repo, as agterm does."""
    proj = tmp_path / "agterm"
    mem = proj / ".claude" / "memory"
    mem.mkdir(parents=True)
    for name in ("MEMORY.md", "fork-and-local-install.md"):
        shutil.copy(corpus_dir / "memory" / f"agterm__.claude__memory__{name}", mem / name)
    return proj


@pytest.fixture
def ccusage(corpus_dir: Path, tmp_path: Path) -> Path:
    """ccusage's layout: AGENTS.md, CLAUDE.md a symlink to it, and .claude/CLAUDE.md."""
    proj = tmp_path / "ccusage"
    (proj / ".claude").mkdir(parents=True)
    src = corpus_dir / "memory"
    shutil.copy(src / "ccusage__AGENTS.md", proj / "AGENTS.md")
    shutil.copy(src / "ccusage__.claude__CLAUDE.md", proj / ".claude" / "CLAUDE.md")
    target = (src / "ccusage__CLAUDE.md.symlink-target.txt").read_text().strip()
    (proj / "CLAUDE.md").symlink_to(target)
    return proj


# -- real examples ------------------------------------------------------------------------------------
def test_real_auto_memory_index_and_topic_file_parse(agterm: Path) -> None:
    items = discover_memory([str(agterm)], [])
    index, topic = by_name(items, "MEMORY.md"), by_name(items, "fork-and-local-install.md")
    assert index.kind == AUTO_INDEX and index.warnings == ()
    assert index.summary == "1 memory: Fork and local install"
    assert topic.kind == AUTO_TOPIC and topic.warnings == ()
    assert topic.name == "fork-and-local-install" and topic.topic_type == "project"  # from metadata.type
    assert topic.summary.startswith("This clone is a fork whose daily-driver app is a local ad-hoc build")
    assert {i.project for i in items} == {str(agterm)}
    shown = render_note(index)
    assert shown["entries"] == [{
        "title": "Fork and local install", "file": "fork-and-local-install.md",
        "hook": "remotes are inverted, and `/Applications/agterm.app` is a local ad-hoc build rather than the cask",
        "path": str(agterm / ".claude" / "memory" / "fork-and-local-install.md"), "exists": True, "line": 1,
    }]
    topic_view = render_note(topic)
    assert topic_view["frontmatter"]["metadata"] == {"type": "project"}
    assert topic_view["body"].startswith("This checkout is a fork")


def test_real_claude_md_symlink_to_agents_md(ccusage: Path) -> None:
    items = discover_memory([str(ccusage)], [])
    names = sorted(os.path.relpath(i.path, ccusage) for i in items)
    assert names == [".claude/CLAUDE.md", "AGENTS.md", "CLAUDE.md"]
    link = next(i for i in items if i.path == str(ccusage / "CLAUDE.md"))
    assert link.kind == INSTRUCTIONS and link.link_target == "AGENTS.md" and link.warnings == ()
    assert link.summary == "→ AGENTS.md: AGENTS.md"
    agents = by_name(items, "AGENTS.md")
    assert agents.link_target is None and agents.summary == "AGENTS.md" and agents.warnings == ()
    assert render_note(link)["body"].startswith("# AGENTS.md")
    dot = next(i for i in items if i.path == str(ccusage / ".claude" / "CLAUDE.md"))
    assert dot.summary == "Claude Skills"


def test_real_nested_claude_md(corpus_dir: Path, tmp_path: Path) -> None:
    proj = tmp_path / "spotter"
    (proj / "e2e").mkdir(parents=True)
    shutil.copy(corpus_dir / "memory" / "spotter__CLAUDE.md", proj / "CLAUDE.md")
    shutil.copy(corpus_dir / "memory" / "spotter__e2e__CLAUDE.md", proj / "e2e" / "CLAUDE.md")
    items = discover_memory([str(proj)], [])
    assert sorted(os.path.relpath(i.path, proj) for i in items) == ["CLAUDE.md", "e2e/CLAUDE.md"]
    nested = next(i for i in items if "e2e" in i.path)
    assert nested.summary == "E2E Snapshot Policy" and nested.project == str(proj)
    assert all(i.warnings == () and i.imports == () for i in items)


def test_real_claude_md_with_code_blocks_has_no_false_imports(corpus_dir: Path, tmp_path: Path) -> None:
    proj = tmp_path / "ccl"
    proj.mkdir()
    shutil.copy(corpus_dir / "memory" / "claude-code-log__CLAUDE.md", proj / "CLAUDE.md")
    (item,) = discover_memory([str(proj)], [])
    assert item.summary == "Claude Code Log" and item.imports == () and item.warnings == ()
    sections = [s["title"] for s in render_note(item)["sections"]]
    assert "Development Commands" in sections and "Architecture Notes" in sections


def test_real_claude_summaries_summary_md(corpus_dir: Path, tmp_path: Path) -> None:
    projects = tmp_path / "claude" / "projects"
    folder = projects / "-Users-kim-projects-lean-lean4-2-tests"
    folder.mkdir(parents=True)
    shutil.copy(corpus_dir / "memory" / "claude-summaries__.claude__projects__-Users-kim-projects-lean-lean4-2-tests__SUMMARY.md",
                folder / "SUMMARY.md")
    (item,) = discover_memory([], [str(projects)])
    assert item.kind == SUMMARY and item.warnings == ()
    assert item.project == "-Users-kim-projects-lean-lean4-2-tests"  # no known project path escapes to it
    assert item.timestamp == datetime(2026, 1, 24, 21, 0, tzinfo=timezone.utc)
    assert item.timestamp_source == "generated" and item.status == "complete"
    assert item.summary.startswith("Session history storage for Claude Code sessions")
    view = render_note(item)
    assert view["frontmatter"]["files_count"] == 23 and view["frontmatter"]["generated"] == "2026-01-24T21:00:00+00:00"


# -- auto memory in ~/.claude/projects ------------------------------------------------------------------
def test_auto_memory_maps_back_to_the_project_path(tmp_path: Path) -> None:
    proj = tmp_path / "work" / "my_app"
    proj.mkdir(parents=True)
    mem = tmp_path / "projects" / claude_dir_name(str(proj)) / "memory"
    mem.mkdir(parents=True)
    (mem / "MEMORY.md").write_text("# Memory\n- [Prefs](prefs.md) — how the user likes it\n- [Gone](gone.md)\nstray line\n")
    (mem / "prefs.md").write_text("---\nname: prefs\ndescription: Short answers\ntype: feedback\n---\n**Why:** x\n")
    (mem / "odd.md").write_text("---\nname: odd\ntype: hunch\n---\nbody\n")
    items = discover_memory([str(proj)], [str(tmp_path / "projects")])
    assert claude_dir_name(str(proj)).endswith("-work-my-app")
    assert {i.project for i in items} == {str(proj)}
    index = by_name(items, "MEMORY.md")
    assert index.summary == "2 memories: Prefs, Gone"
    assert index.warnings == ("line 3: gone.md not found", "line 4 is not an index entry ('- [Title](file.md) — hook')")
    assert by_name(items, "prefs.md").topic_type == "feedback"
    assert by_name(items, "odd.md").warnings == ("missing field 'description'",
                                                 "unknown type 'hunch' (expected user, feedback, project, reference)")


def test_topic_with_broken_frontmatter_is_an_item_with_a_warning(tmp_path: Path) -> None:
    mem = tmp_path / "p" / ".claude" / "memory"
    mem.mkdir(parents=True)
    (mem / "MEMORY.md").write_text("- [T](t.md) — x\n")
    (mem / "t.md").write_text("---\nname: t\n\tdescription: tabbed\n---\nbody\n")
    items = discover_memory([str(tmp_path / "p")], [])
    t = by_name(items, "t.md")
    assert t.kind == AUTO_TOPIC and len(t.warnings) == 1 and "not valid YAML (line 3" in t.warnings[0]
    assert render_note(t)["body"] == "body\n"


# -- session notes in discovery -------------------------------------------------------------------------
def test_notes_are_items_timed_by_their_name(tmp_path: Path, data_dir: Path) -> None:
    proj = tmp_path / "foo"
    mem = proj / "memory"
    mem.mkdir(parents=True)
    for f in (data_dir / "memory" / "notes").iterdir():
        shutil.copy(f, mem)
    shutil.copy(data_dir / "memory" / "odd" / "tabs.md", mem / "2026-11-18-00-00-foo-system.md")
    os.utime(mem / "2026-11-10-08-15-foo-system.md", (2_000_000_000, 2_000_000_000))
    items = discover_memory([str(proj)], [])
    assert [os.path.basename(i.path) for i in items] == [
        "2026-11-18-00-00-foo-system.md", "2026-11-17-09-30-foo-system.md", "2026-11-10-08-15-foo-system.md"]
    bad, new, old = items
    assert all(i.kind == SESSION_NOTE and i.timestamp_source == "name" for i in items)
    assert new.timestamp == datetime(2026, 11, 17, 9, 30).astimezone()
    assert (new.status, new.last_checkpoint, new.schema_version) == ("in-progress", "CP-S2", "1.1")
    assert new.summary == "Built the API endpoints for orders; tests green. Checkpoint CP-S2 is waiting for approval."
    assert old.schema_version == "1.0" and old.name == "foo-system"
    assert bad.status is None and "not valid YAML" in bad.warnings[0]
    view = render_note(old)
    assert "schema_version" not in view["frontmatter"] and view["schema_version"] == "1.0"
    assert view["note"]["checkpoints_approved"] == ["CP-S0", "CP-S1"]
    assert render_note(bad)["warnings"] == list(bad.warnings)


def test_group_by_project_newest_group_first(tmp_path: Path) -> None:
    a, b = tmp_path / "a" / "memory", tmp_path / "b" / "memory"
    a.mkdir(parents=True)
    b.mkdir(parents=True)
    save_note(a, "a", "2026-11-10-08-15", NoteUpdate(status="paused"), now=NOW)
    save_note(b, "b", "2026-11-12-08-15", NoteUpdate(status="paused"), now=NOW)
    save_note(a, "a", "2026-11-14-08-15", NoteUpdate(status="paused"), now=NOW)
    groups = group_by_project(discover_memory([str(tmp_path / "a"), str(tmp_path / "b")], []))
    assert [g for g, _ in groups] == [str(tmp_path / "a"), str(tmp_path / "b")]
    assert [os.path.basename(i.path)[:10] for i in groups[0][1]] == ["2026-11-14", "2026-11-10"]


def test_explicit_memory_dirs_belong_to_their_project(tmp_path: Path) -> None:
    mem = tmp_path / "proj" / ".claude" / "memory"
    mem.mkdir(parents=True)
    save_note(mem, "p", "2026-11-10-08-15", NoteUpdate(status="paused"), now=NOW)
    (mem / "README.md").write_text("not a memory\n")
    (item,) = discover_memory([], [], memory_dirs=[str(mem)])
    assert item.project == str(tmp_path / "proj")


# -- instruction files ------------------------------------------------------------------------------------
def test_instruction_files_all_names_nested_and_rules(tmp_path: Path) -> None:
    proj = tmp_path / "p"
    for rel in ("CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", "AGENTS.override.md", "GEMINI.md", ".claude/CLAUDE.md",
                ".claude/rules/style.md", "pkg/AGENTS.md", "pkg/sub/GEMINI.md", "node_modules/x/CLAUDE.md",
                ".git/CLAUDE.md", "a/b/c/d/e/CLAUDE.md", "docs/README.md"):
        f = proj / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(f"# {rel}\n")
    items = discover_memory([str(proj)], [])
    assert sorted(os.path.relpath(i.path, proj) for i in items) == sorted([
        "CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", "AGENTS.override.md", "GEMINI.md", ".claude/CLAUDE.md",
        ".claude/rules/style.md", "pkg/AGENTS.md", "pkg/sub/GEMINI.md"])
    assert all(i.kind == INSTRUCTIONS for i in items)


def test_user_level_instruction_files(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".codex").mkdir()
    (home / ".claude" / "CLAUDE.md").write_text("# Me\n")
    (home / ".codex" / "AGENTS.md").write_text("# Me too\n")
    items = discover_memory([], [], home=str(home))
    assert sorted(i.project for i in items) == ["(user)", "(user)"] and len(items) == 2


def test_gemini_md_of_gemini_cli_home_joins_the_user_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, alt = tmp_path / "home", tmp_path / "alt"
    (home / ".gemini").mkdir(parents=True)
    (alt / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "GEMINI.md").write_text("## Gemini Added Memories\n- use uv\n")
    (alt / ".gemini" / "GEMINI.md").write_text("# Work profile\n")
    monkeypatch.setenv("GEMINI_CLI_HOME", str(alt))
    items = discover_memory([], [], home=str(home))
    assert sorted(i.path for i in items) == [str(alt / ".gemini" / "GEMINI.md"), str(home / ".gemini" / "GEMINI.md")]
    assert {i.project for i in items} == {"(user)"}


def test_dangling_symlink_is_reported(tmp_path: Path) -> None:
    proj = tmp_path / "p"
    proj.mkdir()
    (proj / "CLAUDE.md").symlink_to("AGENTS.md")
    (item,) = discover_memory([str(proj)], [])
    assert item.link_target == "AGENTS.md" and item.warnings == ("symlink to AGENTS.md, which does not exist",)
    assert render_note(item)["warnings"][-1] == "cannot be read (No such file or directory)"


def test_a_file_in_nested_projects_is_listed_once_under_the_deepest(tmp_path: Path) -> None:
    outer, inner = tmp_path / "mono", tmp_path / "mono" / "apps" / "web"
    inner.mkdir(parents=True)
    (outer / "AGENTS.md").write_text("# mono\n")
    (inner / "AGENTS.md").write_text("# web\n")
    items = discover_memory([str(outer), str(inner)], [])
    assert sorted((os.path.relpath(i.path, outer), i.project) for i in items) == [
        ("AGENTS.md", str(outer)), ("apps/web/AGENTS.md", str(inner))]


# -- imports ---------------------------------------------------------------------------------------------
def test_find_imports_skips_code_and_mentions() -> None:
    text = ("See @AGENTS.md and @docs/style.md.\n"
            "Ask @ryoppippi, mail me@example.com.\n"
            "Inline `@not/this.md` is code.\n"
            "```\n@nor/this.md\n```\n"
            "~~~md\n@nor/that.md\n~~~\n"
            "@~/.claude/personal.md\n")
    assert find_imports(text) == [("AGENTS.md", 1), ("docs/style.md", 1), ("~/.claude/personal.md", 10)]


def test_imports_resolve_relative_to_the_importing_file(tmp_path: Path) -> None:
    proj = tmp_path / "p"
    (proj / "docs").mkdir(parents=True)
    (proj / "CLAUDE.md").write_text("@AGENTS.md\n")
    (proj / "AGENTS.md").write_text("Rules. @docs/style.md @docs/missing.md\n")
    (proj / "docs" / "style.md").write_text("Style. @../CLAUDE.md\n")  # back to the start: a cycle
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "mine.md").write_text("mine\n")
    (proj / "CLAUDE.local.md").write_text("@~/.claude/mine.md\n")
    items = discover_memory([str(proj)], [], home=str(home))
    claude = next(i for i in items if i.path == str(proj / "CLAUDE.md"))
    assert claude.imports == (str(proj / "AGENTS.md"),)
    assert claude.warnings == (  # depth first, in file order
        "style.md:1: import @../CLAUDE.md is a cycle (already being imported); not followed",
        f"AGENTS.md:1: import @docs/missing.md not found ({proj / 'docs' / 'missing.md'})",
    )
    local = next(i for i in items if i.path == str(proj / "CLAUDE.local.md"))
    assert local.imports == (str(home / ".claude" / "mine.md"),) and local.warnings == ()
    tree = render_note(claude, home=str(home))["imports"]
    assert tree[0]["status"] == "ok" and tree[0]["text"].startswith("Rules.")
    assert [(c["ref"], c["status"]) for c in tree[0]["imports"]] == [("docs/style.md", "ok"), ("docs/missing.md", "missing")]
    assert tree[0]["imports"][0]["imports"][0]["status"] == "cycle"


def test_imports_stop_after_five_levels(tmp_path: Path) -> None:
    for n in range(8):
        (tmp_path / f"f{n}.md").write_text(f"level {n} @f{n + 1}.md\n")
    refs, warnings = resolve_imports(str(tmp_path / "f0.md"))
    depth, node = 0, refs[0]
    while node.children:
        depth, node = depth + 1, node.children[0]
    assert depth == 5 and node.ref == "f6.md" and node.status == "too-deep"
    assert warnings == ["f5.md:1: import @f6.md is deeper than 5 levels; not followed"]


def test_self_import_is_a_cycle(tmp_path: Path) -> None:
    (tmp_path / "CLAUDE.md").write_text("@./CLAUDE.md\n")
    refs, warnings = resolve_imports(str(tmp_path / "CLAUDE.md"))
    assert refs[0].status == "cycle" and len(warnings) == 1


def test_a_symlink_loop_in_the_projects_folder_does_not_hide_auto_memory(tmp_path: Path) -> None:
    # A loop (a -> b -> a) beside the projects' folders raised ELOOP from is_dir() and ended the
    # scan of the whole projects folder: every project's auto-memory vanished from `memory list`.
    projects = tmp_path / "projects"
    mem = projects / "-home-user-proj" / "memory"
    mem.mkdir(parents=True)
    (mem / "MEMORY.md").write_text("# Memory\n- [Prefs](prefs.md) — how the user likes it\n")
    os.symlink(projects / "loopb", projects / "loopa")
    os.symlink(projects / "loopa", projects / "loopb")
    items = discover_memory([], [str(projects)])
    assert [i.name for i in items] == ["MEMORY.md"]
