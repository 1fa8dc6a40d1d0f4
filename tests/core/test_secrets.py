"""Secret masking: each kind of secret, placeholders and code left alone, e-mail addresses
omitted, and a masked text never showing the secret again."""
from __future__ import annotations

import re
from typing import Any, Callable

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sessionscope.core.secrets import EMAIL_MARK, find_secrets, mask, mask_text

SECRETS = [
    ("aws-key", "key AKIAIOSFODNN7EXAMPLE in env", "AKIAIOSFODNN7EXAMPLE"),
    ("aws-secret", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("github-token", "GH_TOKEN=ghp_" + "x1Y" * 12, "ghp_" + "x1Y" * 12),
    ("github-token", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuv", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuv"),
    ("gitlab-token", "glpat-abcdefghij0123456789", "glpat-abcdefghij0123456789"),
    ("slack-token", "xoxb-123456789012-abcdefghij", "xoxb-123456789012-abcdefghij"),
    ("slack-webhook", "post to https://hooks.slack.com/services/T000/B000/XXXXabc", "https://hooks.slack.com/services/T000/B000/XXXXabc"),
    ("anthropic-key", "sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "sk-ant-api03-abcdefghijklmnopqrstuvwxyz"),
    ("openai-key", "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123", "sk-proj-abcdefghijklmnopqrstuvwxyz0123"),
    ("stripe-key", "stripe sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    ("google-api-key", "key=AIzaSyA1234567890abcdefghijklmnopqrstuv", "AIzaSyA1234567890abcdefghijklmnopqrstuv"),
    ("npm-token", "//registry/:_authToken=npm_" + "a" * 36, "npm_" + "a" * 36),
    ("huggingface-token", "HF hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz01234567", "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567"),
    ("jwt", "Cookie: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
     "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0"),
    ("private-key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx\nQk9q\n-----END RSA PRIVATE KEY-----", "MIIEowIBAAKCAQEAx"),
    ("private-key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA", "b3BlbnNzaC1rZXktdjEAAAAA"),
    ("url-password", "DATABASE_URL=postgres://app:s3cr3tPass@db.internal:5432/app", "s3cr3tPass"),
    ("bearer-token", 'curl -H "Authorization: Bearer abcdefghijklmnopqrstuvwxyz123"', "abcdefghijklmnopqrstuvwxyz123"),
    ("url-password", "REDIS_URL=redis://:mypassword@localhost:6379", "mypassword"),  # no user
    ("url-password", "git clone https://:tok123456@github.com/acme/x", "tok123456"),
    ("password", "password = hunter2!Xy", "hunter2!Xy"),
    ("password", 'client_secret: "9f8e7d6c5b4aQWERTY"', "9f8e7d6c5b4aQWERTY"),
    ("password", "DB_PASSWORD=correcthorsebattery", "correcthorsebattery"),  # one character class
    ("password", "password: correcthorsebattery", "correcthorsebattery"),
    ("password", '{"passphrase": "CORRECTHORSEBATTERY"}', "CORRECTHORSEBATTERY"),
]


@pytest.mark.parametrize(("kind", "text", "secret"), SECRETS, ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(SECRETS)])
def test_each_kind_is_masked_with_a_visible_mark(kind: str, text: str, secret: str) -> None:
    m = mask(text)
    assert secret not in m.text
    assert f"[secret masked: {kind}]" in m.text
    assert kind in m.kinds
    assert mask(m.text).text == m.text  # idempotent


@pytest.mark.parametrize("text", [
    "postgres://app:${DB_PASSWORD}@db/app",
    "redis://localhost:6379/0",
    "password = settings.DB_PASSWORD",
    "api_key = os.environ['OPENAI_API_KEY']",
    "token: int = 8",
    "max_tokens=4096 and token_count",
    "password: ********",
    "the secret sauce is patience",
    "pk_live_publishable_keys_are_public_0123",
    "commit 1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b",
    "git@github.com:acme/payments-api.git",
    # type annotations and schemas name what a field is, not its value
    "def login(password: str, token: str | None = None) -> None:",
    "password: Optional[str] = None",
    "password: SecretStr = Field(..., min_length=12)",
    "api_key: str = Depends(api_key_header)",
    "password: required",
    "password_hash: bytes",
    "token=abcdefghijkl (a lower-case token value is not enough on its own)",
    "the secret: patience",
])
def test_placeholders_code_and_public_values_are_left_alone(text: str) -> None:
    assert mask_text(text) == text


def test_emails_are_omitted_unless_kept() -> None:
    text = "ask jane.doe@example.com or ops@acme.io"
    assert mask_text(text) == f"ask {EMAIL_MARK} or {EMAIL_MARK}"
    assert mask_text(text, keep_emails=["ops@acme.io"]) == f"ask {EMAIL_MARK} or ops@acme.io"
    assert mask(text).emails == 2


def test_a_url_password_is_not_taken_for_an_email_address() -> None:
    m = mask("https://:tok123456@github.com and https://bot:tok123456@github.com")
    assert m.kinds == ("url-password", "url-password") and m.emails == 0
    assert m.text == ("https://:[secret masked: url-password]@github.com and "
                      "https://bot:[secret masked: url-password]@github.com")


def test_overlapping_rules_give_one_mark() -> None:
    spans = find_secrets("OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123 and AKIAIOSFODNN7EXAMPLE")
    assert [k for _, _, k in spans] == ["openai-key", "aws-key"]


@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=80))
def test_masking_is_idempotent_on_any_text(prefix: str) -> None:
    text = prefix + " AKIAIOSFODNN7EXAMPLE " + prefix
    once = mask_text(text)
    assert "AKIAIOSFODNN7EXAMPLE" not in once
    assert mask_text(once) == once


def _spans_with_rules(text: str, rule: Callable[[Any], Any]) -> list[tuple[int, int, str]]:
    """find_secrets with each rule replaced by `rule(it)` (the form an optimisation replaced)."""
    from sessionscope.core import secrets

    fast, secrets.RULES = secrets.RULES, tuple(rule(r) for r in secrets.RULES)
    try:
        return secrets.find_secrets(text)
    finally:
        secrets.RULES = fast


def _spans_without_lowered(text: str) -> list[tuple[int, int, str]]:
    import dataclasses

    return _spans_with_rules(text, lambda r: dataclasses.replace(r, lowering=False))


_KEYISH = st.sampled_from(["password", "PassWord", "API_KEY", "Secret_Key", "AccountKey", "aws_secret_access_key",
                           "Auth-Token", "token", "İ", "ß", "K", "=", ": ", "\"", "'", " ", "\n", "AbC1dEf2", "0f9E",
                           "deadBEEF" * 5, "hunter2!Xy", "x"])


@given(st.lists(_KEYISH | st.text(max_size=6), max_size=24).map("".join))
def test_case_insensitive_rules_run_on_the_lowered_text_find_the_same(text: str) -> None:
    """The fold rules run case-sensitively on the lower-cased text (8x faster than IGNORECASE):
    the same spans as the case-insensitive patterns on the text, Unicode that lowers to two
    characters (İ) included."""
    assert find_secrets(text) == _spans_without_lowered(text)


@pytest.mark.parametrize("kind,text,secret", SECRETS)
def test_case_insensitive_rules_lowered_agree_on_each_kind(kind: str, text: str, secret: str) -> None:
    for variant in (text, text.upper(), text.swapcase(), "İ " + text):
        assert find_secrets(variant) == _spans_without_lowered(variant)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab -\n\t\r\x0b\x0c\x1c\x85\xa0\u2003\u3000", max_size=60), st.integers(0, 70), st.integers(0, 70))
def test_the_last_space_of_a_margin_is_the_one_the_regex_finds(text: str, lo: int, hi: int) -> None:
    """`_last_space` (rfind of the usual spaces, then the regex on what follows) finds the last
    whitespace of text[lo:hi] as `\\s\\S*\\Z` searched there does, for every kind of space."""
    from sessionscope.core.secrets import _LAST_SPACE, _last_space

    m = _LAST_SPACE.search(text, lo, hi)
    assert _last_space(text, lo, hi) == (m.start() if m else -1)


def _rules_by_find(text: str) -> set[int]:
    """The rules each hint calls for, found the plain way (one `in` per hint)."""
    from sessionscope.core import secrets as s

    run = set(s._UNHINTED)
    for h in s._HINTS:
        if h in text:
            run.update(s._HINTED[h])
    for h in s._FOLD_HINTS:
        if h in text.lower():
            run.update(s._FOLD_HINTED[h])
    return run


def _hinted_text() -> st.SearchStrategy[str]:
    from sessionscope.core import secrets as s

    pieces = st.sampled_from([*s._HINTS, *s._FOLD_HINTS, "-", "--", "A", "S", "_", ":", "x", " ", "é", "\0"])
    return st.lists(pieces, max_size=12).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.lists(_hinted_text(), min_size=1, max_size=5))
def test_the_hints_found_by_the_trie_scan_call_for_the_rules_plain_finds_do(texts: list[str]) -> None:
    """The hints whose first character is rare are found by one trie-regex scan (a match standing
    for the hints it starts with): the same rules run, per text, as when each hint is looked for
    on its own, for texts made of hints run together, overlapping and nested."""
    from sessionscope.core import secrets as s

    texts = [t.replace("\0", "") for t in texts]
    for t in texts:
        assert s._rules_for(t, t.lower()) == _rules_by_find(t)
    seen: list[set[int]] = []
    real = s.mask

    def spy(text: str, **kw):  # noqa: ANN003, ANN202
        seen.append(set(kw.get("_run") or ()))
        return real(text, **kw)

    s.mask = spy  # type: ignore[assignment]
    try:
        s.mask_many(texts)
    finally:
        s.mask = real  # type: ignore[assignment]
    if len(texts) >= 2:
        assert seen == [_rules_by_find(t) for t in texts]


def _spans_with_lookbehind(text: str) -> list[tuple[int, int, str]]:
    """find_secrets with each token- or word-start rule's boundary as the assertion leading its pattern."""
    import dataclasses

    from sessionscope.core import secrets

    lead = {"token": secrets._B, "word": r"\b"}
    return _spans_with_rules(text, lambda r: dataclasses.replace(r, source=lead[r.start] + r.source, start=None)
                             if r.start else r)


_TOKENISH = st.sampled_from(["ghp_", "gho_", "github_pat_", "glpat-", "sk-", "sk-ant-", "xoxb-", "AKIA", "ASIA",
                             "eyJ", ".eyJ", "AIza", "npm_", "hf_", "SG.", "SK", "key-", "AGE-SECRET-KEY-1", "dapi",
                             "x", "_", "-", "9", "A1b2C3d4E5", "0123456789abcdef" * 2, "ABCDEFGHIJKLMNOP", " ", "\n",
                             "=", ":", "é", "Bearer ", "bearer", "Basic ", "basic", "curl ", "wget", "https ", "xh",
                             "mysql", "mysqldump ", " -u ", "--user ", " -p", "user:", "pw9Xk2", "Ⅷ", "٣", "ß"])


@settings(max_examples=500, deadline=None)
@given(st.lists(_TOKENISH, max_size=20).map("".join))
@example("éBearer A1b2C3d4E5A1b2C3d4E5 and Bearer A1b2C3d4E5A1b2C3d4E5")
@example("٣basic dXNlcjpwYXNzd29yZA== _basic dXNlcjpwYXNzd29yZA== basic dXNlcjpwYXNzd29yZA==")
@example("Ⅷcurl -u user:pw9Xk2 x; curl -u user:pw9Xk2 x; ßmysql -ppw9Xk2 x; mysql -ppw9Xk2")
@example("xghp_" + "A1b2C3d4E5" * 4 + " ghp_" + "A1b2C3d4E5" * 4)
def test_token_and_word_start_rules_find_what_their_assertion_found(text: str) -> None:
    """`_Rule.start`: the boundary checked on the character before each match gives the spans the
    lookbehind (`_B`) or `\\b` leading the pattern gave, for tokens and commands run together, glued
    to words (ASCII or not: Ⅷ and ٣ are word characters to re), to '_' and to each other."""
    from sessionscope.core import secrets

    assert {r.start for r in secrets.RULES} == {None, "token", "word"}
    assert secrets.find_secrets(text) == _spans_with_lookbehind(text)


# -- linear time on hostile text: the forms each rule had before, as the reference ---------------------

#: (kind, the pattern's source before it was made linear) of the rules rewritten for that
_QUADRATIC_FORMS = {
    "url-password": r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@'\"<>]*:([^\s@/'\"<>]+)@",
    "jwt": r"eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*",
}


def _spans_before_linear(text: str) -> list[tuple[int, int, str]]:
    """find_secrets with each rule as it was before the rules were made linear (the command rules
    searched by re alone, the private key's body to any END, a value read to the end of its run)."""
    import dataclasses

    from sessionscope.core import secrets

    def old(r: Any) -> Any:
        if r.segment is not None:
            return dataclasses.replace(r, segment=None)
        if r.kind in _QUADRATIC_FORMS and r.start is None:  # (url-password: `\b` led it, checked before each match)
            return secrets._r(r.kind, _QUADRATIC_FORMS[r.kind], r.group, r.check, r.flags, r.hints, r.fold)
        if r.kind == "jwt":
            return dataclasses.replace(r, source=_QUADRATIC_FORMS["jwt"])
        if r.kind == "private-key" and "(?!-----BEGIN)" in r.source:
            return dataclasses.replace(r, source=r.source.replace(r"(?:(?!-----BEGIN)[\s\S])*?", r"[\s\S]*?").replace(
                r"(?:(?!-----BEGIN)[A-Za-z0-9+/=\s:,\-])*", r"[A-Za-z0-9+/=\s:,\-]*"))
        if r.kind == "password":
            return dataclasses.replace(r, source=r.source.replace("{8,%d}" % secrets._VALUE_RUN, "{8,}"))
        return r

    return _spans_with_rules(text, old)


_HOSTILE = st.sampled_from([
    "curl ", "wget", "https", "http://", " -u ", "--user ", "--http-user=", "a:b", "pw9Xk2", "user:", "mysql", "mysqldump ",
    " -p", "sekret1", "|", ";", "&", "\n", " ", "://", "postgres", "redis", ":", "@", "a.", "-", "+", "_", "é", "Ⅷ", "host",
    "${PW}", "eyJ", "eyJhbGciOiJIUzI1NiJ9", ".", "eyJzdWIiOiIx", "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----",
    "MIIEowIBAAKCAQEAx", "password", "token", "=", "x", "A1b2C3d4E5", "'", '"'])


@settings(max_examples=800, deadline=None)
@given(st.lists(_HOSTILE, max_size=24).map("".join))
@example("curl x curl -u bob:pw9Xk2 http y")
@example("curl a; curl b -u bob:pw9Xk2 -u al:sekret1")
@example("see x.postgres://bob:pw9Xk2@host and é-redis://:sekret1@host")
@example("eyJeyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIx.sig -eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIx.sig")
@example("-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx\n-----END RSA PRIVATE KEY-----")
@example("-----BEGIN RSA PRIVATE KEY----------BEGIN RSA PRIVATE KEY----------END RSA PRIVATE KEY-----curl ")
def test_the_linear_rules_find_what_their_quadratic_forms_found(text: str) -> None:
    """The rules rewritten so a long run of what they look for costs its length, not its square
    (a command's first word only, a URL scheme once a run, a JWT's boundary after its literal, a
    value checked on its first `_VALUE_RUN` characters) find the same secrets in texts made of
    what they look for, run together. (A private key's body, to its END or to the end of its
    base64 run, now ends before another BEGIN line, where a BEGIN and its END had all between them
    masked: in a text with two BEGINs what is no longer masked was taken for a key's body, and
    each key's header is masked where it was.)"""
    if text.count("-----BEGIN") > 1:
        masked = {i for s, e, _ in find_secrets(text) for i in range(s, e)}
        old_spans = _spans_before_linear(text)
        before = {i for s, e, _ in old_spans for i in range(s, e)}
        assert before - masked <= {i for s, e, k in old_spans if k == "private-key" for i in range(s, e)}
        for m in re.finditer(r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----", text):  # (each header, as before at least)
            assert set(range(*m.span())) & before <= masked
        return
    assert find_secrets(text) == _spans_before_linear(text)


def test_a_command_rule_tries_the_first_word_of_each_command_only() -> None:
    """`_Rule.segment`: on a line of many `curl` words and no `-u`, the pattern is tried once for
    the line, not once a word; a word glued to another word is no command word."""
    import re as re_module

    from sessionscope.core import secrets

    rule = next(r for r in secrets.RULES if r.segment and "curl" in r.source)
    tried: list[int] = []

    class Counting:
        def __init__(self, pattern: re_module.Pattern[str]) -> None:
            self.pattern = pattern

        def match(self, text: str, pos: int) -> re_module.Match[str] | None:
            tried.append(pos)
            return self.pattern.match(text, pos)

    text = "curl " * 500 + "| xcurl curl https -u bob:pw9Xk2 curl"
    found = list(secrets._segment_matches(rule, Counting(rule.pattern), text))  # type: ignore[arg-type]
    assert [m.group(1) for m in found] == ["pw9Xk2"]
    assert tried == [0, text.index(" curl https") + 1, text.rindex("curl")]


def test_a_long_unquoted_value_is_checked_on_its_start_and_masked_whole() -> None:
    from sessionscope.core import secrets

    value = "Xy9" + "a1B2c3" * 200  # (1,203 characters: longer than what is checked)
    assert len(value) > secrets._VALUE_RUN
    out = mask_text(f"export DB_PASSWORD={value} done")
    assert out == "export DB_PASSWORD=[secret masked: password] done"
    # a run of keys and values glued together: one mark for the run, every key's value in it
    glued = "password=" * 3000
    assert mask_text("x " + glued + " y") == "x password=[secret masked: password] y"
