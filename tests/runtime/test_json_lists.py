"""JsonLists: a list request's SSE answer becomes one JSON body (the Python SDK's 2.x client
refuses an event over 1 MiB); everything else passes through untouched. The real client over
real HTTP is in tests/clients/test_client_matrix.py (github-http-py-handshake: 3.35 MB)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcpgen.runtime.json_lists import PEEK_BYTES, JsonLists

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


SSE = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache"), (b"mcp-session-id", b"s1")]


def sse_app(events: list[bytes], headers: list[tuple[bytes, bytes]] = SSE, status: int = 200) -> Any:
    """An ASGI app that reads the whole body, then answers `events`, one body message each."""
    seen: list[bytes] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        body, more = b"", True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        seen.append(body)
        await send({"type": "http.response.start", "status": status, "headers": headers})
        for event in events:
            await send({"type": "http.response.body", "body": event, "more_body": True})
        await send({"type": "http.response.body", "body": b""})

    app.seen = seen  # type: ignore[attr-defined]
    return app


async def post(app: Any, body: bytes, chunk: int = 0) -> tuple[list[dict[str, Any]], Any]:
    pieces = [body[i : i + chunk] for i in range(0, len(body), chunk)] if chunk else [body]
    incoming = [{"type": "http.request", "body": p, "more_body": i < len(pieces) - 1} for i, p in enumerate(pieces)]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return incoming.pop(0) if incoming else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await JsonLists(app)({"type": "http", "method": "POST", "path": "/mcp"}, receive, send)
    return sent, app


def request(method: str, id_: Any = 1) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": id_, "method": method}).encode()


def answer(id_: Any, size: int = 10) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": id_, "result": {"tools": [{"name": "x" * size}]}}).encode()


@pytest.mark.parametrize("method", ["tools/list", "resources/list", "resources/templates/list", "prompts/list"])
async def test_a_list_answer_is_one_json_body(method: str) -> None:
    big = answer(7, 3_000_000)  # past the 2.x client's 1 MiB event limit
    events = [b"id: p1\ndata: \n\n", b": ping\n\n", b"event: message\ndata: " + big + b"\n\n"]
    sent, app = await post(sse_app(events), request(method, 7))
    start, body = sent
    headers = dict(start["headers"])
    assert start["status"] == 200 and headers[b"content-type"] == b"application/json"
    assert headers[b"content-length"] == str(len(big)).encode() and headers[b"mcp-session-id"] == b"s1"
    assert b"cache-control" not in headers
    assert body == {"type": "http.response.body", "body": big}
    assert app.seen == [request(method, 7)]  # the SDK read the body as it came


async def test_an_answer_split_across_body_messages_and_lines() -> None:
    data = answer("a")
    half = len(data) // 2
    events = [b"event: message\r\ndata: " + data[:half], b"\r\ndata: " + data[half:] + b"\r\n\r\n"]
    sent, _ = await post(sse_app(events), request("tools/list", "a"), chunk=5)
    assert json.loads(sent[1]["body"]) == json.loads(data[:half] + b"\n" + data[half:])


@pytest.mark.parametrize(
    "body",
    [
        request("tools/call"),
        request("tools/list", None),
        b"not json",
        b"[" + request("tools/list") + b"]",
        b"[" * 30_000 + b"]" * 30_000,
        b'{"jsonrpc": "2.0", "id": 1, "method": [{"a": 1}]}',
    ],
    ids=["a call", "a notification", "not JSON", "a batch", "nesting past the recursion limit", "a method no string"],
)
async def test_other_requests_stream_as_they_came(body: bytes) -> None:
    events = [b"data: " + answer(1) + b"\n\n"]
    sent, _ = await post(sse_app(events), body)
    assert sent[0]["headers"] == SSE and [m.get("body") for m in sent[1:]] == [*events, b""]


async def test_a_big_body_is_streamed_on_unread() -> None:
    padded = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"x": "y" * 2 * PEEK_BYTES}})
    sent, app = await post(sse_app([b"data: " + answer(1) + b"\n\n"]), padded.encode(), chunk=1000)
    assert sent[0]["headers"] == SSE and app.seen == [padded.encode()]


async def test_json_answers_and_errors_pass_through() -> None:
    json_headers = [(b"content-type", b"application/json")]
    sent, _ = await post(sse_app([answer(1)], json_headers), request("tools/list"))
    assert sent[0]["headers"] == json_headers and sent[1]["body"] == answer(1)
    sent, _ = await post(sse_app([b"denied"], [(b"content-type", b"text/plain")], 401), request("tools/list"))
    assert sent[0]["status"] == 401 and sent[1]["body"] == b"denied"


async def test_a_stream_without_the_answer_is_sent_as_it_was() -> None:
    events = [b"data: " + answer(2) + b"\n\n"]  # another id
    sent, _ = await post(sse_app(events), request("tools/list", 1))
    assert sent[0]["headers"] == SSE and b"".join(m["body"] for m in sent[1:]) == events[0]
