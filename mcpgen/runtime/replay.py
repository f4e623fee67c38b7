# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""A call a balancer may send again: SSE headers held back, and the upstream idempotency key.

- `HoldHeaders`: an SSE answer to a POST sends its status and headers only with its first
  event (the result, or a first progress or log notification), not before the tool has run.
  A replica that dies while a call runs has then sent nothing, and haproxy's
  `retry-on empty-response` sends the buffered request to another replica. Comment-only
  chunks (`: ping`) wait with the headers. Once an event went out, the call cannot be retried.
- `idempotency_key()`: with `PREFIX_IDEMPOTENCY_KEY` set (a header name, e.g.
  `Idempotency-Key`) and the request carrying the balancer's `X-Request-Id` (haproxy stamps
  every request once; its retries resend the same buffered request, so the same id), a
  non-idempotent upstream request (POST, PATCH) carries that header, valued with a hash of
  the server, the request id and the tool: a retried call sends the same key, and an API that
  honours such keys (as Stripe does) answers the retry with the first answer instead of
  running it twice.
"""

from __future__ import annotations

import contextvars
import hashlib

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from . import settings
from .project import current

REQUEST_ID_HEADER = "x-request-id"
# The balancer's id of the HTTP request being served, set by `HoldHeaders` (the MCP handler runs
# in a task the request's own spawns, so it sees the value).
_request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "balancer_request_id", default=None
)


class HoldHeaders:
    """ASGI middleware: an SSE response's start held until its first `data:` event."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        given = [v for k, v in scope.get("headers", []) if k == REQUEST_ID_HEADER.encode()]
        _request_id.set(given[-1].decode("latin-1") if given and given[-1] else None)
        held: list[Message] = []

        async def hold(message: Message) -> None:
            if message["type"] == "http.response.start" and _is_sse(message):
                held.append(message)
                return
            if held and message["type"] == "http.response.body":
                body = message.get("body", b"")
                if b"data:" not in body and message.get("more_body", False):
                    held.append(message)  # a comment (ping) or an empty chunk: wait
                    return
                start, *chunks = held
                held.clear()
                await send(start)
                joined = b"".join(chunk.get("body", b"") for chunk in chunks) + body
                await send({**message, "body": joined})
                return
            await send(message)

        await self.app(scope, receive, hold)


def _is_sse(message: Message) -> bool:
    return any(
        name.lower() == b"content-type" and value.startswith(b"text/event-stream")
        for name, value in message.get("headers", [])
    )


def request_id() -> str | None:
    """The balancer's `X-Request-Id` of the HTTP request being served (None: stdio, or none)."""
    return _request_id.get()


def idempotency_key(tool: str) -> tuple[str, str] | None:
    """(header, key) for a non-idempotent upstream request of `tool`, or None (see above)."""
    header = settings.current().idempotency_key
    rid = request_id() if header else None
    if header is None or rid is None:
        return None
    digest = hashlib.sha256(f"{current().name}\0{rid}\0{tool}".encode()).hexdigest()
    return header, digest[:40]
