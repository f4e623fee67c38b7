# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""The mutable state of the server this process serves, in one object.

What the runtime learns while serving (rate-limit buckets, an upstream's Retry-After, the
confirmations used, whether the process is the server's own) lives here rather than in
module globals, so it is dropped with the project it belongs to when another is installed
(tests do), and one place shows all of it. Derived, read-only data (the registry, the tool table, validators)
is cached where it is made instead.
"""

from __future__ import annotations

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


_state: list[ServerState] = [ServerState()]


def state() -> ServerState:
    return _state[0]


def _reset() -> None:
    owns = _state[0].owns_process
    _state[0] = ServerState(owns_process=owns)


on_install(_reset)
