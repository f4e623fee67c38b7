"""End to end: GitHub's REST spec served by toolset, one per top-level tag, enabled at run time.

Generated once with `toolsets_from = "tags"` (1,186 tools in 46 toolsets). Served with
OCTO_GITHUB_TOOLSETS=gists: the gists tools only, and with OCTO_GITHUB_TOOLSETS_DYNAMIC=1 the
`enable_toolsets` meta tool. Enabling `issues`, each client sees the tool list change and the
issues tools, and calls one against a real upstream on 127.0.0.1 (tests/clients/messy_upstream):
- 2025-11-25 over stdio (ClientSession): `listChanged: true`, notifications/tools/list_changed;
- 2026-07-28 over stdio (mcp.Client auto): `toolsListChanged` on a subscriptions/listen stream;
- 2025-11-25 over HTTP with sessions: the notification on the session; another session still
  sees gists only (enabled is per session);
- stateless HTTP, both eras: no `enable_toolsets`, `listChanged: false`, gists only;
- the TypeScript SDK 1.x and 2.x clients over stdio: the notification, then the new list.
The meta tool is an entry of the registry: OCTO_GITHUB_TOOLS_DENY hides and refuses it.
Every wait has a hang guard only: the notification comes in milliseconds.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, ClientSession, MCPError, StdioServerParameters, stdio_client, types
from mcp.shared.subscriptions import ToolsListChanged

from mcpgen.api import generate_openapi
from mcpgen.options import Options
from tests.clients.harness import TS_PACKAGES, run_client, stdio_target
from tests.clients.messy_upstream import GITHUB_PREFIX, MessyUpstream
from tests.e2e.conftest import http_server, server_env
from tests.npm import ensure_installed, package_path

pytestmark = pytest.mark.anyio

PACKAGE = "octo_github_mcp"
HANG_GUARD = 60.0
ISSUE_CALL = {"owner": "octocat", "repo": "Hello-World", "issue_number": 1347}
# Figures of the pinned spec (@octokit/openapi's api.github.com.json): its 46 top-level tags.
TOOLSET_COUNT, ISSUES_TOOLS, GISTS_TOOLS, REPOS_TOOLS = 46, 58, 20, 204


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("toolsets") / "octo-github-mcp"
    source = package_path("@octokit/openapi", "generated/api.github.com.json")  # as tests/clients reads it
    ensure_installed(source)
    generate_openapi(source, Options(output=out, force=True, name="octo-github", toolsets_from="tags"))
    return out


@pytest.fixture(scope="module")
def github_upstream() -> Iterator[MessyUpstream]:
    server = MessyUpstream().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def env(generated: Path, github_upstream: MessyUpstream) -> dict[str, str]:
    return server_env(
        generated,
        OCTO_GITHUB_BASE_URL=github_upstream.origin + GITHUB_PREFIX,
        OCTO_GITHUB_TOOLSETS="gists",
        OCTO_GITHUB_TOOLSETS_DYNAMIC="1",
    )


def entries(generated: Path) -> list[dict[str, Any]]:
    loaded: list[dict[str, Any]] = json.loads((generated / "src" / PACKAGE / "tools.json").read_text())
    return loaded


def in_toolset(generated: Path, name: str) -> set[str]:
    return {e["tool"]["name"] for e in entries(generated) if name in e.get("toolsets", ())}


def test_every_tool_is_in_a_toolset_of_its_top_level_tag(generated: Path) -> None:
    tools = entries(generated)
    assert len(tools) == 1186 and all(e.get("toolsets") for e in tools)
    counts: dict[str, int] = {}
    for entry in tools:
        for name in entry["toolsets"]:
            counts[name] = counts.get(name, 0) + 1
    assert len(counts) == TOOLSET_COUNT
    assert (counts["issues"], counts["gists"], counts["repos"]) == (ISSUES_TOOLS, GISTS_TOOLS, REPOS_TOOLS)
    assert "issues_get" in in_toolset(generated, "issues")


class Changes:
    """The notifications/tools/list_changed a handshake-era session received."""

    def __init__(self) -> None:
        self.count = 0
        self._seen = anyio.Event()

    async def handler(self, message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self.count += 1
            self._seen.set()

    async def wait(self) -> None:
        with anyio.fail_after(HANG_GUARD):
            await self._seen.wait()


async def names(session: Any) -> set[str]:
    """Every listed tool's name, all pages."""
    found: set[str] = set()
    cursor = None
    while True:
        if isinstance(session, ClientSession):
            page = await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor) if cursor else None)
        else:
            page = await session.list_tools(cursor=cursor)
        found |= {tool.name for tool in page.tools}
        cursor = page.next_cursor
        if cursor is None:
            return found


@asynccontextmanager
async def handshake(env: dict[str, str]) -> AsyncIterator[tuple[ClientSession, Changes, types.InitializeResult]]:
    changes = Changes()
    params = StdioServerParameters(command=sys.executable, args=["-m", PACKAGE], env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write, message_handler=changes.handler) as s:
        yield s, changes, await s.initialize()


async def enable_issues_and_call(session: Any, generated: Path) -> None:
    """Enable `issues` (the result lists every toolset), then call one of its tools."""
    result = await session.call_tool("enable_toolsets", {"enable": ["issues"]})
    assert result.is_error is False and result.structured_content["enabled"] == ["issues"]
    listed = {t["name"]: t for t in result.structured_content["toolsets"]}
    assert len(listed) == TOOLSET_COUNT and listed["issues"]["enabled"] and listed["gists"]["enabled"]
    assert listed["issues"]["tools"] == ISSUES_TOOLS and not listed["repos"]["enabled"]


async def test_handshake_stdio_enables_a_toolset_and_hears_the_list_change(
    generated: Path, env: dict[str, str]
) -> None:
    async with handshake(env) as (session, changes, init):
        assert init.capabilities.tools is not None and init.capabilities.tools.list_changed is True
        before = await names(session)
        assert before == {"enable_toolsets"} | in_toolset(generated, "gists")
        with pytest.raises(MCPError) as refused:  # hidden: answered like an unknown tool, saying why
            await session.call_tool("issues_get", ISSUE_CALL)
        assert "toolset 'issues', not enabled" in refused.value.error.message
        await enable_issues_and_call(session, generated)
        await changes.wait()
        after = await names(session)
        assert after == before | in_toolset(generated, "issues")
        called = await session.call_tool("issues_get", ISSUE_CALL)
        assert called.is_error is False
        again = await session.call_tool("enable_toolsets", {"enable": ["issues"]})  # nothing new: no notice
        assert again.structured_content["enabled"] == []
        await session.send_ping()
        assert changes.count == 1


async def test_modern_stdio_listen_stream_hears_the_list_change(generated: Path, env: dict[str, str]) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", PACKAGE], env=env)
    async with Client(stdio_client(params), cache=None) as client:
        assert str(client.protocol_version) == "2026-07-28"
        before = await names(client)
        async with client.listen(tools_list_changed=True) as subscription:
            await enable_issues_and_call(client, generated)
            with anyio.fail_after(HANG_GUARD):
                event = await subscription.__anext__()
        assert isinstance(event, ToolsListChanged)
        assert await names(client) == before | in_toolset(generated, "issues")
        assert (await client.call_tool("issues_get", ISSUE_CALL)).is_error is False


@pytest.fixture(scope="module")
def session_http_url(env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("toolsets-log") / "http-sessions.log"
    with http_server(PACKAGE, {**env, "OCTO_GITHUB_HTTP_SESSIONS": "1"}, log) as port:
        yield f"http://127.0.0.1:{port}/mcp"


@pytest.fixture(scope="module")
def http_url(env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("toolsets-log") / "http.log"
    with http_server(PACKAGE, env, log) as port:
        yield f"http://127.0.0.1:{port}/mcp"


async def test_http_session_enables_for_itself_only(generated: Path, session_http_url: str) -> None:
    from mcp.client.streamable_http import streamable_http_client

    changes = Changes()
    async with streamable_http_client(session_http_url) as streams, ClientSession(
        streams[0], streams[1], message_handler=changes.handler
    ) as session:
        init = await session.initialize()
        assert init.capabilities.tools is not None and init.capabilities.tools.list_changed is True
        await enable_issues_and_call(session, generated)
        await changes.wait()
        assert in_toolset(generated, "issues") <= await names(session)
        async with streamable_http_client(session_http_url) as other_streams, ClientSession(
            other_streams[0], other_streams[1]
        ) as other:
            await other.initialize()
            assert await names(other) == {"enable_toolsets"} | in_toolset(generated, "gists")


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_stateless_http_serves_the_configured_toolsets_only(
    generated: Path, http_url: str, mode: str
) -> None:
    """Nothing outlives a request: no enable_toolsets, no list changes, the same list everywhere."""
    async with Client(http_url, mode=mode, cache=None) as client:  # type: ignore[arg-type]
        caps = client.server_capabilities
        assert caps.tools is not None and not caps.tools.list_changed
        assert await names(client) == in_toolset(generated, "gists")
        with pytest.raises(MCPError) as refused:
            await client.call_tool("enable_toolsets", {"enable": ["issues"]})
        assert "OCTO_GITHUB_TOOLSETS_DYNAMIC=1 and a connection that keeps state" in refused.value.error.message


async def test_the_meta_tool_is_under_the_access_settings(generated: Path, env: dict[str, str]) -> None:
    denied = {**env, "OCTO_GITHUB_TOOLS_DENY": "enable_toolsets"}
    async with handshake(denied) as (session, _, _init):
        assert await names(session) == in_toolset(generated, "gists")
        with pytest.raises(MCPError) as refused:
            await session.call_tool("enable_toolsets", {"enable": ["issues"]})
        assert "OCTO_GITHUB_TOOLS_DENY" in refused.value.error.message


async def test_without_dynamic_every_toolset_or_the_named_ones(generated: Path, env: dict[str, str]) -> None:
    static = {k: v for k, v in env.items() if k not in ("OCTO_GITHUB_TOOLSETS", "OCTO_GITHUB_TOOLSETS_DYNAMIC")}
    async with handshake(static) as (session, _, init):
        assert init.capabilities.tools is not None and not init.capabilities.tools.list_changed
        assert len(await names(session)) == 1186
    async with handshake({**static, "OCTO_GITHUB_TOOLSETS": "issues,gists"}) as (session, _, _init):
        assert await names(session) == in_toolset(generated, "issues") | in_toolset(generated, "gists")


def test_an_unknown_toolset_stops_the_server(env: dict[str, str]) -> None:
    import subprocess

    run = subprocess.run(
        [sys.executable, "-m", PACKAGE], env={**env, "OCTO_GITHUB_TOOLSETS": "gists,nope"},
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60, check=False,
    )
    assert run.returncode == 2 and "OCTO_GITHUB_TOOLSETS: no toolset 'nope'" in run.stderr


@pytest.mark.parametrize("sdk", ["ts-v1", "ts-v2"])
def test_typescript_clients_see_the_new_tools(generated: Path, env: dict[str, str], sdk: str) -> None:
    ensure_installed(*TS_PACKAGES)
    calls = [
        {"name": "enable_toolsets", "arguments": {"enable": ["issues"]}},
        {"name": "issues_get", "arguments": ISSUE_CALL},
    ]
    report = run_client(sdk, calls, stdio_target(PACKAGE), {**env, "PATH": os.environ.get("PATH", "")},
                        toolsChanged=True)
    assert set(report["toolNames"]) == {"enable_toolsets"} | in_toolset(generated, "gists")
    assert [c["ok"] and c["isError"] is False for c in report["calls"]] == [True, True], report["calls"]
    assert report["toolsChanged"] >= 1
    assert set(report["toolNamesAfter"]) == set(report["toolNames"]) | in_toolset(generated, "issues")
