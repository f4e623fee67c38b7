# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""Which tools may run, and how often: read-only mode, allow/deny lists, rate limits.

Settings come from the environment through `settings`, checked at start-up, so a malformed
value stops the server with a message instead of being ignored:

- `PREFIX_RATE_LIMIT`: calls per server, e.g. `10/s`, `600/min`, `10/s burst 20`
  (a bare number is calls per minute; empty or `0` means no limit);
- `PREFIX_RATE_LIMIT_<TOOL>`: the same for one tool; `<TOOL>` is the tool name upper-cased
  with every character other than a letter or digit replaced by `_`;
- `PREFIX_READ_ONLY=1`: only tools annotated `readOnlyHint: true` are listed and callable;
- `PREFIX_TOOLS_ALLOW` / `PREFIX_TOOLS_DENY`: comma-separated glob patterns over tool names.

With `PREFIX_REDIS_URL` set, the rate limits and the upstream's Retry-After are kept on Redis,
shared by every replica of the server (`take`, `shared_upstream_limited`; see `shared`).

The names these settings address (`entries()`) are the tools, the dynamic mode's meta tools
(`search_tools`, `describe_tool`, `call_tool`) and the resources and resource templates, each
by its name: a resource made from an operation is named like the operation's tool, so one
name (and one rate-limit bucket) covers both ways of reaching that operation. Read-only mode
keeps a resource exactly when it keeps the operation's tool (a function bound to a URI is a
read); the meta tools only read the catalogue or dispatch to a tool that is checked itself, so
read-only mode leaves them alone. Prompts and completions are not addressed by name: they
count against the server-wide limit only (see `guarded`).

A tool hidden by these settings is not in tools/list, so a call to it is answered like a
call to an unknown tool: a JSON-RPC error (-32602), whose message names the setting; a hidden
resource is answered like an unknown one (-32002). A tool call over a rate limit is a tool
error (`isError`) that says when to retry; any other request over a limit is a JSON-RPC error
(`RATE_LIMITED`).
"""

from __future__ import annotations

import contextlib
import email.utils
import fnmatch
import math
import time
from functools import cache
from typing import Any, Literal

from . import settings
from .catalog import tool_table
from .project import current as current_project
from .project import resets


@resets
@cache
def all_tools() -> dict[str, dict[str, Any]]:
    """Every tool this server serves, generated or from custom_tools.py: name -> wire Tool."""
    from . import extensions

    tools = {name: entry["tool"] for name, entry in tool_table().items()}
    tools.update({name: custom.entry["tool"] for name, custom in extensions.custom_tools().items()})
    return tools


@resets
@cache
def read_only_entries() -> dict[tuple[str, str], bool]:
    """(kind, name) -> whether read-only mode keeps it, for tools and resources. A resource
    named like a tool is that tool's operation: the tool's annotation (overrides included)
    decides for both."""
    kept = {
        ("tool", n): bool(t.get("annotations", {}).get("readOnlyHint"))
        for n, t in all_tools().items()
    }
    if current_project().has_resources:
        from .resources import resource_entries

        for entry in resource_entries():
            name = entry["name"]
            kept[("resource", name)] = kept.get(("tool", name), bool(entry.get("readOnly", True)))
    return kept


def meta_tools() -> frozenset[str]:
    """The dynamic mode's meta tools (none in static mode)."""
    if current_project().tool_mode != "dynamic":
        return frozenset()
    from .dynamic import META_TOOL_NAMES

    return META_TOOL_NAMES


def entries() -> list[str]:
    """Every name the access settings and per-entry rate limits address."""
    names = {name for _, name in read_only_entries()} | meta_tools()
    return sorted(names)


settings.served_tools(entries)


# -- access -------------------------------------------------------------------

Kind = Literal["tool", "meta tool", "resource"]


def refusal(name: str, kind: Kind = "tool") -> str | None:
    """Why the tool, meta tool or resource `name` is hidden and refused; None: it may run.
    The settings decide, then the OAuth caller's scopes (see `oauth`)."""
    from .oauth import scope_refusal

    return settings_refusal(name, kind) or scope_refusal(name, kind)


def settings_refusal(name: str, kind: Kind = "tool") -> str | None:
    """Why the settings hide `name`, whoever calls."""
    current = settings.current()
    if current.read_only and kind != "meta tool" and not read_only_entries().get((kind, name)):
        variable = current.variable("READ_ONLY")
        return f"{kind} {name!r} is not read-only and this server runs with {variable}=1"
    if current.tools_allow and not any(fnmatch.fnmatchcase(name, p) for p in current.tools_allow):
        return f"{kind} {name!r} is not in {current.variable('TOOLS_ALLOW')}"
    if any(fnmatch.fnmatchcase(name, p) for p in current.tools_deny):
        return f"{kind} {name!r} is in {current.variable('TOOLS_DENY')}"
    return None


def enabled(name: str, kind: Kind = "tool") -> bool:
    return refusal(name, kind) is None


# -- rate limits ----------------------------------------------------------------


class _Bucket:
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


_buckets: dict[str, _Bucket] = {}
_upstream_blocked_until = 0.0
SERVER = ""  # the server-wide bucket's key (no tool is named "")


def _bucket(key: str, rate: settings.Rate | None) -> _Bucket | None:
    if rate is None:
        return None
    if key not in _buckets or _buckets[key].rate != rate:  # a changed setting starts afresh
        _buckets[key] = _Bucket(rate)
    return _buckets[key]


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
    if _upstream_blocked_until > now:
        waits.append((_upstream_blocked_until - now, UPSTREAM_429))
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
    from . import shared

    held = _upstream_blocked_until - time.monotonic()
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
    global _upstream_blocked_until
    seconds = parse_retry_after(retry_after)
    if seconds is not None:
        _upstream_blocked_until = max(_upstream_blocked_until, time.monotonic() + seconds)
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
        from . import shared

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
