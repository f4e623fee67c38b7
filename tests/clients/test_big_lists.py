"""A catalogue too big for fixed pages of 25 lists completely in every client.

TypeScript clients (`@modelcontextprotocol/client` 2.x, the Inspector) stop after 64 pages:
at 25 tools a page that was a 1,600-tool ceiling (Microsoft Graph has 11,412 operations).
The server widens its pages to fit 48, and bounds each in bytes; mcpgen counts the same
pages at generation (`mcpgen.lint.page_count`) and warns past 64. These 2,500 tools would fit
the one-page budget (`PREFIX_ONE_PAGE_BYTES`), so the server runs with it off: paged lists
are what this proves.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcpgen.api import generate_openapi
from mcpgen.clients.lint import page_count
from mcpgen.diagnostics import Level
from mcpgen.options import Options
from mcpgen.runtime.paging import PAGES_TARGET
from tests.e2e.conftest import http_server, server_env

from .harness import inspector, portability, run_client

TOOLS = 2_500  # over 64 pages of 25
PACKAGE = "many_mcp"


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("many")
    item = {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}}
    paths = {
        f"/things/{i}": {"get": {
            "operationId": f"getThing{i}", "summary": f"Thing number {i}",
            "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": item}}}},
        }}
        for i in range(TOOLS)
    }
    spec = work / "many.json"
    spec.write_text(json.dumps({"openapi": "3.0.3", "info": {"title": "Many", "version": "1"},
                                "servers": [{"url": "http://127.0.0.1:9"}], "paths": paths}))
    result = generate_openapi(spec, Options(output=work / "many-mcp", force=True, models=False))
    assert not [d for d in result.diagnostics if "pages" in d.message and d.level is Level.WARNING]
    return work / "many-mcp"


@pytest.fixture(scope="module")
def url(many: Path, tmp_path_factory: pytest.TempPathFactory, ts_clients: None) -> Iterator[str]:
    env = server_env(many, MANY_ONE_PAGE_BYTES="0")
    with http_server(PACKAGE, env, tmp_path_factory.mktemp("many-log") / "http.log") as port:
        yield f"http://127.0.0.1:{port}/mcp"


def test_generation_counts_the_pages_the_server_serves(many: Path, url: str) -> None:
    sizes = [len(json.dumps(entry["tool"], ensure_ascii=False))
             for entry in json.loads((many / "src" / PACKAGE / "tools.json").read_text())]
    report = run_client("py-handshake", [], [url], server_env(many))
    assert report["tools"] == TOOLS and report["pages"] == page_count(sizes, 25, one_page_bytes=0) == PAGES_TARGET
    assert page_count(sizes, 25) == 1  # with the default budget: one page


@pytest.mark.parametrize("client", ["ts-v1", "ts-v2"])
def test_typescript_clients_list_every_tool(many: Path, url: str, client: str) -> None:
    report = run_client(client, [{"name": "getThing2499", "arguments": {}}], [url], server_env(many))
    assert report["listError"] is None, report["listError"]
    assert report["tools"] == TOOLS
    (call,) = report["calls"]
    assert call["error"] is None and call["isError"], call  # the upstream is unreachable: an isError result


def test_inspector_lists_every_tool(url: str, tmp_path: Path) -> None:
    run = inspector([url, "--method", "tools/list", "--strict"], tmp_path / "catalog.json")
    assert run.returncode == 0, run.stderr[-2000:]
    assert len(json.loads(run.stdout)["tools"]) == TOOLS
    assert portability(run) == (0, 0)
