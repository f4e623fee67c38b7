"""Failures on every client kind: each is a tool result with isError (or, for an unknown
tool, a JSON-RPC error), never a crash; bad input never reaches the upstream."""

from __future__ import annotations

import json

import pytest
from mcp import MCPError, types

from .conftest import TIMEOUT, Connection
from .upstream import Upstream

pytestmark = pytest.mark.anyio


def error_text(result: types.CallToolResult) -> str:
    assert result.is_error, result
    assert result.content and all(c.type == "text" for c in result.content), result.content
    return "\n".join(c.text for c in result.content)  # type: ignore[union-attr]


async def test_upstream_404(mcp: Connection, upstream: Upstream) -> None:
    result = await mcp.call_tool("getPetById", {"petId": 404})
    text = error_text(result)
    assert "404" in text and "Not Found" in text
    assert "no route for GET /pet/404" in text  # the upstream's body
    # No structuredContent: TypeScript clients validate it against outputSchema even on errors.
    assert result.structured_content is None
    assert len(upstream.take()) == 1


async def test_upstream_500_body_is_truncated(mcp: Connection, upstream: Upstream) -> None:
    text = error_text(await mcp.call_tool("getPetById", {"petId": 500}))
    assert "500" in text and "boom" in text
    assert len(text) < 3000  # the 10 000-character body is cut
    assert len(upstream.take()) == 1


async def test_result_breaking_the_output_schema(mcp: Connection, upstream: Upstream) -> None:
    """A body that strays from the declared schema still arrives, as a result the client
    accepts (it validates structuredContent itself): the text carries the body as received,
    structuredContent leaves out the mismatching member, a note says what did not match."""
    result = await mcp.call_tool("getPetById", {"petId": 7})
    assert not result.is_error, result.content
    assert json.loads(result.content[0].text) == {"id": "seven"}
    assert result.structured_content == {}
    note = result.content[1].text
    assert "does not match the tool's declared output schema" in note and "$.id: 'seven'" in note
    assert len(upstream.take()) == 1


@pytest.mark.parametrize(
    ("order_id", "expected"),
    [(13, "invalid JSON"), (15, "expected JSON, got text/html")],
)
async def test_json_tool_without_json(mcp: Connection, upstream: Upstream, order_id: int, expected: str) -> None:
    """A tool that declares an outputSchema but gets no usable JSON fails clearly."""
    text = error_text(await mcp.call_tool("getOrderById", {"orderId": order_id}))
    assert expected in text
    assert len(upstream.take()) == 1


async def test_json_tool_with_an_empty_success(mcp: Connection, upstream: Upstream) -> None:
    """An empty 2xx body (here a 204) is a success whatever the spec declares: an error would have the model
    retry a call that worked. structuredContent is `{}` when the output schema accepts it."""
    result = await mcp.call_tool("getOrderById", {"orderId": 14})
    assert not result.is_error, result.content
    assert result.content[0].text == "HTTP 204 No Content: done; the API returned no content."
    assert len(upstream.take()) == 1


@pytest.mark.parametrize(
    ("tool", "arguments", "fields"),
    [
        ("getPetById", {"petId": "one"}, ["petId"]),
        ("getPetById", {}, ["petId"]),
        ("placeOrder", {"petId": "x", "quantity": 0, "coupon": "FREE"}, ["petId", "quantity", "coupon"]),
        ("findPetsByStatus", {"status": ["lost"], "limit": 1000}, ["status.0", "limit"]),
        ("addPet", {"name": 5}, ["name", "photoUrls"]),
        ("addPetNote", {"petId": 1, "body": "x" * 2001}, ["body"]),
        ("getOrderById", {"orderId": 0}, ["orderId"]),
    ],
)
async def test_bad_arguments_name_each_field_and_send_nothing(
    mcp: Connection, upstream: Upstream, tool: str, arguments: dict[str, object], fields: list[str]
) -> None:
    text = error_text(await mcp.call_tool(tool, arguments))
    assert text.startswith("Invalid arguments")
    for field in fields:
        assert field in text, (field, text)
    assert upstream.take() == []


async def test_bad_header_values(mcp: Connection, upstream: Upstream) -> None:
    for reason in ("a\r\nX-Injected: 1", "a\nb", "a\rb", "nul\0", "café"):
        text = error_text(await mcp.call_tool("deletePet", {"petId": 1, "X-Reason": reason}))
        assert "X-Reason" in text
    assert upstream.take() == []


async def test_empty_path_value(mcp: Connection, upstream: Upstream) -> None:
    """An empty segment would turn /categories/{id} into /categories/, another resource."""
    text = error_text(await mcp.call_tool("getCategory", {"id": ""}))
    assert text.startswith("Invalid arguments") and "id" in text
    assert upstream.take() == []


async def test_cross_origin_redirect_is_not_followed(mcp: Connection, upstream: Upstream) -> None:
    """Following it would send the api_key header to another host."""
    text = error_text(await mcp.call_tool("getPetById", {"petId": 302}))
    assert "redirected to another origin" in text and "localhost" in text
    assert [r.path for r in upstream.take()] == ["/api/v3/pet/302"]  # nothing reached localhost


async def test_unknown_tool_is_a_protocol_error(mcp: Connection, upstream: Upstream) -> None:
    with pytest.raises(MCPError) as caught:
        await mcp.call_tool("noSuchTool", {})
    assert caught.value.code == types.INVALID_PARAMS
    assert "noSuchTool" in caught.value.message
    assert upstream.take() == []


@pytest.mark.parametrize("mcp", ["stdio-handshake", "http-modern"], indirect=True)  # one per transport
async def test_timeout(mcp: Connection, upstream: Upstream) -> None:
    text = error_text(await mcp.call_tool("getPetById", {"petId": 999}))
    assert "timeout" in text.lower() and TIMEOUT in text
    assert len(upstream.take()) == 1
