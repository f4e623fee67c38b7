"""tools/list on every client kind: names, titles, annotations and schemas valid for both eras."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
import yaml

from .conftest import PETSTORE, Connection

pytestmark = pytest.mark.anyio

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def spec_operations() -> dict[str, tuple[str, dict[str, Any]]]:
    """operationId -> (HTTP method, operation) straight from the sample spec."""
    spec = yaml.safe_load(PETSTORE.read_text())
    return {
        op["operationId"]: (method.upper(), op)
        for item in spec["paths"].values()
        for method, op in item.items()
        if method in HTTP_METHODS
    }


def walk(schema: Any, where: str = "#") -> list[tuple[str, dict[str, Any]]]:
    """Every sub-schema (dict) with its JSON pointer, $defs included."""
    found: list[tuple[str, dict[str, Any]]] = []
    if isinstance(schema, dict):
        found.append((where, schema))
        for key, value in schema.items():
            if key in ("enum", "const", "examples", "default", "required"):
                continue
            found.extend(walk(value, f"{where}/{key}"))
    elif isinstance(schema, list):
        for i, value in enumerate(schema):
            found.extend(walk(value, f"{where}/{i}"))
    return found


def is_array(schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    return kind == "array" or (isinstance(kind, list) and "array" in kind)


async def test_protocol_version(mcp: Connection) -> None:
    expected = "2026-07-28" if mcp.kind.endswith("modern") else "2025-11-25"
    assert mcp.protocol_version == expected


async def test_names_titles_and_annotations(mcp: Connection) -> None:
    tools = {t.name: t for t in (await mcp.list_tools()).tools}
    operations = spec_operations()
    assert sorted(tools) == sorted(operations)
    for name, (method, op) in operations.items():
        tool = tools[name]
        assert tool.title == op["summary"], name
        assert tool.description and op["summary"] in tool.description, name
        hints = tool.annotations
        assert hints is not None, name
        read = method in ("GET", "HEAD", "OPTIONS")
        expected = (read, not read, read or method in ("PUT", "DELETE"), True)  # all four, always stated
        got = (hints.read_only_hint, hints.destructive_hint, hints.idempotent_hint, hints.open_world_hint)
        assert got == expected, name


async def test_input_schemas_are_valid_for_both_eras(mcp: Connection) -> None:
    for tool in (await mcp.list_tools()).tools:
        schema = tool.input_schema
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["type"] == "object", tool.name
        assert not {"oneOf", "anyOf", "allOf", "not"} & schema.keys(), tool.name
        for where, sub in walk(schema):
            if is_array(sub):
                assert "items" in sub or "prefixItems" in sub, f"{tool.name} {where}: array without items"


async def test_output_schemas_have_object_roots(mcp: Connection) -> None:
    tools = {t.name: t for t in (await mcp.list_tools()).tools}
    for tool in tools.values():
        if tool.output_schema is not None:
            jsonschema.Draft202012Validator.check_schema(tool.output_schema)
            assert tool.output_schema["type"] == "object", tool.name
    # JSON-array responses are wrapped as {"result": [...]}; binary/text/204 ones declare none.
    listing = tools["findPetsByStatus"].output_schema
    assert listing is not None and "required" not in listing  # `{}` validates: the conformer's last resort
    assert listing["properties"]["result"]["type"] == "array"  # relaxed: no bounds, no required, no enums
    for name in ("getPetPhoto", "addPetNote", "deletePet", "resetStore"):
        assert tools[name].output_schema is None, name


async def test_same_listing_on_every_client(
    conn_stdio_handshake: Connection,
    conn_stdio_modern: Connection,
    conn_http_modern: Connection,
    conn_http_legacy: Connection,
) -> None:
    """The wire tool objects do not depend on the era or the transport."""
    listings = []
    for conn in (conn_stdio_handshake, conn_stdio_modern, conn_http_modern, conn_http_legacy):
        tools = (await conn.list_tools()).tools
        listings.append([t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools])
    assert all(listing == listings[0] for listing in listings[1:])
    assert len(listings[0]) == len(spec_operations())
