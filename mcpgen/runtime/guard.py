# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""How often an entry may be used: rate limits, server-wide and per entry, and an upstream's 429.

Settings come from the environment through `settings`, checked at start-up, so a malformed
value stops the server with a message instead of being ignored:

- `PREFIX_RATE_LIMIT`: requests per server, e.g. `10/s`, `600/min`, `10/s burst 20`
  (a bare number is requests per minute; empty or `0` means no limit);
- `PREFIX_RATE_LIMIT_<NAME>`: the same for one entry of the registry (a tool, meta tool,
  resource, template or prompt); `<NAME>` is the entry's name upper-cased with every
  character other than a letter or digit replaced by `_`. A tool and the resource made from
  its operation share the name, so they share the bucket; a completion counts against the
  prompt's or template's.

With `PREFIX_REDIS_URL` set, the rate limits and the upstream's Retry-After are kept on Redis,
shared by every replica of the server (`take`, `shared_upstream_limited`; see `shared`).
Who may use an entry at all is `policy`'s decision, made before any token is taken here.

A tool call over a rate limit is a tool error (`isError`) that says when to retry; any other
request over a limit is a JSON-RPC error (`RATE_LIMITED`).
"""

from __future__ import annotations

import contextlib
import email.utils
import math
import time

from . import settings, shared
from .state import state

# -- rate limits ----------------------------------------------------------------


class Bucket:
    """Token bucket: `burst` tokens, refilled at `per_second`; one token per call."""

    def __init__(self, rate: settings.Rate) -> None:
        self.rate = rate
        self.tokens = rate.burst
        self.stamp = time.monotonic()

    def wait(self, now: float) -> float:
        """Seconds until a token is available (0: one is available now)."""
        elapsed = max(0.0, now - self.stamp)  # `now` may predate this bucket by microseconds
        self.tokens = min(self.rate.burst, self.tokens + elapsed * self.rate.per_second)
        self.stamp = max(self.stamp, now)
        return 0.0 if self.tokens >= 1 else (1 - self.tokens) / self.rate.per_second


SERVER = ""  # the server-wide bucket's key (no tool is named "")


def _bucket(key: str, rate: settings.Rate | None) -> Bucket | None:
    if rate is None:
        return None
    buckets = state().buckets
    if key not in buckets or buckets[key].rate != rate:  # a changed setting starts afresh
        buckets[key] = Bucket(rate)
    found: Bucket = buckets[key]
    return found


def _limits(
    current: settings.Settings, name: str | None, server: bool
) -> list[tuple[str | None, settings.Rate, str]]:
    """The limits one call of `name` counts against: (entry or None for the server's bucket,
    rate, the variable that sets it)."""
    limits: list[tuple[str | None, settings.Rate | None, str]] = []
    if server:
        limits.append((None, current.rate_limit, current.variable("RATE_LIMIT")))
    if name is not None:
        limits.append(
            (name, current.tool_rate_limits.get(name), tool_variable(current.prefix, name))
        )
    return [(key, rate, variable) for key, rate, variable in limits if rate is not None]


def admit(name: str | None, server: bool = True) -> str | None:
    """Take a token for one call of `name` (None: an entry no per-entry limit addresses) and,
    with `server`, one of the server-wide bucket; when one is not free, a message saying when
    to retry, and nothing is taken. In process; `take` shares them on Redis when configured.

    Calls run on one event loop thread, so check-then-take needs no lock.
    """
    current = settings.current()
    now = time.monotonic()
    waits: list[tuple[float, str]] = []
    buckets = []
    for key, rate, variable in _limits(current, name, server):
        bucket = _bucket(SERVER if key is None else key, rate)
        if bucket is not None:
            buckets.append(bucket)
            wait = bucket.wait(now)
            if wait > 0:
                waits.append((wait, f"{bucket.rate.text} set by {variable}"))
    blocked_until = state().upstream_blocked_until
    if blocked_until > now:
        waits.append((blocked_until - now, UPSTREAM_429))
    if waits:
        wait, why = max(waits)
        return f"Rate limit reached ({why}); retry in {_seconds(wait)} s."
    for bucket in buckets:
        bucket.tokens -= 1
    return None


UPSTREAM_429 = "the upstream API answered 429 Too Many Requests"


async def take(name: str | None, server: bool = True) -> str | None:
    """`admit`, on Redis (shared by every replica) when `PREFIX_REDIS_URL` is set; while Redis
    is unreachable, in process or refused, as `PREFIX_REDIS_FAILURE` says (see `shared`)."""
    current = settings.current()
    if not current.redis_url:
        return admit(name, server)
    held = state().upstream_blocked_until - time.monotonic()
    if held > 0:  # seen here, perhaps while Redis was unreachable: no need to ask it
        return f"Rate limit reached ({UPSTREAM_429}); retry in {_seconds(held)} s."
    limits = _limits(current, name, server)
    try:
        outcome = await shared.admit([(key, rate) for key, rate, _ in limits])
    except shared.Unavailable:
        if current.redis_failure == "open":
            return admit(name, server)
        return (
            f"Rate limits are shared on Redis ({current.variable('REDIS_URL')}), which is "
            f"unreachable, and {current.variable('REDIS_FAILURE')}=closed refuses calls until "
            "it is back; retry in a few seconds."
        )
    if outcome is None:
        return None
    which, wait = outcome
    _, rate, variable = limits[which - 1] if which else (None, None, "")
    why = UPSTREAM_429 if rate is None else f"{rate.text} set by {variable}"
    return f"Rate limit reached ({why}); retry in {_seconds(wait)} s."


def upstream_limited(status: int, retry_after: str | None) -> tuple[str, float | None]:
    """Note an upstream 429: calls wait out its Retry-After here instead of hitting the API again."""
    seconds = parse_retry_after(retry_after)
    if seconds is not None:
        held = state()
        held.upstream_blocked_until = max(held.upstream_blocked_until, time.monotonic() + seconds)
        return (
            f"HTTP {status}: the upstream API is rate limiting; retry in {_seconds(seconds)} s.",
            seconds,
        )
    return f"HTTP {status}: the upstream API is rate limiting; retry later.", None


async def shared_upstream_limited(status: int, retry_after: str | None) -> str:
    """`upstream_limited`, and with `PREFIX_REDIS_URL` the Retry-After shared with every
    replica (in process too, for when Redis becomes unreachable)."""
    message, seconds = upstream_limited(status, retry_after)
    if seconds is not None and settings.current().redis_url:
        with contextlib.suppress(shared.Unavailable):  # logged there; held off here anyway
            await shared.block_upstream(seconds)
    return message


MAX_RETRY_AFTER = 3600.0  # a longer or absurd Retry-After is capped, not obeyed for days


def parse_retry_after(value: str | None) -> float | None:
    """Retry-After as seconds from now: delta-seconds or an HTTP date; None if absent or bad."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return min(float(value), MAX_RETRY_AFTER)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return min(max(0.0, when.timestamp() - time.time()), MAX_RETRY_AFTER)


def _seconds(value: float) -> str:
    """Rounded up to a tenth, so a client that waits exactly that long gets through."""
    return f"{math.ceil(value * 10) / 10:g}"


def tool_variable(prefix: str, tool: str) -> str:
    """`PETSTORE` + tool `getPetById` -> `PETSTORE_RATE_LIMIT_GETPETBYID`."""
    return settings.tool_variable(prefix, "RATE_LIMIT", tool)
