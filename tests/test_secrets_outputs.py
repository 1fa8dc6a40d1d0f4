"""No value of the secrets corpus (tests/secrets_corpus.py) leaves through a brief or `context`:
`context --json`, `--brief` and its text output over sessions that hold every value, a session
title cut inside a secret, and the brief renderer and JSON of findings whatever their fields
hold (masking happens at the output boundary, not only where findings are extracted)."""
from __future__ import annotations

import json
import os
import re
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

import orjson
import pytest
from helpers import isolate
from secrets_corpus import POSITIVES, leaks

from sessionscope.cli import main as cli
from sessionscope.core.brief.compose import BriefResult, Budget, Scope, Task, Usage, render_brief
from sessionscope.core.brief.finding import DECISION, Conflict, Finding, Source
from sessionscope.core.model import Locator

PROJECT = "/home/dev/projects/shop"
START = datetime(2026, 11, 10, 10, 0, tzinfo=timezone.utc)


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate(tmp_path, monkeypatch)
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")


def write(root: Path, sid: str, title: str, messages: list[tuple[str, str]]) -> None:
    lines: list[dict] = [{"session_id": sid, "agent_id": "claude-code", "started_at": START.isoformat(),
                          "project": PROJECT, "title": title}]
    for i, (role, text) in enumerate(messages, 1):
        lines.append({"id": f"e{i}", "role": role, "content": text,
                      "timestamp": (START + timedelta(minutes=i)).isoformat()})
    path = root / f"{sid}.jsonl"
    path.write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))
    os.utime(path, (1_700_000_000, 1_700_000_000))  # not a live session


def _word(n: int, j: int) -> str:
    return "".join("bcdfghklmnprstvz"[(n * 7 + j * 3 + i * i) % 16] + "aeiou"[(n + i + j) % 5] for i in range(4))


@pytest.fixture
def secret_sessions(tmp_path: Path) -> Path:
    """Sessions about a "ledger deploy" whose messages hold every corpus value in a sentence the
    brief takes as a decision, and whose titles hold some too."""
    root = tmp_path / "logs"
    root.mkdir()
    chunk = 12
    for n, at in enumerate(range(0, len(POSITIVES), chunk)):
        cases = POSITIVES[at:at + chunk]
        messages = []
        for k, c in enumerate(cases):
            # words of its own, so no two findings are merged as saying the same thing
            own = " ".join(_word(at + k, j) for j in range(6))
            messages.append(("user", f"the ledger deploy fails, config: {c.text}"))
            messages.append(("assistant", f"Let's use {c.text} for the ledger deploy, {own}."))
        write(root, f"s{n}", f"ledger deploy with {cases[0].text}", messages)
    return root


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


@pytest.mark.parametrize("mode", ["--json", "--brief", None])
def test_no_corpus_secret_leaves_through_context(capsys: pytest.CaptureFixture[str], secret_sessions: Path,
                                                 mode: str | None) -> None:
    argv = ["context", "ledger deploy", "--project", PROJECT, "--root", str(secret_sessions),
            "--sessions", "20", "--tokens", "20000"]
    out = run(capsys, *argv, *([mode] if mode else []))
    assert leaks(out) == []
    assert out.count("[secret masked: ") >= 20  # the values did reach the output, masked
    if mode == "--json":
        data = json.loads(out)
        assert data["status"] == "found" and len(data["findings"]) >= 20


def test_a_title_cut_inside_a_secret_keeps_none_of_it(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The session-logs reader cuts a title at 200 characters: `… AKIAIO…` must not survive."""
    root = tmp_path / "logs"
    root.mkdir()
    key = next(c.value for c in POSITIVES if c.fmt == "aws-key-id")
    title = "ledger deploy " + "notes " * 30
    title = title[:192] + " " + key  # the cut at 200 falls inside the key
    write(root, "t1", title, [("assistant", "Let's use blue-green for the ledger deploy instead of rolling.")])
    out = run(capsys, "context", "ledger deploy", "--project", PROJECT, "--root", str(root), "--json")
    [candidate] = json.loads(out)["candidates"]
    assert key[4:8] not in candidate["title"] and candidate["title"].endswith("[secret masked: cut]…")


def _finding(text: str, n: int) -> Finding:
    src = Source("claude-code", "s1", f"e{n}", Locator("/x.jsonl", 0, n), START, "assistant")
    return Finding(id=f"f{n}", type=DECISION, text=text, attribution="agent", date=START, source=src,
                   scope=text, conditions=text, why=text, evidence_detail=text,
                   conflicts=(Conflict(src, text, text),))


def _result(findings: list[Finding], title: str = "") -> BriefResult:
    scope = Scope(PROJECT, "--project", ["claude-code"], ["/logs"], 1, None, START, False, [], [], searched=True)
    return BriefResult("found", "", Task("ledger deploy"), Budget(tokens=20000), scope, Usage(), [], findings)


def test_the_brief_renderer_and_json_mask_whatever_the_findings_hold() -> None:
    """Findings straight from an extraction that masked nothing: the rendered brief and the JSON
    carry no value, edited or not."""
    findings = [_finding(c.text, i) for i, c in enumerate(POSITIVES)]
    result = _result(findings)
    text = render_brief(result, findings).text
    assert leaks(text) == []
    assert leaks(json.dumps(result.to_dict())) == []
    edited = [replace(f, text=f.text + " (edited)") for f in findings]
    assert leaks(render_brief(result, edited).text) == []
    assert leaks(render_brief(result).text) == []


def test_every_string_of_the_context_json_is_masked_at_the_boundary() -> None:
    value = next(c.value for c in POSITIVES if c.fmt == "sendgrid")
    result = _result([_finding(f"SENDGRID_API_KEY={value}", 1)])
    blob = json.dumps(result.to_dict())
    assert value not in blob and re.search(r"\[secret masked: [a-z-]+\]", blob)


@pytest.mark.parametrize("command", [["read", "s1"], ["recent", "s1"], ["search", "ledger deploy"]],
                         ids=["read", "recent", "search"])
@pytest.mark.parametrize("json_out", [True, False], ids=["json", "text"])
def test_read_and_search_stay_raw_unless_asked_to_mask(capsys: pytest.CaptureFixture[str], secret_sessions: Path,
                                                       command: list[str], json_out: bool) -> None:
    """A local reader sees the transcript as written; `--mask-secrets` (screen sharing) masks
    every value, the previews cut from the masked text."""
    cases = POSITIVES[12:24]  # the values of session s1
    argv = [*command, "--root", str(secret_sessions), "--limit", "100", "--max-chars", "60",
            *(["--json"] if json_out else [])]
    raw = run(capsys, *argv)
    assert leaks(raw, cases), "the values are shown as written without the flag"
    masked = run(capsys, *argv, "--mask-secrets")
    assert leaks(masked, cases) == [] and leaks(masked) == []
    assert "[secret masked: " in masked


def test_mask_secrets_is_offered_by_read_recent_and_search() -> None:
    parser = cli.build_parser()
    for command in (["read", "x"], ["recent"], ["search", "x"]):
        assert parser.parse_args([*command, "--mask-secrets"]).mask_secrets is True
        assert parser.parse_args(command).mask_secrets is False
