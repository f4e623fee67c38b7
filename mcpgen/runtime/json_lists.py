# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""List requests over streamable HTTP answered with one JSON body, not an SSE stream.

The Python SDK's 2.x client refuses a server-sent event over 1 MiB (`max_sse_event_size`),
so a tools/list page sent as SSE (the transport's default, which a call's progress and logs
need) breaks it once the page is bigger: GitHub's whole list is 3.35 MB, and clients that
read one page (google-adk) need it whole. A list request has nothing to stream, and the
transport lets a server answer any POST with `application/json`, so this middleware turns
the SDK's SSE answer to one into the JSON-RPC message it carries. Other requests, and
answers that are no SSE (PREFIX_HTTP_RESPONSE=json, errors), pass as they are."""

from __future__ import annotations

import json
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

LISTS = frozenset({"tools/list", "resources/list", "resources/templates/list", "prompts/list"})
PEEK_BYTES = 64 * 1024  # a list request is tiny; a bigger body is some other request, streamed on


class JsonLists:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        head: list[Message] = []
        size, more = 0, True
        while more and size <= PEEK_BYTES:
            message = await receive()
            head.append(message)
            if message["type"] != "http.request":
                break
            size += len(message.get("body", b""))
            more = message.get("more_body", False)

        async def replay() -> Message:
            return head.pop(0) if head else await receive()

        request_id = _list_request_id(head) if not more else None
        if request_id is None:
            await self.app(scope, replay, send)
            return
        await self.app(scope, replay, _Collapse(send, request_id))


def _list_request_id(messages: list[Message]) -> Any:
    """The id of the list request the body holds, or None for any other body."""
    body = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.request")
    try:
        request = json.loads(body)
    except (ValueError, RecursionError):  # hostile nesting: the SDK answers it
        return None
    if (
        isinstance(request, dict)
        and isinstance(request.get("method"), str)  # a hostile list or object is unhashable
        and request["method"] in LISTS
        and request.get("id") is not None
    ):
        return request["id"]
    return None


class _Collapse:
    """A `send` that holds an SSE answer back and sends, as JSON, the message that answers
    `request_id`; anything else is sent as it came."""

    def __init__(self, send: Send, request_id: Any) -> None:
        self.send = send
        self.request_id = request_id
        self.start: Message | None = None
        self.buffer = b""
        self.done = False

    async def __call__(self, message: Message) -> None:
        if self.done:
            return  # the rest of the stream, after the answer was sent
        if message["type"] == "http.response.start":
            if _header(message, b"content-type").startswith(b"text/event-stream"):
                self.start = message
                return
        elif message["type"] == "http.response.body" and self.start is not None:
            self.buffer += message.get("body", b"")
            answer = self._answer()
            if answer is not None:
                await self._send_json(self.start, answer)
            elif not message.get("more_body", False):  # the stream ended without the answer
                await self.send(self.start)
                await self.send({"type": "http.response.body", "body": self.buffer})
                self.done = True
            return
        await self.send(message)

    def _answer(self) -> bytes | None:
        """The data of a complete event answering the request, once the buffer holds one."""
        events = self.buffer.replace(b"\r\n", b"\n").split(b"\n\n")
        for event in events[:-1]:  # the last piece may be an event still arriving
            data = b"\n".join(
                line[5:].removeprefix(b" ")
                for line in event.split(b"\n")
                if line.startswith(b"data:")
            )
            if not data:
                continue  # the priming event, a comment
            try:
                message = json.loads(data)
            except (ValueError, RecursionError):
                continue
            if isinstance(message, dict) and message.get("id") == self.request_id:
                return data
        return None

    async def _send_json(self, start: Message, body: bytes) -> None:
        kept = [
            (name, value)
            for name, value in start.get("headers", [])
            if name.lower()
            not in (b"content-type", b"content-length", b"cache-control", b"x-accel-buffering")
        ]
        headers = [
            *kept,
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ]
        await self.send(
            {"type": "http.response.start", "status": start["status"], "headers": headers}
        )
        await self.send({"type": "http.response.body", "body": body})
        self.done = True


def _header(message: Message, name: bytes) -> bytes:
    for key, value in message.get("headers", []):
        if key.lower() == name:
            return bytes(value).lower()
    return b""
