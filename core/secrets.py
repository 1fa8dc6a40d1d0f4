"""Secret masking and personal-information omission for text taken out of transcripts.

Why a rule set of our own rather than a detector package: the candidates on PyPI (detect-secrets,
whispers, ggshield) scan files and report lines or hashes, pull in HTTP clients or a service, and
are not kept current enough to justify the weight; what the brief needs is the *span* of each
secret in a short text, so it can be replaced in place. The rules below cover the kinds those
tools look for most, each with a name shown in the mark, e.g. `[secret masked: aws-key]`.

Rules (applied together; where two overlap the earlier-starting, then longer, match wins):

  private-key     -----BEGIN … PRIVATE KEY----- blocks (to their END line, or to the end of the
                  base64 run when the text was cut)
  jwt             eyJ….eyJ….<signature> (header and payload are base64 JSON objects)
  aws-key         access key ids: AKIA/ASIA/ABIA/ACCA/AGPA/AIDA/AROA/AIPA/ANPA/ANVA/APKA + 16
  aws-secret      the 40-character value after aws_secret_access_key = / :
  github-token    ghp_/gho_/ghu_/ghs_/ghr_ + 36, github_pat_…
  gitlab-token    glpat-…
  slack-token     xoxb-/xoxa-/xoxp-/xoxo-/xoxr-/xoxs-…, and hooks.slack.com webhook URLs
  anthropic-key   sk-ant-…
  openai-key      sk-…, sk-proj-…, sk-svcacct-… (20+ characters after the prefix)
  stripe-key      sk_live_/sk_test_/rk_live_/rk_test_…, whsec_… (publishable pk_ keys are public)
  google-api-key  AIza + 35
  npm-token       npm_ + 36;  pypi-token pypi-AgEIcHlwaS5vcmc…;  huggingface-token hf_ + 30+
  url-password    the password of scheme://user:password@host, the user possibly empty
                  (redis://:password@host); placeholders such as ${VAR}, $VAR, <password>,
                  *** are left alone
  bearer-token    the token after `Bearer ` (20+ token characters)
  password        the value of password/passwd/passphrase/pwd/secret/token/api_key/
                  access_token/auth_token/private_key/client_secret = or : assignments
                  (DB_PASSWORD=…, "password": "…") when the value looks like a secret: 8+
                  characters; not a placeholder, a code reference (dotted name, call, env
                  lookup), a generic type (Optional[str]) or a word that names what a field is
                  (required, optional, string, redacted, invalid, …); and either mixing at
                  least two of lower case, upper case, digits and symbols, or, for
                  password/passwd/passphrase/pwd, any such value (correcthorsebattery).
                  Decided to keep code quiet: after `:` a CamelCase word of letters only is a
                  type annotation (`password: SecretStr`), so a YAML password written that way
                  is not masked; `password: str` is too short to be one

Personal information: e-mail addresses are replaced by `[email omitted]` unless the caller says
the address is part of what is being shown (`keep_emails`, e.g. addresses named in the task).
`git@host:` remotes are not addresses.

Masking is idempotent: a masked text passes through unchanged.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

MARK = "[secret masked: {kind}]"
EMAIL_MARK = "[email omitted]"


@dataclass(frozen=True)
class _Rule:
    kind: str
    pattern: re.Pattern[str]
    group: int = 0  # the group that is the secret (0: the whole match)
    check: str | None = None  # name of an extra test on the secret


def _r(kind: str, pattern: str, group: int = 0, check: str | None = None, flags: int = 0) -> _Rule:
    return _Rule(kind, re.compile(pattern, flags), group, check)


_B = r"(?<![A-Za-z0-9_])"  # a token boundary that treats '_' and '-' as part of no word
_E = r"(?![A-Za-z0-9_])"

RULES: tuple[_Rule, ...] = (
    _r("private-key", r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
       r"(?:[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s:,\-]*)"),
    _r("jwt", _B + r"eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*"),
    _r("aws-key", _B + r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[0-9A-Z]{16}" + _E),
    _r("aws-secret", r"aws_?secret_?(?:access_?)?key[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
       1, flags=re.IGNORECASE),
    _r("github-token", _B + r"(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})" + _E),
    _r("gitlab-token", _B + r"glpat-[A-Za-z0-9_-]{20,}"),
    _r("slack-token", _B + r"xox[abposr]-[A-Za-z0-9-]{10,}"),
    _r("slack-webhook", r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]+"),
    _r("anthropic-key", _B + r"sk-ant-[A-Za-z0-9_-]{20,}"),
    _r("openai-key", _B + r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
    _r("stripe-key", _B + r"(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9]{20,})" + _E),
    _r("google-api-key", _B + r"AIza[0-9A-Za-z_-]{35}" + _E),
    _r("npm-token", _B + r"npm_[A-Za-z0-9]{36}" + _E),
    _r("pypi-token", _B + r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}"),
    _r("huggingface-token", _B + r"hf_[A-Za-z0-9]{30,}" + _E),
    _r("url-password", r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@'\"<>]*:([^\s@/'\"<>]+)@", 1, "placeholder"),
    _r("bearer-token", r"\b[Bb]earer\s+([A-Za-z0-9._~+/-]{20,}=*)", 1),
    _r("password",
       r"(?i)\b[A-Za-z0-9_.-]*?(password|passwd|passphrase|pwd|secret|api[_-]?key|apikey|access[_-]?token|"
       r"auth[_-]?token|private[_-]?key|client[_-]?secret|token)[\"']?\s*(:=|=>|:|=)\s*[\"'`]?"
       r"([^\s\"'`,;)\]}]{8,})",
       3, "secret_like"),
)

_EMAIL = re.compile(r"(?<![\w.+-])([A-Za-z0-9][A-Za-z0-9._%+-]*)@([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,})\b")
_NOT_PERSONAL = {"git", "noreply", "no-reply"}
_PLACEHOLDER = re.compile(r"^(?:\$\{?[\w.-]*\}?|<[^>]*>|\*+|x+|X+|\.+|%[\w(]*\)?s?|\{\{.*\}\}|\{[\w.]*\})$")
_CODE_REF = re.compile(r"^(?:[A-Za-z_]\w*\.)+[A-Za-z_]\w*(?:\[.*|\(.*)?$|^\w+\(|^(?:os|process|env|self|settings|config)\b")
_MASKED = re.compile(r"\[(?:secret masked: [a-z0-9-]+|email omitted)\]")


_PASSWORD_KEY = re.compile(r"(?i)^(?:password|passwd|passphrase|pwd)$")
# values that say what a field is, not what it holds (schemas, forms, type names, statuses)
_NOT_A_VALUE = frozenset("""
optional required nullable undefined nonempty notnull string boolean integer secretstr secretbytes readonly
writeonly password passwords redacted hidden masked disabled enabled default example placeholder unchanged
incorrect invalid expired mismatch mismatched missing rejected accepted verified updated changed provided
""".split())
_GENERIC_TYPE = re.compile(r"^[A-Za-z_][\w.]*\[")  # Optional[str, dict[str, …
_TYPE_NAME = re.compile(r"^[A-Z][a-z]+(?:[A-Z][a-z]+)+$")  # SecretStr, PasswordField


def _secret_like(m: re.Match[str]) -> bool:
    key, sep, value = m.group(1), m.group(2), m.group(3)
    if _PLACEHOLDER.match(value) or _CODE_REF.match(value) or "[secret masked" in value:
        return False
    if len(set(value)) <= 2 or value.lower() in _NOT_A_VALUE or _GENERIC_TYPE.match(value):
        return False
    if sep == ":" and _TYPE_NAME.match(value):
        return False  # `password: SecretStr`: a type annotation
    classes = sum(bool(re.search(p, value)) for p in (r"[a-z]", r"[A-Z]", r"[0-9]", r"[^A-Za-z0-9]"))
    return classes >= 2 or bool(_PASSWORD_KEY.match(key))


def _not_placeholder(m: re.Match[str]) -> bool:
    value = m.group(1)
    return not _PLACEHOLDER.match(value) and "[secret masked" not in value


_CHECKS = {"secret_like": _secret_like, "placeholder": _not_placeholder}


@dataclass(frozen=True)
class Masked:
    text: str
    kinds: tuple[str, ...]  # the kinds masked, in order of appearance (repeats kept)
    emails: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.kinds) or bool(self.emails)


def find_secrets(text: str) -> list[tuple[int, int, str]]:
    """(start, end, kind) of every secret in `text`, non-overlapping, in order."""
    spans: list[tuple[int, int, str]] = []
    protected = [(m.start(), m.end()) for m in _MASKED.finditer(text)]
    for rule in RULES:
        for m in rule.pattern.finditer(text):
            start, end = m.span(rule.group)
            if start < 0 or end <= start:
                continue
            if rule.check and not _CHECKS[rule.check](m):
                continue
            if any(s < end and start < e for s, e in protected):
                continue
            spans.append((start, end, rule.kind))
    spans.sort(key=lambda s: (s[0], -(s[1] - s[0])))
    out: list[tuple[int, int, str]] = []
    last_end = -1
    for s in spans:
        if s[0] >= last_end:
            out.append(s)
            last_end = s[1]
    return out


def mask(text: str, *, keep_emails: Iterable[str] = ()) -> Masked:
    """`text` with every secret replaced by `[secret masked: KIND]` and e-mail addresses not in
    `keep_emails` by `[email omitted]`."""
    if not text:
        return Masked(text, ())
    spans = find_secrets(text)
    parts: list[str] = []
    pos = 0
    for start, end, kind in spans:
        parts.append(text[pos:start])
        parts.append(MARK.format(kind=kind))
        pos = end
    parts.append(text[pos:])
    out = "".join(parts)
    keep = {e.lower() for e in keep_emails}
    emails = 0

    def omit(m: re.Match[str]) -> str:
        nonlocal emails
        if m.group(1).lower() in _NOT_PERSONAL or m.group(0).lower() in keep:
            return m.group(0)
        emails += 1
        return EMAIL_MARK

    out = _EMAIL.sub(omit, out)
    return Masked(out, tuple(k for _, _, k in spans), emails)


def mask_text(text: str, *, keep_emails: Iterable[str] = ()) -> str:
    return mask(text, keep_emails=keep_emails).text


def emails_in(text: str) -> list[str]:
    return [m.group(0) for m in _EMAIL.finditer(text or "")]
