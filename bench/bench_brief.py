"""Brief bench: how many of the hand-labelled findings the `context` pipeline puts in front of the
user, how clean its first 10 candidates are, and how long a `context` call takes.

Run (from the repository root; needs the real-agent corpus in ../shared/corpus):

    .venv/bin/python bench/bench_brief.py              # every label file in bench/brief_eval/
    .venv/bin/python bench/bench_brief.py --json       # the figures as JSON on stdout
    .venv/bin/python bench/bench_brief.py --verbose    # also each task's first 10 and its misses

Without the corpus it prints one line saying so and exits 0.

Labels: bench/brief_eval/*.json (format and rules in bench/brief_eval/README.md). Scoring, as in
the labelling rules:

* For each task of each label file, the product's pipeline runs as `sessionscope context` runs it:
  `core.brief.compose` with the default budget, over a library and search index of the corpus's
  claude-code and codex folders (built once into a temporary cache directory, not timed), `now`
  fixed a day after the newest corpus entry, the task's text, files, symbols and issue ids. The
  project is the parent directory of the labelled session's project, so sibling projects (the other
  worktrees of the same repository) are in scope and retrieval has to choose. No memory files, no
  environment variables. The bench names an explicit exclusion that matches no session: the
  live-session rule looks at file modification times, and the corpus copies are newer than the
  fixed `now`, so without it the newest labelled session would be dropped as "live".
* All candidate findings are taken, in the order the composer shows them. A candidate's entries are
  its `source`, its `also_from` sources and its `evidence_sources` (once the engine has them).
* A labelled finding is recalled for a task when some candidate of that task has its `entry` or
  one of its `supporting` ids among those entries. Recall counts (finding, task) pairs: a finding
  labelled for two tasks must come up for each.
* Precision of the first 10 (per task): the share of the first min(10, n) candidates that match a
  finding labelled for that task (0 when there is no candidate). Distractors in the first 10: the
  candidates whose source entry is a labelled distractor (of any label file).
* Retrieval misses: tasks for which the labelled session was not among the sessions read.
* Extraction-only recall: `core.brief_findings.extract` run directly on each labelled session and
  on every one of its child sessions (subagents and the compaction child, which keeps hook output),
  no task and no scoring; a finding counts when any extracted candidate matches it.
* Time per `context` call: median and p95 (nearest rank) over all calls, beside a baseline measured
  in the same run: loading (parsing) the same sessions the call read, with nothing else.
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any, Iterable, Sequence

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
LABELS_DIR = HERE / "brief_eval"
CORPUS = REPO.parent / "shared" / "corpus"
TYPES = ("decision", "correction", "failed_approach", "outcome", "open_question")
TOP = 10
NO_SESSION = "bench-brief:no-such-session"  # an explicit exclusion that matches nothing (see above)


# -- matching (pure: the test drives these with fake findings) -------------------------------------
def candidate_entries(finding: Any) -> set[str]:
    """The entry ids a candidate cites: its source, also_from and (when present) evidence_sources."""
    ids = {finding.source.entry_id}
    for s in (*getattr(finding, "also_from", ()), *getattr(finding, "evidence_sources", ())):
        ids.add(s if isinstance(s, str) else s.entry_id)
    return ids


def label_entries(label: dict[str, Any]) -> set[str]:
    return {label["entry"], *label.get("supporting", [])}


def matches(label: dict[str, Any], cited: set[str]) -> bool:
    return bool(label_entries(label) & cited)


@dataclass
class TaskScore:
    label_file: str
    task_id: str
    task: str
    status: str = ""
    candidates: int = 0
    top_correct: int = 0
    top_size: int = 0
    distractors_top: int = 0
    labelled_session_read: bool = True
    sessions_read: list[str] = field(default_factory=list)
    recalled: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    seconds: float = 0.0
    baseline_seconds: float = 0.0
    top: list[dict[str, Any]] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.top_correct / self.top_size if self.top_size else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "label_file": self.label_file, "task_id": self.task_id, "task": self.task, "status": self.status,
            "candidates": self.candidates, "top_size": self.top_size, "top_correct": self.top_correct,
            "precision_at_10": round(self.precision, 3), "distractors_in_top_10": self.distractors_top,
            "labelled_session_read": self.labelled_session_read, "sessions_read": self.sessions_read,
            "recalled": self.recalled,
            "missed": self.missed, "seconds": round(self.seconds, 4),
            "baseline_seconds": round(self.baseline_seconds, 4), "top": self.top,
        }


def score_task(doc: dict[str, Any], task_id: str, findings: Sequence[Any], label_file: str = "",
               distractors: set[str] | None = None) -> TaskScore:
    """Recall of the findings labelled for `task_id`, and the first 10 candidates judged.
    `distractors` defaults to this file's; the bench passes those of every label file (an entry a
    careful reader would not pick is one whatever the task)."""
    task = next(t for t in doc["tasks"] if t["id"] == task_id)
    out = TaskScore(label_file or doc.get("session_id", ""), task_id, task["task"], candidates=len(findings))
    cited = [candidate_entries(f) for f in findings]
    everything = set().union(*cited) if cited else set()
    wanted = [f for f in doc["findings"] if task_id in f["tasks"]]
    for lab in wanted:
        (out.recalled if matches(lab, everything) else out.missed).append(lab["id"])
    if distractors is None:
        distractors = {d["entry"] for d in doc.get("distractors", [])}
    for f, ids in list(zip(findings, cited))[:TOP]:
        hit = next((lab["id"] for lab in wanted if matches(lab, ids)), None)
        bad = f.source.entry_id in distractors
        out.top_size += 1
        out.top_correct += hit is not None
        out.distractors_top += bad
        out.top.append({"type": f.type, "source": f.source.entry_id, "matches": hit, "distractor": bad,
                        "text": (getattr(f, "text", "") or "")[:120]})
    return out


def recall_table(pairs: Iterable[tuple[str, bool]]) -> dict[str, Any]:
    """{type: {matched, total, recall}} plus "overall", from (type, recalled) pairs."""
    table: dict[str, list[int]] = {t: [0, 0] for t in TYPES}
    for kind, ok in pairs:
        row = table.setdefault(kind, [0, 0])
        row[0] += ok
        row[1] += 1
    out = {k: {"matched": m, "total": n, "recall": round(m / n, 3) if n else None} for k, (m, n) in table.items()}
    m = sum(v[0] for v in table.values())
    n = sum(v[1] for v in table.values())
    out["overall"] = {"matched": m, "total": n, "recall": round(m / n, 3) if n else None}
    return out


def task_pairs(docs: Sequence[dict[str, Any]], scores: Sequence[TaskScore]) -> list[tuple[str, bool]]:
    """(type, recalled) for every (labelled finding, task) pair."""
    types = {(d["_name"], f["id"]): f["type"] for d in docs for f in d["findings"]}
    pairs = []
    for s in scores:
        pairs += [(types[(s.label_file, fid)], True) for fid in s.recalled]
        pairs += [(types[(s.label_file, fid)], False) for fid in s.missed]
    return pairs


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100); 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def load_labels(directory: Path) -> list[dict[str, Any]]:
    docs = []
    for path in sorted(directory.glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        doc["_name"] = path.stem
        docs.append(doc)
    return docs


# -- running the product ----------------------------------------------------------------------------
def open_corpus(corpus: Path, cache: Path) -> tuple[Any, Any]:
    from sessionscope.core.catalog.store import Catalog
    from sessionscope.core.read.discovery import Root
    from sessionscope.core.search.index import SearchIndex
    from sessionscope.core.catalog.library import Library

    roots = [Root(str(corpus / sub), "--root", True) for sub in ("claude-code", "codex") if (corpus / sub).is_dir()]
    lib = Library(roots, catalog=Catalog(cache / "catalog.sqlite"))
    lib.scan()
    index = SearchIndex(cache / "index")
    index.update(lib)
    return lib, index


def fixed_now(lib: Any) -> Any:
    stamps = [s.last_timestamp or s.first_timestamp for s in lib.sessions(include_children=True)]
    return max(t for t in stamps if t is not None) + timedelta(days=1)


def run_task(lib: Any, index: Any, doc: dict[str, Any], task: dict[str, Any], now: Any,
             distractors: set[str]) -> tuple[TaskScore, Any]:
    from sessionscope.core.brief.compose import Task, compose

    t = Task(" ".join(task["task"].split()), tuple(task.get("files", [])), tuple(task.get("symbols", [])),
             tuple(task.get("issues", [])))
    project = str(Path(doc["project"]).parent)
    start = time.perf_counter()
    result = compose(lib, index, t, project=project, exclude=[NO_SESSION], env={}, now=now, memory=())
    seconds = time.perf_counter() - start
    start = time.perf_counter()
    for sid in [*result.usage.sessions_read, *result.usage.subagents_read]:
        session = lib.get(sid)
        if session is not None:
            list(lib.load(session).entries)
    baseline = time.perf_counter() - start
    score = score_task(doc, task["id"], result.findings, doc["_name"], distractors)
    score.status = result.status
    score.seconds, score.baseline_seconds = seconds, baseline
    score.sessions_read = list(result.usage.sessions_read)
    score.labelled_session_read = doc["session_id"] in score.sessions_read
    return score, result


def extraction_pairs(lib: Any, doc: dict[str, Any]) -> tuple[list[tuple[str, bool]], list[str]]:
    """(type, recalled) per labelled finding from the extractor alone, and the ids missed."""
    from sessionscope.core.brief.findings import extract

    main = lib.get(doc["session_id"])
    if main is None:
        return [(f["type"], False) for f in doc["findings"]], [f["id"] for f in doc["findings"]]
    cited: set[str] = set()
    for session in [main, *(lib.get(c) for c in main.child_ids)]:
        if session is None:
            continue
        for f in extract(session, list(lib.load(session).entries)):
            cited |= candidate_entries(f)
    pairs = [(f["type"], matches(f, cited)) for f in doc["findings"]]
    return pairs, [f["id"] for f, (_, ok) in zip(doc["findings"], pairs) if not ok]


def measure(corpus: Path, labels: Path) -> dict[str, Any]:
    docs = load_labels(labels)
    with tempfile.TemporaryDirectory(prefix="bench-brief-") as tmp:
        start = time.perf_counter()
        lib, index = open_corpus(corpus, Path(tmp))
        setup = time.perf_counter() - start
        try:
            now = fixed_now(lib)
            distractors = {d["entry"] for doc in docs for d in doc.get("distractors", [])}
            scores = [run_task(lib, index, doc, task, now, distractors)[0] for doc in docs for task in doc["tasks"]]
            extraction: list[tuple[str, bool]] = []
            extraction_missed: dict[str, list[str]] = {}
            for doc in docs:
                pairs, missed = extraction_pairs(lib, doc)
                extraction += pairs
                extraction_missed[doc["_name"]] = missed
        finally:
            index.close()
    times = [s.seconds for s in scores]
    baselines = [s.baseline_seconds for s in scores]
    median = statistics.median(times) if times else 0.0
    base = statistics.median(baselines) if baselines else 0.0
    return {
        "corpus": str(corpus), "labels": [d["_name"] for d in docs], "now": now.isoformat(),
        "setup_seconds": round(setup, 2),
        "labelled": {"sessions": len(docs), "tasks": len(scores), "findings": sum(len(d["findings"]) for d in docs),
                     "distractors": sum(len(d.get("distractors", [])) for d in docs)},
        "recall": recall_table(task_pairs(docs, scores)),
        "precision_at_10": {"mean": round(statistics.mean(s.precision for s in scores), 3) if scores else None,
                            "tasks_at_or_above_0.6": sum(s.precision >= 0.6 for s in scores)},
        "distractors_in_top_10": {"total": sum(s.distractors_top for s in scores),
                                  "max_per_task": max((s.distractors_top for s in scores), default=0)},
        "retrieval_misses": [f"{s.label_file}:{s.task_id}" for s in scores if not s.labelled_session_read],
        "extraction_only": {"recall": recall_table(extraction), "missed": extraction_missed},
        "timing": {"calls": len(times), "median_seconds": round(median, 3), "p95_seconds": round(percentile(times, 95), 3),
                   "max_seconds": round(max(times, default=0.0), 3),
                   "baseline_load_median_seconds": round(base, 3),
                   "median_ratio_to_baseline": round(median / base, 2) if base else None},
        "tasks": [s.to_dict() for s in scores],
    }


# -- output -----------------------------------------------------------------------------------------
def _recall_lines(table: dict[str, Any]) -> list[str]:
    lines = []
    for kind in (*TYPES, *(k for k in table if k not in TYPES and k != "overall"), "overall"):
        row = table[kind]
        value = "-" if row["recall"] is None else f"{row['recall']:.2f}"
        lines.append(f"  {kind:<16} {row['matched']:>3}/{row['total']:<3} {value}")
    return lines


def render(report: dict[str, Any], verbose: bool = False) -> str:
    lab, t = report["labelled"], report["timing"]
    out = [f"brief bench: {lab['sessions']} labelled sessions, {lab['tasks']} tasks, {lab['findings']} findings, "
           f"{lab['distractors']} distractors; now={report['now']}; corpus+index setup {report['setup_seconds']} s",
           "", "recall through `context` ((finding, task) pairs; target >= 0.8):", *_recall_lines(report["recall"]),
           "", "per task: precision of the first 10 (target >= 0.6), distractors in the first 10 (target <= 1):"]
    for s in report["tasks"]:
        read = "" if s["labelled_session_read"] else "  [labelled session NOT read]"
        out.append(f"  {s['label_file']}:{s['task_id']}  {s['status']:<11} candidates {s['candidates']:>3}  "
                   f"P@10 {s['precision_at_10']:.2f} ({s['top_correct']}/{s['top_size']})  distractors {s['distractors_in_top_10']}  "
                   f"recall {len(s['recalled'])}/{len(s['recalled']) + len(s['missed'])}  {s['seconds']:.2f} s{read}")
        if verbose:
            for n, c in enumerate(s["top"], 1):
                mark = c["matches"] or ("DISTRACTOR" if c["distractor"] else "-")
                out.append(f"      {n:>2}. {c['type']:<15} {c['source'][:8]} {mark:<10} {c['text']}")
            out.append(f"      missed: {', '.join(s['missed']) or 'none'}")
    p = report["precision_at_10"]
    out += ["", f"precision of the first 10, mean over tasks: {p['mean']} ({p['tasks_at_or_above_0.6']} of "
                f"{lab['tasks']} tasks at >= 0.6)",
            f"distractors in the first 10: {report['distractors_in_top_10']['total']} in all, at most "
            f"{report['distractors_in_top_10']['max_per_task']} in one task",
            "retrieval misses (labelled session not read): " + (", ".join(report["retrieval_misses"]) or "none"),
            "", "extraction-only recall (extractor on each labelled session and its children, no task):",
            *_recall_lines(report["extraction_only"]["recall"]),
            "", f"time per context call: median {t['median_seconds']} s, p95 {t['p95_seconds']} s, max {t['max_seconds']} s "
                f"over {t['calls']} calls (target p95 <= 1 s); baseline (loading the same sessions) median "
                f"{t['baseline_load_median_seconds']} s, ratio {t['median_ratio_to_baseline']}"]
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=CORPUS, help=f"the real-agent corpus (default {CORPUS})")
    ap.add_argument("--labels", type=Path, default=LABELS_DIR, help=f"label files (default {LABELS_DIR})")
    ap.add_argument("--json", action="store_true", help="the figures as JSON on stdout")
    ap.add_argument("--verbose", action="store_true", help="each task's first 10 candidates and its missed labels")
    args = ap.parse_args(argv)
    if not (args.corpus / "claude-code").is_dir() and not (args.corpus / "codex").is_dir():
        print(f"bench_brief: skipped: the real-agent corpus is not at {args.corpus} "
              "(only dev and CI machines have ../shared/corpus)")
        return 0
    if not any(args.labels.glob("*.json")):
        print(f"bench_brief: no label files in {args.labels}", file=sys.stderr)
        return 2
    report = measure(args.corpus, args.labels)
    print(json.dumps(report, indent=2) if args.json else render(report, args.verbose))
    return 0


if __name__ == "__main__":
    sys.exit(main())
