"""Which tools may run, and how often: read-only mode, allow/deny lists, rate limits.

Settings come from the environment and are checked once at start-up (`check_environment`),
so a malformed value stops the server with a message instead of being ignored:

- `PREFIX_RATE_LIMIT`: calls per server, e.g. `10/s`, `600/min`, `10/s burst 20`
  (a bare number is calls per minute; empty or `0` means no limit);
- `PREFIX_RATE_LIMIT_<TOOL>`: the same for one tool; `<TOOL>` is the tool name upper-cased
  with every character other than a letter or digit replaced by `_`;
- `PREFIX_READ_ONLY=1`: only tools annotated `readOnlyHint: true` are listed and callable;
- `PREFIX_TOOLS_ALLOW` / `PREFIX_TOOLS_DENY`: comma-separated glob patterns over tool names.

A tool hidden by these settings is not in tools/list, so a call to it is answered like a
call to an unknown tool: a JSON-RPC error (-32602), whose message names the setting.
A call over a rate limit is a tool error (`isError`) that says when to retry.
"""

from __future__ import annotations

import email.utils
import fnmatch
import ipaddress
import math
import os
import re
import time
from dataclasses import dataclass
from functools import cache
from typing import Any

from . import config
from .catalog import tool_table


class SettingsError(Exception):
    """A malformed or inconsistent setting; the message names the variable and the fix."""


@dataclass(frozen=True, slots=True)
class Rate:
    per_second: float
    burst: float
    text: str  # as configured, for messages


_RATE = re.compile(
    r"^(\d+(?:\.\d+)?)\s*/\s*(s|sec|second|m|min|minute|h|hr|hour)(?:\s+burst\s+(\d+))?$",
    re.IGNORECASE,
)
_SECONDS = {
    "s": 1,
    "sec": 1,
    "second": 1,
    "m": 60,
    "min": 60,
    "minute": 60,
    "h": 3600,
    "hr": 3600,
    "hour": 3600,
}
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("", "0", "false", "no", "off")


def parse_rate(variable: str, raw: str) -> Rate | None:
    """`10/s`, `600/min`, `10/s burst 20`, or a bare number (per minute); None: no limit."""
    text = " ".join(raw.split())
    if text.lower() in ("", "0", "off", "none"):
        return None
    if text.isdigit():
        return Rate(int(text) / 60, int(text), f"{text}/min")
    match = _RATE.match(text)
    count = float(match.group(1)) if match else 0.0
    if match is None or count <= 0 or (match.group(3) is not None and int(match.group(3)) < 1):
        raise SettingsError(
            f"{variable}={raw!r}: expected a rate like '10/s', '600/min' or '10/s burst 20' "
            "(a bare number means calls per minute; empty or 0 means no limit)"
        )
    burst = float(match.group(3)) if match.group(3) else max(1.0, count)
    return Rate(count / _SECONDS[match.group(2).lower()], burst, text)


def tool_variable(prefix: str, tool: str) -> str:
    """`PETSTORE_RATE_LIMIT` + tool `getPetById` -> `PETSTORE_RATE_LIMIT_GETPETBYID`."""
    return f"{config.ENV_PREFIX}_{prefix}_" + re.sub(r"[^A-Za-z0-9]", "_", tool).upper()


def _flag(variable: str) -> bool:
    raw = os.environ.get(variable, "").strip().lower()
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise SettingsError(f"{variable}={raw!r}: expected 1/true/yes/on or 0/false/no/off")


def _patterns(variable: str) -> tuple[str, ...]:
    patterns = tuple(p for p in re.split(r"[,\s]+", os.environ.get(variable, "")) if p)
    for pattern in patterns:  # a pattern that matches nothing is a typo, not a policy
        if not any(fnmatch.fnmatchcase(name, pattern) for name in tool_table()):
            raise SettingsError(f"{variable}: pattern {pattern!r} matches no tool of this server")
    return patterns


@dataclass(frozen=True, slots=True)
class Settings:
    read_only: bool
    allow: tuple[str, ...]
    deny: tuple[str, ...]
    server_rate: Rate | None
    tool_rates: dict[str, Rate]


@cache
def settings() -> Settings:
    """Parsed once; raises SettingsError naming every malformed variable at once."""
    problems: list[str] = []

    def attempt(parse: Any, *args: Any) -> Any:
        try:
            return parse(*args)
        except SettingsError as exc:
            problems.append(str(exc))
            return None

    read_only = attempt(_flag, f"{config.ENV_PREFIX}_READ_ONLY")
    allow = attempt(_patterns, f"{config.ENV_PREFIX}_TOOLS_ALLOW") or ()
    deny = attempt(_patterns, f"{config.ENV_PREFIX}_TOOLS_DENY") or ()
    variable = f"{config.ENV_PREFIX}_RATE_LIMIT"
    server_rate = attempt(parse_rate, variable, os.environ.get(variable, ""))
    tool_rates: dict[str, Rate] = {}
    known: dict[str, list[str]] = {}  # two tool names may map to one variable: both get its limit
    for tool in tool_table():
        known.setdefault(tool_variable("RATE_LIMIT", tool), []).append(tool)
    for name in sorted(os.environ):
        if not name.startswith(variable + "_"):
            continue
        if name not in known:
            problems.append(
                f"{name}: names no tool of this server (per-tool limits are {variable}_<TOOL NAME>)"
            )
            continue
        rate = attempt(parse_rate, name, os.environ[name])
        if rate is not None:
            tool_rates.update(dict.fromkeys(known[name], rate))
    if problems:
        raise SettingsError("\n".join(problems))
    return Settings(bool(read_only), allow, deny, server_rate, tool_rates)


# -- access -------------------------------------------------------------------


def refusal(name: str) -> str | None:
    """Why the tool is hidden and refused, or None when it may run."""
    current = settings()
    tool = tool_table()[name]["tool"]
    if current.read_only and not tool.get("annotations", {}).get("readOnlyHint"):
        return f"tool {name!r} is not read-only and this server runs with {config.ENV_PREFIX}_READ_ONLY=1"
    if current.allow and not any(fnmatch.fnmatchcase(name, p) for p in current.allow):
        return f"tool {name!r} is not in {config.ENV_PREFIX}_TOOLS_ALLOW"
    if any(fnmatch.fnmatchcase(name, p) for p in current.deny):
        return f"tool {name!r} is in {config.ENV_PREFIX}_TOOLS_DENY"
    return None


def enabled(name: str) -> bool:
    return refusal(name) is None


# -- rate limits ----------------------------------------------------------------


class _Bucket:
    """Token bucket: `burst` tokens, refilled at `per_second`; one token per call."""

    def __init__(self, rate: Rate) -> None:
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


def _bucket(key: str, rate: Rate | None) -> _Bucket | None:
    if rate is None:
        return None
    if key not in _buckets:
        _buckets[key] = _Bucket(rate)
    return _buckets[key]


def admit(name: str) -> str | None:
    """Take a token for one call of `name`; when none is free, a message saying when to retry.

    Calls run on one event loop thread, so check-then-take needs no lock.
    """
    current = settings()
    now = time.monotonic()
    waits: list[tuple[float, str]] = []
    buckets = []
    for key, rate, variable in (
        (SERVER, current.server_rate, f"{config.ENV_PREFIX}_RATE_LIMIT"),
        (name, current.tool_rates.get(name), tool_variable("RATE_LIMIT", name)),
    ):
        bucket = _bucket(key, rate)
        if bucket is not None:
            buckets.append(bucket)
            wait = bucket.wait(now)
            if wait > 0:
                waits.append((wait, f"{bucket.rate.text} set by {variable}"))
    if _upstream_blocked_until > now:
        waits.append(
            (_upstream_blocked_until - now, "the upstream API answered 429 Too Many Requests")
        )
    if waits:
        wait, why = max(waits)
        return f"Rate limit reached ({why}); retry in {_seconds(wait)} s."
    for bucket in buckets:
        bucket.tokens -= 1
    return None


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


# -- start-up -------------------------------------------------------------------


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_environment(http_host: str | None = None) -> None:
    """Every setting parsed now, so a bad value stops the server before it serves; the error
    lists every problem at once.

    `http_host`: the bind address when serving streamable HTTP (a token is then required
    unless it is a loopback address).
    """
    from . import audit, transport

    problems: list[str] = []
    for check in (settings, audit.mode, transport.check_settings):
        try:
            check()
        except SettingsError as exc:
            problems.append(str(exc))
    if (
        http_host is not None
        and not is_loopback(http_host)
        and not config.env(f"{config.ENV_PREFIX}_MCP_TOKEN")
    ):
        problems.append(
            f"--host {http_host} accepts connections from other machines: set {config.ENV_PREFIX}_MCP_TOKEN "
            "to a long random string (clients send it as 'Authorization: Bearer <token>'), "
            "or bind to 127.0.0.1."
        )
    if problems:
        raise SettingsError("\n".join(problems))
