"""Secret masking: leaks and false positives of each candidate detector, per format.

    python bench/bench_secrets.py [--baseline REV] [--corpus DIR] [--show N]

Candidates (each one a function text -> masked text; those whose package is missing are listed
as absent, install them in a scratch venv to compare):

  baseline        core/secrets.py as of REV (default: the commit before the corpus was written),
                  read with `git show`
  ours            core/secrets.py of this checkout (what sessionscope uses)
  detect-secrets  Yelp's detect-secrets or its maintained fork bc-detect-secrets (same import
                  name), each text scanned as a file (every default plugin, its filters and
                  entropy limits), each reported value replaced where it occurs
  ms-masker       microsoft-security-utilities-secret-masker, its precisely classified and
                  unclassified pattern sets
  ours+ms         ours, then ms-masker over the result

Measured on tests/secrets_corpus.py:
  leak   a positive whose secret survives: any 8-character run of the value (the whole value
         when shorter) is still in the masked text and was not in the text around the value
  FP     a negative that masking changed at all
And on the real-agent corpus (../shared/corpus, every string in every JSON line and every
line of the other files): how many strings each candidate changes, by what it masked, with
examples to inspect (`--show N` per candidate).
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
import types
from collections import Counter, defaultdict
from pathlib import Path
from typing import Callable, Iterator

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT.parent))

from secrets_corpus import FORMATS, NEGATIVES, POSITIVES  # noqa: E402

BASELINE = "6af374e"  # main before the secrets corpus (issue 10, item 3)
Masker = Callable[[str], str]


def load_baseline(rev: str) -> Masker | None:
    try:
        src = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:core/secrets.py"], check=True,
                             capture_output=True, text=True).stdout
    except (subprocess.CalledProcessError, OSError):
        return None
    mod = types.ModuleType("baseline_secrets")
    sys.modules[mod.__name__] = mod  # (dataclasses look their module up)
    exec(compile(src, f"{rev}:core/secrets.py", "exec"), mod.__dict__)  # noqa: S102 - our own file
    return secrets_only(mod)


def load_ours() -> Masker:
    from sessionscope.core import secrets

    return secrets_only(secrets)


def secrets_only(mod: types.ModuleType) -> Masker:
    """A module's masking of secrets, without its omission of e-mail addresses (not compared)."""
    def run(text: str) -> str:
        out, pos = [], 0
        for start, end, kind in mod.find_secrets(text):
            out += [text[pos:start], mod.MARK.format(kind=kind)]
            pos = end
        return "".join(out) + text[pos:]

    return run


def load_detect_secrets() -> tuple[str, Masker] | None:
    if importlib.util.find_spec("detect_secrets") is None:
        return None
    from importlib.metadata import PackageNotFoundError, version

    from detect_secrets import SecretsCollection
    from detect_secrets.settings import default_settings

    name = "detect-secrets"
    for dist in ("bc-detect-secrets", "detect-secrets"):
        try:
            name = f"{dist} {version(dist)}"
            break
        except PackageNotFoundError:
            continue
    folder = tempfile.mkdtemp(prefix="bench-secrets-")
    path = os.path.join(folder, "transcript.txt")

    def run(text: str) -> str:
        # As `detect-secrets scan` sees a file (every default plugin, its filters and entropy
        # limits), not `scan_line`, which reports every string with its entropy.
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        found = SecretsCollection()
        with default_settings():
            found.scan_file(path)
        values = {s.secret_value for _, s in found if s.secret_value}
        for v in sorted(values, key=len, reverse=True):
            text = text.replace(v, "[masked]")
        return text

    return name, run


def load_ms_masker() -> tuple[str, Masker] | None:
    if importlib.util.find_spec("microsoft_security_utilities_secret_masker") is None:
        return None
    from importlib.metadata import version

    from microsoft_security_utilities_secret_masker import SecretMasker, load_regex_patterns_from_json_file

    patterns = load_regex_patterns_from_json_file("PreciselyClassifiedSecurityKeys.json").union(
        load_regex_patterns_from_json_file("UnclassifiedPotentialSecurityKeys.json"))
    masker = SecretMasker(patterns)
    return f"ms-masker {version('microsoft-security-utilities-secret-masker')}", masker.mask_secrets


def leaked(case_text: str, value: str, masked: str) -> bool:
    n = min(8, len(value))
    outside = case_text.replace(value, "\0")
    return any(value[i:i + n] in masked and value[i:i + n] not in outside for i in range(len(value) - n + 1))


def corpus_strings(root: Path) -> Iterator[str]:
    def walk(v: object) -> Iterator[str]:
        if isinstance(v, str):
            yield v
        elif isinstance(v, dict):
            for x in v.values():
                yield from walk(x)
        elif isinstance(v, list):
            for x in v:
                yield from walk(x)

    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.name == "SOURCES.md":
            continue
        text = path.read_text("utf-8", errors="replace")
        for line in text.splitlines():
            try:
                yield from walk(json.loads(line))
            except ValueError:
                yield line


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline", default=BASELINE, help=f"git revision of the baseline rules (default {BASELINE})")
    ap.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpus"), help="real-agent corpus folder")
    ap.add_argument("--show", type=int, default=8, help="examples of real-corpus masks shown per candidate")
    ap.add_argument("--sample", type=int, default=20,
                    help="detect-secrets reads every Nth string of the real corpus (default 20)")
    args = ap.parse_args()

    cands: list[tuple[str, Masker]] = []
    base = load_baseline(args.baseline)
    if base:
        cands.append((f"baseline@{args.baseline}", base))
    ours = load_ours()
    cands.append(("ours", ours))
    absent = []
    ds = load_detect_secrets()
    ms = load_ms_masker()
    slow: set[str] = set()
    if ds:
        cands.append(ds)
        slow.add(ds[0])
    else:
        absent.append("detect-secrets / bc-detect-secrets")
    if ms:
        cands.append(ms)
        ms_mask = ms[1]
        cands.append(("ours+ms", lambda t: ms_mask(ours(t))))
    else:
        absent.append("microsoft-security-utilities-secret-masker")

    names = [n for n, _ in cands]
    short = [n.split()[0][:16] for n in names]
    print(f"secrets corpus: {len(POSITIVES)} values of {len(FORMATS)} formats; {len(NEGATIVES)} negatives")
    if absent:
        print("absent (pip install to compare): " + ", ".join(absent))
    leaks: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    leak_cases: dict[str, list[str]] = defaultdict(list)
    total: Counter[str] = Counter(c.fmt for c in POSITIVES)
    timing: dict[str, float] = {}
    for name, fn in cands:
        t0 = time.process_time()
        for c in POSITIVES:
            if leaked(c.text, c.value, fn(c.text)):
                leaks[name][c.fmt] += 1
                leak_cases[name].append(c.fmt)
        timing[name] = time.process_time() - t0

    width = max(len(f) for f in FORMATS)
    print("\nleaks per format (values left unmasked / values)")
    print(f"{'format':<{width}}  " + "  ".join(f"{s:>16}" for s in short))
    for f in FORMATS:
        print(f"{f:<{width}}  " + "  ".join(f"{leaks[n][f]:>14}/{total[f]}" for n in names))
    print(f"{'TOTAL':<{width}}  " + "  ".join(f"{sum(leaks[n].values()):>13}/{len(POSITIVES)}" for n in names))

    print("\nfalse positives on the negatives (texts changed / texts)")
    fps: dict[str, list[str]] = {}
    for name, fn in cands:
        fps[name] = [t for t in NEGATIVES if fn(t) != t]
        print(f"  {name:<28} {len(fps[name]):>3}/{len(NEGATIVES)}")
        for t in fps[name][:args.show]:
            print(f"      {t[:90]!r} -> {fn(t)[:90]!r}")

    corpus = Path(args.corpus)
    if corpus.is_dir():
        strings = list(corpus_strings(corpus))
        print(f"\nreal-agent corpus {corpus}: {len(strings)} strings, {sum(map(len, strings)) / 1e6:.1f} M characters")
        for name, fn in cands:
            t0 = time.process_time()
            step = args.sample if name in slow else 1
            if step > 1:
                print(f"  ({name}: every {step}th string only, it takes minutes over the whole corpus)")
            changed = [(s, fn(s)) for s in strings[::step]]
            elapsed = time.process_time() - t0
            changed = [(s, m) for s, m in changed if s != m]
            print(f"  {name:<28} {len(changed):>4} strings masked  ({elapsed:.2f} s of CPU over the corpus)")
            seen: set[str] = set()
            shown = 0
            for s, m in changed:
                diff = _diff(s, m)
                if diff in seen:
                    continue
                seen.add(diff)
                if shown < args.show:
                    print(f"      {diff}")
                    shown += 1
        cut = [s[:80] + "…" for s in strings if len(s) > 100]
        ours_cut = [(c, ours(c)) for c in cut]
        flagged = [(c, m) for c, m in ours_cut if c != m]
        print(f"  cut guard: of {len(cut)} strings cut at 80 characters + '…' (as titles are), ours masks "
              f"{len(flagged)}; the first {min(args.show, len(flagged))}:")
        for c, m in flagged[:args.show]:
            print(f"      {_diff(c, m)}")
    else:
        print(f"\nreal-agent corpus not found at {corpus}: skipped")
    print("\nwhich values leak:")
    for name in names:
        print(f"  {name:<28} " + (", ".join(sorted(set(leak_cases[name]))) or "none"))
    return 0


def _diff(before: str, after: str) -> str:
    """The changed part of a string, with a little context on each side."""
    i = 0
    while i < min(len(before), len(after)) and before[i] == after[i]:
        i += 1
    j = 0
    while j < min(len(before), len(after)) - i and before[-1 - j] == after[-1 - j]:
        j += 1
    lo = max(0, i - 25)
    return f"{before[lo:len(before) - j][:110]!r} -> {after[i:len(after) - j][:60]!r}"


if __name__ == "__main__":
    sys.exit(main())
