"""An OpenAPI 3.2 spec (specs/feeds_32.yaml) generated and served over stdio and streamable
HTTP against a real upstream on 127.0.0.1: streamed responses (JSON Lines, SSE, JSON Seq)
arrive as one progress notification per item and a final result, bounded by
FEEDS_STREAM_MAX_ITEMS even when the upstream never ends; QUERY, a custom method (LINK) and a
querystring parameter reach the upstream as the spec says. Seen by the Python `mcp` client
(both protocol eras) and by both TypeScript SDK clients."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters, stdio_client, types

from mcpgen.api import generate_openapi
from mcpgen.options import Options
from tests.clients.harness import run_client, stdio_target
from tests.npm import ensure_installed, node, package_path

from .conftest import http_server, server_env
from .feeds_upstream import FeedsUpstream
from .projects import assert_mypy_strict_and_ruff

pytestmark = pytest.mark.anyio

SPEC = Path(__file__).parent / "specs" / "feeds_32.yaml"
PACKAGE = "feeds_mcp"
KEY = "feeds-key-0123456789"
HANG_GUARD = 120.0  # not a speed limit: a call unanswered this long means a hung server


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("feeds") / "feeds-mcp"
    generate_openapi(SPEC, Options(output=out, force=True))
    assert (out / "src" / PACKAGE / "server.py").is_file()
    return out


@pytest.fixture(scope="module")
def feeds() -> Iterator[FeedsUpstream]:
    server = FeedsUpstream().start()
    yield server
    server.stop()


def env(project: Path, feeds: FeedsUpstream, **extra: str) -> dict[str, str]:
    return server_env(project, FEEDS_BASE_URL=feeds.base_url, FEEDS_API_KEY=KEY, FEEDS_LEGACY_KEY="legacy",
                      **extra)


@asynccontextmanager
async def connected(project: Path, feeds: FeedsUpstream, log_dir: Path, transport: str, mode: str,
                    **extra: str) -> AsyncIterator[Client]:
    environment = env(project, feeds, **extra)
    if transport == "stdio":
        params = StdioServerParameters(command=sys.executable, args=["-m", PACKAGE], env=environment)
        async with Client(stdio_client(params), mode=mode, cache=None) as client:  # type: ignore[arg-type]
            yield client
    else:
        with http_server(PACKAGE, environment, log_dir / f"feeds-{mode}.log") as port:
            async with Client(f"http://127.0.0.1:{port}/mcp", mode=mode, cache=None) as client:  # type: ignore[arg-type]
                yield client


async def streamed(client: Client, name: str, arguments: dict[str, Any]) -> tuple[types.CallToolResult, list[Any]]:
    heard: list[Any] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        heard.append((done, total, json.loads(message or "null")))

    with anyio.fail_after(HANG_GUARD):
        result = await client.call_tool(name, arguments, progress_callback=on_progress)
    return result, heard


TRANSPORTS = [("stdio", "legacy"), ("stdio", "auto"), ("http", "legacy"), ("http", "auto")]


@pytest.mark.parametrize(("transport", "mode"), TRANSPORTS)
async def test_streamed_responses_arrive_as_progress_and_a_result(
    project: Path, feeds: FeedsUpstream, log_dir: Path, transport: str, mode: str
) -> None:
    async with connected(project, feeds, log_dir, transport, mode, FEEDS_STREAM_MAX_ITEMS="5") as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert "Streams its response (application/jsonl)" in (tools["listEvents"].description or "")

        result, heard = await streamed(client, "listEvents", {"limit": 3})
        events = [{"seq": i, "kind": "tick"} for i in range(3)]
        assert not result.is_error
        assert result.structured_content == {"items": events, "complete": True}
        assert heard == [(i + 1, None, event) for i, event in enumerate(events)]

        result, heard = await streamed(client, "liveEvents", {"limit": 2})
        ticks = [{"data": json.dumps({"seq": i}), "id": str(i), "event": "tick"} for i in range(2)]
        assert result.structured_content == {"items": ticks, "complete": True}
        assert [item for _, _, item in heard] == ticks

        result, heard = await streamed(client, "listRecords", {})
        assert result.structured_content == {"items": [{"seq": i, "kind": "rec"} for i in range(3)], "complete": True}
        assert len(heard) == 3

        # An endless event stream: five items (FEEDS_STREAM_MAX_ITEMS), then the connection is closed.
        result, heard = await streamed(client, "liveEvents", {"endless": True})
        assert not result.is_error and result.structured_content is not None
        assert len(result.structured_content["items"]) == len(heard) == 5
        assert result.structured_content["complete"] is False
        assert result.structured_content["note"].startswith("stopped after 5 items (the item limit)")


async def test_no_progress_token_no_progress_still_the_result(project: Path, feeds: FeedsUpstream,
                                                            log_dir: Path) -> None:
    async with connected(project, feeds, log_dir, "stdio", "legacy") as client:
        result = await client.call_tool("listEvents", {"limit": 2})
        assert result.structured_content == {"items": [{"seq": 0, "kind": "tick"}, {"seq": 1, "kind": "tick"}],
                                             "complete": True}


async def test_query_custom_method_and_querystring_reach_the_upstream(project: Path, feeds: FeedsUpstream,
                                                                     log_dir: Path) -> None:
    feeds.clear()
    async with connected(project, feeds, log_dir, "stdio", "legacy") as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == {"listEvents", "liveEvents", "listRecords", "searchEvents", "findEvents", "linkEvent"}
        assert tools["searchEvents"].annotations and tools["searchEvents"].annotations.read_only_hint is True
        searched = await client.call_tool("searchEvents", {"kind": "tick"})
        assert searched.structured_content == {"method": "QUERY", "kind": "tick"}
        found = await client.call_tool("findEvents", {"selector": {"kind": "a b", "after": 3}})
        assert found.structured_content == {"query": "kind=a%20b&after=3"}
        linked = await client.call_tool("linkEvent", {"seq": 5})
        assert not linked.is_error
    sent = [(r.method, r.path, r.query) for r in feeds.requests]
    assert sent == [("QUERY", "/v1/search", ""), ("GET", "/v1/find", "kind=a%20b&after=3"), ("LINK", "/v1/events/5",
                                                                                              "key=legacy")]
    assert feeds.requests[0].headers.get("x-api-key") == KEY


def test_the_generated_project_passes_mypy_strict_and_ruff(project: Path,
                                                           tmp_path_factory: pytest.TempPathFactory) -> None:
    """QUERY, LINK, a querystring and streamed results in the typed API (`operations`) too."""
    assert_mypy_strict_and_ruff(project, tmp_path_factory.mktemp("mypy-feeds"))


# -- TypeScript clients ------------------------------------------------------------------


@pytest.fixture(scope="module")
def node_ready() -> None:
    node()
    ensure_installed(package_path("@modelcontextprotocol/sdk", "package.json"),
                     package_path("@modelcontextprotocol/client", "package.json"))


TS_CALLS = [
    {"name": "listEvents", "arguments": {"limit": 3}, "progress": True},
    {"name": "liveEvents", "arguments": {"endless": True}, "progress": True},
]


@pytest.fixture(scope="module")
def http_url(project: Path, feeds: FeedsUpstream, log_dir: Path) -> Iterator[str]:
    with http_server(PACKAGE, env(project, feeds, FEEDS_STREAM_MAX_ITEMS="4"), log_dir / "feeds-ts.log") as port:
        yield f"http://127.0.0.1:{port}/mcp"


@pytest.mark.parametrize(("sdk", "target"), [("ts-v1", "stdio"), ("ts-v1", "http"), ("ts-v2", "stdio"),
                                             ("ts-v2", "http")])
def test_typescript_clients_see_each_item_as_progress(request: pytest.FixtureRequest, node_ready: None,
                                                      project: Path, feeds: FeedsUpstream, sdk: str,
                                                      target: str) -> None:
    where = stdio_target(PACKAGE) if target == "stdio" else [request.getfixturevalue("http_url")]
    report = run_client(sdk, TS_CALLS, where, env(project, feeds, FEEDS_STREAM_MAX_ITEMS="4"))
    calls = {entry["name"]: entry for entry in report["calls"]}
    assert all(entry["ok"] and not entry["isError"] for entry in calls.values()), report
    events = [{"seq": i, "kind": "tick"} for i in range(3)]
    assert calls["listEvents"]["progress"] == [1, 2, 3]
    assert [json.loads(m) for m in calls["listEvents"]["progressMessages"]] == events
    assert json.loads(calls["listEvents"]["texts"][0]) == {"items": events, "complete": True}
    assert calls["liveEvents"]["progress"] == [1, 2, 3, 4]  # endless upstream, FEEDS_STREAM_MAX_ITEMS=4
    live = json.loads(calls["liveEvents"]["texts"][0])
    assert len(live["items"]) == 4 and live["complete"] is False
