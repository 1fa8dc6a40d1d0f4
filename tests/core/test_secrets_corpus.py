"""Every value of the secrets corpus (tests/secrets_corpus.py) is masked in its sentence, no
look-alike is, and text cut before it was masked keeps no part of a secret."""
from __future__ import annotations

import pytest
from secrets_corpus import FORMATS, NEGATIVES, POSITIVES, Case, leaks, public_length

from sessionscope.core.secrets import mask_data, mask_marked, mask_text, masked_line
from sessionscope.core.text import one_line


def test_the_corpus_covers_at_least_thirty_formats() -> None:
    assert len(FORMATS) >= 30
    for needed in ("github-classic", "github-fine-grained", "gitlab", "slack-bot", "slack-webhook", "stripe-secret",
                   "openai-project", "anthropic", "aws-key-id", "aws-secret", "google-api-key", "jwt", "pem-rsa",
                   "postgres-url", "redis-url", "mongodb-url", "env-password", "json-password", "bearer",
                   "basic-auth", "npm-token", "pypi-token", "huggingface", "azure-storage", "twilio-api-key",
                   "twilio-auth-token", "sendgrid", "datadog-api-key"):
        assert needed in FORMATS


@pytest.mark.parametrize("case", POSITIVES, ids=[f"{c.fmt}-{i}" for i, c in enumerate(POSITIVES)])
def test_every_corpus_secret_is_masked(case: Case) -> None:
    masked = mask_text(case.text)
    assert leaks(masked, [case]) == [], masked
    assert "[secret masked: " in masked
    assert mask_text(masked) == masked  # idempotent


@pytest.mark.parametrize("text", NEGATIVES)
def test_no_look_alike_is_masked(text: str) -> None:
    assert mask_text(text) == text


@pytest.mark.parametrize("case", POSITIVES, ids=[f"{c.fmt}-{i}" for i, c in enumerate(POSITIVES)])
def test_text_cut_inside_a_secret_before_masking_keeps_none_of_it(case: Case) -> None:
    """A title or preview made elsewhere and cut mid-secret (`AKIAIO…`): masking it afterwards
    leaves none of the value's secret part (what follows its format's public prefix)."""
    at = case.text.index(case.value)
    p = public_length(case.value)
    for keep in (p + 4, p + (len(case.value) - p) // 2, len(case.value) - 1):
        cut = case.text[: at + keep] + "…"
        masked = mask_text(cut)
        secret_part = case.value[p:keep]
        assert secret_part not in masked.replace(case.text[:at], ""), (cut, masked)


def test_a_partial_access_key_id_at_a_cut_is_masked() -> None:
    assert mask_text("deploy with AKIAIO…") == "deploy with [secret masked: cut]…"
    assert mask_text("an ordinary title that was cut…") == "an ordinary title that was cut…"
    assert mask_text("see 1af7fc5e-8455-4414-9ccd…") == "see 1af7fc5e-8455-4414-9ccd…"
    path = "The file /home/USER/projects/spotter-worktrees/spotter-0rt/lib/spotter_web/Migrations2026…"
    assert mask_text(path) == path  # a path is no key, whatever its parts mix
    assert mask_text("calls getUserById2024…") == "calls getUserById2024…"
    assert mask_text("sig EtEFCkYIBxgCKkDNBdq9tM1bUdiTLuzBif…") == "sig [secret masked: cut]…"


@pytest.mark.parametrize("case", POSITIVES[:20], ids=[c.fmt for c in POSITIVES[:20]])
def test_masked_line_masks_first_and_cuts_after(case: Case) -> None:
    at = case.text.index(case.value)
    line = masked_line(case.text, at + 6)
    assert leaks(line, [case]) == []
    assert case.value[:6] not in line or case.value[:6] in case.text[:at]


def test_mask_data_masks_every_string_of_a_json_value() -> None:
    value = POSITIVES[0].value
    data = {"title": f"x {value}", "n": 3, "items": [{"text": value}, ("t", value)], "ok": True, "none": None}
    out = mask_data(data)
    assert value not in repr(out)
    assert out["n"] == 3 and out["ok"] is True and out["none"] is None


def test_highlighted_snippets_are_masked_without_losing_other_highlights() -> None:
    aws = "AKIA" + "ABCDEFGHIJKLMNOP"
    snippet = f"the «deploy» key AKIA«ABCDEFGH»IJKLMNOP and «deploy» again"
    out = mask_marked(snippet)
    assert aws not in out.replace("«", "").replace("»", "") and "ABCDEFGH" not in out
    assert out == "the «deploy» key [secret masked: aws-key] and «deploy» again"
    assert mask_marked("plain «text»") == "plain «text»"
