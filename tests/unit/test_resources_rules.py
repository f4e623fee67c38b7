"""Which GET operations `--resources` turns into resources or templates, and their URIs."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from mcpgen.api import build_openapi
from mcpgen.options import Options
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
