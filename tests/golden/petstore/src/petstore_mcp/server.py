"""The MCP server: tool table served from data, one dispatcher for every call.

tools/list is answered from `tools.json`, loaded once; argument validators are
compiled on a tool's first call, so start-up stays light however many tools there are.
"""

from __future__ import annotations

import base64
import json
import logging
from functools import cache
from typing import Any

import jsonschema
from mcp import MCPError, types
from mcp.server import Server, ServerRequestContext

from . import audit, config, guard, redact
from .catalog import tool_table

log = logging.getLogger(__package__)

MAX_TEXT = 100_000  # characters of one text result; longer ones are cut, with a note
MAX_ERROR_BODY = 2_000  # characters of an upstream error body shown to the model


@cache
def _tool_list() -> list[types.Tool]:
    return [
        types.Tool.model_validate(e["tool"])
        for name, e in tool_table().items()
        if guard.enabled(name)
    ]


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


def json_result(name: str, value: Any) -> types.CallToolResult:
    """A JSON value as text content, plus structuredContent shaped like outputSchema."""
    entry = tool_table()[name]
    value = redact.clean_value(value)  # before the text mirror, where JSON would escape controls
    text = _clip(json.dumps(value, ensure_ascii=False, default=str))
    structured = {"result": value} if entry["wrapsResult"] else value
    if "outputSchema" not in entry["tool"]:
        if not isinstance(structured, dict):
            return types.CallToolResult(content=[types.TextContent(type="text", text=text)])
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], structured_content=structured
        )
    problems = _errors(_output_validator(name), structured, "(result)")
    if problems:
        log.warning("tool %s: result does not match its outputSchema: %s", name, problems[:5])
        return error_result(
            "The result does not match the tool's declared output schema:\n"
            + "\n".join(problems[:10])
            + "\n\nResult:\n"
            + text
        )
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], structured_content=structured
    )


def _clip(text: str, limit: int = MAX_TEXT) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n… [{len(text) - limit} more characters cut]"


async def list_tools(
    ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return types.ListToolsResult(tools=_tool_list())


async def call_tool(
    ctx: ServerRequestContext, params: types.CallToolRequestParams
) -> types.CallToolResult:
    """Every call: one audit line; every result: secrets redacted, control characters stripped."""
    call = audit.begin(params.name, params.arguments)
    try:
        result = redact.clean_result(await _call_tool(params.name, dict(params.arguments or {})))
    except MCPError as exc:
        audit.finish(call, "refused", exc.message)
        raise
    audit.finish(call, "error" if result.is_error else "ok")
    return result


async def _call_tool(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
    if name not in tool_table():
        # The spec makes an unknown tool a protocol error, not a tool result.
        raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {name}")
    refusal = guard.refusal(name)
    if refusal is not None:  # hidden from tools/list, so answered like an unknown tool
        raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {name} ({refusal})")
    limited = guard.admit(name)
    if limited is not None:
        audit.mark("rate_limited")
        return error_result(limited)
    try:
        return await _dispatch(name, arguments)
    except Exception as exc:  # no exception may escape as an opaque protocol error
        log.exception("tool %s failed", name)
        return error_result(f"Internal error in tool {name}: {type(exc).__name__}")


@cache
def _input_validator(name: str) -> Any:
    return jsonschema.Draft202012Validator(tool_table()[name]["tool"]["inputSchema"])


async def _dispatch(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
    from . import upstream

    problems = _errors(_input_validator(name), arguments)
    if problems:
        return error_result("Invalid arguments:\n" + "\n".join(problems))
    try:
        response = await upstream.send(tool_table()[name]["http"], arguments)
    except upstream.InvalidArgument as exc:
        return error_result(f"Invalid arguments:\n{exc}")
    except (upstream.MissingCredential, upstream.UpstreamError) as exc:
        return error_result(str(exc))
    if response.status_code == 429:  # later calls wait out Retry-After here, not at the API
        message, seconds = guard.upstream_limited(429, response.headers.get("retry-after"))
        audit.mark("rate_limited")
        return error_result(
            message, {"status": 429, "reason": response.reason_phrase, "retryAfterSeconds": seconds}
        )
    return _http_result(name, response)


def _http_result(name: str, response: Any) -> types.CallToolResult:
    status: int = response.status_code
    media = response.headers.get("content-type", "").split(";")[0].strip().lower()
    if status >= 400:
        body = _clip(response.text, MAX_ERROR_BODY)
        return error_result(
            f"HTTP {status} {response.reason_phrase}: {body}".rstrip(": "),
            {"status": status, "reason": response.reason_phrase, "body": body},
        )
    if not response.content:
        if "outputSchema" in tool_table()[name]["tool"]:
            return error_result(
                f"HTTP {status} {response.reason_phrase} with an empty body, where JSON was expected"
            )
        return types.CallToolResult(
            content=[
                types.TextContent(
                    type="text", text=f"HTTP {status} {response.reason_phrase}: done."
                )
            ]
        )
    if media == "application/json" or media.endswith("+json"):
        try:
            value = response.json()
        except ValueError:
            return error_result(
                f"HTTP {status}: the upstream sent invalid JSON:\n{_clip(response.text, MAX_ERROR_BODY)}"
            )
        return json_result(name, value)
    if "outputSchema" in tool_table()[name]["tool"]:
        return error_result(
            f"HTTP {status}: expected JSON, got {media or 'no content type'}:\n{_clip(response.text, MAX_ERROR_BODY)}"
        )
    if media.startswith("image/"):
        data = base64.b64encode(response.content).decode("ascii")
        return types.CallToolResult(
            content=[types.ImageContent(type="image", data=data, mime_type=media)]
        )
    if media.startswith("audio/"):
        data = base64.b64encode(response.content).decode("ascii")
        return types.CallToolResult(
            content=[types.AudioContent(type="audio", data=data, mime_type=media)]
        )
    if media.startswith("text/") or media.endswith(("/xml", "+xml")) or not media:
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=_clip(response.text))]
        )
    resource = types.BlobResourceContents(
        uri=str(response.request.url.copy_with(query=None, fragment=None)),
        mime_type=media,
        blob=base64.b64encode(response.content).decode("ascii"),
    )
    return types.CallToolResult(
        content=[types.EmbeddedResource(type="resource", resource=resource)]
    )


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

    from .http_guard import protect, transport_security

    app = server.streamable_http_app(
        stateless_http=True,
        json_response=True,
        host=host,
        transport_security=transport_security(host),
    )
    # log_config=None: uvicorn's lines go through the root logger, whose output is redacted.
    uvicorn.run(protect(app), host=host, port=port, log_level="warning", log_config=None)
