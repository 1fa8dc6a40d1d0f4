"""A corpus of fake secrets of many formats, each inside the kind of sentence, command or tool
output a transcript holds, and a corpus of look-alikes that are not secrets.

Every value is made here at import time from a fixed seed: format-valid (prefix, length,
alphabet, checksum-free structure) but random, so no real credential is committed and no
literal token sits in the repository for a push-protection scanner to trip on. Used by
tests/core/test_secrets_corpus.py (every value through every output), tests of the CLI and the
composer, and bench/bench_secrets.py (leaks and false positives of each detector).

    POSITIVES: [Case(fmt, text, value)]   `value` must not survive masking `text`
    NEGATIVES: [str]                      must come through masking unchanged
"""
from __future__ import annotations

import base64
import json
import random
import re
import string
from dataclasses import dataclass

_rng = random.Random(20261201)
_AN = string.ascii_letters + string.digits
_LOWER_AN = string.ascii_lowercase + string.digits
_UPPER_AN = string.ascii_uppercase + string.digits
_HEX = "0123456789abcdef"
_B64 = _AN + "+/"
_B64URL = _AN + "-_"


def _r(alphabet: str, n: int) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


def _mixed(n: int) -> str:
    """A random value that has upper case, lower case and digits (as generated keys do)."""
    while True:
        v = _r(_AN, n)
        if any(c.isupper() for c in v) and any(c.islower() for c in v) and any(c.isdigit() for c in v):
            return v


def _b64json(obj: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode()).decode().rstrip("=")


def _pem(label: str, lines: int = 6) -> str:
    body = base64.b64encode(bytes(_rng.randrange(256) for _ in range(48 * lines))).decode()
    rows = [body[i:i + 64] for i in range(0, len(body), 64)]
    return f"-----BEGIN {label}-----\n" + "\n".join(rows) + f"\n-----END {label}-----"


def _p(*parts: str) -> str:
    """Joined parts: keeps a token's well-known prefix out of the source as one literal."""
    return "".join(parts)


@dataclass(frozen=True)
class Case:
    fmt: str  # the format (one row of the bench's table)
    text: str  # the transcript text it appears in
    value: str  # the secret: no part of it may be left once `text` is masked


def _cases() -> list[Case]:
    c: list[Case] = []

    def add(fmt: str, value: str, *texts: str) -> None:
        for t in texts:
            assert "{v}" in t, t
            c.append(Case(fmt, t.replace("{v}", value), value))

    add("github-classic", _p("gh", "p_", _mixed(36)),
        "I exported GH_TOKEN={v} so the release script can push tags.",
        "$ git remote set-url origin https://x-access-token:{v}@github.com/acme/api.git")
    add("github-oauth", _p("gh", "o_", _mixed(36)), "gh auth status prints: Token: {v}")
    add("github-app", _p("gh", "s_", _mixed(36)), '{"token": "{v}", "expires_at": "2026-11-30T10:00:00Z"}')
    add("github-fine-grained", _p("github", "_pat_", "11", _r(_UPPER_AN, 20), "_", _mixed(59)),
        "Use this fine-grained token for the CI job: {v}")
    add("gitlab", _p("gl", "pat-", _r(_AN + "-_", 20)),
        "export GITLAB_TOKEN={v}", "curl --header 'PRIVATE-TOKEN: {v}' https://gitlab.example.com/api/v4/projects")
    add("slack-bot", _p("xo", "xb-", _r(string.digits, 12), "-", _r(string.digits, 13), "-", _mixed(24)),
        "SLACK_BOT_TOKEN={v} (from the app's OAuth page)")
    add("slack-user", _p("xo", "xp-", _r(string.digits, 12), "-", _r(string.digits, 12), "-",
                         _r(string.digits, 13), "-", _r(_HEX, 32)),
        "the user token is {v}, it has chat:write")
    add("slack-webhook", _p("https://hooks.", "slack.com/services/T", _r(_UPPER_AN, 8), "/B", _r(_UPPER_AN, 10), "/",
                            _mixed(24)),
        "Posting the alert to {v} worked: HTTP 200 ok")
    add("discord-webhook", _p("https://discord.com/api/", "webhooks/", _r(string.digits, 18), "/", _r(_B64URL, 68)),
        "webhook_url = \"{v}\"")
    add("stripe-secret", _p("sk", "_live_", _mixed(24)),
        "STRIPE_SECRET_KEY={v}", "stripe.api_key = '{v}'")
    add("stripe-test", _p("sk", "_test_", "51", _mixed(97)), "In test mode I used {v} and the charge succeeded.")
    add("stripe-restricted", _p("rk", "_live_", _mixed(24)), "restricted key: {v}")
    add("stripe-webhook", _p("wh", "sec_", _mixed(32)), "STRIPE_WEBHOOK_SECRET={v}")
    add("openai-project", _p("sk", "-proj-", _r(_B64URL, 48), "T3Blbk", "FJ", _r(_B64URL, 48)),
        "OPENAI_API_KEY={v}", "client = OpenAI(api_key=\"{v}\")")
    add("openai-legacy", _p("sk", "-", _mixed(20), "T3Blbk", "FJ", _mixed(20)), "my key {v} stopped working")
    add("anthropic", _p("sk", "-ant-api03-", _r(_B64URL, 93), "AA"),
        "ANTHROPIC_API_KEY={v} claude -p 'hi'", "Here is the key: {v}")
    add("aws-key-id", _p("AK", "IA", _r("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)),
        "aws_access_key_id = {v}", "The access key {v} belongs to the deploy user.")
    add("aws-session-key-id", _p("AS", "IA", _r("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)),
        '{"AccessKeyId": "{v}", "Expiration": "2026-12-01T12:00:00Z"}')
    aws_secret = _mixed(30) + "/" + _r(_B64, 9)
    add("aws-secret", aws_secret,
        "aws_secret_access_key = {v}", "export AWS_SECRET_ACCESS_KEY={v}",
        '"SecretAccessKey": "{v}",')
    add("google-api-key", _p("AI", "za", "Sy", _r(_B64URL, 33)),
        "GOOGLE_API_KEY={v}", "https://maps.googleapis.com/maps/api/geocode/json?address=Paris&key={v}")
    add("google-oauth-secret", _p("GO", "CSPX-", _r(_B64URL, 28)), '"client_secret": "{v}",')
    jwt = _p(_b64json({"alg": "HS256", "typ": "JWT"}), ".",
             _b64json({"sub": "user-" + _r(string.digits, 6), "iat": 1764500000, "role": "admin"}), ".", _r(_B64URL, 43))
    add("jwt", jwt, "Cookie: session={v}; Path=/", "The login endpoint returned {\"access\": \"{v}\"}")
    add("pem-rsa", _pem("RSA PRIVATE KEY"), "$ cat deploy/id_rsa\n{v}\n")
    add("pem-openssh", _pem("OPENSSH PRIVATE KEY"), "the key file holds:\n{v}")
    add("pem-ec", _pem("EC PRIVATE KEY", 3), "{\"private_key\": \"" + "{v}" + "\"}")
    add("pem-pkcs8", _pem("PRIVATE KEY"), "GOOGLE_APPLICATION_CREDENTIALS content:\n{v}")
    add("postgres-url", _mixed(16), "DATABASE_URL=postgres://app:{v}@db.internal:5432/payments",
        "psql postgresql://admin:{v}@localhost/app -c 'select 1'")
    add("redis-url", _mixed(20), "REDIS_URL=redis://:{v}@cache.internal:6379/0")
    add("mongodb-url", _mixed(18), "mongodb+srv://svc-user:{v}@cluster0.abcd1.mongodb.net/prod?retryWrites=true")
    add("mysql-url", _r(_LOWER_AN, 14), "SQLALCHEMY_DATABASE_URI = 'mysql+pymysql://root:{v}@127.0.0.1/shop'")
    add("amqp-url", _mixed(16), "BROKER_URL=amqp://guest:{v}@rabbit:5672//")
    add("env-password", _r(string.ascii_lowercase, 10) + "-" + _r(string.ascii_lowercase, 8),
        "DB_PASSWORD={v}", "POSTGRES_PASSWORD: {v}")
    add("env-secret-key", _r(_LOWER_AN + "!@#%^&*(-_=+)", 50),
        "SECRET_KEY='{v}'", "DJANGO_SECRET_KEY={v}")
    add("json-password", _mixed(14) + "!", '{"username": "deploy", "password": "{v}"}',
        "config.json:\n  \"db\": {\"host\": \"db\", \"password\": \"{v}\"}")
    add("yaml-password", _r(string.ascii_lowercase, 12) + _r(string.digits, 3), "  password: {v}\n  port: 5432")
    add("cli-password", _mixed(12), "mysql -u root -p{v} shop < dump.sql", "docker login -u ci --password {v} registry.example.com")
    add("pgpassword", _mixed(12), "PGPASSWORD={v} psql -h db -U app")
    add("bearer", _r(_B64URL, 40), 'curl -H "Authorization: Bearer {v}" https://api.example.com/v1/me')
    basic = base64.b64encode(f"deploy:{_mixed(14)}".encode()).decode()
    add("basic-auth", basic, "Authorization: Basic {v}", "curl -H 'Authorization: Basic {v}' https://ci.example.com")
    add("curl-user", "deploy:" + _mixed(14), "curl -u {v} https://ci.example.com/api/json")
    add("npm-token", _p("np", "m_", _mixed(36)), "//registry.npmjs.org/:_authToken={v}", "NPM_TOKEN={v} npm publish")
    add("pypi-token", _p("py", "pi-AgEIcHlwaS5vcmc", _r(_B64URL, 150)), "twine upload -u __token__ -p {v} dist/*")
    add("huggingface", _p("h", "f_", _mixed(34)), "HF_TOKEN={v} huggingface-cli download gpt2")
    azure_key = _r(_B64, 86) + "=="
    add("azure-storage",
        azure_key,
        "AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey={v};EndpointSuffix=core.windows.net",
        "The storage account key is AccountKey={v}")
    add("azure-sas", _r(_AN, 43) + "%3D", "https://acmeprod.blob.core.windows.net/backups/db.bak?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-12-31&sig={v}")
    add("azure-client-secret", _r(_AN, 3) + "8Q~" + _r(_AN + "._~-", 34), "AZURE_CLIENT_SECRET={v}")
    add("twilio-api-key", _p("S", "K", _r(_HEX, 32)), "TWILIO_API_KEY={v}", "I created the API key {v} in the console.")
    add("twilio-auth-token", _r(_HEX, 32), "TWILIO_AUTH_TOKEN={v}", "The Twilio auth token is {v}, rotate it after the demo.")
    sg = _p("S", "G.", _r(_B64URL, 22), ".", _r(_B64URL, 43))
    add("sendgrid", sg, "SENDGRID_API_KEY={v}", "send with {v} as the key", "sendgrid.SendGridAPIClient('{v}')")
    add("datadog-api-key", _r(_HEX, 32), "DD_API_KEY={v}", "datadog_api_key: {v}")
    add("datadog-app-key", _r(_HEX, 40), "DD_APP_KEY={v}")
    add("square", _p("sq", "0atp-", _r(_AN + "-_", 22)), "SQUARE_ACCESS_TOKEN={v}", "square: {v}")
    add("square-secret", _p("sq", "0csp-", _r(_AN + "-_", 43)), "oauth client secret {v}")
    # a label naming a secret before the assignment that holds it: `aws_secret: KEY = value`
    add("labelled-assignment", _mixed(28), "aws_secret: aws_secret_access_key = {v}",
        "password: DB_PASSWORD = {v}")
    # a random value that starts in lower case has the shape of a camelCase variable
    add("camel-shaped-password", "iBl8zA6qlBdboYNBsG7alg2SFslr", "DB_PASSWORD = {v}", "token: {v}")
    add("mailgun", _p("ke", "y-", _r(_HEX, 32)), "MAILGUN_API_KEY={v}", "auth=('api', '{v}')")
    add("digitalocean", _p("do", "p_v1_", _r(_HEX, 64)), "doctl auth init -t {v}")
    add("shopify", _p("sh", "pat_", _r(_HEX, 32)), "X-Shopify-Access-Token: {v}")
    add("telegram-bot", _r(string.digits, 10) + ":AA" + _r(_B64URL, 33), "TELEGRAM_BOT_TOKEN={v}")
    add("docker-auth", base64.b64encode(f"ci:{_mixed(20)}".encode()).decode(),
        '{"auths": {"registry.example.com": {"auth": "{v}"}}}')
    add("age-key", _p("AGE-", "SECRET-KEY-1", _r("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)), "# created: 2026-11-30\n{v}")
    add("databricks", _p("da", "pi", _r(_HEX, 32)), "DATABRICKS_TOKEN={v}")
    add("grafana-sa", _p("gl", "sa_", _mixed(32), "_", _r(_HEX, 8)), "GRAFANA_TOKEN={v}")
    add("linear", _p("lin", "_api_", _mixed(40)), "linear api key: {v}")
    add("groq", _p("gs", "k_", _mixed(52)), "GROQ_API_KEY={v}")
    add("xai", _p("xa", "i-", _mixed(80)), "XAI_API_KEY={v}")
    add("git-credential", _p("gh", "p_", _mixed(36)), "https://octo:{v}@github.com")
    return c


POSITIVES: list[Case] = _cases()
FORMATS: list[str] = sorted({c.fmt for c in POSITIVES})

NEGATIVES: list[str] = [
    # ids and hashes
    "session 1af7fc5e-8455-4414-9ccd-011d40f70b2a resumed",
    '{"uuid": "5c0375b4-57a5-4f26-b12d-d022ee4e51b7", "parentUuid": null}',
    "commit 9367cf006be9965c954e6cd36526f2195dce67ea (HEAD -> main)",
    "Merge: f299e8f 8cc42b0",
    "git checkout d6ca31ec2e089fb57c98c6fda2b60ba66effc177 -- tests/",
    "md5sum dump.sql: d41d8cd98f00b204e9800998ecf8427e",
    "image digest sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    '"integrity": "sha512-7+bM7ZVqzVk3aLn1s6xQw8PAtjkYmWpV8dX0bbn5c7rGU8rGk+yZ0bCz7h0FQ6y2J0G0n1x3d5Xz8QK6V9l0ng=="',
    "request id req_011CVwXb4hKmPq2sT7y9ZtAe failed",
    "msg_01XFDUDYJgAACzvnptvVoYEL",
    "toolu_01A09q90qw90lq917835lq9",
    "run 019c8bfe-ec25-79e0-97d7-bda6a9c575ff finished",
    "test id dGVzdC11c2VyLTAwMQ== and dGVzdC1vcmRlci0wMDI=",
    "fixture ZmFrZS1maXh0dXJlLWlk",
    "account AC_TEST_ACCOUNT and Twilio SID placeholder ACxxxxxxxxxxxxxxxx",
    # paths and identifiers
    "Read /home/dev/.ssh/id_rsa.pub and ~/.aws/credentials (both exist)",
    "tests/test_password_reset.py::test_token_expired_returns_401 PASSED",
    "src/auth/secret_manager.py:42: def get_secret_value(self) -> str:",
    "TOKEN_EXPIRY_SECONDS = 3600",
    "AUTH_TOKEN_HEADER = 'X-Auth-Token'",
    "max_tokens=4096, token_count=1234, tokens_used: 812",
    "api_key=api_key, token=token, password=password",
    "password=os.getenv('DB_PASSWORD')",
    "api_key = os.environ['OPENAI_API_KEY']",
    "const key = process.env.STRIPE_SECRET_KEY;",
    "token: ${{ secrets.NPM_TOKEN }}",
    "password = settings.DATABASE_PASSWORD",
    "secret = self._load_secret(path)",
    "client_secret=client_secret_from_vault()",
    # type annotations and schemas
    "def login(password: str, token: str | None = None) -> Session:",
    "password: Optional[str] = None",
    "password: SecretStr = Field(..., min_length=12)",
    "api_key: str = Depends(api_key_header)",
    "interface Creds { password: string; apiKey?: string }",
    '"password": {"type": "string", "format": "password", "minLength": 8}',
    "password_hash: Mapped[bytes]",
    # placeholders and prose
    "export OPENAI_API_KEY=<your-key-here>",
    "Authorization: Bearer <token>",
    "Authorization: Bearer $API_TOKEN",
    'WWW-Authenticate: Basic realm="staging"',
    "use HTTP Basic auth with the deploy user",
    "DATABASE_URL=postgres://app:${DB_PASSWORD}@db:5432/app",
    "postgres://localhost:5432/payments and redis://cache:6379/0",
    "keys look like sk-... or sk-proj-..., never paste them",
    "password: ********",
    "the token is invalid, the password was rejected",
    "the secret sauce is patience",
    "Slack bot tokens start with xoxb- and user tokens with xoxp-",
    "AKIA... is an access key id prefix",
    "pk_live_publishable_keys_are_public",
    "SG.components.render(view)",
    "git@github.com:acme/payments-api.git",
    "https://github.com/acme/payments-api/pull/412",
    "AccountName=devstoreaccount1;BlobEndpoint=http://127.0.0.1:10000",
    "key-value store; key_id=17; key-rotation-policy",
    "the auth token handling lives in auth/token_store.py",
    "ERROR: password authentication failed for user \"app\"",
    "#fff3e0 and rgba(0, 0, 0, 0.5)",
    "version 1.0.108, node v20.11.1, python 3.12.7",
    "PROJ-1234 and issue #412",
    "SELECT id, password_hash FROM users WHERE email = $1",
    "hf_hub_download(repo_id='gpt2'), npm_config_cache, pypi-simple",
    "https://pypi.org/simple/ and https://registry.npmjs.org/",
    "self.assertEqual(token, expected_token)",
    "SECRET_KEY = env('SECRET_KEY')",
    "password = getpass.getpass()",
    "access_token = response.json()['access_token']",
]


# what a value starts with that every value of its format does (not secret): `ghp_`, `https://host/`
PUBLIC_PREFIX = re.compile(r"^(?:AGE-SECRET-KEY-1|-----BEGIN [A-Z ]+-----\s*|[a-z+]+://[^/:@]+/(?:[a-z]+/)*"
                           r"|[A-Za-z]{2,12}(?:[_.-][a-z0-9]{2,6})*[_.-]|AKIA|ASIA|AIza|eyJ|[a-z]+:)")


def public_length(value: str) -> int:
    m = PUBLIC_PREFIX.match(value)
    return m.end() if m else 0


def leaks(out: str, cases: list[Case] | None = None) -> list[str]:
    """`fmt: part` for each case of which 8 characters of the value (past its public prefix) are
    in `out` but not in the case's sentence around the value (ordinary words)."""
    found = []
    for c in POSITIVES if cases is None else cases:
        outside = c.text.replace(c.value, "\0")
        n = min(8, len(c.value))
        for i in range(max(0, public_length(c.value) - n + 1), len(c.value) - n + 1):
            part = c.value[i:i + n]
            if "\n" not in part and part in out and part not in outside:
                found.append(f"{c.fmt}: {part}")
                break
    return found
