"""Your hooks around the functions this server calls.

mcpgen created this file once and never changes it: `mcpgen regenerate` leaves it alone.
Keep the functions' names and signatures; change their bodies as you need.
"""

from __future__ import annotations

from typing import Any


def on_call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Called with a tool's arguments before they are validated; return the arguments to use.

    Example: fill in a default from the environment, or log the call. Over HTTP with
    INVENTORY_MCP_AUTH=oauth, `principal()` is the caller
    (`from .runtime.public import principal`).
    """
    return arguments


def on_result(tool: str, result: Any) -> Any:
    """Reshape a tool's result (JSON-compatible data) before the client sees it.

    A tool that declares an outputSchema must still return a value matching it.
    """
    return result


def complete(ref: str, argument: str, value: str, context: dict[str, str]) -> list[str] | None:
    """Values to offer while a user types `value` for `argument` of a prompt or resource
    template (`ref`: the prompt's name or the template's URI); `context` holds the arguments
    already filled. Return None to offer what mcpgen knows (enum values, declared `values`).
    """
    return None
