# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""The MCP server: tool table served from data, one dispatcher for every call.

tools/list is answered from `tools.json`, loaded once; argument validators are
compiled on a tool's first call, so start-up stays light however many tools there are.
"""

from __future__ import annotations

import base64
import contextvars
import functools
import json
import logging
import sys
import warnings
from collections.abc import Awaitable, Callable
from functools import cache
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import anyio
import pydantic_core
from mcp import MCPError, types
from mcp.server import NotificationOptions, Server, ServerRequestContext
from mcp.server.caching import CacheHint
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp.types.version import MODERN_PROTOCOL_VERSIONS

from . import (
    audit,
    code_mode,
    content,
    dynamic,
    extensions,
    guard,
    guarded,
    messages,
    paging,
    patterns,
    policy,
    redact,
    results,
    settings,
    subscriptions,
    telemetry,
    tool_context,
    toolset_tool,
    toolsets,
)
from .catalog import tool_table
from .project import current, resets
from .registry import ENABLE_TOOLSETS, registry
from .state import state

if (
    TYPE_CHECKING
):  # the middleware API is provisional in mcp 2.x: nothing imported from it at run time
    from mcp.server.context import CallNext, HandlerResult

log = logging.getLogger(__name__)
T = TypeVar("T")

MAX_TEXT = 100_000  # characters of an error message; results are cut at PREFIX_MAX_RESPONSE_CHARS
MAX_ERROR_BODY = 2_000  # characters of an upstream error body shown to the model


@policy.per_caller  # per settings, per OAuth caller's scopes, per enabled toolsets
def _tool_list() -> list[dict[str, Any]]:
    """The listed tools as sent on the wire: `tools.json`'s dicts as they are, with no model
    built per tool (the SDK validates and dumps the page it is given anyway); the toolsets
    meta tool first, where it is served."""
    shown = {entry.name for entry in policy.visible("tool", "meta tool")}
    listed = _catalogue_list(shown)
    return [toolset_tool.tool_dict(), *listed] if ENABLE_TOOLSETS in shown else listed


def _catalogue_list(shown: set[str]) -> list[dict[str, Any]]:
    customs = extensions.custom_tools()
    if current().tool_mode == "dynamic":
        # The catalogue is reached through search_tools/describe_tool/call_tool; custom tools stay direct.
        metas = [tool for tool in dynamic.meta_tools() if tool.name in shown]
        wire = [tool.model_dump(by_alias=True, mode="json", exclude_none=True) for tool in metas]
        return [*wire, *(custom.entry["tool"] for name, custom in customs.items() if name in shown)]
    if current().tool_mode == "code":  # the operations are reached through search/execute
        codes = [tool for tool in code_mode.code_tools() if tool.name in shown]
        wire = [tool.model_dump(by_alias=True, mode="json", exclude_none=True) for tool in codes]
        return [*wire, *(custom.entry["tool"] for name, custom in customs.items() if name in shown)]
    entries = [*tool_table().values(), *(custom.entry for custom in customs.values())]
    return [entry["tool"] for entry in entries if entry["tool"]["name"] in shown]


@policy.per_caller
def _tool_list_digest() -> str:
    return paging.digest([tool["name"] for tool in _tool_list()])


@policy.per_caller
def _tool_list_weights() -> list[int]:
    """Each listed tool's JSON size in bytes: pages are bounded in bytes too."""
    return [len(pydantic_core.to_json(tool)) for tool in _tool_list()]


def _entry(name: str) -> dict[str, Any]:
    """A generated tool's catalog entry, or a custom tool's (from custom_tools.py)."""
    entry = tool_table().get(name)
    return entry if entry is not None else extensions.custom_tools()[name].entry


@resets
@cache
def _output_validator(name: str) -> Any:
    return patterns.validator(_entry(name)["tool"]["outputSchema"])


def _errors(validator: Any, instance: Any, root: str = "(arguments)") -> list[str]:
    """Validation errors as `field: what was expected, what was given` lines, in a stable order."""
    return messages.problems(validator, instance, root)


def error_result(message: str) -> types.CallToolResult:
    """A tool execution error: shown to the model, which can correct itself. No
    structuredContent: TypeScript clients validate it against outputSchema even on errors."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=_clip(message))], is_error=True
    )


def json_result(name: str, value: Any, lenient: bool = False) -> types.CallToolResult:
    """A JSON value as text content, plus structuredContent shaped like outputSchema.

    A string with no outputSchema is the text itself. Too long: cut to fit (see
    `results`), with a note. `lenient` (upstream JSON, whose outputSchema only describes):
    a value that does not match still succeeds, with the mismatching parts left out of
    structuredContent and a note after the full text; otherwise a mismatch is an error."""
    entry = _entry(name)
    value = redact.clean_value(value)  # before the text mirror, where JSON would escape controls
    if isinstance(value, str) and "outputSchema" not in entry["tool"]:
        return text_result(name, value)
    limit = settings.current().max_response_chars
    text = json.dumps(value, ensure_ascii=False, default=str)
    notes: list[str] = []
    if len(text) > limit:
        value, cuts = results.fit_json(value, limit, drop_keys=lenient)
        fitted = json.dumps(value, ensure_ascii=False, default=str)
        notes.append(
            results.truncation_note(len(text), min(len(fitted), limit), cuts, entry["tool"])
        )
        text = fitted[:limit]
    # Numbers no JavaScript client can read are left out; the text keeps them.
    structured, left_out = results.finite({"result": value} if entry["wrapsResult"] else value)
    if "outputSchema" in entry["tool"]:
        problems = _errors(_output_validator(name), structured, "(result)")
        if problems:
            log.warning("tool %s: result does not match its outputSchema: %s", name, problems[:5])
            repaired, found = (
                results.conform(structured, _output_validator(name)) if lenient else (None, [])
            )
            if repaired is None:
                return error_result(
                    "The result does not match the tool's declared output schema:\n"
                    + "\n".join(problems[:10])
                    + "\n\nResult:\n"
                    + text
                )
            structured, left_out = repaired, left_out + found
    elif not isinstance(structured, dict):
        structured = None
    if left_out:
        notes.append(results.mismatch_note(left_out))
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
    clipped, note = results.clip_text(
        redact.clean_text(text), settings.current().max_response_chars, _entry(name)["tool"]
    )
    return _text_result(clipped, [note] if note else [])


def _clip(text: str, limit: int = MAX_TEXT) -> str:
    text = redact.clean_text(text)  # before the cut, which could leave half a secret
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n… [{len(text) - limit} more characters cut]"


async def list_tools(
    ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
) -> dict[str, Any]:
    """One page of tools/list, as the wire dict (registered with `add_request_handler`,
    whose handlers may return one: the SDK validates it against the protocol's result).

    Under `ListedTools` (the server's middleware) the page leaves out the generated tools:
    the SDK validates the envelope and custom tools, the middleware puts the page together."""
    cursor = params.cursor if params is not None else None
    with settings.pinned() as current_settings, toolsets.bound(ctx):
        tools, next_cursor = paging.page(
            _tool_list(),
            _tool_list_digest(),
            cursor,
            current_settings.page_size,
            _tool_list_weights(),
            current_settings.one_page_bytes,
        )
    slot = _listed.get()
    if slot is not None:
        slot.append(tools)
        tools = [tool for tool in tools if not _generated(tool)]
    page: dict[str, Any] = {**_list_defaults(), "tools": tools}
    if next_cursor is not None:
        page["nextCursor"] = next_cursor
    return page


# The page `list_tools` served, for `ListedTools` to send (set per tools/list request).
_listed: contextvars.ContextVar[list[list[dict[str, Any]]] | None] = contextvars.ContextVar(
    "mcpgen_listed_tools", default=None
)


def _generated(tool: dict[str, Any]) -> bool:
    """A tool of `tools.json` as it is (not a custom or meta tool, nor a copy)."""
    entry = tool_table().get(tool["name"])
    return entry is not None and entry["tool"] is tool


class ListedTools:
    """Middleware that sends the generated tools of a tools/list page without the SDK's
    per-request validation and re-dump of every tool (most of a big list's serving time).

    Everything else goes through the SDK as before: params, the initialize gate, cache hints,
    `resultType`, `_meta`, the per-version sieve of the envelope, custom and meta tools. The
    generated tools are dicts mcpgen built for both protocol eras' Tool (the keys they share,
    an object `inputSchema` and `outputSchema`), which the SDK's sieve leaves as they are
    (tests/golden proves it for every sample); they keep their place in the page, and their
    keys the order mcpgen wrote them in (the SDK's dump puts a Tool's keys in its model's order).
    GitHub's 1,186 tools: about 80 ms less per full listing."""

    async def __call__(self, ctx: ServerRequestContext, call_next: CallNext) -> HandlerResult:
        if ctx.method != "tools/list":
            return await call_next(ctx)
        slot: list[list[dict[str, Any]]] = []
        token = _listed.set(slot)
        try:
            result = await call_next(ctx)
        finally:
            _listed.reset(token)
        if not slot or not isinstance(result, dict):  # not answered by `list_tools`
            return result
        checked = iter(result["tools"])
        result["tools"] = [tool if _generated(tool) else next(checked) for tool in slot[0]]
        return result


@resets
@cache
def _list_defaults() -> dict[str, Any]:
    """What the SDK's ListToolsResult model fills in (the 2026-07-28 wire requires `resultType`,
    `ttlMs`, `cacheScope`; the handshake era's drops them), but the cache fields when the
    server has a cache hint for tools/list: the SDK adds the hint's only where a dict lacks them."""
    defaults = types.ListToolsResult(tools=[]).model_dump(
        by_alias=True, mode="json", exclude_none=True
    )
    del defaults["tools"]
    if "tools/list" in server().cache_hints:
        defaults.pop("ttlMs", None)
        defaults.pop("cacheScope", None)
    return defaults


async def call_tool(
    ctx: ServerRequestContext, params: types.CallToolRequestParams
) -> types.CallToolResult | types.InputRequiredResult:
    """Every call through `guarded`: access, rate limits, one audit line, every result and
    error message with secrets redacted and control characters stripped. A Python tool that
    asks the user something on 2026-07-28 is answered with an InputRequiredResult (see
    `tool_context`), its question cleaned where it was made."""
    name, arguments = params.name, dict(params.arguments or {})
    token = tool_context.request.set((ctx, params))
    try:
        with toolsets.bound(ctx):
            return await _guarded_call(name, arguments)
    finally:
        tool_context.request.reset(token)


async def _guarded_call(name: str, arguments: dict[str, Any]) -> Answer:
    entry = registry().tool(name)

    def missing(why: str | None) -> MCPError:
        # The spec makes an unknown tool a protocol error, not a tool result; a hidden tool is
        # not in tools/list, so it is answered like an unknown one, saying which setting hides it.
        shown = f"Unknown tool: {name}" + (f" ({why})" if why else "")
        return MCPError(code=types.INVALID_PARAMS, message=shown)

    return await guarded.run(
        "tool",
        name,
        entry,
        arguments,
        lambda: _dispatch(name, arguments, entry is not None and entry.kind == "meta tool"),
        _clean,
        missing=missing,
        limited=error_result,
        failed=lambda result: bool(getattr(result, "is_error", False)),
    )


Answer = types.CallToolResult | types.InputRequiredResult


def _clean(result: Answer) -> Answer:
    return redact.clean_result(result) if isinstance(result, types.CallToolResult) else result


async def _dispatch(name: str, arguments: dict[str, Any], meta: bool) -> Answer:
    if meta and name == ENABLE_TOOLSETS:
        request = tool_context.request.get()
        return await toolset_tool.call(request[0] if request is not None else None, arguments)
    if meta and current().tool_mode == "code":
        return await code_mode.call(name, arguments, run_operation)
    if meta:
        return await dynamic.call_meta(name, arguments, run_tool)
    return await _execute(name, arguments)


async def run_tool(name: str, arguments: dict[str, Any]) -> Answer:
    """A catalogue tool called through dynamic mode's call_tool, whose own call went through
    `guarded`: the tool's access and its per-tool limit here; every failure an isError result.
    A confirmation is asked as on a direct call (on 2026-07-28 call_tool's own input-required
    round, sealed to call_tool's arguments, so to the tool and its arguments)."""
    entry, refusal = policy.lookup("tool", name)
    if entry is None:
        return error_result(f"Unknown tool: {name}.")
    if refusal is not None:
        telemetry.outcome("refused", "access")
        return error_result(f"Tool {name} is not available ({refusal}).")
    limited = await guard.take(name, server=False)  # the server-wide token was taken for call_tool
    if limited is not None:
        telemetry.outcome("rate_limited", "rate_limited")
        audit.mark("rate_limited")
        return error_result(limited)
    result = await _execute(name, arguments)
    if isinstance(result, types.InputRequiredResult) and not entry.confirm:
        # A Python tool's questions are keyed to its own calls' rounds, not call_tool's.
        return error_result(f"Tool {name} asks the user for input: call it directly, not here.")
    return result


async def run_operation(name: str, arguments: dict[str, Any]) -> Answer:
    """An operation called from code mode's `execute`: the whole guarded path of a direct
    tools/call (access and scopes, server-wide and per-tool rate limits, validation,
    confirmation, redaction, its own audit line), answered as a result, never raised."""
    outer = audit.open_call()
    try:
        return await _guarded_call(name, arguments)
    except MCPError as exc:  # unknown or hidden: the message says why, cleaned by `guarded`
        return error_result(exc.error.message)
    finally:
        audit.reopen(outer)  # execute's own audit line goes on


async def _execute(name: str, arguments: dict[str, Any]) -> Answer:
    """One tool's call, its guards passed; no exception escapes as an opaque protocol error."""
    token = extensions.current_tool.set(name)
    try:
        if name not in tool_table():
            return await _call_custom(name, arguments)
        if current().source == "python":
            return await _call_function(name, arguments)
        return await _call_http(name, arguments)
    except Exception as exc:
        log.exception("tool %s failed", name)
        return error_result(f"Internal error in tool {name}: {type(exc).__name__}")
    finally:
        extensions.current_tool.reset(token)


async def _call_custom(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
    """A tool of custom_tools.py: validated against its signature, errors shown to the model."""
    try:
        value = await extensions.call_custom(name, arguments)
    except extensions.InvalidArguments as exc:
        telemetry.outcome("invalid", "invalid_arguments")
        return error_result("Invalid arguments:\n" + "\n".join(exc.errors))
    except Exception as exc:
        log.exception("custom tool %s raised", name)
        return error_result(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
    if value is None and "outputSchema" not in _entry(name)["tool"]:
        return types.CallToolResult(content=[types.TextContent(type="text", text="Done.")])
    blocks = content.as_blocks(value)
    if blocks is not None:
        return content_result(name, blocks)
    return json_result(name, value)


@resets
@cache
def _input_validator(name: str) -> Any:
    # A client profile may advertise a simpler schema; calls are checked against the full one.
    entry = tool_table()[name]
    return patterns.validator(entry.get("inputValidation") or entry["tool"]["inputSchema"])


async def _call_http(name: str, arguments: dict[str, Any]) -> Answer:
    from . import upstream

    problems = _errors(_input_validator(name), arguments)
    if problems:
        telemetry.outcome("invalid", "invalid_arguments")
        return error_result("Invalid arguments:\n" + "\n".join(problems))
    entry = registry().get("tool", name)
    if entry is not None and entry.confirm:  # the user says yes first (mcpgen.toml `confirm`)
        from . import confirm

        refused = await confirm.check(name, tool_table()[name]["http"], arguments)
        if refused is not None:
            return refused
    route = tool_table()[name]["http"]
    try:
        if route.get("stream"):  # each item is a progress notification: no heartbeat beside them
            response = await upstream.send(route, arguments, on_item=_item_progress())
        else:
            response = await _with_heartbeat(lambda: upstream.send(route, arguments))
    except upstream.InvalidArgument as exc:
        telemetry.outcome("invalid", "invalid_arguments")
        return error_result(f"Invalid arguments:\n{exc}")
    except (upstream.MissingCredential, upstream.UpstreamError) as exc:
        return error_result(str(exc))
    if response.status_code == 429:  # later calls wait out Retry-After here, not at the API
        message = await guard.shared_upstream_limited(429, response.headers.get("retry-after"))
        telemetry.outcome("rate_limited", "upstream_rate_limited")
        audit.mark("rate_limited")
        return error_result(message)
    return _http_result(name, response)


MAX_ITEM_MESSAGE = 2_000  # characters of one streamed item in its progress notification


def _item_progress() -> Callable[[int, Any], Awaitable[None]] | None:
    """A progress notification per streamed item (`progress` the items so far, `message` the
    item as JSON, redacted and cut), when the client sent a progressToken; else None."""
    request = tool_context.request.get()
    meta = getattr(request[0], "meta", None) if request is not None else None
    if request is None or not meta or meta.get("progress_token") is None:
        return None
    session = request[0].session

    async def report(count: int, item: Any) -> None:
        text = json.dumps(redact.clean_value(item), ensure_ascii=False, default=str)
        await session.report_progress(count, None, _clip(text, MAX_ITEM_MESSAGE))

    return report


async def _with_heartbeat(work: Callable[[], Awaitable[T]]) -> T:
    """`work()`, with a progress notification every PREFIX_PROGRESS_INTERVAL seconds while it
    runs, when the client sent a progressToken: a long upstream call shows it is alive."""
    request = tool_context.request.get()
    interval = settings.current().progress_interval
    meta = getattr(request[0], "meta", None) if request is not None else None
    if request is None or not meta or meta.get("progress_token") is None or not interval:
        return await work()
    session = request[0].session
    done = anyio.Event()
    outcome: list[Any] = []

    async def run() -> None:
        try:
            outcome.append(await work())
        except Exception as exc:  # raised below, in the caller's task (a task group would wrap it)
            log.debug("upstream call of a heartbeat failed", exc_info=True)
            outcome.append(exc)
        finally:
            done.set()

    async with anyio.create_task_group() as group:
        group.start_soon(run)
        beats = 0
        while not done.is_set():
            with anyio.move_on_after(interval):
                await done.wait()
            if not done.is_set():
                beats += 1
                waited = f"waiting for the upstream API ({beats * interval:g} s)"
                await session.report_progress(beats, None, waited)
    if isinstance(outcome[0], Exception):
        raise outcome[0]
    result: T = outcome[0]
    return result


def _http_result(name: str, response: Any) -> types.CallToolResult:
    status: int = response.status_code
    media = response.headers.get("content-type", "").split(";")[0].strip().lower()
    if status >= 400:
        body = _clip(response.text, MAX_ERROR_BODY)
        return error_result(f"HTTP {status} {response.reason_phrase}: {body}".rstrip(": "))
    if not response.content:
        # Success, whatever the spec declares for it (specs often give a 204 JSON content): an
        # error would tell the model a call that worked failed, and it might repeat it. The
        # output schemas mcpgen advertises for API responses accept `{}`.
        done = f"HTTP {status} {response.reason_phrase}: done; the API returned no content."
        text = [types.TextContent(type="text", text=done)]
        if "outputSchema" in tool_table()[name]["tool"] and _output_validator(name).is_valid({}):
            return types.CallToolResult(content=list(text), structured_content={})
        return types.CallToolResult(content=list(text))
    if media == "application/json" or media.endswith("+json"):
        try:
            value = response.json()
        except ValueError:
            return error_result(
                f"HTTP {status}: the upstream sent invalid JSON:\n{_clip(response.text, MAX_ERROR_BODY)}"
            )
        return json_result(name, extensions.hooks().on_result(name, value), lenient=True)
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
        return text_result(name, response.text)
    resource = types.BlobResourceContents(
        uri=str(response.request.url.copy_with(query=None, fragment=None)),
        mime_type=media,
        blob=base64.b64encode(response.content).decode("ascii"),
    )
    return types.CallToolResult(
        content=[types.EmbeddedResource(type="resource", resource=resource)]
    )


async def _call_function(name: str, arguments: dict[str, Any]) -> Answer:
    from . import functions

    hooks = extensions.hooks()
    request = tool_context.request.get()
    rounds = tool_context.Rounds(request[1]) if request is not None else None
    context = None
    if request is not None and rounds is not None:
        context = functools.partial(tool_context.make, request[0], rounds)
    try:
        limits = settings.current()  # an SDK Image/Audio file past it is not read
        value = await functions.invoke(
            name,
            hooks.on_call(name, arguments),
            (limits.max_response_bytes, limits.variable("MAX_RESPONSE_BYTES")),
            context,
        )
    except tool_context.InputRequired as needed:  # 2026-07-28: ask, then this call comes again
        audit.mark("input_required")
        if rounds is None:  # only a request's own context can ask
            return error_result(f"Tool {name} asked for input outside a request.")
        return rounds.result(needed)
    except functions.InvalidArguments as exc:
        telemetry.outcome("invalid", "invalid_arguments")
        return error_result("Invalid arguments:\n" + "\n".join(exc.errors))
    except Exception as exc:
        # The model sees the error type and message; the traceback stays in the server's log.
        log.exception("tool %s raised", name)
        return error_result(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
    value = hooks.on_result(name, value)
    if value is None and "outputSchema" not in tool_table()[name]["tool"]:
        return types.CallToolResult(content=[types.TextContent(type="text", text="Done.")])
    blocks = content.as_blocks(value)
    if blocks is not None:
        return content_result(name, blocks)
    return json_result(name, value)


LIST_TTL_MS = 300_000  # how long a client may reuse a list (2026-07-28 `ttlMs`)
LISTS = ("tools/list", "prompts/list", "resources/list", "resources/templates/list")


def cache_hints() -> dict[Any, CacheHint]:
    """Every list this server serves is fixed for the life of its process (`listChanged` is
    false): the generated catalogue, custom_tools.py's, resources and prompts, filtered by
    settings read at start-up (PREFIX_TOOLS_ALLOW, _READ_ONLY...). So a client may keep a list
    for `LIST_TTL_MS`; a restart with other settings is seen after that at the latest. The
    list is the same for every caller, but a server that requires a token (PREFIX_MCP_TOKEN)
    keeps it to callers who have one: `private` then, else `public`. Reads (resources/read)
    are the API's data: they keep the SDK's immediately-stale, private default. The tool list
    of a server serving `enable_toolsets` (PREFIX_TOOLSETS_DYNAMIC=1) changes per connection:
    it keeps that default too."""
    scope: Literal["public", "private"] = "private" if settings.current().mcp_token else "public"
    hint = CacheHint(ttl_ms=LIST_TTL_MS, scope=scope)
    changing = current().toolsets and settings.current().toolsets_dynamic
    return {name: hint for name in LISTS if not (changing and name == "tools/list")}


def content_result(name: str, blocks: list[types.ContentBlock]) -> types.CallToolResult:
    """Content blocks as they are, within the response limits (see `content`); no
    structuredContent. A tool that declares an outputSchema cannot send them: its clients
    would reject a result without structuredContent."""
    tool = _entry(name)["tool"]
    if "outputSchema" in tool:
        kinds = ", ".join(sorted({block.type for block in blocks}))
        return error_result(
            f"Tool {name} returned {kinds} content, but declares an output schema for JSON data; "
            "annotate its return type as bytes, Image, Audio or mcp.types content to send content."
        )
    current_settings = settings.current()
    fitted = content.fit(
        blocks,
        current_settings.max_response_chars,
        current_settings.max_response_bytes,
        tool,
        current_settings.variable("MAX_RESPONSE_BYTES"),
    )
    return types.CallToolResult(content=fitted)


class _Server(Server):
    """The SDK's server, its capabilities as this one keeps them (`subscriptions.capabilities`)."""

    def get_capabilities(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
        *,
        protocol_version: str | None = None,
    ) -> types.ServerCapabilities:
        caps = super().get_capabilities(
            notification_options,
            experimental_capabilities,
            extensions,
            protocol_version=protocol_version,
        )
        return subscriptions.capabilities(caps, protocol_version in MODERN_PROTOCOL_VERSIONS)


@resets
@cache
def server() -> Server:
    """The MCP server of the installed project, its handlers chosen by what the project has."""
    project = current()
    handlers: dict[str, Any] = {}
    if project.has_prompts:
        from . import prompts

        handlers.update(on_list_prompts=prompts.list_prompts, on_get_prompt=prompts.get_prompt)
    if project.has_resources:
        from . import resources

        handlers.update(
            on_list_resources=resources.list_resources,
            on_list_resource_templates=resources.list_resource_templates,
            on_read_resource=resources.read_resource,
        )
        if resources.function_bound():  # your code can announce updates (subscriptions.py)
            handlers.update(
                on_subscribe_resource=subscriptions.subscribe,
                on_unsubscribe_resource=subscriptions.unsubscribe,
                on_subscriptions_listen=subscriptions.listen,
            )
    if project.toolsets:  # 2026-07-28 clients hear of enabled toolsets on listen streams
        handlers["on_subscriptions_listen"] = subscriptions.listen
    if project.has_prompts or project.has_resources:
        from .completion import complete

        handlers["on_completion"] = complete
    if project.context_tools:  # some tool may log: the logging capability, and its setLevel
        handlers["on_set_logging_level"] = tool_context.set_level
    with warnings.catch_warnings():  # logging is deprecated at 2026-07-28, kept for 2025-11-25
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        served = _Server(
            project.name,
            version=project.version,
            title=project.title,
            icons=[types.Icon.model_validate(icon) for icon in project.icons] or None,
            cache_hints=cache_hints(),
            on_call_tool=call_tool,
            **handlers,
        )
    served.add_request_handler("tools/list", types.PaginatedRequestParams, list_tools)
    _add_middleware(served, bool(project.context_tools or project.confirm_tools))
    if project.context_tools or project.confirm_tools:
        # `ctx.info()` & co. warn on every call (deprecated at 2026-07-28): served all the same.
        warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
    return served


class SdkUnsupported(RuntimeError):
    """The installed MCP SDK lacks an API this server cannot run safely without."""


def _add_middleware(served: Server, seals_request_state: bool) -> None:
    """`ListedTools`, and the requestState boundary when some tool elicits or confirms.

    `Server.middleware` is provisional in mcp 2.x (the generated pyproject pins the minor release
    it was written for). Without it (absent, or no list to add to), tools/list takes the SDK's plain path (`ListedTools` only
    saves time; `list_tools` alone serves whole pages), with a warning; but a server whose tools
    ask the client refuses to start: the boundary is what stops a client forging the sealed
    requestState that carries an answer or a confirmation."""
    chain = getattr(served, "middleware", None)
    if not isinstance(chain, list):
        if seals_request_state:
            raise SdkUnsupported(
                "the installed mcp SDK has no usable Server.middleware, which this server needs to seal the "
                "requestState of its asking tools (elicitation, confirmation); install the mcp "
                "release the package's pyproject.toml pins"
            )
        log.warning(
            "the installed mcp SDK has no usable Server.middleware: tools/list takes the SDK's plain path "
            "(slower for long tool lists); install the mcp release the package's pyproject.toml pins"
        )
        return
    # Our span middleware replaces the SDK's: its span records error messages, which can quote
    # the arguments, and it knows nothing of refusals or upstream requests (`telemetry`).
    chain[:] = [m for m in chain if type(m).__name__ != "OpenTelemetryMiddleware"]
    chain.insert(0, telemetry.TelemetryMiddleware())
    chain.append(ListedTools())
    if seals_request_state:
        chain.append(_request_state_boundary())


def _request_state_boundary() -> Any:
    """Seals the requestState of 2026-07-28 input-required results (elicitation, sampling)
    and refuses a changed or expired one: keys from PREFIX_REQUEST_STATE_KEY, shared by the
    replicas, else a key of this process only."""
    from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity

    keys = settings.current().request_state_keys
    security = RequestStateSecurity(keys=list(keys)) if keys else RequestStateSecurity.ephemeral()
    return RequestStateBoundary(security, default_audience=current().name)


def serve_stdio() -> None:
    import anyio
    from mcp.server.stdio import stdio_server

    state().owns_process = True

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server().run(read, write, server().create_initialization_options())

    anyio.run(run)


def serve_http(host: str, port: int) -> None:
    """Streamable HTTP at http://HOST:PORT/mcp: stateless unless PREFIX_HTTP_SESSIONS; SSE
    responses (a call's progress and logs reach the client) unless PREFIX_HTTP_RESPONSE=json."""
    import uvicorn

    from .http_guard import auth_mode, protect, resource_url, transport_security
    from .json_lists import JsonLists
    from .replay import HoldHeaders
    from .shared import describe

    state().owns_process = True
    resource = resource_url(host, port)
    state().stateless_http = not settings.current().http_sessions  # see subscriptions.py
    state().http = True
    app = server().streamable_http_app(
        stateless_http=not settings.current().http_sessions,
        json_response=settings.current().http_response == "json",
        host=host,
        transport_security=transport_security(host),
    )
    shown = f"[{host}]" if ":" in host else host
    # On stderr (stdout is the protocol's on stdio): where to point a client, since uvicorn logs warnings only.
    print(
        f"{current().name}: streamable HTTP at http://{shown}:{port}/mcp, {auth_mode(resource)}, "
        f"{describe()}",
        file=sys.stderr,
        flush=True,
    )
    # log_config=None: uvicorn's lines go through the root logger, whose output is redacted.
    uvicorn.run(
        protect(JsonLists(HoldHeaders(app)), resource, host),
        host=host,
        port=port,
        log_level="warning",
        log_config=None,
        timeout_keep_alive=settings.current().http_keep_alive,
    )
