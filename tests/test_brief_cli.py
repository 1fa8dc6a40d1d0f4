"""`sessionscope context`: JSON shape, the --brief text, budget overrides, sources that `read`
opens, and errors; on the demo corpus."""
from __future__ import annotations

import argparse
import json
import os
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import isolate

from sessionscope.cli import brief as brief_cli, main as cli
from sessionscope.core.brief.compose import UNREVIEWED
from sessionscope.core.demo import generate_demo

PAYMENTS = "/home/dev/projects/payments-api"
TASK = "make the webhook retry policy per-endpoint; flaky test_retry_backoff"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    # the CLI searches relative to the real clock: the demo's sessions sit in the weeks before it
    corpus = generate_demo(tmp_path_factory.mktemp("demo"), now=datetime.now(timezone.utc))
    return ["--root", str(corpus.claude_root), "--root", str(corpus.codex_root)]


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate(tmp_path, monkeypatch)
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")


def _subparsers(p: argparse.ArgumentParser) -> Any:
    return next(a for a in p._actions if isinstance(a, argparse._SubParsersAction))


@pytest.fixture(autouse=True)
def wired(monkeypatch: pytest.MonkeyPatch) -> None:
    """Register `context` the way cli/main.py does once the lead wires it (and leave real wiring alone)."""
    build = cli.build_parser
    if "context" in _subparsers(build()).choices:
        return

    def build_with_context() -> argparse.ArgumentParser:
        p = build()
        common = cli._Parser(add_help=False)
        common.add_argument("--root", action="append", default=[], metavar="DIR")
        common.add_argument("--demo", action="store_true")
        common.add_argument("--json", action="store_true")
        brief_cli.add_parser(_subparsers(p), common)
        return p

    monkeypatch.setattr(cli, "build_parser", build_with_context)
    monkeypatch.setitem(cli.COMMANDS, "context", brief_cli.run)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def test_json_shape(capsys: pytest.CaptureFixture[str], demo: list[str]) -> None:
    data = run_json(capsys, "context", TASK, "--project", PAYMENTS, *demo)
    assert data["ok"] is True and data["status"] == "found"
    assert set(data) >= {"task", "terms", "scope", "budget", "candidates", "findings", "brief"}
    assert data["task"]["text"] == TASK
    assert data["scope"]["project"] == PAYMENTS and data["scope"]["sessions_in_scope"] >= 3
    budget = data["budget"]
    assert budget["limits"] == {"rounds": 2, "sessions": 3, "tokens": 600, "window_days": 90}
    assert 1 <= budget["rounds_used"] <= 2 and budget["sessions_read"] <= 3
    assert budget["tokens_used"] <= 600 and budget["token_estimate"].startswith("ceil(characters / 4)")
    assert data["candidates"][0]["read"] is True
    for f in data["findings"]:
        assert f["type"] in ("decision", "correction", "failed-approach", "outcome", "open-question")
        assert f["evidence"] in ("reported", "verified then", "checked now", "conflicting")
        assert f["attribution"] in ("user", "agent")
        assert f["source"]["ref"] == f"{f['source']['agent']}:{f['source']['session_id']}#{f['source']['entry_id']}"
    types = {f["type"] for f in data["findings"]}
    assert {"failed-approach", "decision", "outcome", "open-question"} <= types
    assert data["brief"]["approved"] is False and data["brief"]["text"].startswith("Prior-session brief\nScope: ")


def test_every_source_opens_its_exact_entry(capsys: pytest.CaptureFixture[str], demo: list[str]) -> None:
    data = run_json(capsys, "context", TASK, "--project", PAYMENTS, *demo)
    assert data["findings"]
    for f in data["findings"]:
        ref = f["source"]["read"].removeprefix("sessionscope read ")
        entry = run_json(capsys, "read", ref, "--limit", "1", *demo)["entries"][0]
        assert entry["entry_id"] == f["source"]["entry_id"]


def test_a_subagent_does_not_take_a_read_slot(capsys: pytest.CaptureFixture[str], demo: list[str]) -> None:
    """The demo's flaky-webhook session has an Explore subagent that matches the task too: it is
    read with its session, and three sessions are still read besides it."""
    data = run_json(capsys, "context", "flaky webhook retry", "--project", PAYMENTS, *demo)
    budget = data["budget"]
    read = budget["session_ids_read"]
    assert budget["sessions_read"] == len(read) == 3 and not any("/" in sid for sid in read)
    [child] = budget["subagent_ids_read"]
    parent = child.split("/")[0]
    assert parent in read and child not in [c["session_id"] for c in data["candidates"]]
    [cand] = [c for c in data["candidates"] if c["session_id"] == parent]
    assert cand["subagent_ids"] == [child] and cand["read"] is True
    code, out, _ = run(capsys, "context", "flaky webhook retry", "--project", PAYMENTS, *demo)
    assert "3/3 sessions read (with 1 of their subagent sessions)" in out


def test_the_source_text_of_a_rendered_brief_opens_its_entry(capsys: pytest.CaptureFixture[str],
                                                            demo: list[str]) -> None:
    """What follows `Source: ` in the brief, agent prefix (and the line's date) included, is what
    `read` takes: copied from the brief, it opens that exact entry."""
    code, out, err = run(capsys, "context", TASK, "--project", PAYMENTS, "--brief", *demo)
    assert code == 0, err
    sources = [ln.split("Source: ", 1)[1] for ln in out.splitlines() if ln.startswith("  Source: ")]
    assert sources and all(re.match(r"^(claude-code|codex):\S+#\S+; \d{4}-\d{2}-\d{2}\.$", s) for s in sources)
    for line in sources:
        ref = line.split(";")[0]
        agent, _, rest = ref.partition(":")
        sid, _, entry_id = rest.partition("#")
        for text in (ref, line):
            data = run_json(capsys, "read", text, "--limit", "1", *demo)
            assert data["header"]["session_id"] == sid and data["header"]["agent_id"] == agent
            assert data["entries"][0]["entry_id"] == entry_id
    # the agent is checked: the same ids under another agent's name are refused
    agent, rest = sources[0].split(";")[0].split(":", 1)
    wrong = "codex" if agent == "claude-code" else "claude-code"
    code, out, err = run(capsys, "read", f"{wrong}:{rest}", *demo)
    assert code == 2 and f"is a {agent} session, not {wrong}" in err


def test_brief_is_marked_unreviewed(capsys: pytest.CaptureFixture[str], demo: list[str]) -> None:
    code, out, err = run(capsys, "context", TASK, "--project", PAYMENTS, "--brief", *demo)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == UNREVIEWED
    assert lines[1] == "Prior-session brief" and lines[2].startswith("Scope: ")
    assert lines[3].startswith("- ") and lines[4].startswith("  Evidence: ") and lines[5].startswith("  Source: ")


def test_text_lists_candidates_with_budget(capsys: pytest.CaptureFixture[str], demo: list[str]) -> None:
    code, out, _ = run(capsys, "context", TASK, "--project", PAYMENTS, *demo)
    assert code == 0
    assert "Budget: " in out and "sessions read" in out and "none approved" in out
    assert "evidence: verified then" in out and "source: claude-code:" in out


def test_budget_overrides_are_explicit(capsys: pytest.CaptureFixture[str], demo: list[str]) -> None:
    data = run_json(capsys, "context", TASK, "--project", PAYMENTS, "--rounds", "1", "--sessions", "1",
                    "--tokens", "200", *demo)
    b = data["budget"]
    assert b["limits"]["rounds"] == 1 and b["limits"]["sessions"] == 1 and b["limits"]["tokens"] == 200
    assert b["rounds_used"] == 1 and b["sessions_read"] == 1 and data["brief"]["tokens"] <= 200


def test_hints_and_exclusion(capsys: pytest.CaptureFixture[str], demo: list[str]) -> None:
    data = run_json(capsys, "context", "retry work", "--project", PAYMENTS, "--symbol", "RetryPolicy",
                    "--file", "payments/webhooks/policy.py", "--issue", "PAY-7", *demo)
    kinds = {t["text"]: t["kind"] for t in data["terms"]}
    assert kinds["RetryPolicy"] == "hint" and kinds["PAY-7"] == "issue"
    assert data["budget"]["rounds"][0]["since"] is None  # an issue id: no age limit
    top = data["candidates"][0]["session_id"]
    again = run_json(capsys, "context", "retry work", "--project", PAYMENTS, "--symbol", "RetryPolicy",
                     "--exclude-session", top[:8], *demo)
    assert top not in [c["session_id"] for c in again["candidates"]]
    assert again["scope"]["excluded_sessions"][0] == {"session_id": top, "reason": "--exclude-session"}


def test_empty_outcome(capsys: pytest.CaptureFixture[str], demo: list[str]) -> None:
    code, out, _ = run(capsys, "context", "quantum flux capacitor", "--project", PAYMENTS, "--brief", *demo)
    assert code == 0
    assert out.splitlines()[1].startswith("No useful prior-session context found within ")


def test_a_project_neither_here_nor_in_any_session_is_refused(capsys: pytest.CaptureFixture[str],
                                                             demo: list[str]) -> None:
    code, out, err = run(capsys, "context", TASK, "--project", "/home/dev/projects/paymnets-api", *demo)
    assert code == 2 and out == ""
    assert err.strip() == ("sessionscope: context: --project /home/dev/projects/paymnets-api: no such directory, "
                           "and no session was recorded in it")
    # not on this machine but known from its sessions (PAYMENTS), or a directory that exists: searched
    assert not os.path.isdir(PAYMENTS) and run_json(capsys, "context", TASK, "--project", PAYMENTS, *demo)["ok"]
    assert run_json(capsys, "context", TASK, "--project", ".", *demo)["status"] == "empty"


def test_unavailable_history_is_an_outcome_not_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "context", "retry policy")
    assert data["ok"] is True and data["status"] == "unavailable" and "no agent history found" in data["reason"]
    assert data["brief"]["text"].startswith("Session history unavailable: no agent history found")


@pytest.mark.parametrize(("argv", "message"), [
    (["context", "   "], "the task is empty"),
    (["context", "x", "--sessions", "0"], "--sessions"),
    (["context", "x", "--tokens", "lots"], "--tokens"),
    (["context", "x", "--root", "/no/such/root"], "root not found"),
    (["context", "x", "--project", "/no/such/project/dir"], "--project /no/such/project/dir: no such directory"),
])
def test_errors(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 2
    data = json.loads(out)
    assert data["ok"] is False and set(data) == {"ok", "error"} and message in data["error"]
    assert err.count("\n") == 1 and err.startswith("sessionscope")


def test_secrets_do_not_leave_through_the_cli(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    root = tmp_path / "logs"
    root.mkdir()
    token = "ghp_" + "Zq9" * 12
    lines = [{"session_id": "s1", "agent_id": "claude-code", "started_at": "2026-11-10T10:00:00Z",
              "project": "/home/dev/projects/shop", "title": f"deploy with {token}"},
             {"role": "user", "content": "deploy the ledger", "timestamp": "2026-11-10T10:01:00Z"},
             {"role": "assistant", "content": f"Let's use {token} instead of ssh keys for the ledger deploy.",
              "timestamp": "2026-11-10T10:02:00Z"}]
    (root / "s1.jsonl").write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))
    os.utime(root / "s1.jsonl", (1_700_000_000, 1_700_000_000))  # not a live session
    for extra in (["--json"], ["--brief"], []):
        code, out, err = run(capsys, "context", "ledger deploy", "--project", "/home/dev/projects/shop",
                             "--root", str(root), *extra)
        assert code == 0, err
        assert token not in out and "[secret masked: github-token]" in out
