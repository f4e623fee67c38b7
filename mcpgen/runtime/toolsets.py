# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""Toolsets: which of the server's toolsets are enabled for the request being served.

A tool of `tools.json` may belong to toolsets (mcpgen.toml's `toolsets_from` and
`[toolsets.<name>]`); one in none is always served. `PREFIX_TOOLSETS` names the toolsets
served from the start (unset: every one, or none with `PREFIX_TOOLSETS_DYNAMIC=1`); the
policy (`policy.toolset_refusal`) hides and refuses the tools of the others like any hidden
entry. With `PREFIX_TOOLSETS_DYNAMIC=1` the `enable_toolsets` meta tool (`toolset_tool`)
enables more, and the client is told its tool list changed.

What "enabled" is scoped to, so that every listing is coherent:

- stdio, either protocol era: the process, which serves one client. A handshake-era client
  hears `notifications/tools/list_changed` on its session; a 2026-07-28 one on its
  `subscriptions/listen` stream (`toolsListChanged`).
- streamable HTTP with sessions (`PREFIX_HTTP_SESSIONS=1`), a handshake-era client: its
  session (`Mcp-Session-Id`), told on the session as over stdio; gone with the session.
- streamable HTTP otherwise (stateless, and every 2026-07-28 request, which is a single
  exchange): nothing outlives a request and replicas share nothing, so nothing can be
  enabled: `enable_toolsets` is not served and `listChanged` stays false; every request
  lists what `PREFIX_TOOLSETS` names, the same on every replica.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from typing import Any

from mcp.types.version import MODERN_PROTOCOL_VERSIONS

from . import settings
from .project import current
from .state import state

PROCESS = "process"  # the scope of a stdio server: its one client

# The request's scope: PROCESS, a handshake-era HTTP session's connection, or None (nothing kept).
_scope: contextvars.ContextVar[Any] = contextvars.ContextVar("mcpgen_toolset_scope", default=None)


def scope_of(ctx: Any) -> Any:
    """Where what this request enables is kept (None: nowhere, see the module's docstring)."""
    if not state().http:
        return PROCESS
    modern = getattr(ctx, "protocol_version", None) in MODERN_PROTOCOL_VERSIONS
    if modern or state().stateless_http:
        return None
    return getattr(ctx.session, "_connection", ctx.session)


@contextlib.contextmanager
def bound(ctx: Any) -> Iterator[None]:
    """The request's toolset scope set while it is served."""
    token = _scope.set(scope_of(ctx) if current().toolsets else None)
    try:
        yield
    finally:
        _scope.reset(token)


def dynamic() -> bool:
    """`enable_toolsets` is served to this request: PREFIX_TOOLSETS_DYNAMIC=1 and a scope to keep it."""
    return (
        bool(current().toolsets)
        and settings.current().toolsets_dynamic
        and _scope.get() is not None
    )


def changes(modern: bool) -> bool:
    """A connection of this era may see its tool list change (the `listChanged` capability)."""
    if not current().toolsets or not settings.current().toolsets_dynamic:
        return False
    return not state().http or (not modern and not state().stateless_http)


def started() -> frozenset[str]:
    """The toolsets PREFIX_TOOLSETS serves from the start (every one when unset, unless dynamic)."""
    now = settings.current()
    if now.toolsets == ("all",) or (not now.toolsets and not now.toolsets_dynamic):
        return frozenset(current().toolsets)
    return frozenset(now.toolsets)


def _added() -> frozenset[str]:
    scope = _scope.get()
    if scope is None or not settings.current().toolsets_dynamic:
        return frozenset()
    if scope == PROCESS:
        return state().process_toolsets
    return state().session_toolsets.get(scope, frozenset())


def enabled() -> frozenset[str] | None:
    """The toolsets enabled for this request; None: the server has none (nothing is filtered)."""
    if not current().toolsets:
        return None
    return started() | _added()


def enable(names: frozenset[str]) -> frozenset[str]:
    """Enable `names` in this request's scope; the ones that were not enabled yet."""
    scope = _scope.get()
    new = names - (enabled() or frozenset())
    if scope is None or not new:
        return frozenset()
    if scope == PROCESS:
        state().process_toolsets = state().process_toolsets | new
    else:
        state().session_toolsets[scope] = state().session_toolsets.get(scope, frozenset()) | new
    return new
