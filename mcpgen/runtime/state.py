# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""The mutable state of the server this process serves, in one object.

What the runtime learns while serving (rate-limit buckets, an upstream's Retry-After, the
confirmations used, the Redis connection and its outage, the subscriptions, whether the
process is the server's own) lives here rather than in module globals, so it is dropped with
the project it belongs to when another is installed (tests do), and one place shows all of
it. Derived, read-only data (the registry, the tool table, validators) is cached where it is
made instead.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any

from .project import on_install


@dataclass(slots=True)
class ServerState:
    buckets: dict[str, Any] = field(default_factory=dict)  # rate-limit key -> `guard.Bucket`
    upstream_blocked_until: float = 0.0  # monotonic time an upstream 429's Retry-After ends
    used_confirmations: dict[str, float] = field(
        default_factory=dict
    )  # nonce -> its expiry (epoch)
    owns_process: bool = False  # set by the entry points: the process is this server's
    # OAuth client-credentials tokens for the upstream: scheme -> (token, monotonic expiry), and
    # the lock per scheme that makes concurrent calls share one token request (`auth`)
    upstream_tokens: dict[str, tuple[str, float]] = field(default_factory=dict)
    token_locks: dict[str, Any] = field(default_factory=dict)  # scheme -> asyncio.Lock
    learned_secrets: set[str] = field(default_factory=set)  # redacted too (e.g. those tokens)
    # Redis (`shared`): (loop, url, timeout), client, scripts, of the loop that made them; the
    # monotonic time an outage began (None while reachable), and when to try again
    redis: tuple[Any, ...] | None = None
    redis_down_since: float | None = None
    redis_retry_at: float = 0.0
    # handshake-era subscriptions (`subscriptions`): connection -> its URIs (never an empty
    # set), weakly, so a connection that goes takes them; the loop notifications go out on,
    # once a client subscribed; the deliveries under way; whether HTTP is stateless
    subscribed: weakref.WeakKeyDictionary[Any, set[str]] = field(
        default_factory=weakref.WeakKeyDictionary
    )
    loop: Any = None  # asyncio.AbstractEventLoop
    deliveries: set[Any] = field(default_factory=set)  # asyncio.Task
    bus: tuple[Any, Any] | None = None  # 2026-07-28: the SDK's subscription bus, its ListenHandler
    stateless_http: bool = False  # set by serve_http unless PREFIX_HTTP_SESSIONS
    http: bool = False  # set by serve_http: the transport is streamable HTTP, not stdio
    # toolsets enabled with `enable_toolsets` (`toolsets`): per handshake-era HTTP session
    # (weakly, gone with it), and this process's (stdio: the one client's)
    session_toolsets: weakref.WeakKeyDictionary[Any, frozenset[str]] = field(
        default_factory=weakref.WeakKeyDictionary
    )
    process_toolsets: frozenset[str] = frozenset()


_state: list[ServerState] = [ServerState()]


def state() -> ServerState:
    return _state[0]


def _reset() -> None:
    old = _state[0]
    _state[0] = ServerState(
        owns_process=old.owns_process, stateless_http=old.stateless_http, http=old.http
    )


on_install(_reset)
