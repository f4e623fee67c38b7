"""`--resources`, end to end in both eras: list (paginated), templates, reads against the
real upstream (JSON, text, binary -> blob, percent-encoded variables, 404), completion."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, MCPError, types

from mcpgen.api import generate_openapi
from mcpgen.options import Options

from . import upstream as canned
from .conftest import PACKAGE, PETSTORE, server_env, shared_env
from .test_big_servers import ERAS, connect
from .upstream import Upstream

pytestmark = pytest.mark.anyio

COMPLETION_SPEC = {
    "openapi": "3.0.3",
    "info": {"title": "Shelves", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {
        "/shelves/{shelf}/books/{bookId}": {
            "get": {
                "operationId": "getBook",
                "parameters": [
                    {"name": "shelf", "in": "path", "required": True,
                     "schema": {"type": "string", "enum": ["fiction", "fantasy", "facts", "poetry"]}},
                    {"name": "bookId", "in": "path", "required": True, "schema": {"type": "integer"}},
                ],
                "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}},
            }
        },
        "/search": {
            "get": {
                "operationId": "search",
                "parameters": [{"name": "q", "in": "query", "required": True, "schema": {"type": "string"}}],
                "responses": {"200": {"description": "ok"}},
            }
        },
    },
}


@pytest.fixture(scope="module")
def with_resources(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("resources") / "petstore-mcp"
    generate_openapi(PETSTORE, Options(output=out, force=True, resources=True, page_size=4))
    return out


async def all_pages(session: Any, method: str, field: str) -> list[Any]:
    items, cursor = [], None
    while True:
        if isinstance(session, ClientSession):
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            page = await getattr(session, method)(params=params)
        else:
            page = await getattr(session, method)(cursor=cursor)
        items += getattr(page, field)
        if (cursor := page.next_cursor) is None:
            return items


async def read(session: Any, uri: str) -> list[Any]:
    result = await session.read_resource(uri)
    return list(result.contents)


@pytest.mark.parametrize("era", ERAS)
async def test_lists_resources_and_templates(era: str, with_resources: Path, upstream: Upstream) -> None:
    async with connect(PACKAGE, era, shared_env(with_resources, upstream)) as session:
        fixed = await all_pages(session, "list_resources", "resources")
        templates = await all_pages(session, "list_resource_templates", "resource_templates")
        first = await session.list_resource_templates()
    assert {(r.name, str(r.uri)) for r in fixed} == {
        ("findPetsByStatus", "petstore://pet/findByStatus"),
        ("getInventory", "petstore://store/inventory"),
    }
    assert {(t.name, t.uri_template) for t in templates} == {
        ("getPetById", "petstore://pet/{petId}"),
        ("getPetPhoto", "petstore://pet/{petId}/photo"),
        ("getOrderById", "petstore://store/order/{orderId}"),
        ("getCategory", "petstore://categories/{id}"),
    }
    assert len(first.resource_templates) == 4 and first.next_cursor is None  # page size 4, 4 templates
    inventory = next(r for r in fixed if r.name == "getInventory")
    assert inventory.mime_type == "application/json" and inventory.title == "Returns pet inventories by status"


@pytest.mark.parametrize("era", ERAS)
async def test_reads_perform_the_request(era: str, with_resources: Path, upstream: Upstream) -> None:
    async with connect(PACKAGE, era, shared_env(with_resources, upstream)) as session:
        (inventory,) = await read(session, "petstore://store/inventory")
        (pet,) = await read(session, "petstore://pet/1")
        (photo,) = await read(session, "petstore://pet/1/photo")
        (words,) = await read(session, "petstore://pet/4/photo")
        (category,) = await read(session, "petstore://categories/a%20b%2Fc")
        with pytest.raises(MCPError) as missing:
            await read(session, "petstore://pet/2")
        with pytest.raises(MCPError) as unknown:
            await read(session, "petstore://nowhere/1")
    assert inventory.mime_type == "application/json" and json.loads(inventory.text) == canned.INVENTORY
    assert json.loads(pet.text) == canned.PET_1 and str(pet.uri) == "petstore://pet/1"
    assert isinstance(photo, types.BlobResourceContents) and photo.mime_type == "image/png"
    assert base64.b64decode(photo.blob) == canned.PNG
    assert words.mime_type == "text/plain" and words.text == "no photo yet, only words"
    assert json.loads(category.text)["id"] == "a b/c"  # one path segment, decoded, re-encoded upstream
    paths = [r.path for r in upstream.take()]
    assert "/api/v3/categories/a%20b%2Fc" in paths and "/api/v3/store/inventory" in paths
    assert missing.value.error.code == unknown.value.error.code == -32002


@pytest.mark.parametrize("era", ERAS)
async def test_completion_of_enum_template_arguments(era: str, tmp_path: Path) -> None:
    spec = tmp_path / "shelves.json"
    spec.write_text(json.dumps(COMPLETION_SPEC))
    out = tmp_path / "shelves-mcp"
    result = generate_openapi(spec, Options(output=out, force=True, resources=True))
    assert [r.uri_template for r in result.project.resources] == ["shelves://shelves/{shelf}/books/{bookId}"]
    async with connect(result.project.package, era, server_env(out)) as session:
        ref = types.ResourceTemplateReference(type="ref/resource", uri="shelves://shelves/{shelf}/books/{bookId}")
        f_values = await session.complete(ref, {"name": "shelf", "value": "f"})
        none = await session.complete(ref, {"name": "bookId", "value": "1"})
        # The spec's completion errors: an unknown prompt or template is invalid params (-32602).
        with pytest.raises(MCPError, match="No prompt or resource template"):
            await session.complete(
                types.ResourceTemplateReference(type="ref/resource", uri="shelves://elsewhere/{x}"),
                {"name": "x", "value": ""},
            )
    assert f_values.completion.values == ["fiction", "fantasy", "facts"]
    assert f_values.completion.total == 3 and not f_values.completion.has_more
    assert none.completion.values == []
