"""The brief bench's scoring (bench/bench_brief.py) on a tiny synthetic label and fake findings:
what counts as recalled, as correct in the first 10, as a distractor; and the skip without a corpus."""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from helpers import ROOT


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_brief", ROOT / "bench" / "bench_brief.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["bench_brief"] = mod  # dataclasses look their module up while the class is made
    spec.loader.exec_module(mod)
    return mod


LABEL = {
    "_name": "claude-aaaa0000", "session_id": "aaaa0000-0000", "project": "/p/app",
    "tasks": [{"id": "t1", "task": "fix the retry policy"}, {"id": "t2", "task": "add a cache"}],
    "findings": [
        {"id": "f1", "type": "decision", "entry": "e1", "supporting": ["s1a", "s1b"], "tasks": ["t1"]},
        {"id": "f2", "type": "failed_approach", "entry": "e2", "supporting": [], "tasks": ["t1", "t2"]},
        {"id": "f3", "type": "open_question", "entry": "e3", "supporting": ["s3"], "tasks": ["t2"]},
    ],
    "distractors": [{"entry": "d1", "why": "routine N tests pass"}],
}


def fake(entry: str, also: tuple[str, ...] = (), evidence: tuple = (), kind: str = "outcome") -> SimpleNamespace:
    src = lambda e: SimpleNamespace(entry_id=e)  # noqa: E731
    f = SimpleNamespace(type=kind, text=f"finding at {entry}", source=src(entry), also_from=tuple(src(a) for a in also))
    if evidence:
        f.evidence_sources = tuple(e if isinstance(e, str) else src(e[0]) for e in evidence)
    return f


def test_a_candidate_recalls_a_label_through_its_source_also_from_or_evidence(bench) -> None:
    cands = [fake("x"), fake("y", also=("s1b",)), fake("z", evidence=("e2",))]
    score = bench.score_task(LABEL, "t1", cands)
    assert score.recalled == ["f1", "f2"] and score.missed == []
    # f3 is labelled for t2 only: matching it under t1 is neither recall nor precision for t1
    score = bench.score_task(LABEL, "t1", [fake("s3")])
    assert score.recalled == [] and score.missed == ["f1", "f2"] and score.top_correct == 0


def test_evidence_sources_may_be_plain_entry_ids_or_source_objects(bench) -> None:
    assert bench.candidate_entries(fake("a", evidence=("b", ("c",)))) == {"a", "b", "c"}
    assert bench.candidate_entries(fake("a")) == {"a"}  # no evidence_sources attribute yet


def test_precision_counts_only_the_first_ten_and_only_this_tasks_labels(bench) -> None:
    cands = [fake("s3")] + [fake(f"n{i}") for i in range(9)] + [fake("e1"), fake("e2")]
    score = bench.score_task(LABEL, "t2", cands)
    assert score.top_size == 10 and score.top_correct == 1  # s3 (f3); e2 is 12th
    assert score.recalled == ["f2", "f3"]  # recall looks at every candidate
    assert score.precision == pytest.approx(0.1)
    few = bench.score_task(LABEL, "t1", [fake("e1"), fake("nothing")])
    assert few.precision == pytest.approx(0.5)
    assert bench.score_task(LABEL, "t1", []).precision == 0.0


def test_distractors_are_counted_by_source_in_the_first_ten(bench) -> None:
    cands = [fake("d1"), fake("e1", also=("d1",)), fake("other")]
    score = bench.score_task(LABEL, "t1", cands)
    assert score.distractors_top == 1  # the one whose source is the distractor
    assert bench.score_task(LABEL, "t1", [fake("other")], distractors={"other"}).distractors_top == 1


def test_recall_is_counted_per_finding_and_task_pair_by_type(bench) -> None:
    s1 = bench.score_task(LABEL, "t1", [fake("e2")], "claude-aaaa0000")
    s2 = bench.score_task(LABEL, "t2", [fake("s3")], "claude-aaaa0000")
    table = bench.recall_table(bench.task_pairs([LABEL], [s1, s2]))
    assert table["decision"] == {"matched": 0, "total": 1, "recall": 0.0}
    assert table["failed_approach"] == {"matched": 1, "total": 2, "recall": 0.5}
    assert table["open_question"] == {"matched": 1, "total": 1, "recall": 1.0}
    assert table["correction"]["recall"] is None
    assert table["overall"] == {"matched": 2, "total": 4, "recall": 0.5}


def test_percentile_is_nearest_rank(bench) -> None:
    assert bench.percentile([], 95) == 0.0
    assert bench.percentile([3.0, 1.0, 2.0], 50) == 2.0
    assert bench.percentile([float(i) for i in range(1, 21)], 95) == 19.0
    assert bench.percentile([float(i) for i in range(1, 21)], 100) == 20.0


def test_without_a_corpus_it_skips_with_one_line(bench, tmp_path: Path, capsys) -> None:
    labels = tmp_path / "labels"
    labels.mkdir()
    (labels / "claude-aaaa0000.json").write_text(json.dumps(LABEL), encoding="utf-8")
    assert bench.main(["--corpus", str(tmp_path / "absent"), "--labels", str(labels)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("bench_brief: skipped:") and out.count("\n") == 1
