"""Every value of the secrets corpus (tests/secrets_corpus.py) is masked in its sentence, no
look-alike is, and text cut before it was masked keeps no part of a secret."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from secrets_corpus import FORMATS, NEGATIVES, POSITIVES, Case, leaks, public_length

from sessionscope.core.secrets import mask_data, mask_many, mask_marked, mask_text, masked_line, masked_window, masked_windows
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


@pytest.mark.parametrize("end", ["…", "..."])
def test_a_cut_is_seen_whatever_the_text_ends_with(end: str) -> None:
    # (the cut is looked for only in a text ending as a cut text does)
    assert mask_text("deploy with AKIAIO" + end) == "deploy with [secret masked: cut]" + end
    assert mask_text("deploy with AKIAIO" + end + " and more") == "deploy with AKIAIO" + end + " and more"


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


def _far(n: int) -> str:
    return " ".join(f"word{i % 97}" for i in range(n))


@pytest.mark.parametrize("case", POSITIVES, ids=[f"{c.fmt}-{i}" for i, c in enumerate(POSITIVES)])
def test_a_search_preview_masks_only_its_window_as_the_whole_text_would(case: Case) -> None:
    """A hit's preview is cut from a masked window around its match, not from the whole text
    masked (a multi-MB tool output): it keeps no secret near the match and is the preview the
    whole text masked gives."""
    from sessionscope.core.search.hits import hit_of, window
    from sessionscope.core.search.query import Query, Term
    from sessionscope.core.secrets import masking
    from sessionscope.core.model import Locator

    q = Query(must=[[Term("needle", "substring")]], source="needle")
    for text in (_far(1000) + " " + case.text + " the needle " + _far(1000),
                 _far(1000) + " the needle " + case.text + " " + _far(1000),
                 case.text + " needle"):
        with masking(True):
            hit = hit_of(text, q, 200, "s", "e", "claude", "claude", "user", "text", Locator("p", 0, 1), None, 0, 1, None)
        whole = mask_text(text)
        at = whole.find("needle")
        if at >= 0:  # (a key block cut before its end swallows what follows it, the needle too)
            assert hit.preview == window(whole, at, 6, 200)
        assert leaks(hit.preview, [case]) == []
    with masking(True):
        hit = hit_of(case.text + " " + _far(1000), Query(must=[[Term("absent", "substring")]], source="absent"), 4000,
                     "s", "e", "claude", "claude", "user", "text", Locator("p", 0, 1), None, 0, 1, None)
    assert leaks(hit.preview, [case]) == []


def test_a_masked_window_never_cuts_a_token_in_two() -> None:
    """Without whitespace in its margin a side runs to the text's end: a 10 KB token holding the
    match is masked whole, not from a cut that no rule recognises."""
    from sessionscope.core.secrets import masked_window

    key = "sk-ant-api03-" + "Ab1x" * 2500
    text = _far(2000) + " " + key + " " + _far(2000)
    at = text.index(key) + 5000
    part = masked_window(text, at, at + 4, margin=100)
    assert "Ab1xAb1x" not in part and "[secret masked" in part
    spaced = _far(2000)
    part = masked_window(spaced, 5000, 5004, margin=100)
    at = spaced.index(part, 4890)
    assert at >= 4900 and at + len(part) <= 5104 and len(part) >= 180  # both sides kept, cut inward...
    assert spaced[at - 1] == " " and spaced[at + len(part)] == " "  # ...at whitespace, words whole


def test_a_masked_window_inside_a_private_key_block_takes_the_block_whole() -> None:
    from sessionscope.core.secrets import masked_window

    body = "\n".join("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC" + str(i) for i in range(80))
    block = f"-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----"
    text = _far(300) + " " + block + " " + _far(300)
    middle = text.index(block) + len(block) // 2
    for lo in (middle, text.index(block) - 50, text.index(block) + len(block) - 10):
        part = masked_window(text, lo, lo + 3, margin=100)
        assert "MIIEvQIBADAN" not in part, lo


def test_a_masked_window_after_a_long_command_line_start_keeps_its_password_masked() -> None:
    from sessionscope.core.secrets import masked_window

    text = _far(200) + "\ncurl " + " ".join(f"-H 'X-Header-{i}: v{i}'" for i in range(60)) + " -u admin:Hunter2Secret https://x/\n"
    at = text.index("Hunter2Secret")
    part = masked_window(text, at - 5, at, margin=100)
    assert "Hunter2Secret" not in part and "[secret masked" in part


_PIECES = [c.text for c in POSITIVES] + list(NEGATIVES) + ["", "\0", "key", "pass\0word", "sk-", "ant-"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_PIECES), max_size=4).map(" ".join), max_size=6))
def test_masking_many_texts_together_masks_each_as_alone(texts: list[str]) -> None:
    # (hints are looked for in the texts joined: none may be found across two of them)
    assert mask_many(texts) == [mask_text(t) for t in texts]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=8).map("\n".join),
                          st.integers(0, 2000), st.integers(0, 40)), max_size=5))
def test_windows_masked_together_are_those_masked_alone(items: list[tuple[str, int, int]]) -> None:
    windows = [(text, min(lo, len(text)), min(lo + n, len(text)), 60, 30) for text, lo, n in items]
    assert masked_windows(windows) == [masked_window(*w) for w in windows]
