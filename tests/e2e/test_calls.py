"""Successful tool calls on every client kind, checked on both ends: the MCP result and the
HTTP request the upstream received."""

from __future__ import annotations

import base64
import json
from typing import Any

import jsonschema
import pytest

from . import upstream as canned
from .conftest import ADMIN_PASSWORD, ADMIN_USER, API_KEY, Connection
from .upstream import Recorded, Upstream

pytestmark = pytest.mark.anyio


def only_request(upstream: Upstream) -> Recorded:
    received = upstream.take()
    assert len(received) == 1, received
    request = received[0]
    assert request.headers.get("api_key") == API_KEY or request.path.endswith("/admin/reset")
    return request


async def output_schema(mcp: Connection, name: str) -> dict[str, Any]:
    tools = {t.name: t for t in (await mcp.list_tools()).tools}
    schema: dict[str, Any] | None = tools[name].output_schema
    assert schema is not None, name
    return schema


async def call_json(mcp: Connection, name: str, arguments: dict[str, Any]) -> Any:
    """Call a JSON tool; check structuredContent against outputSchema and the text mirror.

    Returns the JSON value as the upstream sent it (unwrapped from {"result": ...})."""
    result = await mcp.call_tool(name, arguments)
    assert not result.is_error, result.content
    structured = result.structured_content
    assert isinstance(structured, dict)
    jsonschema.Draft202012Validator(await output_schema(mcp, name)).validate(structured)
    assert len(result.content) == 1 and result.content[0].type == "text"
    mirrored = json.loads(result.content[0].text)
    if set(structured) == {"result"} and isinstance(structured["result"], list):
        assert mirrored == structured["result"]
        return mirrored
    assert mirrored == structured
    return mirrored


async def test_get_json_object(mcp: Connection, upstream: Upstream) -> None:
    pet = await call_json(mcp, "getPetById", {"petId": 1})
    assert pet == canned.PET_1
    request = only_request(upstream)
    assert (request.method, request.path, request.query, request.body) == ("GET", "/api/v3/pet/1", "", b"")


async def test_same_origin_redirect_is_followed(mcp: Connection, upstream: Upstream) -> None:
    assert await call_json(mcp, "getPetById", {"petId": 301}) == canned.PET_1
    received = upstream.take()
    assert [r.path for r in received] == ["/api/v3/pet/301", "/api/v3/pet/1"]
    assert all(r.headers.get("api_key") == API_KEY for r in received)


async def test_integral_number_in_path(mcp: Connection, upstream: Upstream) -> None:
    """JSON 1.0 is a valid integer; it must not become /pet/1.0."""
    assert await call_json(mcp, "getPetById", {"petId": 1.0}) == canned.PET_1
    assert only_request(upstream).path == "/api/v3/pet/1"


async def test_json_array_is_wrapped(mcp: Connection, upstream: Upstream) -> None:
    result = await mcp.call_tool("findPetsByStatus", {"status": ["available", "sold"], "limit": 5})
    assert result.structured_content == {"result": [canned.PET_1, canned.PET_2]}
    assert json.loads(result.content[0].text) == [canned.PET_1, canned.PET_2]
    request = only_request(upstream)
    assert request.path == "/api/v3/pet/findByStatus"
    assert request.query == "status=available&status=sold&limit=5"  # form + explode (the default)


async def test_query_array_explode_false(mcp: Connection, upstream: Upstream) -> None:
    pets = await call_json(mcp, "findPetsByTags", {"tags": ["a b", "c,d", "é"]})
    assert pets == [canned.PET_1]
    request = only_request(upstream)
    # explode: false -> one comma-joined value; the value's own comma is percent-encoded
    assert request.query in ("tags=a%20b%2Cc%2Cd%2C%C3%A9", "tags=a+b%2Cc%2Cd%2C%C3%A9"), request.query


async def test_optional_query_omitted(mcp: Connection, upstream: Upstream) -> None:
    await call_json(mcp, "findPetsByStatus", {})
    assert only_request(upstream).query == ""


async def test_object_without_properties(mcp: Connection, upstream: Upstream) -> None:
    assert await call_json(mcp, "getInventory", {}) == canned.INVENTORY
    assert only_request(upstream).path == "/api/v3/store/inventory"


async def test_path_value_cannot_change_the_target(mcp: Connection, upstream: Upstream) -> None:
    cases = [("../x?y", "..%2Fx%3Fy"), ("a/b#c", "a%2Fb%23c"), ("sp ace", "sp%20ace"), ("..", "%2E%2E"), (".", "%2E")]
    for raw, encoded in cases:
        category = await call_json(mcp, "getCategory", {"id": raw})
        assert category["id"] == raw
        request = only_request(upstream)
        assert (request.path, request.query) == (f"/api/v3/categories/{encoded}", ""), raw


async def test_json_body_from_flattened_arguments(mcp: Connection, upstream: Upstream) -> None:
    pet = {"name": "Rex", "photoUrls": ["u1"], "status": "pending", "category": {"id": "dogs", "name": "Dogs"}}
    created = await call_json(mcp, "addPet", pet)
    assert created == {**pet, "id": 10}
    request = only_request(upstream)
    assert (request.method, request.path) == ("POST", "/api/v3/pet")
    assert request.headers["content-type"].startswith("application/json")
    assert request.json() == pet


async def test_put_body(mcp: Connection, upstream: Upstream) -> None:
    await call_json(mcp, "updatePet", {"name": "Rex", "photoUrls": [], "birthday": None})
    request = only_request(upstream)
    assert request.method == "PUT"
    assert request.json() == {"name": "Rex", "photoUrls": [], "birthday": None}


async def test_order_body_and_defaults_not_invented(mcp: Connection, upstream: Upstream) -> None:
    order = await call_json(mcp, "placeOrder", {"petId": 1, "quantity": 2, "shipDate": "2024-05-01T10:00:00Z"})
    assert order["id"] == 42
    assert only_request(upstream).json() == {"petId": 1, "quantity": 2, "shipDate": "2024-05-01T10:00:00Z"}
    assert (await call_json(mcp, "getOrderById", {"orderId": 5}))["id"] == 5
    assert only_request(upstream).path == "/api/v3/store/order/5"


async def test_delete_204_header_and_short_text(mcp: Connection, upstream: Upstream) -> None:
    result = await mcp.call_tool("deletePet", {"petId": 1, "X-Reason": "adopted"})
    assert not result.is_error
    assert result.structured_content is None
    assert [c.type for c in result.content] == ["text"]
    assert "204" in result.content[0].text and len(result.content[0].text) < 100
    request = only_request(upstream)
    assert (request.method, request.path) == ("DELETE", "/api/v3/pet/1")
    assert request.headers["x-reason"] == "adopted"


async def test_text_plain_body_and_text_result(mcp: Connection, upstream: Upstream) -> None:
    result = await mcp.call_tool("addPetNote", {"petId": 3, "body": "likes walks\nand naps ✓"})
    assert not result.is_error
    assert [(c.type, c.text) for c in result.content] == [("text", "note stored: likes walks\nand naps ✓")]
    request = only_request(upstream)
    assert (request.method, request.path) == ("POST", "/api/v3/pet/3/notes")
    assert request.headers["content-type"].startswith("text/plain")
    assert request.body == "likes walks\nand naps ✓".encode()


async def test_cookie_and_basic_auth(mcp: Connection, upstream: Upstream) -> None:
    result = await mcp.call_tool("resetStore", {"confirm": True})
    assert not result.is_error, result.content
    request = only_request(upstream)
    assert (request.method, request.path) == ("POST", "/api/v3/admin/reset")
    assert request.headers["cookie"] == "confirm=true"
    token = base64.b64encode(f"{ADMIN_USER}:{ADMIN_PASSWORD}".encode()).decode()
    assert request.headers["authorization"] == f"Basic {token}"
    assert "api_key" not in request.headers  # this operation's security is adminAuth only


@pytest.mark.parametrize(
    ("pet_id", "kind", "mime", "data"),
    [
        (1, "image", "image/png", canned.PNG),
        (2, "audio", "audio/wav", canned.WAV),
        (3, "resource", "application/pdf", canned.PDF),
    ],
)
async def test_binary_results(
    mcp: Connection, upstream: Upstream, pet_id: int, kind: str, mime: str, data: bytes
) -> None:
    result = await mcp.call_tool("getPetPhoto", {"petId": pet_id})
    assert not result.is_error, result.content
    assert result.structured_content is None
    [content] = result.content
    assert content.type == kind
    if kind == "resource":
        assert content.resource.mime_type == mime
        assert base64.b64decode(content.resource.blob) == data
        assert str(content.resource.uri).endswith(f"/api/v3/pet/{pet_id}/photo")
    else:
        assert content.mime_type == mime
        assert base64.b64decode(content.data) == data
    assert only_request(upstream).path == f"/api/v3/pet/{pet_id}/photo"


async def test_text_response_where_binary_was_declared(mcp: Connection, upstream: Upstream) -> None:
    result = await mcp.call_tool("getPetPhoto", {"petId": 4})
    assert not result.is_error
    assert [(c.type, c.text) for c in result.content] == [("text", "no photo yet, only words")]
    only_request(upstream)
