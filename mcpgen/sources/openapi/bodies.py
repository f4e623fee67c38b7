"""An operation's request body: the media type chosen, its schema, how its properties are
encoded, and which of them are files."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcpgen.diagnostics import join_pointer
from mcpgen.ir import JsonSchema
from mcpgen.schema.convert import is_object_schema, merge_all_of
from mcpgen.sources.openapi.reader import Operation, Reader


@dataclass(frozen=True, slots=True)
class Body:
    """The request body: the media type chosen, its schema, and whether its properties
    become tool arguments of their own (`flatten`) or the body is one argument."""

    media: str
    schema: JsonSchema
    required: bool
    flatten: bool


@dataclass(frozen=True, slots=True)
class Encoding:
    """A body property's `encoding` entry (form and multipart bodies)."""

    style: str | None = None
    explode: bool | None = None
    content_type: str | None = None


class _SkipOperation:
    """A body no tool can send: the operation is dropped (with a warning already given)."""


SKIP_OPERATION = _SkipOperation()


def body(reader: Reader, op: Operation) -> Body | _SkipOperation | None:
    """The request body, None without one, or SKIP_OPERATION: the operation is dropped."""
    raw = op.node.get("requestBody")
    if raw is None:
        return None
    node, pointer = reader.deref(raw, f"{op.pointer}/requestBody")
    content = node.get("content") if isinstance(node, dict) else None
    if not isinstance(content, dict) or not content:
        reader.warn("request body without content; ignored", pointer)
        return None
    media = pick_media_type(list(content))
    if media is None:
        reader.diag.skipped(
            f"request body media types {sorted(content)} are not supported; operation skipped",
            "unsupported request body", pointer,
        )
        return SKIP_OPERATION
    media_node = content[media] if isinstance(content[media], dict) else {}
    raw_schema = media_node.get("schema", {})
    schema = reader.converter.convert(raw_schema, join_pointer(pointer, "content", media, "schema"), "request")
    if media.startswith("application/octet-stream"):
        schema = {"type": "string", "contentEncoding": "base64", "description": "The body, base64-encoded"}
    schema = merge_all_of(schema)
    flatten = (
        is_object_schema(schema)
        and isinstance(schema.get("properties"), dict)
        and bool(schema["properties"])
        and _is_json_like(media)
    )
    return Body(media, schema, node.get("required") is True, flatten)


def encodings(reader: Reader, op: Operation) -> dict[str, Encoding]:
    """Property -> its encoding, from the chosen media type's `encoding`."""
    node, _ = reader.deref(op.node.get("requestBody"), op.pointer)
    content = node.get("content") if isinstance(node, dict) else None
    media = pick_media_type(list(content)) if isinstance(content, dict) and content else None
    media_node = content.get(media) if media is not None and isinstance(content, dict) else None
    encoding = media_node.get("encoding") if isinstance(media_node, dict) else None
    out: dict[str, Encoding] = {}
    for prop, spec in encoding.items() if isinstance(encoding, dict) else []:
        if not isinstance(spec, dict):
            continue
        style = spec.get("style") if isinstance(spec.get("style"), str) else None
        explode = spec.get("explode") if isinstance(spec.get("explode"), bool) else None
        if style is not None and explode is None:
            explode = style == "form"
        content_type = spec.get("contentType") if isinstance(spec.get("contentType"), str) else None
        out[str(prop)] = Encoding(style, explode, content_type)
    return out


def is_file_schema(schema: Any, defs: dict[str, Any], depth: int = 0) -> bool:
    """A multipart property holding file content: `format: binary` (3.0), a
    `contentMediaType` (3.1), or an array of those."""
    if not isinstance(schema, dict) or depth > 4:
        return False
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return is_file_schema(defs.get(ref[len("#/$defs/"):]), defs, depth + 1)
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if "array" in kinds:
        return is_file_schema(schema.get("items"), defs, depth + 1)
    return "string" in kinds and (schema.get("format") == "binary" or "contentMediaType" in schema)


def file_argument_schema(schema: Any, defs: dict[str, Any], upload_env: str) -> JsonSchema:
    """The tool argument for a file part: base64 content plus a filename, or a local path
    that the server reads only under the directory its operator allowed."""
    one: JsonSchema = {
        "type": "object",
        "description": (
            "A file: `content` (base64) with a `filename`, or `path` to a file under the server's upload "
            f"directory (only when the server was started with {upload_env} set)."
        ),
        "properties": {
            "content": {"type": "string", "contentEncoding": "base64", "description": "The file's bytes, base64-encoded"},
            "filename": {"type": "string", "description": "File name sent to the API"},
            "contentType": {"type": "string", "description": "Media type of the file (default: guessed from the name)"},
            "path": {"type": "string", "description": f"A file under {upload_env}, relative to it"},
        },
        "anyOf": [{"required": ["content"]}, {"required": ["path"]}],
        "additionalProperties": False,
    }
    target = schema
    if isinstance(target, dict) and isinstance(target.get("$ref"), str) and target["$ref"].startswith("#/$defs/"):
        target = defs.get(target["$ref"][len("#/$defs/"):], {})
    types = target.get("type") if isinstance(target, dict) else None
    if isinstance(target, dict) and "array" in (types if isinstance(types, list) else [types]):
        return {"type": "array", "items": one}
    description = target.get("description") if isinstance(target, dict) else None
    if isinstance(description, str) and description:
        one["description"] = description + "\n\n" + one["description"]
    return one


def pick_media_type(types: list[str]) -> str | None:
    lowered = {t.split(";")[0].strip().lower(): t for t in types}
    for preferred in ("application/json",):
        if preferred in lowered:
            return lowered[preferred]
    for lower, original in lowered.items():
        if is_json(lower):
            return original
    for preferred in ("application/x-www-form-urlencoded", "multipart/form-data", "text/plain", "application/octet-stream"):
        if preferred in lowered:
            return lowered[preferred]
    for lower, original in lowered.items():
        if lower.startswith("text/"):
            return original
    return None


def is_json(media: str) -> bool:
    base = media.split(";", maxsplit=1)[0].strip().lower()
    return base == "application/json" or base.endswith("+json") or base == "*/*"


def _is_json_like(media: str) -> bool:
    base = media.split(";", maxsplit=1)[0].strip().lower()
    return is_json(base) or base in ("application/x-www-form-urlencoded", "multipart/form-data")
