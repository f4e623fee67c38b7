"""A spec declaring no security scheme, with a logo, served against the real upstream:
every tool's four annotation hints, the server's and tools' icons, list cache hints and
`listChanged: false` arrive as declared in both protocol eras (Python `ClientSession`,
`Client(mode="legacy")`, `Client(mode="auto")`) and through the TypeScript clients; the
configured bearer token and headers reach the API and nothing else, redacted everywhere."""

from __future__ import annotations

import base64
import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client, ClientSession, StdioServerParameters, stdio_client
from mcp.client.stdio import get_default_environment
from mcp.client.streamable_http import streamable_http_client
from typer.testing import CliRunner

from mcpgen.cli import app
from tests.clients.harness import TS_PACKAGES, run_client, stdio_target
from tests.npm import ensure_installed

from .conftest import http_server
from .upstream import Upstream

PACKAGE = "nosec_mcp"
TOKEN = "ghp_e2eToken0123456789abcdef"
API_KEY = "key/e2e+secret-4567"
LOGO = "https://example.com/logo.png"
PNG = "data:image/png;base64," + base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 24).decode()
SPEC = {
    "openapi": "3.0.3",
    "info": {"title": "Nosec", "version": "1.0", "x-logo": {"url": LOGO, "altText": "logo"}},
    "servers": [{"url": "http://127.0.0.1:9/api/v3"}],
    "paths": {
        "/pet/{petId}": {
            "parameters": [{"name": "petId", "in": "path", "required": True, "schema": {"type": "integer"}}],
            "get": {"operationId": "getPetById", "tags": ["pet"], "responses": {"200": {"description": "ok"}}},
            "delete": {"operationId": "deletePet", "tags": ["pet"], "responses": {"204": {"description": "gone"}}},
        },
        "/pet": {"put": {"operationId": "updatePet", "tags": ["pet"], "responses": {"200": {"description": "ok"}}}},
        "/store/order": {
            "post": {"operationId": "placeOrder", "tags": ["store"], "responses": {"200": {"description": "ok"}}}
        },
        "/echo/headers": {
            "get": {"operationId": "echoHeaders", "responses": {"400": {"description": "echoes"}}}
        },
    },
}
TOML = f'''
[tools.getPetById]
icons = [{{ src = "{PNG}", sizes = ["16x16"] }}, {{ src = "http://example.com/insecure.png" }}]

[tools.echoHeaders]
annotations = {{ open_world = false }}
'''
EXPECTED_HINTS = {  # readOnly, destructive, idempotent, openWorld
    "getPetById": (True, False, True, True),
    "deletePet": (False, True, True, True),
    "updatePet": (False, True, True, True),
    "placeOrder": (False, True, False, True),
    "echoHeaders": (True, False, True, False),
}
STORE_ICON = {"src": "https://example.com/store.svg", "mimeType": "image/svg+xml", "theme": "light"}
EXPECTED_ICONS = {
    "getPetById": [{"src": PNG, "mimeType": "image/png", "sizes": ["16x16"]}],
    "placeOrder": [STORE_ICON],
}
SERVER_ICONS = [{"src": LOGO, "mimeType": "image/png"}]


def cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stderr


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    root = tmp_path_factory.mktemp("nosec")
    spec = root / "nosec.json"
    spec.write_text(json.dumps(SPEC))
    out = root / "nosec-mcp"
    code, generated = cli("from-openapi", str(spec), "-o", str(out))
    assert code == 0, generated
    config = out / "mcpgen.toml"
    text = config.read_text().replace(
        "# tag_icons = {", 'tag_icons = { store = [{ src = "https://example.com/store.svg", theme = "light" }] }\n#', 1
    )
    config.write_text(text + TOML)
    code, regenerated = cli("regenerate", str(out))
    assert code == 0, regenerated
    return out, generated, regenerated


def test_generation_warns_what_to_set(project: tuple[Path, str, str]) -> None:
    _, generated, regenerated = project
    for text in (generated, regenerated):
        assert "nosec.json declares no security scheme" in text and "NOSEC_BEARER_TOKEN" in text, text
        assert "NOSEC_HEADERS" in text
    assert "tools.getPetById.icons.1: icon refused: 'http://example.com/insecure.png'" in regenerated
    readme = (project[0] / "README.md").read_text()
    assert "NOSEC_BEARER_TOKEN" in readme and "NOSEC_HEADERS" in readme


def env(project: Path, upstream: Upstream, **extra: str) -> dict[str, str]:
    variables = dict(get_default_environment())
    variables.update(PYTHONPATH=str(project / "src"), PYTHONUNBUFFERED="1", NOSEC_BASE_URL=upstream.base_url, **extra)
    return variables


CREDENTIALS = {"NOSEC_BEARER_TOKEN": TOKEN, "NOSEC_HEADERS": f"X-Api-Key: {API_KEY}\nX-Api-Version: 2022-11-28"}


@asynccontextmanager
async def connected(era: str, variables: dict[str, str], errlog: Any) -> AsyncIterator[tuple[Any, Any]]:
    """(session or client, serverInfo) over stdio in one of three ways."""
    params = StdioServerParameters(command=sys.executable, args=["-m", PACKAGE], env=variables)
    if era == "session":
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            init = await session.initialize()
            yield session, init
    else:
        async with Client(stdio_client(params, errlog=errlog), mode=era, cache=None) as client:  # type: ignore[arg-type]
            yield client, client


def hints(annotations: Any) -> tuple[bool, bool, bool, bool]:
    return (annotations.read_only_hint, annotations.destructive_hint, annotations.idempotent_hint,
            annotations.open_world_hint)


def dumped(icons: Any) -> list[dict[str, Any]] | None:
    return [i.model_dump(by_alias=True, exclude_none=True) for i in icons] if icons else None


@pytest.mark.anyio
@pytest.mark.parametrize("era", ["session", "legacy", "auto"])
async def test_hints_icons_and_cache_hints_arrive(
    era: str, project: tuple[Path, str, str], upstream: Upstream, tmp_path: Path
) -> None:
    out = project[0]
    catalog = [entry["tool"]["name"] for entry in json.loads((out / "src" / PACKAGE / "tools.json").read_text())]
    with (tmp_path / "server.log").open("w") as errlog:
        async with connected(era, env(out, upstream), errlog) as (session, info):
            listed = await session.list_tools()
            again = await session.list_tools()
            if era == "session":
                server_info, capabilities, version = info.server_info, info.capabilities, info.protocol_version
            else:
                server_info, capabilities, version = info.server_info, info.server_capabilities, info.protocol_version
    assert version == ("2026-07-28" if era == "auto" else "2025-11-25")
    names = [t.name for t in listed.tools]
    assert names == catalog == [t.name for t in again.tools]  # the catalogue's order, every time
    for tool in listed.tools:
        assert hints(tool.annotations) == EXPECTED_HINTS[tool.name], tool.name
        assert dumped(tool.icons) == EXPECTED_ICONS.get(tool.name), tool.name
    assert dumped(server_info.icons) == SERVER_ICONS
    assert capabilities.tools is not None and capabilities.tools.list_changed is False
    if era == "auto":  # 2026-07-28 defines the cache hints; the handshake era has none to carry
        assert (listed.ttl_ms, listed.cache_scope) == (300_000, "public")


@pytest.mark.anyio
@pytest.mark.parametrize("era", ["session", "auto"])
async def test_configured_credentials_reach_the_api_redacted(
    era: str, project: tuple[Path, str, str], upstream: Upstream, tmp_path: Path
) -> None:
    log = tmp_path / "server.log"
    with log.open("w") as errlog:
        async with connected(era, env(project[0], upstream, **CREDENTIALS), errlog) as (session, _):
            ok = await session.call_tool("getPetById", {"petId": 1})
            echoed = await session.call_tool("echoHeaders", {})
    assert not ok.is_error, ok.content
    sent = [r for r in upstream.requests if r.path.endswith(("/pet/1", "/echo/headers"))]
    assert len(sent) == 2 and {r.path.split("/api/v3")[0] for r in sent} == {""}  # the API's base path only
    for request in sent:
        assert request.headers["authorization"] == f"Bearer {TOKEN}"
        assert request.headers["x-api-key"] == API_KEY and request.headers["x-api-version"] == "2022-11-28"
    text = echoed.content[0].text
    assert echoed.is_error and "HTTP 400" in text and "[redacted]" in text and "x-api-version" in text, text
    written = log.read_text()
    for secret in (TOKEN, API_KEY):
        assert secret not in text and secret not in written


def test_without_credentials_nothing_is_sent(project: tuple[Path, str, str], upstream: Upstream) -> None:
    report = run_client("py-handshake", [{"name": "getPetById", "arguments": {"petId": 1}}],
                        stdio_target(PACKAGE), env(project[0], upstream))
    assert report["calls"][0]["ok"] and not report["calls"][0]["isError"], report
    (request,) = [r for r in upstream.requests if r.path.endswith("/pet/1")]
    assert "authorization" not in request.headers and "x-api-key" not in request.headers


@pytest.mark.parametrize("sdk", ["ts-v1", "ts-v2"])
def test_typescript_clients_see_them(sdk: str, project: tuple[Path, str, str], upstream: Upstream) -> None:
    ensure_installed(*TS_PACKAGES)
    report = run_client(sdk, [], stdio_target(PACKAGE), env(project[0], upstream), details=True)
    assert report["listError"] is None, report
    tools = {t["name"]: t for t in report["toolDetails"]}
    assert [t["name"] for t in report["toolDetails"]] == list(EXPECTED_HINTS)
    for name, (read, destructive, idempotent, open_world) in EXPECTED_HINTS.items():
        assert tools[name]["annotations"] == {"readOnlyHint": read, "destructiveHint": destructive,
                                              "idempotentHint": idempotent, "openWorldHint": open_world}, name
        assert tools[name]["icons"] == EXPECTED_ICONS.get(name), name
    assert report["serverInfo"]["icons"] == SERVER_ICONS
    assert report["capabilities"]["tools"] == {"listChanged": False}
    # They speak the handshake era (2025-11-25), which defines no cache hints: none leak to them.
    assert report["listPage"] == {"ttlMs": None, "cacheScope": None}


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_over_http_a_token_server_keeps_its_lists_private(
    mode: str, project: tuple[Path, str, str], upstream: Upstream, tmp_path: Path
) -> None:
    """Streamable HTTP behind PREFIX_MCP_TOKEN: the same hints and icons; the lists are for token
    holders only, so a 2026-07-28 client is told `cacheScope: private`."""
    token = "mcp-token-for-the-e2e-test-0123"
    variables = env(project[0], upstream, NOSEC_MCP_TOKEN=token)
    with http_server(PACKAGE, variables, tmp_path / "http.log") as port:
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http,
            Client(streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http), mode=mode,  # type: ignore[arg-type]
                   cache=None) as client,
        ):
            listed = await client.list_tools()
            server_info, capabilities = client.server_info, client.server_capabilities
    assert {t.name: hints(t.annotations) for t in listed.tools} == EXPECTED_HINTS
    assert {t.name: dumped(t.icons) for t in listed.tools if t.icons} == EXPECTED_ICONS
    assert server_info is not None and dumped(server_info.icons) == SERVER_ICONS
    assert capabilities.tools is not None and capabilities.tools.list_changed is False
    if mode == "auto":
        assert (listed.ttl_ms, listed.cache_scope) == (300_000, "private")
