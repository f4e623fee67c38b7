# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""Prompts (user-controlled templates), listed from `prompts.json`.

Declared messages are filled by plain substitution: `{argument}` becomes the argument's
value, `{{`/`}}` become braces, nothing else is interpreted. A prompt bound to a Python
function is answered by calling it with the arguments (all strings, as MCP sends them).
Unknown prompts and missing or unknown arguments are JSON-RPC invalid-params errors.

Every get goes through `guarded`: the access policy on the prompt's registry entry (the
access settings address it by name; with OAuth it needs the project's `default_scopes`), the
rate limits, messages and errors cleaned (secrets redacted, control characters stripped), one
audit line. A hidden prompt is neither listed nor got, nor are its arguments completed.
"""

from __future__ import annotations

import functools
import inspect
import re
from typing import Any

import anyio.to_thread
from mcp import MCPError, types
from mcp.server import ServerRequestContext

from . import guarded, policy
from .project import current
from .registry import prompt_data, registry

_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_-]*)\}")


def prompt_table() -> dict[str, dict[str, Any]]:
    """Prompt name -> {"prompt": MCP Prompt as listed, "messages": [...], "call": [module, function, is_async] | None}."""
    return prompt_data()


@policy.per_caller
def _prompt_list() -> list[types.Prompt]:
    shown = [entry.name for entry in policy.visible("prompt")]
    return [types.Prompt.model_validate(prompt_table()[name]["prompt"]) for name in shown]


async def list_prompts(
    ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
) -> types.ListPromptsResult:
    return types.ListPromptsResult(prompts=_prompt_list())


async def get_prompt(
    ctx: ServerRequestContext, params: types.GetPromptRequestParams
) -> types.GetPromptResult:
    entry = prompt_table().get(params.name)
    arguments = dict(params.arguments or {})

    def missing(why: str | None) -> MCPError:
        shown = f"Unknown prompt: {params.name}" + (f" ({why})" if why else "")
        return MCPError(code=types.INVALID_PARAMS, message=shown)

    def invalid(problems: list[str]) -> types.GetPromptResult:
        raise MCPError(
            code=types.INVALID_PARAMS, message=f"Prompt {params.name}: " + "; ".join(problems)
        )

    return await guarded.run(
        "prompt",
        params.name,
        registry().get("prompt", params.name),
        arguments,
        lambda: _get(params.name, entry or {}, arguments),
        guarded.clean_prompt,
        missing=missing,
        validate=lambda: _problems(entry or {}, arguments),
        invalid=invalid,
    )


def _problems(entry: dict[str, Any], arguments: dict[str, str]) -> list[str]:
    declared = {a["name"]: a for a in entry["prompt"].get("arguments", [])}
    missing = [
        name for name, a in declared.items() if a.get("required") and not arguments.get(name)
    ]
    problems = [f"missing required argument {name!r}" for name in missing]
    return problems + [
        f"unknown argument {name!r}" for name in sorted(set(arguments) - set(declared))
    ]


async def _get(
    name: str, entry: dict[str, Any], arguments: dict[str, str]
) -> types.GetPromptResult:
    description = entry["prompt"].get("description")
    if entry["call"] is not None:
        return types.GetPromptResult(
            description=description, messages=await _call(name, entry["call"], arguments)
        )
    return types.GetPromptResult(
        description=description, messages=[_message(m, arguments) for m in entry["messages"]]
    )


def argument_values(name: str, argument: str) -> list[str] | None:
    """The declared `values` of a prompt's argument ([] when none); None: no such prompt, or
    one the caller may not see."""
    entry = prompt_table().get(name)
    found = registry().get("prompt", name)
    if entry is None or found is None or not policy.allowed(found):
        return None
    values: list[str] = entry.get("completions", {}).get(argument, [])
    return values


def fill(text: str, arguments: dict[str, str]) -> str:
    def one(match: re.Match[str]) -> str:
        if match.group(0) in ("{{", "}}"):
            return match.group(0)[0]
        return arguments.get(match.group(1), "")

    return _PLACEHOLDER.sub(one, text)


def _message(message: dict[str, Any], arguments: dict[str, str]) -> types.PromptMessage:
    if message.get("resourceUri"):
        resource = types.TextResourceContents(
            uri=message["resourceUri"], mime_type=message.get("mimeType"), text=message["text"]
        )
        return types.PromptMessage(
            role=message["role"], content=types.EmbeddedResource(type="resource", resource=resource)
        )
    text = fill(message["text"], arguments)
    return types.PromptMessage(
        role=message["role"], content=types.TextContent(type="text", text=text)
    )


async def _call(name: str, call: list[Any], arguments: dict[str, str]) -> list[types.PromptMessage]:
    module_name, function_name, is_async = call
    function = getattr(current().module(module_name), function_name)
    try:
        if is_async:
            value = await function(**arguments)
        else:
            value = await anyio.to_thread.run_sync(functools.partial(function, **arguments))
        if inspect.isawaitable(value):
            value = await value
    except Exception as exc:
        raise MCPError(
            code=types.INTERNAL_ERROR, message=f"Prompt {name} failed: {type(exc).__name__}: {exc}"
        ) from exc
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list):
        raise MCPError(
            code=types.INTERNAL_ERROR,
            message=f"Prompt {name} returned {type(value).__name__}, not str or list",
        )
    return [_as_message(name, item) for item in items]


def _as_message(name: str, item: Any) -> types.PromptMessage:
    """A str is a user message; a {"role", "content"} mapping or a PromptMessage is taken as is."""
    if isinstance(item, types.PromptMessage):
        return item
    if isinstance(item, str):
        return types.PromptMessage(role="user", content=types.TextContent(type="text", text=item))
    if (
        isinstance(item, dict)
        and item.get("role") in ("user", "assistant")
        and isinstance(item.get("content"), str)
    ):
        return types.PromptMessage(
            role=item["role"], content=types.TextContent(type="text", text=item["content"])
        )
    raise MCPError(
        code=types.INTERNAL_ERROR,
        message=f"Prompt {name}: a message must be a str or {{'role': 'user'|'assistant', 'content': str}}",
    )
