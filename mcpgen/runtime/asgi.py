# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""Whole HTTP answers sent straight from ASGI middleware (the gates in `http_guard` and `oauth`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from starlette.types import Send


async def respond(
    send: Send,
    status: int,
    body: bytes,
    headers: Sequence[tuple[bytes, bytes]] = (),
    head_only: bool = False,
) -> None:
    """A whole HTTP response; `head_only` (HEAD) sends the headers of `body` without it."""
    length = (b"content-length", str(len(body)).encode())
    await send({"type": "http.response.start", "status": status, "headers": [*headers, length]})
    await send({"type": "http.response.body", "body": b"" if head_only else body})


async def respond_json(
    send: Send,
    status: int,
    document: Any,
    headers: Sequence[tuple[bytes, bytes]] = (),
    head_only: bool = False,
) -> None:
    body = json.dumps(document).encode()
    await respond(send, status, body, [(b"content-type", b"application/json"), *headers], head_only)
