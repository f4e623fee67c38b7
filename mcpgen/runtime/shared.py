# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""Rate limits, the upstream's back-off and used confirmations shared by every replica, on Redis.

- `PREFIX_REDIS_URL` (`redis://host:6379/0`, `rediss://` for TLS, `unix:///path.sock`): the
  server-wide and per-entry rate limits (`guard`) and an upstream 429's Retry-After are kept
  there, so replicas behind a load balancer allow the limit in total, not each, and a 429
  one replica saw holds off the others; a used confirmation (`confirm`) is used for every
  replica. Unset: all of it stays in process.
- Each check is one Lua script run with EVALSHA, atomic across replicas and timed by
  Redis's clock (replicas' clocks may differ; scripts calling TIME need Redis 5 or later). Keys are `mcpgen:{<server name>}:...`, one
  hash slot; two deployments of one server on one Redis share limits unless their URLs
  name different databases (`redis://host:6379/1`).
- `PREFIX_REDIS_PASSWORD_FILE`: a file whose first line is Redis's password (a compose
  secret), instead of one in the URL (`redis://:PASSWORD@host:6379/0`). Either way the
  password is a secret: redacted from every log line and error, never in the start-up line
  or `/healthz` (which show `host:port/db` only).
- `PREFIX_REDIS_TIMEOUT` (default 0.25 s): the deadline of one check, connecting included,
  so a hung Redis never hangs a call.
- `PREFIX_REDIS_FAILURE`: while Redis is unreachable, `open` (the default) applies the
  limits in process, per replica; `closed` refuses each call, saying why, until Redis
  answers again. One log line when an outage starts, one when it ends; while it lasts,
  Redis is tried again at most once a second, not on every call. A server that answers what
  no Redis running these scripts would (RESP errors such as WRONGTYPE, another protocol,
  replies of the wrong shape) counts as unreachable too: its connection is dropped.
- The client is the `redis` package (redis-py), an extra of the generated package
  (`pip install 'PACKAGE[redis]'`): with the URL set and the package missing, the server
  stops at start-up saying so (`check_library`).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import logging
import math
import time
import urllib.parse
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import anyio

from . import settings
from .project import current as current_project
from .state import state

log = logging.getLogger(__name__)
T = TypeVar("T")

RETRY_EVERY = 1.0  # seconds between attempts to reach Redis during an outage

# KEYS[1]: the upstream's block (a deadline, Redis time in seconds); KEYS[2..]: token buckets
# (hashes: tokens, stamp). ARGV: per second and burst of each bucket. Returns {-1, "0"} with
# a token taken from every bucket, or {which, wait}: nothing taken, `which` (0: the upstream,
# i: the i-th bucket) is what makes the call wait longest, `wait` seconds.
ADMIT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local wait, which, left = 0, -1, {}
for i = 2, #KEYS do
  local rate, burst = tonumber(ARGV[2 * i - 3]), tonumber(ARGV[2 * i - 2])
  local saved = redis.call('HMGET', KEYS[i], 'tokens', 'stamp')
  local tokens = tonumber(saved[1]) or burst
  local stamp = tonumber(saved[2]) or now
  tokens = math.min(burst, tokens + math.max(0, now - stamp) * rate)
  left[i] = tokens
  if tokens < 1 and (1 - tokens) / rate > wait then
    wait, which = (1 - tokens) / rate, i - 1
  end
end
local blocked = tonumber(redis.call('GET', KEYS[1]) or '0')
if blocked - now > wait then
  wait, which = blocked - now, 0
end
if wait > 0 then
  return {which, string.format('%.6f', wait)}
end
for i = 2, #KEYS do
  local rate, burst = tonumber(ARGV[2 * i - 3]), tonumber(ARGV[2 * i - 2])
  redis.call('HSET', KEYS[i], 'tokens', string.format('%.17g', left[i] - 1),
             'stamp', string.format('%.6f', now))
  redis.call('PEXPIRE', KEYS[i], math.ceil(burst / rate * 1000) + 1000)
end
return {-1, '0'}
"""

# KEYS[1]: the upstream's block; ARGV[1]: seconds from now. Only ever moved later.
BLOCK = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local seconds = tonumber(ARGV[1])
local blocked = tonumber(redis.call('GET', KEYS[1]) or '0')
if now + seconds > blocked then
  redis.call('SET', KEYS[1], string.format('%.6f', now + seconds),
             'PX', math.ceil(seconds * 1000) + 1000)
end
return 1
"""


class Unavailable(Exception):
    """Redis did not answer within the deadline, refused the command or answered garbage."""


class UnexpectedReply(Exception):
    """A reply of a shape the command or script never gives."""


def check_library(current: settings.Settings) -> None:
    """At start-up: with `PREFIX_REDIS_URL` set, the `redis` package must be installed."""
    if current.redis_url and importlib.util.find_spec("redis") is None:
        package = current_project().command
        raise settings.SettingsError(
            f"{current.variable('REDIS_URL')} is set, but the redis package is not installed: "
            f"pip install '{package}[redis]' (or unset it to keep rate limits in process)"
        )


def where(url: str) -> str:
    """`host:port/db` of a Redis URL, without its password, for log lines."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "unix":
        return parts.path
    return f"{parts.hostname or 'localhost'}:{parts.port or 6379}{parts.path or ''}"


def describe() -> str:
    """How rate limits are kept, for the start-up line."""
    current = settings.current()
    if not current.redis_url:
        return "rate limits in process"
    return f"rate limits shared on Redis {where(current.redis_url)} (fail-{current.redis_failure})"


# -- the connection -------------------------------------------------------------


def _client() -> tuple[Any, Any, Any]:
    """The client of this event loop (a connection belongs to one loop) and the scripts."""
    current = settings.current()
    loop = asyncio.get_running_loop()
    key = (loop, current.redis_url, current.redis_timeout)
    link = state().redis
    if link is None or link[0] != key:
        from redis.asyncio import Redis
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff

        client = Redis.from_url(
            current.redis_url or "",
            socket_timeout=current.redis_timeout,
            socket_connect_timeout=current.redis_timeout,
            retry=Retry(NoBackoff(), 0),  # the deadline is for one attempt; no retries in a call
            decode_responses=True,
            password=current.redis_password,  # None: the URL's, if any
        )
        link = (key, client, client.register_script(ADMIT), client.register_script(BLOCK))
        state().redis = link
    _, client, admit_script, block_script = link
    return client, admit_script, block_script


async def _run(
    script: str, keys: Sequence[str], args: Sequence[str | float], valid: Callable[[Any], T]
) -> T:
    """One script on Redis within the deadline, its reply checked by `valid`; Unavailable when
    it fails, answers garbage or is skipped."""
    from redis.exceptions import RedisError

    current = settings.current()
    now = time.monotonic()
    server = state()
    if server.redis_down_since is not None and now < server.redis_retry_at:
        raise Unavailable("still unreachable")
    client, admit_script, block_script = _client()
    runner = admit_script if script == "admit" else block_script
    try:
        with anyio.fail_after(current.redis_timeout * 2):  # connecting, then the command
            if script == "ping":
                reply = await client.ping()
            elif script == "once":  # SET NX: whether this replica is the first to record it
                reply = await client.set(keys[0], "1", nx=True, px=int(args[0]))
            else:
                reply = await runner(keys=list(keys), args=list(args))
        result = valid(reply)
    except (RedisError, OSError, TimeoutError, UnexpectedReply, *_PARSING) as exc:
        server.redis_retry_at = time.monotonic() + RETRY_EVERY
        await _drop(client)
        if server.redis_down_since is None:
            server.redis_down_since = now
            log.warning(
                "Redis at %s is unreachable (%s): %s",
                where(current.redis_url or ""),
                _why(exc),
                (
                    f"rate limits apply per replica until it is back ({current.variable('REDIS_FAILURE')}=open)"
                    if current.redis_failure == "open"
                    else f"calls are refused until it is back ({current.variable('REDIS_FAILURE')}=closed)"
                ),
            )
        raise Unavailable(type(exc).__name__) from None
    if server.redis_down_since is not None:
        log.warning(
            "Redis at %s is reachable again after %.1f s: rate limits are shared again",
            where(current.redis_url or ""),
            time.monotonic() - server.redis_down_since,
        )
        server.redis_down_since = None
    return result


# What redis-py raises, besides RedisError, on a reply no Redis sends (AttributeError on a HELLO
# answer that is not a map, ValueError on bytes that are no number or no UTF-8...).
_PARSING = (AttributeError, TypeError, ValueError, LookupError)


def _why(exc: Exception) -> str:
    """The exception's name, and for a reply that was not the one expected, what it was."""
    from redis.exceptions import ConnectionError as Disconnected
    from redis.exceptions import TimeoutError as Late

    if isinstance(exc, (OSError, TimeoutError, Disconnected, Late)):
        return type(exc).__name__
    return f"{type(exc).__name__}: {str(exc)[:100]!r}"


async def _drop(client: Any) -> None:
    """Forget a client whose connection may hold the rest of a garbage reply."""
    state().redis = None
    with contextlib.suppress(Exception), anyio.move_on_after(1.0):
        await client.aclose()


def _admitted(count: int) -> Callable[[Any], tuple[int, float]]:
    """The check of ADMIT's reply for `count` buckets: `[which, wait]`, -1 <= which <= count."""

    def valid(reply: Any) -> tuple[int, float]:
        if isinstance(reply, (list, tuple)) and len(reply) == 2:
            which, wait = reply
            if isinstance(which, int) and isinstance(wait, (str, bytes)):
                with contextlib.suppress(ValueError):
                    seconds = float(wait)
                    if -1 <= which <= count and math.isfinite(seconds) and seconds >= 0:
                        return which, seconds
        raise UnexpectedReply(f"the rate-limit script answered {reply!r:.60}")

    return valid


def _one(reply: Any) -> None:
    if reply != 1 or isinstance(reply, bool):
        raise UnexpectedReply(f"the back-off script answered {reply!r:.60}")


def _set_nx(reply: Any) -> bool:
    """SET NX's reply: True when set, None when the key was there (redis-py's OK and nil)."""
    if reply is True or reply is None:
        return reply is True
    raise UnexpectedReply(f"SET NX answered {reply!r:.60}")


def _pong(reply: Any) -> None:
    if reply is not True:  # redis-py's PING is True for PONG, False for any other string
        raise UnexpectedReply("PING was not answered PONG")


def _base() -> str:
    return "mcpgen:{" + current_project().name + "}"


def bucket_key(name: str | None, rate: settings.Rate) -> str:
    """A bucket's key: the server's (`name` None) or an entry's, and its rate (a replica with
    another setting keeps its own bucket, as a changed setting starts afresh in process)."""
    which = "server" if name is None else f"entry:{name}"
    return f"{_base()}:rate:{which}:{rate.per_second:g}/{rate.burst:g}"


async def admit(buckets: Sequence[tuple[str | None, settings.Rate]]) -> tuple[int, float] | None:
    """Take a token from each bucket (entry name or None for the server's, and its rate), unless
    one is empty or the upstream is blocked: then `(which, seconds)`, `which` 0 for the
    upstream, i for the i-th bucket. Raises Unavailable."""
    keys = [f"{_base()}:upstream-blocked", *(bucket_key(name, rate) for name, rate in buckets)]
    args: list[str | float] = []
    for _, rate in buckets:
        args += [repr(rate.per_second), repr(rate.burst)]
    which, wait = await _run("admit", keys, args, _admitted(len(buckets)))
    return None if which < 0 else (which, wait)


async def block_upstream(seconds: float) -> None:
    """Hold every replica off the upstream for `seconds` (its Retry-After). Raises Unavailable."""
    await _run("block", [f"{_base()}:upstream-blocked"], [repr(seconds)], _one)


async def record_once(name: str, seconds: float) -> bool:
    """Record `name` (a confirmation's nonce) for `seconds` on every replica's behalf: True the
    first time, False while it is recorded. Raises Unavailable."""
    key = f"{_base()}:once:{name}"
    return await _run("once", [key], [max(1, math.ceil(seconds * 1000))], _set_nx)


async def reachable() -> bool:
    """Whether Redis answers a PING within the deadline (the health route's check)."""
    try:
        await _run("ping", [], [], _pong)
    except Unavailable:
        return False
    return True


def reset() -> None:
    """Forget the connection and any outage (tests)."""
    server = state()
    server.redis, server.redis_down_since, server.redis_retry_at = None, None, 0.0
