"""The MCP server: tool table served from data, one dispatcher for every call.

tools/list is answered from `tools.json`, loaded once; argument validators are
compiled on a tool's first call, so start-up stays light however many tools there are.
"""

from __future__ import annotations

import collections
import json
import logging
import time
from functools import cache
from typing import Any

import jsonschema
from mcp import MCPError, types
from mcp.server import Server, ServerRequestContext

from . import config, results
from .catalog import tool_table

log = logging.getLogger(__package__)

MAX_TEXT = 100_000  # characters of an error message; results are cut at config.max_response_chars()
MAX_ERROR_BODY = 2_000  # characters of an upstream error body shown to the model


@cache
def _tool_list() -> list[types.Tool]:
    return [types.Tool.model_validate(entry["tool"]) for entry in tool_table().values()]


@cache
def _output_validator(name: str) -> Any:
    return jsonschema.Draft202012Validator(tool_table()[name]["tool"]["outputSchema"])


def _errors(validator: Any, instance: Any, root: str = "(arguments)") -> list[str]:
    """Validation errors as `field: message` lines, in a stable order."""
    found = sorted(validator.iter_errors(instance), key=lambda e: [str(p) for p in e.absolute_path])
    return [f"{'.'.join(str(p) for p in e.absolute_path) or root}: {e.message}" for e in found]


def error_result(message: str, structured: dict[str, Any] | None = None) -> types.CallToolResult:
    """A tool execution error: shown to the model, which can correct itself."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=_clip(message))],
        structured_content=structured,
        is_error=True,
    )


def json_result(name: str, value: Any, lenient: bool = False) -> types.CallToolResult:
    """A JSON value as text content, plus structuredContent shaped like outputSchema.

    Too long: cut to fit (see `results`), with a note. `lenient` (upstream JSON, whose
    outputSchema only describes): a value that does not match still succeeds, with the
    mismatching parts left out of structuredContent and a note after the full text."""
    entry = tool_table()[name]
    limit = config.max_response_chars()
    text = json.dumps(value, ensure_ascii=False, default=str)
    notes: list[str] = []
    if len(text) > limit:
        value, cuts = results.fit_json(value, limit, drop_keys=lenient)
        fitted = json.dumps(value, ensure_ascii=False, default=str)
        notes.append(
            results.truncation_note(len(text), min(len(fitted), limit), cuts, entry["tool"])
        )
        text = fitted[:limit]
    structured = {"result": value} if entry["wrapsResult"] else value
    if "outputSchema" not in entry["tool"]:
        if not isinstance(structured, dict):
            return _text_result(text, notes)
        return _text_result(text, notes, structured)
    problems = _errors(_output_validator(name), structured, "(result)")
    if problems and lenient:
        log.warning("tool %s: result does not match its outputSchema: %s", name, problems[:5])
        repaired, found = results.conform(structured, _output_validator(name))
        if repaired is not None:
            return _text_result(text, [*notes, results.mismatch_note(found)], repaired)
    if problems:
        log.warning("tool %s: result does not match its outputSchema: %s", name, problems[:5])
        return error_result(
            "The result does not match the tool's declared output schema:\n"
            + "\n".join(problems[:10])
            + "\n\nResult:\n"
            + text
        )
    return _text_result(text, notes, structured)


def _text_result(
    text: str, notes: list[str], structured: dict[str, Any] | None = None
) -> types.CallToolResult:
    content = [types.TextContent(type="text", text=t) for t in (text, *notes)]
    if structured is None:
        return types.CallToolResult(content=list(content))
    return types.CallToolResult(content=list(content), structured_content=structured)


def text_result(name: str, text: str) -> types.CallToolResult:
    """Plain text, cut at the response limit with a note."""
    clipped, note = results.clip_text(text, config.max_response_chars(), tool_table()[name]["tool"])
    return _text_result(clipped, [note] if note else [])


def _clip(text: str, limit: int = MAX_TEXT) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n… [{len(text) - limit} more characters cut]"


class _RateLimiter:
    """Sliding one-minute window over all tool calls of this process."""

    def __init__(self) -> None:
        self._calls: collections.deque[float] = collections.deque()

    def retry_after(self) -> float | None:
        limit = config.rate_limit()
        if not limit:
            return None
        now = time.monotonic()
        while self._calls and now - self._calls[0] >= 60:
            self._calls.popleft()
        if len(self._calls) >= limit:
            return 60 - (now - self._calls[0])
        self._calls.append(now)
        return None


_limiter = _RateLimiter()


async def list_tools(
    ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return types.ListToolsResult(tools=_tool_list())


async def call_tool(
    ctx: ServerRequestContext, params: types.CallToolRequestParams
) -> types.CallToolResult:
    name = params.name
    if name not in tool_table():
        # The spec makes an unknown tool a protocol error, not a tool result.
        raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {name}")
    wait = _limiter.retry_after()
    if wait is not None:
        return error_result(
            f"Rate limit reached ({config.rate_limit()} calls per minute); retry in {wait:.0f} s."
        )
    try:
        return await _dispatch(name, dict(params.arguments or {}))
    except Exception as exc:  # no exception may escape as an opaque protocol error
        log.exception("tool %s failed", name)
        return error_result(f"Internal error in tool {name}: {type(exc).__name__}")


async def _dispatch(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
    from . import functions

    try:
        value = await functions.invoke(name, arguments)
    except functions.InvalidArguments as exc:
        return error_result("Invalid arguments:\n" + "\n".join(exc.errors))
    except Exception as exc:
        # The model sees the error type and message; the traceback stays in the server's log.
        log.exception("tool %s raised", name)
        return error_result(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
    if value is None and "outputSchema" not in tool_table()[name]["tool"]:
        return types.CallToolResult(content=[types.TextContent(type="text", text="Done.")])
    return json_result(name, value)


server = Server(
    config.SERVER_NAME,
    version=config.SERVER_VERSION,
    title=config.SERVER_TITLE,
    on_list_tools=list_tools,
    on_call_tool=call_tool,
)


def serve_stdio() -> None:
    import anyio
    from mcp.server.stdio import stdio_server

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)


def serve_http(host: str, port: int) -> None:
    """Stateless streamable HTTP at http://HOST:PORT/mcp."""
    import uvicorn

    app = server.streamable_http_app(stateless_http=True, json_response=True, host=host)
    uvicorn.run(app, host=host, port=port, log_level="warning")
