# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""Resource subscriptions: your code says a resource changed, subscribed clients hear it.

`resource_updated(uri)` (re-exported by the package's `extensions.py`) announces that the
resource at `uri` changed. It may be called from a tool's function, sync (a worker thread)
or async, from a hook or from any thread of yours; it returns at once, and the
notifications go out on the server's event loop. Each protocol revision has its mechanism:

- 2025-11-25 (and the earlier handshake revisions): `resources/subscribe` and
  `resources/unsubscribe`, then `notifications/resources/updated` on the subscribed
  session. Served over stdio, one session per process. Stateless streamable HTTP keeps no
  session and no stream a later notification could travel on: there, `subscribe` is not
  declared and the methods answer -32601.
- 2026-07-28: `subscriptions/listen` (the SDK's `ListenHandler` on an in-process bus), over
  stdio and streamable HTTP alike (a listen response is its own SSE stream). One process's
  bus reaches the clients of that process only.

Handshake-era subscriptions are kept per connection and dropped with it; unsubscribing
frees them. One connection may hold `MAX_PER_SESSION` of them and all together
`MAX_TOTAL`: past either, `resources/subscribe` is an error saying so.

The lists of prompts and resources never change while a server runs, so their
`listChanged` is false in both eras. The tool list is fixed too, but where
`enable_toolsets` is served (`toolsets`): there `tools.listChanged` is true, and enabling a
toolset is told on the session (handshake era) or here, to listen streams that asked for
`toolsListChanged` (`tools_list_changed`).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from mcp import MCPError, types
from mcp.server import ServerRequestContext
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    ResourceUpdated,
    ToolsListChanged,
)

from . import settings, toolsets
from .state import state

log = logging.getLogger(__name__)

__all__ = ["resource_updated"]

RESOURCE_NOT_FOUND = -32002
MAX_PER_SESSION = 10_000  # URIs one handshake-era connection may be subscribed to
MAX_TOTAL = 100_000  # subscriptions of all connections together


def _bus() -> tuple[InMemorySubscriptionBus, ListenHandler]:
    """This server's 2026-07-28 bus and the listen handler on it (in its state, made once)."""
    server = state()
    if server.bus is None:
        bus = InMemorySubscriptionBus()
        server.bus = (bus, ListenHandler(bus))
    bus_and_handler: tuple[InMemorySubscriptionBus, ListenHandler] = server.bus
    return bus_and_handler


def resource_updated(uri: str) -> None:
    """Tell the clients subscribed to `uri` that it changed (they read it again).

    Thread-safe and non-blocking; with no client subscribed it does nothing."""
    loop = state().loop
    if loop is None or loop.is_closed():
        return
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        _start(uri)
    else:
        loop.call_soon_threadsafe(_start, uri)


async def tools_list_changed() -> None:
    """Tell this process's 2026-07-28 listen streams that the tool list changed."""
    await _bus()[0].publish(ToolsListChanged())


def _start(uri: str) -> None:
    task = asyncio.get_running_loop().create_task(_deliver(uri))
    deliveries = state().deliveries  # held: the loop keeps only a weak reference to a task
    deliveries.add(task)
    task.add_done_callback(deliveries.discard)


async def _deliver(uri: str) -> None:
    await _bus()[0].publish(ResourceUpdated(uri=uri))
    subscribed = state().subscribed
    for session, uris in list(subscribed.items()):
        if uri not in uris:
            continue
        try:
            await session.send_resource_updated(uri)
        except Exception:  # a session that has gone away: it is not told again
            log.debug("resource update for %s not delivered; session dropped", uri, exc_info=True)
            subscribed.pop(session, None)


def _known(uri: str) -> None:
    """Subscribing names a resource this server serves, and shows."""
    from . import resources

    if not resources.served(uri):
        raise MCPError(code=RESOURCE_NOT_FOUND, message=f"Resource not found: {uri}")


def _peer(ctx: ServerRequestContext) -> Any:
    """The client's connection: `ctx.session` is made anew for each request, its connection
    lives as long as the client's (the SDK keeps it private; `send_resource_updated` on
    either goes out on the connection's own channel)."""
    return getattr(ctx.session, "_connection", ctx.session)


def _remember_loop() -> None:
    state().loop = asyncio.get_running_loop()


def _refuse_stateless(method: str) -> None:
    if state().stateless_http:
        raise MCPError(
            code=types.METHOD_NOT_FOUND,
            message=f"{method} is not served over stateless HTTP, which keeps no session to notify "
            f"later; use subscriptions/listen (protocol 2026-07-28), stdio, or HTTP sessions "
            f"({settings.current().variable('HTTP_SESSIONS')}=1)",
        )


async def subscribe(
    ctx: ServerRequestContext, params: types.SubscribeRequestParams
) -> types.EmptyResult:
    _refuse_stateless("resources/subscribe")
    uri = str(params.uri)
    _known(uri)
    _remember_loop()
    peer = _peer(ctx)
    subscribed = state().subscribed
    held = subscribed.get(peer, set())
    if uri not in held:
        if len(held) >= MAX_PER_SESSION:
            raise MCPError(
                code=types.INVALID_PARAMS,
                message=f"this session is subscribed to {MAX_PER_SESSION:,} resources, the most "
                "one session may be; unsubscribe from some first",
            )
        if sum(len(uris) for uris in subscribed.values()) >= MAX_TOTAL:
            raise MCPError(
                code=types.INVALID_PARAMS,
                message=f"the server holds {MAX_TOTAL:,} subscriptions, the most it keeps; "
                "retry later",
            )
        held.add(uri)
        subscribed[peer] = held
    return types.EmptyResult()


async def unsubscribe(
    ctx: ServerRequestContext, params: types.UnsubscribeRequestParams
) -> types.EmptyResult:
    _refuse_stateless("resources/unsubscribe")
    peer = _peer(ctx)
    subscribed = state().subscribed
    held = subscribed.get(peer)
    if held is not None:
        held.discard(str(params.uri))
        if not held:
            del subscribed[peer]
    return types.EmptyResult()


async def listen(
    ctx: ServerRequestContext, params: types.SubscriptionsListenRequestParams
) -> types.SubscriptionsListenResult:
    for uri in params.notifications.resource_subscriptions or ():
        _known(uri)
    _remember_loop()
    return await _bus()[1](ctx, params)


def capabilities(caps: types.ServerCapabilities, modern: bool) -> types.ServerCapabilities:
    """`caps` as this server keeps them: no list changes but the tools' where toolsets are
    enabled (`toolsets.changes`); `subscribe` where it is served."""
    update: dict[str, Any] = {}
    for field in ("tools", "prompts", "resources"):
        capability = getattr(caps, field)
        if capability is not None:
            changes = field == "tools" and toolsets.changes(modern)
            update[field] = capability.model_copy(update={"list_changed": changes})
    if caps.resources is not None and state().stateless_http and not modern:
        update["resources"] = update["resources"].model_copy(update={"subscribe": False})
    return caps.model_copy(update=update)
