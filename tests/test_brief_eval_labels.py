"""The hand-labelled brief evaluation set (bench/brief_eval/*.json): every file follows the label
format of bench/brief_eval/README.md, and, where ../shared is present, every entry id it names is an
entry of the labelled session as `sessionscope read --json` prints it (so the scorer can match it)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import CORPUS, NO_CORPUS, ROOT

from sessionscope.core.catalog.store import Catalog
from sessionscope.core.read.discovery import Root
from sessionscope.core.catalog.library import Library, conversation

EVAL = ROOT / "bench" / "brief_eval"
LABELS = sorted(EVAL.glob("*.json"))
TYPES = {"decision", "correction", "failed_approach", "outcome", "open_question"}
SHAPES = {"explicit", "implicit-decision", "fail-fix-chain", "retry-abandoned", "self-correction",
          "silent-intervention", "tool-output-fact", "terse-outcome", "overclaim", "unresolved-at-end", "other"}


def _label_id(path: Path) -> str:
    return path.stem


@pytest.mark.parametrize("path", LABELS, ids=_label_id)
def test_label_file_follows_the_format(path: Path) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    agent_prefix = {"claude-code": "claude", "codex": "codex"}.get(doc["agent"], doc["agent"])
    assert path.stem == f"{agent_prefix}-{doc['session_id'][:8]}"
    assert doc["file"].startswith(("claude-code/", "codex/")) and doc["project"] and doc["summary"]
    task_ids = [t["id"] for t in doc["tasks"]]
    assert len(task_ids) >= 2 and len(set(task_ids)) == len(task_ids)
    assert all(t["task"].strip() for t in doc["tasks"])
    finding_ids = [f["id"] for f in doc["findings"]]
    assert len(set(finding_ids)) == len(finding_ids)
    for f in doc["findings"]:
        assert f["type"] in TYPES, f["id"]
        assert f["shape"] in SHAPES, f["id"]
        assert f["tasks"] and set(f["tasks"]) <= set(task_ids), f["id"]
        assert f["entry"] and f["summary"].strip() and f["entry"] not in f["supporting"], f["id"]
    assert len(doc["distractors"]) >= 3
    assert all(d["entry"] and d["why"].strip() for d in doc["distractors"])
    labelled = {f["entry"] for f in doc["findings"]}
    assert not labelled & {d["entry"] for d in doc["distractors"]}


@pytest.fixture(scope="module")
def corpus_library() -> Library:
    if not CORPUS.is_dir():
        pytest.skip(NO_CORPUS)
    roots = [Root(str(CORPUS / "claude-code"), "--root", True), Root(str(CORPUS / "codex"), "--root", True)]
    lib = Library(roots, catalog=Catalog(None))
    lib.scan()
    return lib


@pytest.mark.parametrize("path", LABELS, ids=_label_id)
def test_every_labelled_entry_id_is_an_entry_read_prints(path: Path, corpus_library: Library) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    main = corpus_library.get(doc["session_id"])
    assert main is not None, f"{doc['session_id']} is not in the corpus"
    assert Path(main.path).resolve() == (CORPUS / doc["file"]).resolve()
    assert main.project == doc["project"]
    ids: dict[str, set[str]] = {}

    def entry_ids(session_id: str) -> set[str]:
        if session_id not in ids:
            session = corpus_library.get(session_id)
            assert session is not None, f"{session_id} is not in the corpus"
            assert session_id == doc["session_id"] or session.parent_id == doc["session_id"]
            ids[session_id] = {e.id for e in conversation(corpus_library.load(session).entries)}
        return ids[session_id]

    # Evidence may sit in the parent or in any of its subagents (a subagent's report is returned to
    # the parent; a hook's output can be kept only in the compaction child), so supporting ids are
    # checked against the whole family; the entry itself against the session it names.
    family: set[str] = set()
    for session_id in [doc["session_id"], *main.child_ids]:
        family |= entry_ids(session_id)
    missing = []
    for item in doc["findings"] + doc["distractors"]:
        known = entry_ids(item.get("session_id") or doc["session_id"])
        if item["entry"] not in known:
            missing.append(f"{item.get('id', 'distractor')}: {item['entry']}")
        missing += [f"{item.get('id', 'distractor')}: {ref}" for ref in item.get("supporting", []) if ref not in family]
    assert not missing, missing
