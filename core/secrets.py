"""Secret masking and personal-information omission for text taken out of transcripts.

Why a rule set of our own rather than a detector package: measured on a corpus of 87 fake
values of 63 formats inside transcript-like text and 67 look-alikes (tests/secrets_corpus.py),
and on the real-agent corpus for false positives (bench/bench_secrets.py): bc-detect-secrets
(the maintained fork of Yelp's detect-secrets, every default plugin) leaves 27 of the 87 values
(the bodies of private keys, Basic and Bearer credentials, command-line and Redis URL
passwords, a Django SECRET_KEY, a Twilio auth token, …) and masks 14 of the 67 look-alikes
(md5/sha256 digests, lockfile integrity hashes, `password = settings.X`, type annotations) and
message and tool-call ids in the real corpus; it reports values, not spans, and needs a file per
text. microsoft-security-utilities-secret-masker leaves 66 of the 87 (it knows Microsoft's own
identifiable key formats, the rest of the ecosystem little) and masks an md5 checksum, message
ids and trace ids. Neither, alone or added to these rules, masks a value these rules leave. What
the brief needs is the *span* of each secret in a short text, so it can be replaced in place,
with no false positives on ids and code. Each rule below has a name shown in the mark, e.g.
`[secret masked: aws-key]`.

Rules (applied together; where two overlap the earlier-starting, then longer, match wins):

  private-key     -----BEGIN … PRIVATE KEY----- blocks (to their END line, or to the end of the
                  base64 run when the text was cut); age secret keys
  jwt             eyJ….eyJ….<signature> (header and payload are base64 JSON objects)
  aws-key         access key ids: AKIA/ASIA/ABIA/ACCA/AGPA/AIDA/AROA/AIPA/ANPA/ANVA/APKA + 16
  aws-secret      the 40-character value after aws_secret_access_key / SecretAccessKey = or :
  prefixed tokens each vendor's own shape (prefix, length, alphabet): github-token (ghp_ gho_ ghu_
                  ghs_ ghr_, github_pat_), gitlab-token (glpat- and the other gl…- tokens),
                  slack-token (xox?-, xapp-), slack-webhook, discord-webhook, anthropic-key,
                  openai-key, stripe-key (sk_/rk_ live/test, whsec_), google-api-key (AIza),
                  google-oauth-secret (GOCSPX-), npm-token, pypi-token, huggingface-token,
                  sendgrid-key (SG.x.y), twilio-key (SK + 32 hex), square-token (sq0atp-,
                  sq0csp-), mailgun-key (key- + 32 hex), digitalocean-token, shopify-token, telegram-bot-token, databricks-token,
                  grafana-token, linear-key, groq-key, xai-key, perplexity-key, replicate-token,
                  doppler-token, postman-key, notion-token, supabase-token, figma-token,
                  sentry-token, tailscale-key, heroku-key, atlassian-token
  azure-key       the value of AccountKey= / SharedAccessKey= in connection strings, and a SAS
                  URL's sig=
  url-password    the password of scheme://user:password@host, the user possibly empty
                  (redis://:password@host); placeholders such as ${VAR}, $VAR, <password>,
                  *** are left alone
  bearer-token    the token after `Bearer ` (20+ token characters)
  basic-auth      the credentials after `Basic ` and a docker config's "auth", when they decode
                  to user:password
  cli-password    `curl -u user:PASSWORD`, `--password VALUE`, `mysql -pVALUE`
  hex-token       32-64 hex digits within a few characters after a name that says what they
                  are: "the Twilio auth token is 0f3a…", `DD_APP_KEY=…` (hex alone is a hash)
  password        the value of password/passwd/passphrase/pwd/secret/token/api_key/app_key/
                  access_token/auth_token/private_key/client_secret/… = or : assignments
                  (DB_PASSWORD=…, "password": "…", SECRET_KEY='…' to its closing quote) when
                  the value looks like a secret: 8+ characters; not a placeholder
                  (your_api_key, <key>, ${VAR}, changeme), a code reference (a dotted name none
                  of whose parts looks random, a call, an env lookup, an unquoted camelCase
                  variable), a generic type (Optional[str]) or a word that names what a field
                  is (required, optional, string, redacted, invalid, …); and either mixing at
                  least two of lower case, upper case, digits and symbols, or, for
                  password/passwd/passphrase/pwd, any such value (correcthorsebattery).
                  Decided to keep code quiet: after `:` a CamelCase word of letters only is a
                  type annotation (`password: SecretStr`), so a YAML password written that way
                  is not masked; `password: str` is too short to be one

Text cut before it was masked (a title or preview made elsewhere, ending in `…`) is still safe:
a last word that could be the start of a secret, once completed, is masked too
(`AKIAIO…` → `[secret masked: cut]`). Where this module cuts, it masks first (`masked_line`).

Personal information: e-mail addresses are replaced by `[email omitted]` unless the caller says
the address is part of what is being shown (`keep_emails`, e.g. addresses named in the task).
`git@host:` remotes are not addresses.

Masking is idempotent: a masked text passes through unchanged. Each rule is only run on a text
holding one of its literal hints, so masking megabytes of ordinary text stays fast.
"""
from __future__ import annotations

import base64
import binascii
import functools
import re
from bisect import bisect_right
from typing import Any, Callable, Iterable, Iterator

from .records import record
from .text import masking, masking_on, one_line  # noqa: F401 - (masking: imported from here too)

MARK = "[secret masked: {kind}]"
EMAIL_MARK = "[email omitted]"


@record(frozen=True)
class _Rule:
    kind: str
    source: str  # the pattern, compiled when the rule is first used (not by every command's import)
    flags: int = 0
    group: int | tuple[int, ...] = 0  # the group that is the secret (0: the whole match; a tuple: the first that matched)
    check: str | None = None  # name of an extra test on the secret
    hints: tuple[str, ...] = ()  # the rule runs only on a text holding one of these
    fold: bool = False  # hints are looked for in the lower-cased text
    lowering: bool = True  # a case-insensitive pattern runs as `lowered` where it can
    #: the match starts a token (`_B`: "token") or a word (`\\b` before a letter: "word"), checked on
    #: the character before each match found rather than by an assertion leading the pattern: that
    #: kept re from skipping to where its first characters are (it tried every place of the text;
    #: 5-12x slower on kilobytes of prose)
    start: str | None = None
    #: a command word (the pattern's start, after its `\\b`) followed by a lazy run to the end of
    #: its command (`[^\\n|;&]*?`): the pattern is tried only from the first such word of each
    #: command, and from the first after each match. A later word of the same command sees less
    #: of it than the first, so it fails where the first did; re's own search tried each word,
    #: each to the command's end (seconds on a long line of `curl curl …`).
    segment: str | None = None

    @functools.cached_property
    def segment_word(self) -> re.Pattern[str]:
        return re.compile(self.segment or "")

    @functools.cached_property
    def pattern(self) -> re.Pattern[str]:
        return re.compile(self.source, self.flags)

    @functools.cached_property
    def lowered(self) -> re.Pattern[str] | None:
        """A case-insensitive pattern as a case-sensitive one run on the lower-cased text: the same
        matches at the same places, 8x faster (re's IGNORECASE folds each character it tries)."""
        if not (self.lowering and self.fold and self.pattern.flags & re.IGNORECASE):
            return None
        return re.compile(_lowered(self.source), self.flags & ~re.IGNORECASE)


def _r(kind: str, pattern: str, group: int | tuple[int, ...] = 0, check: str | None = None, flags: int = 0,
       hints: Iterable[str] = (), fold: bool = False, segment: str | None = None) -> _Rule:
    for lead, start in ((_B, "token"), (r"\b", "word")):  # (see `_Rule.start`)
        if pattern.startswith(lead) and (start == "token" or _LETTER_FIRST.match(pattern, len(lead))):
            return _Rule(kind, pattern[len(lead):], flags, group, check, tuple(hints), fold, start=start,
                         segment=segment)
    assert segment is None, "a segment rule starts with its command word after `\\b`"
    return _Rule(kind, pattern, flags, group, check, tuple(hints), fold)


#: a pattern whose every match starts with a letter (after `\b`, which then means: no word
#: character before it)
_LETTER_FIRST = re.compile(r"\[[A-Za-z]+\]|[A-Za-z]|\(\?:[a-z]+(?:\|[a-z]+)*\)")


def _lowered(pattern: str) -> str:
    """A case-insensitive pattern for lower-cased text: `(?i)` dropped and every letter lowered
    but an escape's (`\\S` stays `\\S`); a class `[A-Z0-9]` becomes `[a-z0-9]`, which is what it
    matches there."""
    out: list[str] = []
    escaped = False
    for ch in pattern.replace("(?i)", ""):
        out.append(ch if escaped else ch.lower())
        escaped = ch == "\\" and not escaped
    return "".join(out)


_B = r"(?<![A-Za-z0-9_])"  # a token boundary that treats '_' and '-' as part of no word
_B_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")  # what `_B` refuses before


def _is_word(ch: str) -> bool:
    """A word character as re's `\\b` sees one in a str pattern."""
    return ch.isalnum() or ch == "_"
_E = r"(?![A-Za-z0-9_])"
_AWS = ("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "APKA")

# (kind, hint, pattern): tokens that say what they are by their own prefix
_PREFIXED: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("github-token", ("gh", "github_pat_"), r"gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255}"),
    ("gitlab-token", ("gl",), r"gl(?:pat|dt|rt|ptt|cbt|imt|oas|ft|soat|ffct|agent)-[A-Za-z0-9_-]{20,}"),
    ("slack-token", ("xox", "xapp-"), r"xox[abposre]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,}"),
    ("anthropic-key", ("sk-ant-",), r"sk-ant-[A-Za-z0-9_-]{20,}"),
    ("openai-key", ("sk-",), r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
    ("stripe-key", ("_live_", "_test_", "whsec_"), r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9]{20,}"),
    ("google-api-key", ("AIza",), r"AIza[0-9A-Za-z_-]{35}"),
    ("google-oauth-secret", ("GOCSPX-",), r"GOCSPX-[A-Za-z0-9_-]{20,}"),
    ("npm-token", ("npm_",), r"npm_[A-Za-z0-9]{36}"),
    ("pypi-token", ("pypi-",), r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}"),
    ("huggingface-token", ("hf_",), r"hf_[A-Za-z0-9]{30,}"),
    ("sendgrid-key", ("SG.",), r"SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{30,64}"),
    ("twilio-key", ("SK",), r"SK[0-9a-fA-F]{32}"),
    ("mailgun-key", ("key-",), r"key-[0-9a-f]{32}"),
    ("square-token", ("sq0",), r"sq0(?:atp|csp)-[A-Za-z0-9_-]{22,60}"),
    ("digitalocean-token", ("dop_v1_", "doo_v1_", "dor_v1_"), r"do[opr]_v1_[a-f0-9]{64}"),
    ("shopify-token", ("shp",), r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
    ("telegram-bot-token", (":AA",), r"\d{8,10}:AA[A-Za-z0-9_-]{33}"),
    ("databricks-token", ("dapi",), r"dapi[a-f0-9]{32}(?:-\d)?"),
    ("grafana-token", ("glsa_", "glc_"), r"glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2}"),
    ("linear-key", ("lin_api_",), r"lin_api_[A-Za-z0-9]{40}"),
    ("groq-key", ("gsk_",), r"gsk_[A-Za-z0-9]{48,}"),
    ("xai-key", ("xai-",), r"xai-[A-Za-z0-9]{60,}"),
    ("perplexity-key", ("pplx-",), r"pplx-[A-Za-z0-9]{40,}"),
    ("replicate-token", ("r8_",), r"r8_[A-Za-z0-9]{37}"),
    ("doppler-token", ("dp.",), r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}"),
    ("postman-key", ("PMAK-",), r"PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}"),
    ("notion-token", ("ntn_", "secret_"), r"ntn_[0-9]{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43}"),
    ("supabase-token", ("sbp_",), r"sbp_[a-f0-9]{40}"),
    ("figma-token", ("figd_",), r"figd_[A-Za-z0-9_-]{40}"),
    ("sentry-token", ("sntry",), r"sntr[ysu]_[A-Za-z0-9+/=_]{40,}"),
    ("tailscale-key", ("tskey-",), r"tskey-[a-z]+-[A-Za-z0-9]{6,}-[A-Za-z0-9]{20,}"),
    ("heroku-key", ("HRKU-",), r"HRKU-[A-Za-z0-9_-]{40,}"),
    ("atlassian-token", ("ATATT",), r"ATATT[A-Za-z0-9_=-]{100,}"),
)

# a key name saying that its value is a secret
_KEY = (r"password|passwd|passphrase|pwd|secret[_-]?key|secret|api[_-]?key|apikey|app[_-]?key|access[_-]?key|"
        r"account[_-]?key|master[_-]?key|signing[_-]?key|encryption[_-]?key|access[_-]?token|"
        r"auth[_-]?token|private[_-]?key|client[_-]?secret|token")

#: an unquoted `password` value is matched and checked on its first this many characters, and masked
#: to the end of its run when it is a secret (`_run_end`): a run of `password=password=…` is then
#: not read to its end from each key in it (what made masking quadratic in its length)
_VALUE_RUN = 256
_VALUE_CHARS = re.compile(r"[^\s\"'`,;)\]}]*")

RULES: tuple[_Rule, ...] = (
    _r("private-key", r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
       r"(?:(?:(?!-----BEGIN)[\s\S])*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|(?:(?!-----BEGIN)[A-Za-z0-9+/=\s:,\-])*)",
       hints=["PRIVATE KEY"]),
    _r("private-key", _B + r"AGE-SECRET-KEY-1[0-9A-Z]{58}" + _E, hints=["AGE-SECRET-KEY-"]),
    # (the boundary checked again after the literal, which re still skips to: in a run of
    # `eyJeyJ…` each later `eyJ` is refused at once; the header, a few dozen characters in a real
    # token, is read to at most 1,024 from each start)
    _r("jwt", _B + r"eyJ(?<![A-Za-z0-9_]eyJ)[A-Za-z0-9_-]{5,1024}+\.eyJ[A-Za-z0-9_-]{5,}+\.[A-Za-z0-9_-]*", hints=["eyJ"]),
    _r("aws-key", _B + r"(?:" + "|".join(_AWS) + r")[0-9A-Z]{16}" + _E, hints=_AWS),
    _r("aws-secret", r"(?:aws_?secret_?(?:access_?)?key|secret_?access_?key)[\"']?\s*[:=]\s*[\"']?"
       r"([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])", 1, flags=re.IGNORECASE, hints=["secret"], fold=True),
    *(_r(kind, _B + r"(?:" + pattern + r")" + _E, hints=hints) for kind, hints, pattern in _PREFIXED),
    _r("slack-webhook", r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]+",
       hints=["hooks.slack.com"]),
    _r("discord-webhook", r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]+",
       hints=["/api/webhooks/"]),
    _r("azure-key", r"(?i)(?:AccountKey|SharedAccessKey|SharedAccessSignature)\s*=\s*([A-Za-z0-9+/%]{20,}={0,2})",
       1, hints=["accountkey", "sharedaccess"], fold=True),
    _r("azure-key", r"[?&]sig=([A-Za-z0-9%+/=]{20,})", 1, hints=["sig="]),
    # (a scheme is looked for once a run of its characters: from the run's start, to its first
    # letter after a word boundary, committed to; every scheme start in one run reaches the same
    # `://`, so the first fails where any does, and a run of `a.a.a…` is not tried from each `a`)
    _r("url-password", r"(?<![a-zA-Z0-9+.\-])(?=[a-zA-Z0-9+.\-]*+://)(?>[a-zA-Z0-9+.\-]*?\b[a-zA-Z][a-zA-Z0-9+.\-]*+)"
       r"://[^\s:/@'\"<>]*:([^\s@/'\"<>]+)@", 1, "placeholder", hints=["://"]),
    _r("bearer-token", r"\b[Bb]earer\s+([A-Za-z0-9._~+/-]{20,}=*)", 1, hints=["earer"]),
    _r("basic-auth", r"\b[Bb]asic\s+([A-Za-z0-9+/]{6,}={0,2})(?![A-Za-z0-9+/=])", 1, "userpass", hints=["asic"]),
    _r("basic-auth", r"[\"']auth[\"']\s*:\s*[\"']([A-Za-z0-9+/]{8,}={0,2})[\"']", 1, "userpass", hints=["auth"]),
    _r("cli-password", r"\b(?:curl|wget|http|https|xh)\b[^\n|;&]*?\s(?:-u|--user|--http-user)[\s=]+['\"]?"
       r"[A-Za-z0-9._@+-]+:([^\s'\"@]+)['\"]?(?=\s|$)", 1, "placeholder", hints=["-u", "--user", "--http-user"],
       segment=r"(?:curl|wget|http|https|xh)\b"),
    _r("cli-password", r"--pass(?:word|wd)?(?:=|\s+)['\"]?([^\s'\"-][^\s'\"]*)", 1, "placeholder",
       hints=["--pass"]),
    _r("cli-password", r"\bmysql(?:dump|admin|sh)?\b[^\n|;&]*?\s-p([^\s'\"]{3,})", 1, "placeholder",
       hints=["mysql"], segment=r"mysql(?:dump|admin|sh)?\b"),
    _r("hex-token", r"(?i)(?:auth[ _-]?token|api[ _-]?key|app[ _-]?key|secret|token|password)"
       r"[^\n]{0,24}?(?<![0-9a-f])([0-9a-f]{32,64})(?![0-9a-z])", 1, "mixed_hex",
       hints=["token", "key", "secret", "password"], fold=True),
    _r("password",
       r"(?i)(" + _KEY + r")[\"']?\s*(:=|=>|:|=)\s*"
       r"(?:\"([^\"\n]{8,200})\"|'([^'\n]{8,200})'|`([^`\n]{8,200})`|([^\s\"'`,;)\]}]{8,%d}))" % _VALUE_RUN,
       (3, 4, 5, 6), "secret_like", hints=["pass", "pwd", "secret", "key", "token"], fold=True),
)

# every hint, once (several rules share one), and the rules (their places in RULES) it calls for
def _by_hint(fold: bool) -> dict[str, tuple[int, ...]]:
    out: dict[str, list[int]] = {}
    for i, rule in enumerate(RULES):
        if rule.fold == fold:
            for h in rule.hints:
                out.setdefault(h, []).append(i)
    return {h: tuple(rules) for h, rules in out.items()}


_HINTED, _FOLD_HINTED = _by_hint(False), _by_hint(True)
_HINTS, _FOLD_HINTS = tuple(_HINTED), tuple(_FOLD_HINTED)
_UNHINTED = tuple(i for i, rule in enumerate(RULES) if not rule.hints)


def _trie(words: Iterable[str]) -> str:
    """A regex matching any of `words`, the longest where one starts another (a trie: one
    branch per next character, so each place costs a step or two, not a try of every word)."""
    root: dict[str, Any] = {}
    for w in words:
        node = root
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}
    def branch(node: dict[str, Any]) -> str:
        alts = [re.escape(ch) + branch(node[ch]) for ch in sorted(node) if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 and "" not in node else "(?:" + "|".join(alts) + ")"
        return body + ("?" if "" in node else "")
    return branch(root)


# The hints starting with a character ordinary prose has few of (a capital, `-`, `_`, `:`, `/`)
# are found with one scan of a trie regex (which stops only at those characters) rather than one
# `find` each; a match also stands for the hints it starts with (`--user` holds `-u`'s place).
_RARE_FIRST = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ-_:/.=")
_RARE_HINTS = re.compile(_trie(h for h in _HINTS if h[0] in _RARE_FIRST))
_RARE_RULES = {h: tuple(sorted({i for p in _HINTS if h.startswith(p) for i in _HINTED[p]}))
               for h in _HINTS if h[0] in _RARE_FIRST}
_COMMON_HINTED = {h: rules for h, rules in _HINTED.items() if h[0] not in _RARE_FIRST}


def _rare_hints(text: str) -> Iterator[tuple[int, tuple[int, ...]]]:
    """(where, the rules it calls for) of each rare-first hint in `text`, every place tried (a
    hint may start inside another's match)."""
    m = _RARE_HINTS.search(text)
    while m is not None:
        yield m.start(), _RARE_RULES[m.group()]
        m = _RARE_HINTS.search(text, m.start() + 1)

_EMAIL = re.compile(r"(?<![\w.+-])([A-Za-z0-9][A-Za-z0-9._%+-]*)@([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,})\b")
_NOT_PERSONAL = {"git", "noreply", "no-reply"}
_PLACEHOLDER = re.compile(r"^(?:\$\{?[\w.-]*\}?|<[^>]*>|\*+|x+|X+|\.+|%[\w(]*\)?s?|\{\{.*\}\}|\{[\w.]*\})$")
# words people write where a value should go: your_api_key, <key>, changeme, sk-xxxx, …here
_PLACEHOLDER_WORDS = re.compile(r"(?i)^(?:your|my|the|insert|enter|replace|put)[_-]|[_-]here$|changeme|"
                                r"placeholder|example|x{4,}|\.\.\.|…")
_CODE_REF = re.compile(r"^(?:[A-Za-z_]\w*\.)+[A-Za-z_]\w*(?:\[.*|\(.*)?$|^\w+\(|^(?:os|process|env|self|settings|config)\b")
_CAMEL_VAR = re.compile(r"^[a-z]+(?:[A-Z][a-z0-9]*)+$")  # csrfToken, apiKeyValue: a variable
_RANDOM_PART = re.compile(r"(?=[A-Za-z0-9_-]*[a-z])(?=[A-Za-z0-9_-]*[A-Z])(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{16,}")
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


def _value(m: re.Match[str], group: int | tuple[int, ...]) -> tuple[int, int]:
    if isinstance(group, int):
        return m.span(group)
    for g in group:
        if m.group(g) is not None:
            return m.span(g)
    return (-1, -1)


def _code_ref(value: str) -> bool:
    """A dotted name, call or env lookup, unless a part of it looks random (SG.aB3….xY9…)."""
    return bool(_CODE_REF.match(value)) and not _RANDOM_PART.search(value)


def _secret_like(m: re.Match[str], value: str) -> bool:
    key, sep = m.group(1), m.group(2)
    quoted = m.group(6) is None
    if _PLACEHOLDER.match(value) or _PLACEHOLDER_WORDS.search(value) or "[secret masked" in value:
        return False
    if len(set(value)) <= 2 or value.lower() in _NOT_A_VALUE or _GENERIC_TYPE.match(value):
        return False
    if not quoted and (_code_ref(value) or (_CAMEL_VAR.match(value) and not _random(value))):
        return False  # `password=settings.DB_PASSWORD`, `token: csrfToken`: code, not a value
        # (a random token that starts in lower case fits the camelCase shape too: it is masked)
    if sep == ":" and not quoted and _TYPE_NAME.match(value):
        return False  # `password: SecretStr`: a type annotation
    password = bool(_PASSWORD_KEY.match(key))
    if any(c.isspace() for c in value) and not password:
        return False  # a quoted sentence is not a token
    classes = sum(bool(re.search(p, value)) for p in (r"[a-z]", r"[A-Z]", r"[0-9]", r"[^A-Za-z0-9]"))
    return classes >= 2 or password


def _not_placeholder(m: re.Match[str], value: str) -> bool:
    return not _PLACEHOLDER.match(value) and not _PLACEHOLDER_WORDS.search(value) and "[secret masked" not in value


def _userpass(m: re.Match[str], value: str) -> bool:
    """Base64 of `user:password` (Basic credentials, a docker config's auth)."""
    try:
        raw = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
        text = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return False
    user, sep, password = text.partition(":")
    return bool(sep and password) and text.isprintable()


def _mixed_hex(m: re.Match[str], value: str) -> bool:
    return bool(re.search(r"[a-fA-F]", value)) and bool(re.search(r"[0-9]", value))


_CHECKS: dict[str, Callable[[re.Match[str], str], bool]] = {
    "secret_like": _secret_like, "placeholder": _not_placeholder, "userpass": _userpass, "mixed_hex": _mixed_hex,
}


@record(frozen=True)
class Masked:
    text: str
    kinds: tuple[str, ...]  # the kinds masked, in order of appearance (repeats kept)
    emails: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.kinds) or bool(self.emails)


def _matches(rule: _Rule, pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """The rule's matches in `text`. A `password` match resumes right after its key, not after its
    value: in `aws_secret: aws_secret_access_key = VALUE` the first value is the name of the key
    that holds the secret, and VALUE must still be found."""
    if rule.segment is not None:
        yield from _segment_matches(rule, pattern, text)
        return
    if rule.start is not None:  # (finditer's matches with `_B` or `\b` leading the pattern, in order)
        word = rule.start == "word"
        pos = 0
        while (m := pattern.search(text, pos)) is not None:
            at = m.start()
            if at and (_is_word(text[at - 1]) if word else text[at - 1] in _B_CHARS):
                pos = at + 1
                continue
            yield m
            pos = m.end() if m.end() > at else at + 1
        return
    if rule.kind != "password":
        yield from pattern.finditer(text)
        return
    pos = 0
    while (m := pattern.search(text, pos)) is not None:
        yield m
        pos = m.end(1)


_SEGMENT_END = re.compile(r"[\n|;&]")


def _segment_matches(rule: _Rule, pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """`_matches` of a rule with a `segment` word: the pattern tried at the first word of each
    command (after a word boundary, `_Rule.start`), and at the first after each match; after a
    failure, the command is left at its end (the first newline, `|`, `;` or `&`)."""
    word, pos = rule.segment_word, 0
    while (w := word.search(text, pos)) is not None:
        at = w.start()
        if at and _is_word(text[at - 1]):
            pos = at + 1
            continue
        m = pattern.match(text, at)
        if m is not None:
            yield m
            pos = m.end() if m.end() > at else at + 1
            continue
        stop = _SEGMENT_END.search(text, w.end())
        if stop is None:
            return
        pos = stop.start() + 1


def _run_end(hay: str, end: int, memo: list[int]) -> int:
    """The end of the run of unquoted value characters (`_VALUE_CHARS`) that goes on at `end`;
    `memo` [start, end] of the last run found, which the next key's value in it ends at too."""
    if memo[0] <= end - 1 < memo[1]:
        return memo[1]
    memo[0], memo[1] = end - 1, _VALUE_CHARS.match(hay, end).end()
    return memo[1]


def _rules_for(text: str, lower: str) -> set[int]:
    """The rules to run on `text`: those without hints, and those with a hint the text holds
    (each hint looked for once, not once per rule: the loop over every rule was most of masking's
    cost)."""
    run = set(_UNHINTED)
    for h, rules in _COMMON_HINTED.items():
        if h in text:
            run.update(rules)
    for _, rules in _rare_hints(text):
        run.update(rules)
    for h in _FOLD_HINTS:
        if h in lower:
            run.update(_FOLD_HINTED[h])
    return run


def _spans(text: str, run: set[int] | None = None, lower: str | None = None) -> list[tuple[int, int, str]]:
    spans: list[tuple[int, int, str]] = []
    lower = text.lower() if lower is None else lower
    protected: list[tuple[int, int]] | None = None
    run_memo = [0, 0]
    for i in sorted(_rules_for(text, lower) if run is None else run):
        rule = RULES[i]
        pattern, hay = rule.pattern, text
        if rule.lowered is not None:
            if len(lower) == len(text):  # (else a letter lowered to two: the places would differ)
                pattern, hay = rule.lowered, lower
        for m in _matches(rule, pattern, hay):
            start, end = _value(m, rule.group)
            if start < 0 or end <= start:
                continue
            if rule.check and not _CHECKS[rule.check](m, text[start:end]):
                continue
            if protected is None:
                protected = [(p.start(), p.end()) for p in _MASKED.finditer(text)] if "[" in text else []
            if any(s < end and start < e for s, e in protected):
                continue
            if end - start == _VALUE_RUN and rule.kind == "password" and m.group(6) is not None:
                end = _run_end(hay, end, run_memo)  # (a secret longer than what was checked: all of it)
                end = min([end, *(s for s, _ in protected if start < s < end)])
            spans.append((start, end, rule.kind))
    return spans


# What the end of a cut text is completed with, to see whether it could be the start of a secret.
_COMPLETIONS = ("Ab1" * 40, "0a" * 40, "Ab1Ab1Ab1Ab1.eyJAb1Ab1Ab1." + "Ab1" * 10, "Ab1Ab1Ab1Ab1@host/db",
                "Ab1Ab1Ab1Ab1\"", "Ab1Ab1Ab1Ab1'", "1/" + "Ab1" * 20)
# fillers and lengths a cut token is completed to, for the formats of one exact length
_FILLERS = ("0a" * 40, "Ab1" * 30, "A1" * 40)
_LENGTHS = (20, 32, 34, 36, 40, 64)
# a cut value after a word that says a credential follows (its completion cannot be checked:
# base64 of user:password, a signature)
_LEAD = re.compile(r"(?i)(?:\b(?:basic|bearer)\s+|[\"']auth[\"']\s*:\s*[\"']|(?:accountkey|sharedaccesskey|[?&]sig)=)"
                   r"([A-Za-z0-9+/=._~%-]+)$")
_CUT = re.compile(r"(\S{3,})(…|\.\.\.)$")
_CUT_ENDS = ("…", "...", "…\n", "...\n")
_TOKEN_START = re.compile(r"[A-Za-z0-9_.+/-]+$")
_PREFIXES = tuple(sorted({h for _, hints, _ in _PREFIXED for h in hints if len(h) >= 3} | set(_AWS)
                         | {"eyJ", "AGE-SECRET-KEY-", "-----BEGIN"}))
_RANDOM_WORD = re.compile(r"(?=.*[a-z])(?=.*[A-Z])(?=.*[0-9])[A-Za-z0-9_+/=-]{12,}$")


def _random(word: str) -> bool:
    """Looks random: 12+ characters of upper case, lower case and digits, the digits in three or
    more places, as in base64 (`EtEFCkYIBxgCKkDNBdq9tM1b…`), not as in a name (`Migrations2026`,
    `getUserById2024`, `v2Handler3`)."""
    if not _RANDOM_WORD.match(word):
        return False
    digit = [c.isdigit() for c in word]
    return sum(a != b for a, b in zip(digit, digit[1:])) >= 4


def _cut_tail(text: str, spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """A span for the end of a text cut before it was masked (it ends in `…`), when its last
    word could be the start of a secret: it completes to one (`postgres://u:pw…`,
    `password=hunt…`), starts with a secret's prefix (`AKIAIO…`, `ghp_x…`) or looks random."""
    if not text.endswith(_CUT_ENDS):  # (what `_CUT` needs, its `$` included: the regex tried at
        return []                      # every place of the last 300 characters was a third of masking)
    m = _CUT.search(text[-300:])
    if not m:
        return []
    end = len(text) - len(m.group(2))
    word_start = end - len(m.group(1))
    if any(s < end and word_start < e for s, e, _ in spans):
        return []
    lo = max(0, end - 160)
    window = text[lo:end]
    token = _TOKEN_START.search(m.group(1))
    have = len(token.group(0)) if token else 0
    tails = list(_COMPLETIONS) + [f[: n - have] for f in _FILLERS for n in _LENGTHS if n > have]
    for tail in tails:
        for s, e, _kind in _spans(window + tail):
            if s < len(window) < e:
                return [(lo + s, end, "cut")]
    lead = _LEAD.search(window)
    if lead:
        return [(lo + lead.start(1), end, "cut")]
    if token:
        word = token.group(0)
        last = word.rsplit("/", 1)[-1]  # of a path, its last part: `/home/USER/x-2026…` is no key
        if any(w.startswith(p) and len(w) > len(p) for w in (word, last) for p in _PREFIXES):
            return [(end - len(word), end, "cut")]
        if _random(last):
            return [(end - len(last), end, "cut")]
    return []


def find_secrets(text: str, _run: set[int] | None = None, _lower: str | None = None) -> list[tuple[int, int, str]]:
    """(start, end, kind) of every secret in `text`, non-overlapping, in order. (`_run`, `_lower`:
    the rules to run and the lower-cased text, when `mask_many` found them.)"""
    spans = _spans(text, _run, _lower)
    spans += _cut_tail(text, spans)
    spans.sort(key=lambda s: (s[0], -(s[1] - s[0])))
    out: list[tuple[int, int, str]] = []
    last_end = -1
    for s in spans:
        if s[0] >= last_end:
            out.append(s)
            last_end = s[1]
    return out


def mask(text: str, *, keep_emails: Iterable[str] = (), _run: set[int] | None = None,
         _lower: str | None = None) -> Masked:
    """`text` with every secret replaced by `[secret masked: KIND]` and e-mail addresses not in
    `keep_emails` by `[email omitted]`."""
    if not text:
        return Masked(text, ())
    spans = find_secrets(text, _run, _lower)
    if not spans and "@" not in text:  # (most texts: nothing to take away)
        return Masked(text, ())
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

    if "@" in out:
        out = _EMAIL.sub(omit, out)
    return Masked(out, tuple(k for _, _, k in spans), emails)


def mask_text(text: str, *, keep_emails: Iterable[str] = ()) -> str:
    return mask(text, keep_emails=keep_emails).text


def mask_many(texts: list[str]) -> list[str]:
    """`mask_text` of each text, the hints looked for once in all of them joined (a search's
    twenty preview windows: 76 lookups in one string, not 76 in each)."""
    if len(texts) < 2:
        return [mask_text(t) for t in texts]
    lowered = [t.lower() for t in texts]
    runs = [set(_UNHINTED) for _ in texts]
    for hay, parts, table in (("\0".join(texts), texts, _COMMON_HINTED), ("\0".join(lowered), lowered, _FOLD_HINTED)):
        starts, at = [], 0
        for part in parts:  # (no hint holds a NUL, so none is found across two texts)
            starts.append(at)
            at += len(part) + 1
        for h, rules in table.items():
            pos = hay.find(h)
            while pos >= 0:
                i = bisect_right(starts, pos) - 1
                runs[i].update(rules)
                pos = hay.find(h, starts[i + 1]) if i + 1 < len(starts) else -1
        if table is _COMMON_HINTED:
            for pos, rules in _rare_hints(hay):
                runs[bisect_right(starts, pos) - 1].update(rules)
    return [mask(t, _run=run, _lower=low).text for t, run, low in zip(texts, runs, lowered)]


def masked_line(text: str, limit: int | None = None, *, keep_emails: Iterable[str] = ()) -> str:
    """`text` masked, then on one line and cut to `limit`: mask first, cut after, so no part of
    a secret is left by the cut."""
    return one_line(mask_text(text, keep_emails=keep_emails), limit)


def mask_data(value: Any, *, keep_emails: Iterable[str] = ()) -> Any:
    """Every string in a JSON-like value (dicts, lists, tuples) masked: for output boundaries such
    as `context --json`, so no field, however added later, carries a secret out. Keys are kept."""
    keep = tuple(keep_emails)
    if isinstance(value, str):
        return mask_text(value, keep_emails=keep)
    if isinstance(value, dict):
        return {k: mask_data(v, keep_emails=keep) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [mask_data(v, keep_emails=keep) for v in value]
    return value


def mask_marked(text: str, open_mark: str = "«", close_mark: str = "»") -> str:
    """A highlighted snippet (terms between `«` and `»`) masked as its plain text would be: the
    marks inside a secret are dropped with it, the others kept."""
    if open_mark not in text and close_mark not in text:
        return mask_text(text)
    plain: list[str] = []
    marks: list[tuple[int, str]] = []  # (position in the plain text, mark)
    for ch in text:
        if ch in (open_mark, close_mark):
            marks.append((len(plain), ch))
        else:
            plain.append(ch)
    flat = "".join(plain)
    spans = find_secrets(flat)
    out: list[str] = []
    pos = 0
    mi = 0

    def emit_marks(upto: int, inclusive: bool) -> None:
        nonlocal mi
        while mi < len(marks) and (marks[mi][0] < upto or (inclusive and marks[mi][0] == upto)):
            out.append(marks[mi][1])
            mi += 1

    for start, end, kind in spans:
        for i in range(pos, start):
            emit_marks(i, True)
            out.append(flat[i])
        emit_marks(start, True)
        out.append(MARK.format(kind=kind))
        while mi < len(marks) and marks[mi][0] < end:
            mi += 1  # a mark inside the secret goes with it
        pos = end
    for i in range(pos, len(flat)):
        emit_marks(i, True)
        out.append(flat[i])
    emit_marks(len(flat) + 1, True)
    masked = _EMAIL.sub(lambda m: m.group(0) if m.group(1).lower() in _NOT_PERSONAL else EMAIL_MARK, "".join(out))
    # a highlight left open or closed alone by a secret's removal is dropped
    return masked if masked.count(open_mark) == masked.count(close_mark) else masked.replace(open_mark, "").replace(close_mark, "")


def mask_if_on(text: str) -> str:
    """`text` masked when inside `masking(True)`, else as it is."""
    return mask_text(text) if masking_on() and text else text


#: masking a part of a text that is shown: this much of the text either side of it is masked with
#: it, so a secret whose match starts before the part (`password = "…"`, `Bearer …`, a hex token
#: after its key) is found as in the whole text: a window's cost, not a multi-MB tool output's.
#: Tokens are never cut (each side ends at whitespace), a private key block is taken whole, and a
#: command line that may carry a password (`curl … -u user:pw`) from its start.
WINDOW_MARGIN = 320
_SPACE = re.compile(r"\s")
_LAST_SPACE = re.compile(r"\s\S*\Z")
_KEY_BEGIN, _KEY_END = "-----BEGIN", "-----END"
_KEY_REACH = 16384  # how far back a key block's start is looked for (an 8192-bit RSA key is ~6.5 KB)
_COMMANDS = re.compile(r"\b(?:curl|wget|https?|xh|mysql\w*)\b")
_FLAGS = (" -u", "--user", "--http-user", " -p")  # ...when the window holds one of its flags
_LINE_REACH = 8192  # how far back the start of such a command line is looked for


def masked_window(text: str, lo: int, hi: int, margin: int = WINDOW_MARGIN, before: int | None = None) -> str:
    """`text[lo:hi]` with up to `margin` characters either side, masked. Each side is cut after
    (before) whitespace, so no token is cut in two; a side with no whitespace in its margin runs
    to the text's end (a token longer than the margin may be a secret holding [lo, hi)), a side
    inside a private key block runs to the block's end, and a window holding a password flag
    starts where its command does. What masking takes away (a key block is 1-3 KB, its mark 30
    characters) is taken again from the text around, so the margin is there after masking too.
    `before`: a smaller margin before `lo` (a preview shows less before its match than after)."""
    extra = 0
    for _ in range(4):
        a, b, masked = _window(text, lo, hi, margin + extra, (margin if before is None else before) + extra)
        lost = (b - a) - len(masked)
        if lost <= extra or (a == 0 and b == len(text)):
            return masked
        extra = lost
    return masked


def masked_windows(items: list[tuple[str, int, int, int, int]]) -> list[str]:
    """`masked_window(text, lo, hi, margin, before)` of each item, masked together (`mask_many`)."""
    bounds = [_bounds(*item) for item in items]
    masked = mask_many([item[0][a:b] for item, (a, b) in zip(items, bounds)])
    out = []
    for item, (a, b), m in zip(items, bounds, masked):
        if (b - a) - len(m) <= 0 or (a == 0 and b == len(item[0])):
            out.append(m)
        else:  # masking took text away: the window is widened as `masked_window` does
            out.append(masked_window(*item))
    return out


def _window(text: str, lo: int, hi: int, margin: int, before: int) -> tuple[int, int, str]:
    a, b = _bounds(text, lo, hi, margin, before)
    return a, b, mask_text(text[a:b])


def _bounds(text: str, lo: int, hi: int, margin: int, before: int) -> tuple[int, int]:
    a, b = max(0, lo - before), min(len(text), hi + margin)
    if a > 0:
        m = _SPACE.search(text, a, lo)
        a = m.end() if m else 0
        begin = text.rfind(_KEY_BEGIN, max(0, a - _KEY_REACH), a)
        if begin >= 0 and text.find(_KEY_END, begin, a) < 0:
            a = begin
    if b < len(text):
        b = _last_space(text, hi, b)
        b = b if b >= 0 else len(text)
        begin = text.rfind(_KEY_BEGIN, a, b)
        if begin >= 0 and text.find(_KEY_END, begin, b) < 0:
            end = text.find(_KEY_END, b)
            close = text.find("-----", end + len(_KEY_END)) if end >= 0 else -1
            b = close + 5 if close >= 0 else len(text)
    if a > 0 and any(flag in text[a:b] for flag in _FLAGS):
        line = text.rfind("\n", max(0, a - _LINE_REACH), a) + 1 or max(0, a - _LINE_REACH)
        if line < a and _COMMANDS.search(text, line, a):
            a = line
    return a, b


_USUAL_SPACES = (" ", "\n", "\t", "\r")


def _last_space(text: str, lo: int, hi: int) -> int:
    """Where the last whitespace in text[lo:hi] is (-1: none). The usual four found by `rfind`
    first; the regex then only looks at what follows the last of them (a rarer space, e.g. a
    no-break space): trying `\\s\\S*\\Z` at each space of the margin was most of a window's cost."""
    at = max(text.rfind(c, lo, hi) for c in _USUAL_SPACES)
    m = _LAST_SPACE.search(text, at + 1 if at >= 0 else lo, hi)
    return m.start() if m else at


def emails_in(text: str) -> list[str]:
    return [m.group(0) for m in _EMAIL.finditer(text or "")]
