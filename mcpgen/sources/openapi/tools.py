"""One tool per selected operation: its arguments (parameters and body properties, named
once), its input schema, its HTTP route, its result and its hints."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcpgen import naming
from mcpgen.ir import Annotations, BodyField, HttpBody, HttpParam, HttpRoute, JsonSchema, Origin, SecurityScheme, Tool
from mcpgen.schema.convert import SchemaTooLarge, hoist_defs
from mcpgen.schema.portable import split_type_unions
from mcpgen.sources.openapi import bodies, parameters, security
from mcpgen.sources.openapi.operations import wire_method
from mcpgen.sources.openapi.reader import Operation, Reader, text
from mcpgen.sources.openapi.responses import response

_MAX_DESCRIPTION = 4000
# JSON nesting of one tool schema: the MCP SDK's pydantic serializer gives up near 250
# levels, which would break tools/list for every tool of the server.
_MAX_SCHEMA_DEPTH = 200
_SAFE_METHODS = ("GET", "HEAD", "OPTIONS", "QUERY")  # QUERY: safe and idempotent (OpenAPI 3.2, RFC draft)


@dataclass(frozen=True, slots=True)
class _ParamArgument:
    """A parameter as the tool argument it became."""

    argument: str
    param: parameters.Param
    schema: JsonSchema  # its schema, `$defs` hoisted to the tool's


@dataclass(frozen=True, slots=True)
class _FieldArgument:
    """A body property as the tool argument it became (a flattened body)."""

    prop: str
    argument: str
    required: bool
    schema: JsonSchema
    is_file: bool


@dataclass(frozen=True, slots=True)
class _BodyArguments:
    """The body as arguments: its fields (flattened), or one whole-body argument."""

    body: bodies.Body
    schema: JsonSchema  # `$defs` hoisted to the tool's
    fields: tuple[_FieldArgument, ...] = ()
    whole: str | None = None


def tools(
    reader: Reader, operations: list[Operation], names: list[naming.ToolName], schemes: dict[str, SecurityScheme]
) -> list[Tool]:
    """A tool for each operation that converts; the others skipped, with a warning each."""
    out: list[Tool] = []
    used_python_names: set[str] = set()
    for op, tool_name in zip(operations, names, strict=True):
        if tool_name.reason:
            reader.diag.renamed(op.wanted_name, tool_name.name, tool_name.reason, op.pointer)
        try:
            tool = _tool(reader, op, tool_name.name, schemes, used_python_names)
        except RecursionError:  # schema walks recurse once per nesting level
            reader.diag.skipped("schemas nested too deeply to convert; operation skipped", "schemas too deep", op.pointer)
            continue
        except SchemaTooLarge as exc:
            reader.diag.skipped(f"{exc}, too many to convert; operation skipped", "schemas too large", op.pointer)
            continue
        depth = 0 if tool is None else max(_json_depth(tool.input_schema), _json_depth(tool.output_schema))
        if depth > _MAX_SCHEMA_DEPTH:
            reader.diag.skipped(
                f"schemas nested {depth} levels deep, more than the {_MAX_SCHEMA_DEPTH} MCP SDKs can send; "
                "operation skipped", "schemas too deep", op.pointer,
            )
            continue
        if tool is not None:
            out.append(tool)
    return out


def _tool(
    reader: Reader, op: Operation, name: str, schemes: dict[str, SecurityScheme], used_python_names: set[str]
) -> Tool | None:
    params = parameters.parameters(reader, op)
    if params is None:
        return None
    body = bodies.body(reader, op)
    if isinstance(body, bodies._SkipOperation):
        return None
    properties: dict[str, Any] = {}
    required: list[str] = []
    defs: dict[str, Any] = {}
    taken: set[str] = set()
    param_arguments = []
    for param in params:
        argument = parameters.argument_name(reader, param.wire, param.location, taken, op)
        schema, schema_defs = hoist_defs(param.schema)
        defs.update(schema_defs)
        properties[argument] = schema
        if param.required:
            required.append(argument)
        param_arguments.append(_ParamArgument(argument, param, schema))
    body_arguments = None
    if body is not None:
        body_arguments = _body_arguments(reader, op, body, taken, defs)
        for field in body_arguments.fields:
            properties[field.argument] = field.schema
            if field.required:
                required.append(field.argument)
        if body_arguments.whole is not None:
            properties[body_arguments.whole] = body_arguments.schema
            if body.required:
                required.append(body_arguments.whole)

    input_schema: JsonSchema = {"type": "object", "properties": properties}
    if required:
        input_schema["required"] = required
    input_schema["additionalProperties"] = False
    if defs:
        input_schema["$defs"] = dict(sorted(defs.items()))
    input_schema = split_type_unions(input_schema)  # a copy: the HTTP routes keep the spec's types

    python_name = _unique(naming.python_identifier(name), used_python_names)
    route_params, route_body = _route_arguments(reader, op, param_arguments, body_arguments, defs)
    result = response(reader, op)
    summary = text(op.node.get("summary"))
    method = wire_method(op.method)
    return Tool(
        name=name,
        title=summary[:200] if summary else None,
        description=_description(op, summary, result.stream_media),
        input_schema=input_schema,
        output_schema=result.output_schema,
        wraps_result=result.wraps,
        annotations=method_annotations(method),
        origin=Origin(reader.path.name, op.pointer),
        python_name=python_name,
        tags=tuple(t for t in op.node.get("tags") or () if isinstance(t, str)),
        operation_id=op.node["operationId"] if isinstance(op.node.get("operationId"), str) else None,
        scopes=security.scopes(reader, op),
        route=HttpRoute(
            method=method,
            path=op.path,
            params=route_params,
            body=route_body,
            security=security.requirements(reader, op, schemes),
            response_kind=result.kind,
            response_type=result.python_type,
            response_model=None,  # typed by the models stage
            response_model_module=None,
            response_component=result.component,
            response_is_list=result.is_list,
            response_stream=result.stream,
        ),
    )


def _body_arguments(
    reader: Reader, op: Operation, body: bodies.Body, taken: set[str], defs: dict[str, Any]
) -> _BodyArguments:
    """A flattened body's properties as arguments of their own, or the body as one `body` argument."""
    schema, schema_defs = hoist_defs(body.schema)
    defs.update(schema_defs)
    if not body.flatten:
        return _BodyArguments(body, schema, whole=parameters.argument_name(reader, "body", "body", taken, op))
    fields = []
    required_props = set(schema.get("required", []))
    multipart = body.media.split(";")[0].strip().lower() == "multipart/form-data"
    for prop, prop_schema in schema.get("properties", {}).items():
        argument = parameters.argument_name(reader, prop, "body", taken, op)
        is_file = multipart and bodies.is_file_schema(prop_schema, defs)
        if is_file:
            prop_schema = bodies.file_argument_schema(prop_schema, defs, reader.upload_env)
        fields.append(_FieldArgument(prop, argument, body.required and prop in required_props, prop_schema, is_file))
    return _BodyArguments(body, schema, tuple(fields))


def _route_arguments(
    reader: Reader,
    op: Operation,
    param_arguments: list[_ParamArgument],
    body_arguments: _BodyArguments | None,
    defs: dict[str, Any],
) -> tuple[tuple[HttpParam, ...], HttpBody | None]:
    """The route's parameters and body, each argument with its Python identifier (unique,
    `client` kept for the typed function's own parameter) and annotation."""
    fields = body_arguments.fields if body_arguments else ()
    whole = [body_arguments.whole] if body_arguments and body_arguments.whole else []
    idents = iter(naming.unique_identifiers(
        [a.argument for a in param_arguments] + [f.argument for f in fields] + whole,
        reserved=frozenset({"client"}),
    ))
    route_params = tuple(
        HttpParam(
            a.param.wire, a.argument, a.param.location, a.param.required, a.param.style, a.param.explode,
            next(idents), python_type(a.schema, defs), a.param.content_type,
        )
        for a in param_arguments
    )
    if body_arguments is None:
        return route_params, None
    encodings = bodies.encodings(reader, op)
    route_fields = tuple(
        BodyField(
            f.prop, f.argument, f.required, next(idents), python_type(f.schema, defs), f.is_file,
            *_encoding(encodings.get(f.prop)),
        )
        for f in fields
    )
    body = body_arguments.body
    route_body = HttpBody(
        body.media, body.required, route_fields, body_arguments.whole,
        next(idents) if body_arguments.whole else None,
        python_type(body_arguments.schema, defs) if body_arguments.whole else "Any",
    )
    return route_params, route_body


def _encoding(encoding: bodies.Encoding | None) -> tuple[str | None, bool | None, str | None]:
    return (None, None, None) if encoding is None else (encoding.style, encoding.explode, encoding.content_type)


def _description(op: Operation, summary: str, stream_media: str = "") -> str:
    body = text(op.node.get("description"))
    parts = [p for p in (summary, body) if p]
    if summary and body.startswith(summary):
        parts = [body]
    if op.node.get("deprecated") is True:
        parts.append("Deprecated.")
    if stream_media:
        parts.append(
            f"Streams its response ({stream_media}): each item arrives as a progress notification when the call "
            "asks for progress; the result lists the items read."
        )
    parts.append(f"HTTP {wire_method(op.method)} {op.path}")
    joined = "\n\n".join(parts)
    if len(joined) > _MAX_DESCRIPTION:
        joined = joined[: _MAX_DESCRIPTION - 1] + "…"
    return joined


def method_annotations(method: str) -> Annotations:
    """All four hints, from the HTTP method's semantics (RFC 9110 §9.2): GET, HEAD, OPTIONS
    (and QUERY, a GET with a body) read; PUT and DELETE are idempotent and change or remove what is there; POST, PATCH
    (and anything else) may change anything, and twice is not once. Every tool reaches the
    API, an open world. mcpgen.toml's `[tools.<name>] annotations` override them."""
    if method in _SAFE_METHODS:
        return Annotations(read_only=True, destructive=False, idempotent=True, open_world=True)
    idempotent = method in ("PUT", "DELETE")
    return Annotations(read_only=False, destructive=True, idempotent=idempotent, open_world=True)


def python_type(schema: Any, defs: dict[str, Any], depth: int = 0) -> str:
    """A Python annotation for a converted JSON Schema; `Any` where no simple type fits."""
    if not isinstance(schema, dict) or depth > 4:
        return "Any"
    ref = schema.get("$ref")
    if ref is not None:  # `$defs` keys need no pointer escaping (see schemas.def_name)
        target = defs.get(ref[len("#/$defs/"):]) if isinstance(ref, str) and ref.startswith("#/$defs/") else None
        return python_type(target, defs, depth + 1)
    kind = schema.get("type")
    nullable = False
    if isinstance(kind, list):
        nullable = "null" in kind
        rest = [k for k in kind if k != "null"]
        kind = rest[0] if len(rest) == 1 else None
    simple = {"string": "str", "integer": "int", "number": "float", "boolean": "bool"}
    if kind in simple:
        annotation = simple[kind]
        if schema.get("contentEncoding") == "base64":
            annotation = "str"
    elif kind == "array":
        annotation = f"list[{python_type(schema.get('items', {}), defs, depth + 1)}]"
    elif kind == "object":
        annotation = "dict[str, Any]"
    else:
        return "Any"
    return f"{annotation} | None" if nullable else annotation


def _json_depth(value: Any) -> int:
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (dict, list)):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in (node.values() if isinstance(node, dict) else node))
    return deepest


def _unique(ident: str, used: set[str]) -> str:
    candidate, n = ident, 2
    while candidate in used:
        candidate, n = f"{ident}_{n}", n + 1
    used.add(candidate)
    return candidate
