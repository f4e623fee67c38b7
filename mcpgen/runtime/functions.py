# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""Validates tool arguments and calls the Python functions behind the tools.

A tool's arguments model is built from the function's own
signature on its first call, by the rules that produced its inputSchema: one field
per parameter, aliased to the parameter's name, unknown arguments rejected.
"""

from __future__ import annotations

import functools
import inspect
import json
import sys
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import anyio.to_thread
import pydantic
import pydantic_core

from . import content
from .project import current, on_install

__all__ = ["FunctionExited", "InvalidArguments", "context_parameter", "invoke"]
_CONTEXT_MODULE = "mcp.server.mcpserver.context"  # where the SDK's `Context` (MCPServer's) lives


class InvalidArguments(Exception):
    """The arguments do not fit the function; each of `errors` reads `field.path: message`."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("; ".join(errors))
        self.errors = errors


class FunctionExited(Exception):
    """The function called `sys.exit()`: an error of this call, not a reason to stop serving."""

    def __init__(self, code: object) -> None:
        super().__init__(f"the function called sys.exit({code!r})")
        self.code = code


@dataclass(frozen=True, slots=True)
class _Prepared:
    function: Callable[..., Any]
    is_async: bool
    arguments: type[pydantic.BaseModel]
    parameters: dict[str, str]  # model field -> parameter name
    result: pydantic.TypeAdapter[Any] | None  # None: no return annotation
    context: str | None  # the parameter that takes the request's Context, if one does


_PREPARED: dict[str, _Prepared] = {}
on_install(_PREPARED.clear)


async def invoke(
    tool_name: str,
    arguments: dict[str, Any],
    max_file_bytes: tuple[int, str] | None = None,
    context: Callable[[], Any] | None = None,
) -> Any:
    """Call the tool's function; return its result as JSON-compatible data, or as content
    blocks (a list of `mcp.types` blocks) when it is content (see `content.as_blocks`);
    `max_file_bytes`: (limit, its setting's name) past which an SDK Image/Audio file is not read.

    A function with a context parameter (see `context_parameter`) gets `context()` there.

    Raises KeyError for an unknown tool, InvalidArguments for arguments that do not
    validate, FunctionExited for `sys.exit()`; whatever else the function raises propagates.
    """
    prepared = _PREPARED.get(tool_name) or _prepare(tool_name)
    try:
        # Strict JSON-mode validation: what inputSchema allows, no lax coercion ("5" is no int).
        model = prepared.arguments.model_validate_json(json.dumps(arguments), strict=True)
    except pydantic.ValidationError as exc:
        raise InvalidArguments(_messages(exc)) from None
    # Only the arguments given: omitted ones take the function's own defaults.
    kwargs = {prepared.parameters[field]: getattr(model, field) for field in model.model_fields_set}
    if prepared.context is not None and context is not None:
        kwargs[prepared.context] = context()
    try:
        if prepared.is_async:
            result = await prepared.function(**kwargs)
        else:  # a worker thread keeps the server responsive
            call = functools.partial(prepared.function, **kwargs)
            result = await anyio.to_thread.run_sync(call)
        if inspect.isawaitable(result):  # a plain function that returns a coroutine
            result = await result
    except SystemExit as exc:  # would otherwise end the server, for every client
        raise FunctionExited(exc.code) from exc
    limit, variable = max_file_bytes or (None, "")
    blocks = content.as_blocks(result, limit, variable)
    if blocks is not None:
        return blocks
    if prepared.result is None:
        return pydantic_core.to_jsonable_python(result)
    return prepared.result.dump_python(result, mode="json")


def _prepare(tool_name: str) -> _Prepared:
    """Import the function and build its models, once per tool."""
    functions = current().functions  # tool name -> (module, function, is_async)
    if tool_name not in functions:
        raise KeyError(f"unknown tool: {tool_name}")
    module_name, function_name, is_async = functions[tool_name]
    module = current().module(module_name)
    function: Callable[..., Any] = getattr(module, function_name)
    hints = typing.get_type_hints(function, include_extras=True)
    takes = context_parameter(hints)
    signature = [p for p in inspect.signature(function).parameters.values() if p.name != takes]
    arguments = arguments_model(function_name, signature, hints)
    parameters = {f"p{index}": parameter.name for index, parameter in enumerate(signature)}
    result = _result_adapter(hints["return"]) if "return" in hints else None
    prepared = _Prepared(function, is_async, arguments, parameters, result, takes)
    _PREPARED[tool_name] = prepared
    return prepared


def _result_adapter(annotation: Any) -> pydantic.TypeAdapter[Any] | None:
    """How the return value becomes JSON; None for a type pydantic has no schema for (the
    SDK's Image, a union with it): such a value is content, or goes through
    `to_jsonable_python`."""
    try:
        return pydantic.TypeAdapter(annotation)
    except pydantic.PydanticSchemaGenerationError:
        return None


def context_parameter(hints: Mapping[str, Any]) -> str | None:
    """The parameter annotated with the SDK's `Context` (the class `MCPServer` injects), by
    MCPServer's own rule (`find_context_parameter`): the first whose type is `Context` or a
    subclass (`Context[...]` is one), or has one among its arguments (`Context | None`).
    It takes no tool argument: it is in neither inputSchema nor the arguments model.

    A function whose module never imported the SDK's context module cannot name it, so
    nothing is imported here to find out."""
    module = sys.modules.get(_CONTEXT_MODULE)
    context = getattr(module, "Context", None)
    if context is None:
        return None
    for name, annotation in hints.items():
        if name == "return":
            continue
        if typing.get_origin(annotation) is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
        for candidate in (annotation, *typing.get_args(annotation)):
            if inspect.isclass(candidate) and issubclass(candidate, context):
                return name
    return None


def arguments_model(
    function_name: str,
    parameters: list[inspect.Parameter],
    hints: Mapping[str, Any],
) -> type[pydantic.BaseModel]:
    """The model that validates a call: one field per parameter, aliased to its name. mcpgen
    derives the tool's inputSchema from this same model, so validation and schema agree.

    Fields are `p0, p1...` with the parameter name as alias, so names like `json`,
    `model_config` or `_x` never clash with BaseModel attributes.
    """
    fields: dict[str, Any] = {}
    for index, parameter in enumerate(parameters):
        empty = parameter.default is inspect.Parameter.empty
        default = ... if empty else parameter.default
        fields[f"p{index}"] = (hints[parameter.name], pydantic.Field(default, alias=parameter.name))
    return pydantic.create_model(
        f"{function_name}_arguments",
        __config__=pydantic.ConfigDict(extra="forbid"),
        **fields,
    )


def _messages(error: pydantic.ValidationError) -> list[str]:
    messages = []
    for item in error.errors(include_url=False):
        where = ".".join(str(part) for part in item["loc"]) or "arguments"
        messages.append(f"{where}: {item['msg']}")
    return messages
