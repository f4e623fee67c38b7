"""An operation's parameters: path-item and operation ones merged, checked, converted."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, TypeGuard

from mcpgen import naming
from mcpgen.diagnostics import join_pointer
from mcpgen.ir import JsonSchema, ParamLocation
from mcpgen.sources.openapi.reader import Operation, Reader, text

LOCATION_ORDER = {"path": 0, "query": 1, "querystring": 2, "header": 3, "cookie": 4}
_IGNORED_HEADERS = frozenset({"accept", "content-type", "authorization"})  # the server sets these


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter of an operation, path-item and operation ones merged."""

    location: ParamLocation
    wire: str  # its name in the request
    schema: JsonSchema
    required: bool
    style: str
    explode: bool
    content_type: str | None = None  # `querystring`: the media type its value is serialized as


def parameters(reader: Reader, op: Operation) -> list[Param] | None:
    """Path-item and operation parameters merged by (name, in), sorted by location; None when
    the operation cannot be called (a path parameter it does not declare: skipped, with a warning)."""
    merged: dict[tuple[str, str], tuple[dict[str, Any], str]] = {}
    item_pointer = op.pointer.rpartition("/")[0]
    for owner, pointer in ((op.item, item_pointer), (op.node, op.pointer)):
        raw = owner.get("parameters") or []
        for i, node in enumerate(raw if isinstance(raw, list) else []):
            node, p = reader.deref(node, f"{pointer}/parameters/{i}")
            if not isinstance(node, dict) or "name" not in node or "in" not in node:
                reader.warn("parameter without `name` and `in`; ignored", p)
                continue
            merged[(str(node["name"]), str(node["in"]))] = (node, p)
    path_names = set(re.findall(r"{([^}/]+)}", op.path))
    out: list[Param] = []
    for (wire, location), (node, pointer) in merged.items():
        if not _is_param_location(location) or (location == "querystring" and not reader.openapi_32):
            hint = "`in: querystring` is OpenAPI 3.2; declare `openapi: 3.2.0`" if location == "querystring" else ""
            reader.warn(f"parameter location {location!r} is not supported; ignored", pointer, hint)
            continue
        if location == "querystring":
            param = _querystring(reader, node, pointer, wire, out)
            if param is not None:
                out.append(param)
            continue
        if location == "header" and wire.lower() in _IGNORED_HEADERS:
            continue
        if location == "path" and wire not in path_names:
            reader.warn(f"path parameter {wire!r} does not appear in the path; ignored", pointer)
            continue
        required = node.get("required") is True
        if location == "path" and not required:
            reader.warn(f"path parameter {wire!r} must be required; treated as required", pointer)
            required = True
        schema = _parameter_schema(reader, node, pointer)
        default_style = "form" if location in ("query", "cookie") else "simple"
        style = str(node.get("style") or default_style)
        explode = node.get("explode")
        explode = bool(explode) if explode is not None else style == "form"
        out.append(Param(location, wire, schema, required, style, explode))
    if any(p.location == "querystring" for p in out) and any(p.location == "query" for p in out):
        reader.warn(
            "a querystring parameter and query parameters in one operation (OpenAPI 3.2 forbids it); "
            "both are sent, the query parameters first", op.pointer,
        )
    missing = path_names - {p.wire for p in out if p.location == "path"}
    if missing:
        reader.diag.skipped(
            f"path parameter(s) {sorted(missing)} are not declared; operation skipped",
            "undeclared path parameters", op.pointer,
        )
        return None
    out.sort(key=lambda p: LOCATION_ORDER[p.location])
    return out


def _querystring(reader: Reader, node: dict[str, Any], pointer: str, wire: str, out: list[Param]) -> Param | None:
    """A 3.2 `in: querystring` parameter: the whole query string, one value described by its
    one `content` entry (form-urlencoded: an object's properties as pairs; JSON or text: the
    serialized value, percent-encoded, as the query string)."""
    content = node.get("content")
    if not isinstance(content, dict) or len(content) != 1:
        reader.warn(f"querystring parameter {wire!r} needs `content` with exactly one media type; ignored", pointer)
        return None
    if any(p.location == "querystring" for p in out):
        reader.warn(f"querystring parameter {wire!r}: an operation has at most one; ignored", pointer)
        return None
    media = str(next(iter(content)))
    base = media.split(";", maxsplit=1)[0].strip().lower()
    if not (base == "application/x-www-form-urlencoded" or base.startswith("text/") or base == "application/json"
            or base.endswith("+json")):
        reader.warn(
            f"querystring parameter {wire!r}: media type {media!r} is not supported (form-urlencoded, JSON or "
            "text are); ignored", pointer,
        )
        return None
    schema = _parameter_schema(reader, node, pointer)
    return Param("querystring", wire, schema, node.get("required") is True, "form", True, media)


def _is_param_location(location: str) -> TypeGuard[ParamLocation]:
    """`in` names a place a parameter can go (a 2.0 `body` parameter is the request body)."""
    return location in LOCATION_ORDER


def _parameter_schema(reader: Reader, node: dict[str, Any], pointer: str) -> JsonSchema:
    raw = node.get("schema")
    raw_pointer = f"{pointer}/schema"
    if raw is None and isinstance(node.get("content"), dict) and node["content"]:
        media, media_node = next(iter(node["content"].items()))
        raw = media_node.get("schema") if isinstance(media_node, dict) else None
        raw_pointer = join_pointer(pointer, "content", media, "schema")
    schema = reader.converter.convert(raw if raw is not None else {"type": "string"}, raw_pointer, "request")
    description = text(node.get("description"))
    if description and "description" not in schema:
        schema = {"description": description, **schema}
    if node.get("deprecated") is True:
        schema["deprecated"] = True
    return schema


def argument_name(reader: Reader, wire: str, location: str, taken: set[str], op: Operation) -> str:
    """The tool argument for a parameter or body property: its name made a property name,
    unique among the tool's arguments (`taken`); a rename is an info."""
    base = naming.property_name(wire)
    argument = base if base not in taken else naming.property_name(f"{location}_{wire}")
    n = 2
    while argument in taken:
        argument, n = f"{base}_{n}", n + 1
    if argument != wire:
        reader.diag.info(f"{location} parameter {wire!r} is the tool argument {argument!r}", op.pointer)
    taken.add(argument)
    return argument
