# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""The one path every request to an entry goes through: tools/call (dynamic mode's meta
tools included), resources/read and resources/subscribe, prompts/get and completion/complete.

`run` does, in order: the access decision (`policy.refusal`, for the registry entry that
serves the request), input validation, rate limits (server-wide, and the entry's own bucket),
the work, then cleaning: secrets redacted and control characters stripped from the result
and from every error message, JSON-RPC errors included. Each request writes one audit line
(`audit`), whatever its outcome.

How a refusal is answered differs by kind, and the caller says it: a hidden or unknown
entry is answered like an unknown one (`missing`), a tool call over a limit is an `isError`
result (`limited`), every other request over a limit the JSON-RPC error `RATE_LIMITED`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from mcp import MCPError, types

from . import audit, guard, policy, redact, settings, telemetry
from .registry import Entry

log = logging.getLogger(__name__)

T = TypeVar("T")
# In JSON-RPC's range for server errors (-32000 to -32099), like MCP's -32002; 29 as in HTTP 429.
RATE_LIMITED = -32029
MAX_MESSAGE = 10_000  # characters of one JSON-RPC error message


async def run(
    kind: audit.Kind,
    name: str | None,
    entry: Entry | None,
    arguments: Mapping[str, Any],
    work: Callable[[], Awaitable[T]],
    clean: Callable[[T], T],
    *,
    missing: Callable[[str | None], MCPError] | None = None,
    validate: Callable[[], list[str]] | None = None,
    invalid: Callable[[list[str]], T] | None = None,
    limited: Callable[[str], T] | None = None,
    failed: Callable[[T], bool] | None = None,
    fields: Mapping[str, str] | None = None,
) -> T:
    """Run `work` for one request of `kind` to the entry `name` with every duty done.

    `name`: what the request asked for (None when it named nothing, like a URI no template
    matches), for the audit line; `entry`: the registry entry serving it (None: nothing is
    served, answered with `missing(None)`); `missing(why)`: the error for an unknown entry, or
    one hidden for `why`; `validate()`: the problems of the arguments, answered with
    `invalid(problems)` (default: an invalid-params error); `limited(message)`: the answer
    over a rate limit (default: a `RATE_LIMITED` error); `failed(result)`: whether a result
    reports a failure (the audit outcome `error`); `fields`: more for the audit line."""
    call = audit.begin(name, dict(arguments), kind, **dict(fields or {}))
    try:
        with settings.pinned():
            result = await _steps(
                kind,
                name,
                entry,
                work,
                clean,
                missing,
                validate,
                invalid,
                limited,
            )
    except MCPError as exc:
        cleaned = clean_error(exc)
        audit.finish(call, "error", cleaned.message)  # a step that refused has marked it so
        raise cleaned from None
    except Exception as exc:  # an opaque protocol error could carry what the model must not see
        log.exception("%s %s failed", kind, name)
        audit.finish(call, "error", type(exc).__name__)
        raise MCPError(
            code=types.INTERNAL_ERROR,
            message=f"Internal error in {kind} {name}: {type(exc).__name__}",
        ) from None
    audit.finish(call, "error" if failed is not None and failed(result) else "ok")
    return result


async def _steps(
    kind: audit.Kind,
    name: str | None,
    entry: Entry | None,
    work: Callable[[], Awaitable[T]],
    clean: Callable[[T], T],
    missing: Callable[[str | None], MCPError] | None,
    validate: Callable[[], list[str]] | None,
    invalid: Callable[[list[str]], T] | None,
    limited: Callable[[str], T] | None,
) -> T:
    why = None if entry is None else policy.refusal(entry)
    if entry is None or why is not None:
        audit.mark("refused")
        telemetry.outcome("refused", "unknown" if entry is None else "access")
        if missing is None:
            shown = f"Unknown {kind}: {name}" + (f" ({why})" if why else "")
            raise MCPError(code=types.INVALID_PARAMS, message=shown)
        raise missing(why)
    problems = validate() if validate is not None else []
    if problems:
        telemetry.outcome("invalid", "invalid_arguments")
        if invalid is not None:
            return clean(invalid(problems))
        raise MCPError(
            code=types.INVALID_PARAMS,
            message=f"Invalid arguments for {kind} {name}:\n" + "\n".join(problems),
        )
    message = await guard.take(entry.bucket)
    if message is not None:
        audit.mark("rate_limited")
        telemetry.outcome("rate_limited", "rate_limited")
        if limited is not None:
            return clean(limited(message))
        raise MCPError(code=RATE_LIMITED, message=message)
    return clean(await work())


# -- cleaning: what may leave the server -------------------------------------------


def clean_error(exc: MCPError) -> MCPError:
    """The same error with its message (and data) redacted, stripped and cut."""
    message = redact.clean_text(exc.message)
    if len(message) > MAX_MESSAGE:
        message = message[:MAX_MESSAGE] + f"… [{len(message) - MAX_MESSAGE} more characters cut]"
    data = redact.clean_value(exc.data) if exc.data is not None else None
    return MCPError(code=exc.code, message=message, data=data)


def clean_read(result: types.ReadResourceResult) -> types.ReadResourceResult:
    """A resource's text contents cleaned; blobs are bytes for the application, kept as sent."""
    contents: list[types.TextResourceContents | types.BlobResourceContents] = []
    for item in result.contents:
        if isinstance(item, types.TextResourceContents):
            item = item.model_copy(update={"text": _clean_text(item.text, item.mime_type)})
        contents.append(item)
    return result.model_copy(update={"contents": contents})


def _clean_text(text: str, mime_type: str | None) -> str:
    """JSON escapes control characters (`\\u001b`), so JSON text is cleaned as data: written
    again when cleaning changed a value, else kept as it came (its layout too)."""
    media = (mime_type or "").split(";")[0].strip().lower()
    if media == "application/json" or media.endswith("+json"):
        try:
            value = json.loads(text)
        except ValueError:
            return redact.clean_text(text)
        cleaned = redact.clean_value(value)
        if cleaned != value:
            return json.dumps(cleaned, ensure_ascii=False)
    return redact.clean_text(text)


def clean_prompt(result: types.GetPromptResult) -> types.GetPromptResult:
    """Every text of a prompt's messages, and its description, cleaned."""
    messages = []
    for message in result.messages:
        content: Any = message.content
        if isinstance(content, types.TextContent):
            content = content.model_copy(update={"text": redact.clean_text(content.text)})
        elif isinstance(content, types.EmbeddedResource) and isinstance(
            content.resource, types.TextResourceContents
        ):
            text = redact.clean_text(content.resource.text)
            content = content.model_copy(
                update={"resource": content.resource.model_copy(update={"text": text})}
            )
        messages.append(message.model_copy(update={"content": content}))
    description = redact.clean_text(result.description) if result.description else None
    return result.model_copy(update={"messages": messages, "description": description})


def clean_completion(result: types.CompleteResult) -> types.CompleteResult:
    values = [redact.clean_text(value) for value in result.completion.values]
    completion = result.completion.model_copy(update={"values": values})
    return result.model_copy(update={"completion": completion})
