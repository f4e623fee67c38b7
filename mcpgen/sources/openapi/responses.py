"""An operation's success response: what kind of content it is, its output schema (relaxed
and bounded: it describes a real response, never rejects one), and the component it names."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from mcpgen.diagnostics import join_pointer
from mcpgen.ir import JsonSchema, ResponseKind, StreamFormat
from mcpgen.schema.convert import hoist_defs, is_object_schema, merge_all_of
from mcpgen.schema.output import accepts_empty_object, bound_output_schema, relax_output_schema, with_content_id
from mcpgen.sources.openapi import v32
from mcpgen.sources.openapi.bodies import is_json
from mcpgen.sources.openapi.reader import Operation, Reader


@dataclass(frozen=True, slots=True)
class Response:
    """What a tool's result is: its output schema (None: none advertised), whether the value
    is wrapped as `{"result": ...}`, its kind, the typed function's annotation, and the
    component schema it names (`items` of an array when `is_list`), typed by the models stage."""

    output_schema: JsonSchema | None = None
    wraps: bool = False
    kind: ResponseKind = "json"
    python_type: str = "Any"
    component: str | None = None
    is_list: bool = False
    stream: StreamFormat | None = None  # a sequential response (3.2), read item by item
    stream_media: str = ""


def response(reader: Reader, op: Operation) -> Response:
    """The first 2xx response (by code) as the tool's result."""
    responses = op.node.get("responses") or {}
    success = sorted(str(code) for code in responses if re.fullmatch(r"2(\d\d|XX)", str(code)))
    if not success:
        return Response()
    code = success[0]
    node, pointer = reader.deref(responses[code], join_pointer(op.pointer, "responses", code))  # keys are str
    content = node.get("content") if isinstance(node, dict) else None
    if not isinstance(content, dict) or not content:
        return Response(kind="empty", python_type="None")
    _check_item_schemas(reader, content, pointer)
    json_media = next((m for m in content if is_json(m)), None)
    streamed = next((m for m in content if v32.stream_format(m)), None) if reader.openapi_32 else None
    if json_media is None and streamed is not None:
        return _stream(reader, streamed, content[streamed], join_pointer(pointer, "content", streamed))
    if json_media is None:
        media = next(iter(content))
        kind: ResponseKind = "text" if media.startswith("text/") or media.endswith(("+xml", "/xml")) else "binary"
        return Response(kind=kind, python_type="str" if kind == "text" else "bytes")
    media_node = content[json_media] if isinstance(content[json_media], dict) else {}
    raw = media_node.get("schema")
    if raw is None:
        return Response()
    component, is_list = _component(raw)
    schema = merge_all_of(reader.converter.convert(raw, join_pointer(pointer, "content", json_media, "schema"), "response"))
    is_object = is_object_schema(schema)
    # Describe the response, never reject a real one; cheaply enough for a client to compile.
    schema = bound_output_schema(relax_output_schema(schema), reader.output_budget)
    if is_object:
        schema["type"] = "object"  # the root stays an object: structuredContent always is one
        wraps = False
    else:
        # No `required`: `{}` must validate, as the conformer's last resort.
        inner, defs = hoist_defs(schema)
        schema = {"type": "object", "properties": {"result": inner} if inner else {}}
        if defs:
            schema["$defs"] = defs
        wraps = True
    if not accepts_empty_object(schema):
        reader.warn("the response schema admits no object, even relaxed; the tool is served without an outputSchema", pointer)
        return Response(component=component, is_list=is_list)
    return Response(with_content_id(schema), wraps, "json", "Any", component, is_list)


def _check_item_schemas(reader: Reader, content: dict[str, Any], pointer: str) -> None:
    """`itemSchema` where it cannot apply is a warning: in a 3.0/3.1 document, or on a media
    type that is not sequential (the whole response is then what `schema` says)."""
    for media, node in content.items():
        if not isinstance(node, dict) or "itemSchema" not in node:
            continue
        where = join_pointer(pointer, "content", media, "itemSchema")
        if not reader.openapi_32:
            reader.warn("`itemSchema` is an OpenAPI 3.2 field; ignored in this document", where)
        elif v32.stream_format(media) is None:
            reader.warn(
                f"`itemSchema` on {media!r}, which mcpgen does not read as a sequence (JSON Lines, JSON Seq and "
                "server-sent events are); ignored", where,
            )


def _stream(reader: Reader, media: str, node: Any, pointer: str) -> Response:
    """A sequential response: each item (a JSON value, or an event `{data, event, id, retry}`)
    described by `itemSchema` (else `schema`'s `items`, else anything), relaxed like any
    response schema; the result is the items read, and whether the stream was read to its end."""
    node = node if isinstance(node, dict) else {}
    raw, raw_pointer = node.get("itemSchema"), join_pointer(pointer, "itemSchema")
    whole = node.get("schema")
    if raw is None and isinstance(whole, dict) and isinstance(whole.get("items"), dict):
        raw, raw_pointer = whole["items"], join_pointer(pointer, "schema", "items")
    item = merge_all_of(reader.converter.convert(raw, raw_pointer, "response")) if raw is not None else {}
    item = bound_output_schema(relax_output_schema(item), reader.output_budget) if item else {}
    inner, defs = hoist_defs(item)
    items: JsonSchema = {"type": "array", "items": inner} if inner else {"type": "array"}
    schema: JsonSchema = {
        "type": "object",
        "properties": {
            "items": items,
            "complete": {"type": "boolean", "description": "whether the stream was read to its end"},
            "note": {"type": "string", "description": "why reading stopped early"},
        },
    }
    if defs:
        schema["$defs"] = defs
    fmt = v32.stream_format(media)
    return Response(with_content_id(schema), False, "json", "Any", stream=fmt, stream_media=media)


def _component(raw: Any) -> tuple[str | None, bool]:
    """The component schema a raw response schema names, and whether as an array's items."""
    if isinstance(raw, dict) and raw.get("type") == "array" and isinstance(raw.get("items"), dict):
        item = _component_name(raw["items"])
        return (item, True) if item is not None else (None, False)
    return _component_name(raw), False


def _component_name(raw: Any) -> str | None:
    if isinstance(raw, dict) and isinstance(raw.get("$ref"), str) and raw["$ref"].startswith("#/components/schemas/"):
        return str(raw["$ref"].rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~"))
    return None
