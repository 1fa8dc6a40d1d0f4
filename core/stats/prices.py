"""Prices from genai-prices' bundled table: offline, as shipped with the installed package.

Why the package and not a table of our own: prices change with each model release, and the
package is kept current by its maintainers (its `UpdatePrices`, which fetches over the network,
is never used here). A model it cannot match is unpriced: its tokens are counted and shown as
unpriced, never priced as a guess.
"""
from __future__ import annotations

from datetime import date, datetime, time, timezone
from functools import lru_cache

from ..model import TokenUsage


def source() -> str:
    """Where the prices come from, as the output names it."""
    try:
        from importlib.metadata import version

        return f"genai-prices {version('genai-prices')} (its bundled price table)"
    except Exception:  # noqa: BLE001 - not installed
        return "genai-prices is not installed: nothing is priced"


_PROBE = 1000  # tokens of one kind a rate is read from: a request below every long-prompt tier


def _refs(model: str) -> list[tuple[str, str | None]]:
    """The (model, provider) pairs a name is looked up as: itself, then a `provider/model` name
    (as Aider and other LiteLLM users write them: `anthropic/claude-sonnet-4`,
    `openrouter/anthropic/claude-sonnet-4`) split at its first slash, then its last part."""
    refs: list[tuple[str, str | None]] = [(model, None)]
    if "/" in model:
        provider, _, rest = model.partition("/")
        refs += [(rest, provider), (model.rsplit("/", 1)[1], None)]
    return refs


def _calc(model: str, day: date, **tokens: int) -> tuple[float, str] | None:
    try:
        from genai_prices import Usage, calc_price
    except ImportError:
        return None
    for ref, provider in _refs(model):
        try:
            calc = calc_price(Usage(**tokens), ref, provider_id=provider,
                              genai_request_timestamp=datetime.combine(day, time(12), timezone.utc))
        except (LookupError, ValueError):
            continue
        return float(calc.total_price), f"{calc.provider.id}/{calc.model.id}"
    return None


@lru_cache(maxsize=None)
def priced_as(model: str) -> str | None:
    """The table's `provider/model` a model name is priced as; None: it is not in the table."""
    if not model:
        return None
    got = _calc(model, date.today(), input_tokens=1)
    return got[1] if got else None


@lru_cache(maxsize=4096)
def rates(model: str, day: date) -> tuple[float, float, float, float] | None:
    """US dollars per token of input (uncached), output, cache read and cache write for `model`
    on `day` (the prices in force at noon UTC that day); None when the table has no price for it.

    Read one kind at a time from a request of _PROBE tokens: totals over many requests cannot be
    priced as one request, whose long prompt would reach a tier of higher prices (so a request
    that did reach one is priced at the base rate: totals cannot show it). genai-prices counts
    cached reads and writes inside input_tokens, as OpenAI reports usage; ours apart from it."""
    if priced_as(model) is None:
        return None
    out = []
    for tokens in ({"input_tokens": _PROBE}, {"output_tokens": _PROBE},
                   {"input_tokens": _PROBE, "cache_read_tokens": _PROBE},
                   {"input_tokens": _PROBE, "cache_write_tokens": _PROBE}):
        got = _calc(model, day, **tokens)
        if got is None:
            return None
        out.append(got[0] / _PROBE)
    return out[0], out[1], out[2], out[3]


def cost(model: str, usage: TokenUsage, day: date) -> float | None:
    """The price in US dollars of `usage` by `model` on `day`; None when it is unpriced."""
    r = rates(model, day)
    if r is None:
        return None
    return usage.input * r[0] + usage.output * r[1] + usage.cache_read * r[2] + usage.cache_creation * r[3]
