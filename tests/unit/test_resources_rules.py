"""Which GET operations `--resources` turns into resources or templates, and their URIs."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest

from mcpgen.api import build_openapi
from mcpgen.options import Options
from mcpgen.rendering.render import resource_entry
from mcpgen.transforms import resources

SPEC = {
    "openapi": "3.0.3",
    "info": {"title": "Shop", "version": "1"},
    "paths": {
        "/status": {"get": {"operationId": "status", "responses": {"200": {"description": "ok"}}}},
        "/items": {"get": {"operationId": "listItems", "parameters": [
            {"name": "limit", "in": "query", "schema": {"type": "integer"}}], "responses": {"200": {"description": "ok"}}}},
        "/items/{item-id}/files/{name}.json": {"get": {"operationId": "itemFile", "parameters": [
            {"name": "item-id", "in": "path", "required": True, "schema": {"type": "string"}},
            {"name": "name", "in": "path", "required": True, "schema": {"type": "string", "enum": ["a", "b"]}}],
            "responses": {"200": {"description": "ok"}}}},
        "/search": {"get": {"operationId": "search", "parameters": [
            {"name": "q", "in": "query", "required": True, "schema": {"type": "string"}}], "responses": {"200": {"description": "ok"}}}},
        "/auth": {"get": {"operationId": "whoAmI", "parameters": [
            {"name": "X-Token", "in": "header", "required": True, "schema": {"type": "string"}}], "responses": {"200": {"description": "ok"}}}},
        "/items/{id}": {"delete": {"operationId": "deleteItem", "parameters": [
            {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}], "responses": {"204": {"description": "ok"}}}},
    },
}


@pytest.fixture
def derived(tmp_path: Path) -> dict[str, Any]:
    spec = tmp_path / "shop.json"
    spec.write_text(json.dumps(SPEC))
    project, _ = build_openapi(spec, Options())
    out, notes = resources.derive(project)
    assert "2 resources and 1 resource templates under shop://" in notes[0].message
    return {r.name: r for r in out.resources}


def test_eligible_operations(derived: dict[str, Any]) -> None:
    # Required query/header arguments and non-GET methods are never resources.
    assert sorted(derived) == ["itemFile", "listItems", "status"]


def test_uris_and_templates(derived: dict[str, Any]) -> None:
    assert derived["status"].uri == "shop://status"
    assert derived["listItems"].uri == "shop://items"
    item = derived["itemFile"]
    assert item.uri_template == "shop://items/{item_id}/files/{name}.json"  # RFC 6570 varnames
    assert item.variables == (("item_id", "item-id"), ("name", "name"))
    assert item.completions == (("name", ("a", "b")),)
    found = re.fullmatch(item.uri_pattern, "shop://items/x%2Fy/files/b.json")
    assert found is not None and found.groups() == ("x%2Fy", "b")
    assert re.fullmatch(item.uri_pattern, "shop://items/x/y/files/b.json") is None


@pytest.mark.parametrize(("name", "scheme"), [("petstore", "petstore"), ("d&d-5e", "d-d-5e"), ("9lives", "mcp-9lives"), ("", "mcp")])
def test_scheme(name: str, scheme: str) -> None:
    assert resources.scheme(name) == scheme


def test_template_variables_carry_their_parameter_schemas(derived: dict[str, Any]) -> None:
    """resources/read checks each variable against its parameter's schema before sending."""
    item = derived["itemFile"]
    assert item.schemas == (("item_id", {"type": "string"}), ("name", {"type": "string", "enum": ["a", "b"]}))
    entry = resource_entry(item)
    assert entry["schemas"] == {"item_id": {"type": "string"}, "name": {"type": "string", "enum": ["a", "b"]}}
    assert "schemas" not in resource_entry(derived["status"])  # a fixed URI has no variables


def test_read_only_follows_the_operations_tool(derived: dict[str, Any], tmp_path: Path) -> None:
    """PREFIX_READ_ONLY=1 keeps a resource exactly when it keeps the operation's tool."""
    assert derived["status"].read_only and resource_entry(derived["status"])["readOnly"] is True
    spec = tmp_path / "shop.json"
    spec.write_text(json.dumps(SPEC))
    project, _ = build_openapi(spec, Options())
    touched = tuple(
        dataclasses.replace(t, annotations=dataclasses.replace(t.annotations, read_only=False))
        if t.name == "status" else t
        for t in project.tools
    )
    out, _ = resources.derive(dataclasses.replace(project, tools=touched))
    (status,) = [r for r in out.resources if r.name == "status"]
    assert not status.read_only and resource_entry(status)["readOnly"] is False
