"""Your hooks into the requests this server sends to Bookshelf.

mcpgen created this file once and never changes it: `mcpgen regenerate` leaves it alone.
Keep the three functions' names and signatures; change their bodies as you need.
"""

from __future__ import annotations

from typing import Any

import httpx2


async def on_request(tool: str, request: httpx2.Request) -> None:
    """Called before every upstream request, and before each redirect it follows.

    Change the request in place: add headers, sign it, log it. `tool` is the name of the
    MCP tool being called ("" when the typed API in `operations` is used directly).

    Example::

        request.headers["X-Client"] = "mcp"

    Over HTTP with BOOKSHELF_MCP_AUTH=oauth, `principal()` (`from .runtime.public import principal`)
    is the verified caller (subject, client_id, scopes, claims), e.g. to choose credentials
    per caller; the caller's own token is never sent upstream.
    """


async def on_response(tool: str, response: httpx2.Response) -> None:
    """Called with every upstream response before it becomes a tool result.

    The body is not read yet; `await response.aread()` first to inspect it.
    """


def on_result(tool: str, result: Any) -> Any:
    """Reshape a tool's decoded JSON result before the client sees it; return the new value.

    A tool that declares an outputSchema must still return a value matching it.
    """
    return result


def complete(ref: str, argument: str, value: str, context: dict[str, str]) -> list[str] | None:
    """Values to offer while a user types `value` for `argument` of a prompt or resource
    template (`ref`: the prompt's name or the template's URI); `context` holds the arguments
    already filled. Return None to offer what mcpgen knows (enum values, declared `values`).
    """
    return None
