# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""Glue between the generated server and the files you own: `hooks.py` and `custom_tools.py`.

`@tool()` registers a function of `custom_tools.py` as an MCP tool. Its schemas come from
its signature through pydantic, the same way the arguments are validated, so what
tools/list advertises and what a call accepts cannot drift apart.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import json
import typing
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any, TypeVar

import anyio.to_thread
import pydantic
import pydantic_core

from . import content
from .catalog import tool_table
from .project import current, resets

__all__ = [
    "CustomTool",
    "InvalidArguments",
    "call_custom",
    "current_tool",
    "custom_tools",
    "hooks",
    "tool",
]

F = TypeVar("F", bound=Callable[..., Any])

# The tool being called, for hooks that run deep inside a request.
current_tool: contextvars.ContextVar[str] = contextvars.ContextVar("current_tool", default="")


class InvalidArguments(Exception):
    def __init__(self, errors: list[str]) -> None:
        super().__init__("; ".join(errors))
        self.errors = errors


@dataclass(frozen=True, slots=True)
class CustomTool:
    entry: dict[str, Any]  # {"tool": MCP Tool as sent on the wire, "wrapsResult": bool}
    function: Callable[..., Any]
    arguments: type[pydantic.BaseModel]
    parameters: dict[str, str]  # model field -> parameter name
    result: pydantic.TypeAdapter[Any] | None


_REGISTERED: dict[str, CustomTool] = {}


def tool(
    name: str | None = None,
    *,
    title: str | None = None,
    description: str | None = None,
    read_only: bool | None = None,
    destructive: bool | None = None,
    idempotent: bool | None = None,
    open_world: bool | None = None,
    scopes: list[str] | tuple[str, ...] | None = None,
) -> Callable[[F], F]:
    """Register the decorated function as a tool named `name` (default: the function's name).
    `scopes`: the OAuth scopes a caller needs, all of them (None: the project's `default_scopes`;
    []: none), decided by the access policy like every other entry's."""

    def register(function: F) -> F:
        tool_name = name or function.__name__
        if tool_name in _REGISTERED:
            raise ValueError(f"custom tool {tool_name!r} is defined twice")
        described = _describe(
            function,
            tool_name,
            title,
            description or inspect.getdoc(function) or tool_name,
            hints(read_only, destructive, idempotent, open_world),
        )
        if scopes is not None:
            described.entry["scopes"] = [sorted(set(scopes))] if scopes else []
        _REGISTERED[tool_name] = described
        return function

    return register


def hints(
    read_only: bool | None,
    destructive: bool | None,
    idempotent: bool | None,
    open_world: bool | None,
) -> dict[str, bool]:
    """All four annotation hints, each stated (some clients refuse a tool without
    `destructiveHint`): what is not given is what MCP clients assume of a tool they know
    nothing about (it may change anything, twice is not once, it reaches the outside), except
    that a read-only tool changes nothing, so it is not destructive and is idempotent."""
    read = bool(read_only)
    return {
        "readOnlyHint": read,
        "destructiveHint": (not read) if destructive is None else destructive,
        "idempotentHint": read if idempotent is None else idempotent,
        "openWorldHint": True if open_world is None else open_world,
    }


def _describe(
    function: Callable[..., Any],
    name: str,
    title: str | None,
    description: str,
    hints: dict[str, bool],
) -> CustomTool:
    type_hints = typing.get_type_hints(function, include_extras=True)
    fields: dict[str, Any] = {}
    parameters: dict[str, str] = {}
    for index, parameter in enumerate(inspect.signature(function).parameters.values()):
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            raise TypeError(f"custom tool {name!r}: *args/**kwargs cannot be tool arguments")
        default = ... if parameter.default is inspect.Parameter.empty else parameter.default
        fields[f"p{index}"] = (
            type_hints.get(parameter.name, Any),
            pydantic.Field(default, alias=parameter.name),
        )
        parameters[f"p{index}"] = parameter.name
    arguments = pydantic.create_model(
        f"{name}_arguments", __config__=pydantic.ConfigDict(extra="forbid"), **fields
    )
    input_schema = arguments.model_json_schema(by_alias=True)
    input_schema.pop("title", None)
    wire: dict[str, Any] = {"name": name, "description": description, "inputSchema": input_schema}
    if title:
        wire["title"] = title
    result = None
    wraps = False
    returns = type_hints.get("return", inspect.Signature.empty)
    # `-> str`: the text is the result, as for generated tools; content has no outputSchema.
    if returns not in (inspect.Signature.empty, None, type(None), str) and not (
        content.returns_content(returns)
    ):
        result = pydantic.TypeAdapter(returns)
        output = _unasserted(result.json_schema(mode="serialization"))
        output.pop("title", None)
        if output.get("type") != "object":
            wraps = True
            output = {"type": "object", "properties": {"result": output}, "required": ["result"]}
            if "$defs" in output["properties"]["result"]:
                output["$defs"] = output["properties"]["result"].pop("$defs")
        wire["outputSchema"] = output
    annotations: dict[str, Any] = dict(hints)
    if title:
        annotations["title"] = title
    if annotations:
        wire["annotations"] = annotations
    return CustomTool({"tool": wire, "wrapsResult": wraps}, function, arguments, parameters, result)


def _unasserted(schema: Any) -> Any:
    """pydantic's schema without `format` (named in the description instead) or defaults:
    TypeScript clients assert formats with ajv-formats, and pydantic writes a naive
    datetime without the zone a "date-time" needs."""
    if isinstance(schema, list):
        return [_unasserted(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ("properties", "$defs") and isinstance(value, dict):  # names, not keywords
            out[key] = {name: _unasserted(sub) for name, sub in value.items()}
        elif key not in ("format", "default", "enum", "const", "examples"):
            out[key] = _unasserted(value)
    form = schema.get("format")
    if isinstance(form, str) and schema.get("type") == "string":
        described = out.get("description")
        out["description"] = f"{described} (format: {form})" if described else f"Format: {form}"
    return out


@resets
@functools.cache
def hooks() -> ModuleType:
    """The project's `hooks.py`: the user's code the runtime calls around each request."""
    return current().module(".hooks")


@resets
@functools.cache
def custom_tools() -> dict[str, CustomTool]:
    """The tools of `custom_tools.py`, imported once; a clash with a generated tool is fatal."""
    current().module(".custom_tools")
    clashes = sorted(set(_REGISTERED) & set(tool_table()))
    if clashes:
        raise RuntimeError(
            f"custom_tools.py: {', '.join(clashes)} already name generated tools; rename them"
        )
    return dict(_REGISTERED)


async def call_custom(name: str, arguments: dict[str, Any]) -> Any:
    """Validate `arguments` strictly, call the tool's function, return its result as JSON data
    (or content blocks: see `content.as_blocks`)."""
    custom = custom_tools()[name]
    try:
        model = custom.arguments.model_validate_json(json.dumps(arguments), strict=True)
    except pydantic.ValidationError as exc:
        raise InvalidArguments(
            [
                f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}"
                for e in exc.errors(include_url=False)
            ]
        ) from None
    kwargs = {custom.parameters[field]: getattr(model, field) for field in model.model_fields_set}
    if inspect.iscoroutinefunction(custom.function):
        value = await custom.function(**kwargs)
    else:  # a worker thread keeps the server responsive
        value = await anyio.to_thread.run_sync(functools.partial(custom.function, **kwargs))
    blocks = content.as_blocks(value)  # images, audio, resources: sent as such (app.content_result)
    if blocks is not None:
        return blocks
    if custom.result is None:
        return pydantic_core.to_jsonable_python(value)
    return custom.result.dump_python(value, mode="json")
