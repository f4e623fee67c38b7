"""`subscriptions`: handshake-era `resources/subscribe` state is freed on unsubscribe, dropped
with its connection, and bounded per connection and in all (the handlers called as the SDK
calls them, with a connection object of their own)."""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from mcp import MCPError, types

from mcpgen.runtime import resources, state, subscriptions
from mcpgen.runtime.project import Project

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Connection:
    """What `_peer` finds on a request's session: the client's connection."""

    def __init__(self) -> None:
        self.told: list[str] = []

    async def send_resource_updated(self, uri: str) -> None:
        self.told.append(uri)


def ctx(connection: Connection) -> Any:
    return SimpleNamespace(session=SimpleNamespace(_connection=connection))


def sub(uri: str) -> types.SubscribeRequestParams:
    return types.SubscribeRequestParams(uri=uri)


def unsub(uri: str) -> types.UnsubscribeRequestParams:
    return types.UnsubscribeRequestParams(uri=uri)


@pytest.fixture
def served(project: Project, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every `notes://` URI is a resource of this server (as a template's would be)."""
    monkeypatch.setattr(resources, "served", lambda uri: uri.startswith("notes://"))
    monkeypatch.setattr(state.state(), "stateless_http", False)
    state.state().subscribed.clear()
    yield
    state.state().subscribed.clear()


async def test_10000_uris_subscribed_then_unsubscribed_leave_nothing(served: None) -> None:
    connection = Connection()
    await subscriptions.subscribe(ctx(connection), sub("notes://warm-up"))  # the structures exist
    await subscriptions.unsubscribe(ctx(connection), unsub("notes://warm-up"))
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        uris = [f"notes://item/{i}" for i in range(10_000)]
        for uri in uris:
            await subscriptions.subscribe(ctx(connection), sub(uri))
        await subscriptions.subscribe(ctx(connection), sub(uris[0]))  # again: still one
        assert len(state.state().subscribed) == 1 and len(state.state().subscribed[connection]) == 10_000
        for uri in uris:
            await subscriptions.unsubscribe(ctx(connection), unsub(uri))
        await subscriptions.unsubscribe(ctx(connection), unsub(uris[0]))  # not subscribed: nothing
        del uris
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(state.state().subscribed) == 0  # no per-URI or per-connection leftover
    print(f"10,000 URIs subscribed and unsubscribed: {grown:,} bytes kept")
    assert grown < 100_000  # it was ~1.5 kB per URI (15 MB)


async def test_a_connection_that_goes_away_takes_its_subscriptions(served: None) -> None:
    connection = Connection()
    for i in range(100):
        await subscriptions.subscribe(ctx(connection), sub(f"notes://{i}"))
    del connection
    gc.collect()
    assert len(state.state().subscribed) == 0


async def test_updates_reach_the_subscribed_connections_only(served: None) -> None:
    one, two = Connection(), Connection()
    await subscriptions.subscribe(ctx(one), sub("notes://a"))
    await subscriptions.subscribe(ctx(two), sub("notes://b"))
    await subscriptions._deliver("notes://a")
    assert (one.told, two.told) == (["notes://a"], [])
    await subscriptions.unsubscribe(ctx(one), unsub("notes://a"))
    await subscriptions._deliver("notes://a")
    assert one.told == ["notes://a"] and one not in state.state().subscribed


async def test_subscriptions_are_capped_per_connection_and_in_all(served: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(subscriptions, "MAX_PER_SESSION", 5)
    monkeypatch.setattr(subscriptions, "MAX_TOTAL", 8)
    one, two = Connection(), Connection()
    for i in range(5):
        await subscriptions.subscribe(ctx(one), sub(f"notes://{i}"))
    with pytest.raises(MCPError, match="subscribed to 5 resources, the most one session may be") as refused:
        await subscriptions.subscribe(ctx(one), sub("notes://5"))
    assert refused.value.error.code == types.INVALID_PARAMS
    await subscriptions.subscribe(ctx(one), sub("notes://4"))  # one it holds: no new state, allowed
    for i in range(3):
        await subscriptions.subscribe(ctx(two), sub(f"notes://{i}"))
    with pytest.raises(MCPError, match="the server holds 8 subscriptions"):
        await subscriptions.subscribe(ctx(two), sub("notes://3"))
    await subscriptions.unsubscribe(ctx(one), unsub("notes://0"))
    await subscriptions.subscribe(ctx(two), sub("notes://3"))  # room again
    assert sum(len(u) for u in state.state().subscribed.values()) == 8
