"""Every adapter, on real and demo files with arbitrary bytes inserted or appended: no exception,
the accounting holds, and every intact line is still read (never reported as malformed)."""
from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest
from helpers import corpus_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessionscope.core.read.adapters import default_registry
from sessionscope.core.demo import generate_demo
from sessionscope.core.model import EntryKind

REGISTRY = default_registry()
_DEMO_DIR: list[Path] = []


def demo_files() -> list[Path]:
    if not _DEMO_DIR:
        import atexit
        import shutil
        import tempfile

        root = Path(tempfile.mkdtemp(prefix="ss-fuzz-"))
        atexit.register(shutil.rmtree, root, True)
        generate_demo(root, now=datetime(2026, 11, 20, tzinfo=timezone.utc))
        _DEMO_DIR.append(root)
    files = sorted(p for p in _DEMO_DIR[0].rglob("*.jsonl") if p.stat().st_size < 400_000)
    return files[:6]


DATA = Path(__file__).resolve().parent.parent / "data"
SOURCES = [*corpus_files("claude-code")[:6], *corpus_files("codex")[:3], *corpus_files("gemini"),
           *corpus_files("aider", "*.chat.history.md"),
           *sorted((DATA / "gemini").rglob("*.jsonl")), DATA / "aider" / "shop" / ".aider.chat.history.md"]

junk = st.one_of(
    st.binary(max_size=60).map(lambda b: b.replace(b"\n", b" ")),
    st.sampled_from([b"{", b"}", b"[]", b"null", b'{"type": 5}', b'{"type":"assistant","message":7}',
                     b'{"type":"user","message":{"content":[1,{"type":null}]}}', b'"str"', b"\x00\x00",
                     b'{"timestamp":"x","type":"response_item","payload":[]}', b"\xef\xbb\xbf{}",
                     b'{"uuid":{},"parentUuid":[],"type":"user"}', b"\xff\xfe\xfd"]),
)


def _check(path: Path, tmp: Path, inserts: list[tuple[int, bytes]], tail: bytes) -> None:
    lines = path.read_bytes().split(b"\n")
    trailing = lines and lines[-1] == b""
    if trailing:
        lines = lines[:-1]
    original = list(lines)
    new: list[bytes] = list(lines)
    positions = list(range(len(lines)))  # where each original line ends up
    for pos, garbage in sorted(inserts, reverse=True):
        pos = min(pos, len(new))
        if pos == 0:
            continue  # keep line 1 (the header sniffing depends on) in place
        new.insert(pos, garbage)
        positions = [i + 1 if i >= pos else i for i in positions]
    data = b"\n".join(new) + b"\n" + tail
    target = tmp / path.name
    target.write_bytes(data)
    adapter = REGISTRY.sniff(str(path))  # the format of the intact file
    assert adapter is not None, path.name
    # lines already broken in the source (the demo has one on purpose) are not "intact"
    broken = {e.locator.line - 1 for ls in adapter.load(str(path)) for e in ls.entries
              if e.kind is EntryKind.MALFORMED}
    loaded = adapter.load(str(target))
    assert loaded
    main = loaded[0]
    assert main.account.holds(), (path.name, main.account)
    bad = {e.locator.line for ls in loaded for e in ls.entries if e.kind is EntryKind.MALFORMED}
    for orig, pos in enumerate(positions):
        if original[orig].strip() and orig not in broken:
            assert pos + 1 not in bad, f"{path.name}: intact line {orig + 1} (now {pos + 1}) reported malformed"


@pytest.mark.parametrize("path", SOURCES + demo_files(), ids=lambda p: p.name[:40])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(inserts=st.lists(st.tuples(st.integers(0, 60), junk), max_size=4), tail=junk)
def test_inserted_and_appended_bytes(path: Path, tmp_path: Path, inserts: list[tuple[int, bytes]],
                                     tail: bytes) -> None:
    _check(path, tmp_path, inserts, tail)
