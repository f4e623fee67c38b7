"""Streamed (OpenAPI 3.2 sequential) responses and `querystring` parameters through
`upstream.send`, against a real HTTP server on 127.0.0.1: items handed on one by one, every
bound (items, bytes, deadline, a broken connection) ending the read with what was read."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import anyio
import pytest

from mcpgen.runtime import settings, streams, transport, upstream
from mcpgen.runtime.project import Project
from tests.local_http import Handler, Recorded, RecordingServer


def sse(i: int) -> bytes:
    return f"id: {i}\nevent: tick\ndata: {{\"seq\": {i}}}\n\n".encode()


FORMATS = {  # format -> (content type, the bytes of item i)
    "jsonl": ("application/jsonl", lambda i: json.dumps({"seq": i}).encode() + b"\n"),
    "json-seq": ("application/json-seq", lambda i: b"\x1e" + json.dumps({"seq": i}).encode() + b"\n"),
    "sse": ("text/event-stream", sse),
}


class Streamer(RecordingServer[Recorded]):
    """`/<fmt>/<n>`: n items, chunked, each its own write; n = `endless`: until the client
    hangs up (`written` counts them); `/<fmt>/broken`: two items, then the connection drops."""

    name = "stream-upstream"

    def __init__(self) -> None:
        super().__init__()
        self.written = 0
        self.lock = threading.Lock()

    def respond(self, handler: Handler, request: Recorded) -> None:
        self._record(request)
        parts = request.path.strip("/").split("/")
        if parts[0] == "echo":
            body = json.dumps({"query": request.query}).encode()
            handler.send(200, {"Content-Type": "application/json", "Content-Length": str(len(body))}, body)
            return
        fmt, count = parts
        media, item = FORMATS[fmt]
        handler.send(200, {"Content-Type": media, "Transfer-Encoding": "chunked"})
        handler.close_connection = True
        total = 2 if count == "broken" else 10**9 if count == "endless" else int(count)
        try:
            for i in range(total):
                data = item(i)
                if fmt == "jsonl" and i == 1 and count == "3":
                    data = b"not json\n" + data
                handler.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                handler.wfile.flush()
                with self.lock:
                    self.written += 1
                if count == "endless":
                    time.sleep(0.001)
            if count != "broken":
                handler.wfile.write(b"0\r\n\r\n")
        except OSError:  # the client hung up: what a bounded read does
            pass


@pytest.fixture(scope="module")
def server() -> Iterator[Streamer]:
    running = Streamer().start()
    yield running
    running.stop()


@pytest.fixture(autouse=True)
def api(project: Project, server: Streamer, monkeypatch: pytest.MonkeyPatch) -> Streamer:
    server.clear()
    server.written = 0
    monkeypatch.setenv("PETSTORE_BASE_URL", server.origin)
    monkeypatch.setenv("PETSTORE_RETRIES", "0")
    monkeypatch.setattr(settings, "_base_url_flag", [])
    monkeypatch.setattr(upstream, "_client", None)
    settings._parsed.clear()
    return server


def call(path: str, fmt: str | None, arguments: dict[str, Any] | None = None,
         params: list[dict[str, Any]] | None = None) -> tuple[dict[str, Any], list[tuple[int, Any]]]:
    heard: list[tuple[int, Any]] = []

    async def on_item(count: int, item: Any) -> None:
        heard.append((count, item))

    route: dict[str, Any] = {"method": "GET", "path": path, "params": params or [], "body": None, "security": []}
    if fmt:
        route["stream"] = fmt

    async def go() -> Any:
        async with transport.make_client() as client:
            return await upstream.send(route, arguments or {}, client, on_item)

    response = anyio.run(go)
    assert response.status_code == 200 and response.headers["content-type"] == "application/json"
    return response.json(), heard


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_every_item_is_heard_then_summarized(fmt: str) -> None:
    summary, heard = call(f"/{fmt}/4", fmt)
    expected = ([{"data": json.dumps({"seq": i}), "id": str(i), "event": "tick"} for i in range(4)] if fmt == "sse"
                else [{"seq": i} for i in range(4)])
    assert summary == {"items": expected, "complete": True}
    assert heard == list(enumerate(expected, start=1))


def test_a_record_that_is_not_json_is_left_out_and_counted() -> None:
    summary, _ = call("/jsonl/3", "jsonl")
    assert summary["items"] == [{"seq": 0}, {"seq": 1}, {"seq": 2}] and summary["complete"] is True
    assert summary["note"] == "1 record(s) that are not JSON left out"


def test_an_endless_stream_stops_at_the_item_limit(api: Streamer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_STREAM_MAX_ITEMS", "25")
    summary, heard = call("/sse/endless", "sse")
    assert len(summary["items"]) == len(heard) == 25 and summary["complete"] is False
    assert summary["note"].startswith("stopped after 25 items (the item limit) (PETSTORE_STREAM_MAX_ITEMS")


def test_an_endless_stream_stops_at_the_byte_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_STREAM_MAX_BYTES", "1000")
    summary, _ = call("/jsonl/endless", "jsonl")
    line = len(json.dumps({"seq": 0})) + 1
    assert 1000 // (line + 2) <= len(summary["items"]) <= 1000 // line  # whole lines within 1000 bytes
    assert summary["complete"] is False and summary["note"].startswith("stopped after 1,000 bytes (the byte limit)")


def test_an_endless_stream_stops_at_the_call_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_CALL_TIMEOUT", "0.5")
    monkeypatch.setenv("PETSTORE_STREAM_MAX_ITEMS", "1000000000")
    summary, heard = call("/jsonl/endless", "jsonl")
    assert summary["complete"] is False and summary["note"].startswith("stopped at the call's deadline")
    assert len(summary["items"]) == len(heard) > 0


def test_a_broken_stream_keeps_what_was_read() -> None:
    summary, _ = call("/jsonl/broken", "jsonl")
    assert summary["items"] == [{"seq": 0}, {"seq": 1}] and summary["complete"] is False
    assert summary["note"].startswith("the stream broke after 2 items")


def test_a_route_without_stream_reads_the_body_whole() -> None:
    async def go() -> Any:
        route = {"method": "GET", "path": "/jsonl/2", "params": [], "body": None, "security": []}
        async with transport.make_client() as client:
            return await upstream.send(route, {}, client)

    response = anyio.run(go)
    assert response.text == '{"seq": 0}\n{"seq": 1}\n'


QS = {"name": "selector", "argument": "selector", "in": "querystring", "style": "form", "explode": True}


@pytest.mark.parametrize(("media", "value", "query"), [
    ("application/x-www-form-urlencoded", {"kind": "a b", "tags": ["x", "y"]}, "kind=a%20b&tags=x&tags=y"),
    ("application/json", {"kind": "a&b"}, "%7B%22kind%22%3A%22a%26b%22%7D"),
    ("text/plain", "kind=a b&x=1", "kind=a%20b&x=1"),
])
def test_a_querystring_parameter_is_the_whole_query(api: Streamer, media: str, value: Any, query: str) -> None:
    summary, _ = call("/echo", None, {"selector": value}, [{**QS, "contentType": media}])
    assert summary == {"query": query}


def test_a_querystring_follows_query_parameters(api: Streamer) -> None:
    page = {"name": "page", "argument": "page", "in": "query", "style": "form", "explode": True}
    summary, _ = call("/echo", None, {"page": 2, "selector": {"kind": "x"}},
                      [page, {**QS, "contentType": "application/x-www-form-urlencoded"}])
    assert summary == {"query": "page=2&kind=x"}


def test_sse_parsing_follows_the_event_stream_rules() -> None:
    records = streams._Records("sse")
    text = b": comment\nretry: 50\ndata: a\ndata:b\n\nevent: only\n\ndata: last"
    assert records.feed(text) == [{"data": "a\nb", "retry": 50}]
    assert records.finish() == [{"data": "last"}]
