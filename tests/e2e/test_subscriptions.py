"""End to end, from-python: user code announces that a resource changed, subscribed clients hear it.

A notes module (a FILE target) serves `notes://current` and `notes://other` as resources
(bound in mcpgen.toml) and has tools that change them and call `resource_updated` (from the
generated package's `extensions`): from a sync function (a worker thread), an async one (the
event loop) and a thread of its own. Delivered by each revision's mechanism:
- 2025-11-25 over stdio (ClientSession, and the TypeScript SDK 1.x): resources/subscribe,
  then notifications/resources/updated; unsubscribed, no more;
- 2026-07-28 (mcp.Client auto) over stdio and streamable HTTP: the subscriptions/listen stream;
- 2025-11-25 over HTTP with sessions (PREFIX_HTTP_SESSIONS=1): resources/subscribe, the update
  on the session's GET stream;
- 2025-11-25 over stateless HTTP: `subscribe` is not declared and subscribing is -32601.
Every wait has a hang guard only: the notification comes in milliseconds.
"""

from __future__ import annotations

import os
import sys
import textwrap
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, ClientSession, MCPError, StdioServerParameters, stdio_client, types
from mcp.client.stdio import get_default_environment
from mcp.shared.subscriptions import ResourceUpdated

from tests.clients.harness import TS_PACKAGES, run_client, stdio_target
from tests.e2e.conftest import http_server
from tests.e2e.projects import run_cli
from tests.npm import ensure_installed

pytestmark = [
    pytest.mark.anyio,
    # resources/subscribe is what 2025-11-25 clients use; the SDK deprecates it for 2026-07-28.
    pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning"),
]

PACKAGE = "notes_mcp"
HANG_GUARD = 60.0
NOTES = '''\
    """Notes: a board whose resources change."""

    from __future__ import annotations

    import threading

    NOTES = {"current": "first", "other": "none"}


    def _announce(*names: str) -> None:
        from notes_mcp.runtime.public import resource_updated  # the generated package, at run time

        for name in names:
            resource_updated(f"notes://{name}")


    def set_note(text: str) -> str:
        """Replace the current note (a sync function: runs in a worker thread)."""
        NOTES["current"] = text
        _announce("current")
        return "saved"


    async def set_note_async(text: str) -> str:
        """Replace the current note from the event loop."""
        NOTES["current"] = text
        _announce("current")
        return "saved"


    def set_later(text: str) -> str:
        """Replace the current note from a thread of its own."""

        def work() -> None:
            NOTES["current"] = text
            _announce("current")

        thread = threading.Thread(target=work)
        thread.start()
        thread.join()
        return "saved"


    def touch_both() -> str:
        """Announce a change of the current note, then of the other one."""
        _announce("current", "other")
        return "touched"


    def current_note() -> str:
        """The current note."""
        return NOTES["current"]


    def other_note() -> str:
        """The other note."""
        return NOTES["other"]
'''
RESOURCES = '''
[[resources]]
function = "current_note"
uri = "notes://current"
name = "current-note"
mime_type = "text/plain"

[[resources]]
function = "other_note"
uri = "notes://other"
name = "other-note"
mime_type = "text/plain"
'''


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = tmp_path_factory.mktemp("notes-source") / "notes.py"
    source.write_text(textwrap.dedent(NOTES))
    out = tmp_path_factory.mktemp("notes") / "notes-mcp"
    run_cli("from-python", str(source), "-o", str(out), "--include", "set_*", "--include", "touch_*")
    with (out / "mcpgen.toml").open("a", encoding="utf-8") as project_file:
        project_file.write(RESOURCES)
    run_cli("regenerate", str(out))
    return out


def server_env(generated: Path) -> dict[str, str]:
    env = dict(get_default_environment())
    env.update(PYTHONPATH=str(generated / "src"), PYTHONUNBUFFERED="1")
    return env


def stdio_params(generated: Path) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", PACKAGE], env=server_env(generated))


@pytest.fixture(scope="module")
def http_url(generated: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("notes-log") / "http.log"
    with http_server(PACKAGE, server_env(generated), log) as port:
        yield f"http://127.0.0.1:{port}/mcp"


@pytest.fixture(scope="module")
def session_http_url(generated: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("notes-log") / "http-sessions.log"
    with http_server(PACKAGE, {**server_env(generated), "NOTES_HTTP_SESSIONS": "1"}, log) as port:
        yield f"http://127.0.0.1:{port}/mcp"


class Updates:
    """The notifications/resources/updated a handshake-era session received, in order."""

    def __init__(self) -> None:
        self.uris: list[str] = []
        self._changed = anyio.Event()

    async def handler(self, message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            self.uris.append(str(message.params.uri))
            self._changed.set()
            self._changed = anyio.Event()

    async def wait_for(self, uri: str) -> None:
        with anyio.fail_after(HANG_GUARD):
            while uri not in self.uris:
                await self._changed.wait()


@asynccontextmanager
async def handshake(generated: Path) -> AsyncIterator[tuple[ClientSession, Updates, types.InitializeResult]]:
    updates = Updates()
    async with stdio_client(stdio_params(generated)) as (read, write), ClientSession(
        read, write, message_handler=updates.handler
    ) as session:
        init = await session.initialize()
        yield session, updates, init


async def test_handshake_stdio_session_hears_an_update(generated: Path) -> None:
    async with handshake(generated) as (session, updates, init):
        assert init.protocol_version == "2025-11-25"
        resources = init.capabilities.resources
        assert resources is not None and resources.subscribe is True and resources.list_changed is False
        assert init.capabilities.tools is not None and init.capabilities.tools.list_changed is False
        await session.subscribe_resource("notes://current")
        for tool in ("set_note", "set_note_async", "set_later"):
            updates.uris.clear()
            assert (await session.call_tool(tool, {"text": f"from {tool}"})).is_error is False
            await updates.wait_for("notes://current")
            read = await session.read_resource("notes://current")
            assert isinstance(read.contents[0], types.TextResourceContents)
            assert read.contents[0].text == f"from {tool}"


async def test_unsubscribed_no_more_updates(generated: Path) -> None:
    async with handshake(generated) as (session, updates, _):
        await session.subscribe_resource("notes://current")
        await session.subscribe_resource("notes://other")
        await session.call_tool("touch_both", {})
        await updates.wait_for("notes://other")
        assert updates.uris == ["notes://current", "notes://other"]
        await session.unsubscribe_resource("notes://current")
        updates.uris.clear()
        await session.call_tool("touch_both", {})  # announces current, then other
        await updates.wait_for("notes://other")
        await session.send_ping()  # nothing still on its way
        assert updates.uris == ["notes://other"]


async def test_subscribing_to_an_unknown_resource_is_an_error(generated: Path) -> None:
    async with handshake(generated) as (session, _, _):
        with pytest.raises(MCPError) as raised:
            await session.subscribe_resource("notes://nothing")
        assert raised.value.error.code == -32002


async def listen_once(client: Client) -> None:
    """A listen stream for notes://current hears set_note's update (and not other's)."""
    caps = client.server_capabilities
    assert caps.resources is not None and caps.resources.subscribe is True
    assert caps.resources.list_changed is False
    assert caps.tools is not None and caps.tools.list_changed is False
    async with client.listen(resource_subscriptions=["notes://current"]) as subscription:
        assert subscription.honored.resource_subscriptions == ["notes://current"]
        # Each update is read before the next is caused: the client folds an update equal to one
        # not yet read into it, so two calls in a row may be heard as one.
        await client.call_tool("touch_both", {})  # other: not subscribed, not delivered
        with anyio.fail_after(HANG_GUARD):
            first = await subscription.__anext__()
        await client.call_tool("set_note", {"text": "heard"})
        with anyio.fail_after(HANG_GUARD):
            second = await subscription.__anext__()
    assert first == ResourceUpdated(uri="notes://current") and second == first
    read = await client.read_resource("notes://current")
    assert isinstance(read.contents[0], types.TextResourceContents) and read.contents[0].text == "heard"


async def test_modern_stdio_listen_stream_hears_an_update(generated: Path) -> None:
    async with Client(stdio_client(stdio_params(generated)), cache=None) as client:
        assert client.protocol_version == "2026-07-28"
        await listen_once(client)


async def test_modern_http_listen_stream_hears_an_update(http_url: str) -> None:
    async with Client(http_url, cache=None) as client:
        assert client.protocol_version == "2026-07-28"
        await listen_once(client)


async def test_handshake_over_stateless_http_declares_no_subscribe(http_url: str) -> None:
    async with Client(http_url, mode="legacy", cache=None) as client:
        caps = client.server_capabilities
        assert caps.resources is not None and not caps.resources.subscribe
        with pytest.raises(MCPError) as raised:
            await client.session.subscribe_resource("notes://current")
        assert raised.value.error.code == -32601
        assert "stateless HTTP" in raised.value.error.message


async def test_handshake_over_http_with_sessions_hears_an_update(session_http_url: str) -> None:
    from mcp.client.streamable_http import streamable_http_client

    updates = Updates()
    async with streamable_http_client(session_http_url) as streams, ClientSession(
        streams[0], streams[1], message_handler=updates.handler
    ) as session:
        init = await session.initialize()
        assert init.protocol_version == "2025-11-25"
        assert init.capabilities.resources is not None and init.capabilities.resources.subscribe is True
        await session.subscribe_resource("notes://current")
        assert (await session.call_tool("set_note", {"text": "over a session"})).is_error is False
        await updates.wait_for("notes://current")
        await session.unsubscribe_resource("notes://current")
        updates.uris.clear()
        await session.call_tool("set_note", {"text": "unheard"})
        await session.send_ping()
        assert updates.uris == []


def test_typescript_client_hears_an_update(generated: Path) -> None:
    ensure_installed(*TS_PACKAGES)
    env = {**server_env(generated), "PATH": os.environ.get("PATH", "")}
    calls = [{"name": "set_note", "arguments": {"text": "from TypeScript"}}]
    report = run_client("ts-v1", calls, stdio_target(PACKAGE), env, subscribe=["notes://current"])
    assert report["calls"][0]["ok"] and report["calls"][0]["isError"] is False
    assert report["updates"] == ["notes://current"]
