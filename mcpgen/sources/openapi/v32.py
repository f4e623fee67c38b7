"""OpenAPI 3.2's own constructs, read into the IR by the parser's other modules through here:
the QUERY method and `additionalOperations`, `querystring` parameters, sequential media
types (`itemSchema`), `$self`, and the 3.1 view of an object that openapi-pydantic checks.

openapi-pydantic knows 3.0 and 3.1. A 3.2 document is read as 3.1 (the same JSON Schema
dialect; every 3.1 object kept its shape, 3.2 only adds fields and values), after the one
3.2 value its models refuse is put in 3.1 terms (`as_31`); what 3.2 adds is read from the
plain document here, never through openapi-pydantic. What mcpgen cannot serve is a located
warning, and costs at most the operation it is in.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urldefrag, urljoin, urlsplit

from mcpgen.diagnostics import Diagnostics, join_pointer
from mcpgen.ir import StreamFormat

# The sequential media types 3.2 names (each item one JSON value, or one server-sent event).
SEQUENTIAL: dict[str, StreamFormat] = {
    "application/jsonl": "jsonl",
    "application/x-ndjson": "jsonl",
    "application/x-jsonlines": "jsonl",
    "application/json-seq": "json-seq",
    "text/event-stream": "sse",
}
FIXED_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
QUERY = "query"  # the 3.2 path item's ninth fixed method
# RFC 9110 §5.6.2: a method is a token.
_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")


def media_base(media: str) -> str:
    return media.split(";", maxsplit=1)[0].strip().lower()


def stream_format(media: str) -> StreamFormat | None:
    """The sequential format of a media type (`application/jsonl`...), else None."""
    return SEQUENTIAL.get(media_base(media))


def as_31(operation: Any) -> Any:
    """An operation as openapi-pydantic's 3.1 models accept it: a `querystring` parameter (3.2's
    only value those models refuse) checked as the `query` one it is shaped like."""
    if not isinstance(operation, dict) or not isinstance(operation.get("parameters"), list):
        return operation
    params = [
        {**p, "in": "query"} if isinstance(p, dict) and p.get("in") == "querystring" else p
        for p in operation["parameters"]
    ]
    return {**operation, "parameters": params}


def extra_operations(
    item: dict[str, Any], item_pointer: str, is_32: bool, diagnostics: Diagnostics
) -> Iterator[tuple[str, Any, str]]:
    """A path item's operations beyond the 3.0/3.1 eight, as (method as sent, node, pointer):
    `query`, then `additionalOperations` (their keys are the methods, case-sensitive). In a
    3.0/3.1 document either is a warning: it is not an operation there."""
    has_query = QUERY in item and item[QUERY] is not None
    extra = item.get("additionalOperations")
    if not is_32:
        for key in (QUERY, "additionalOperations") if has_query or extra is not None else ():
            if key in item:
                diagnostics.warning(
                    f"`{key}` is an OpenAPI 3.2 field; this document's `openapi` version is older, so it is "
                    "not read as an operation; ignored",
                    join_pointer(item_pointer, key),
                    "declare `openapi: 3.2.0` if the document is written for 3.2",
                )
        return
    if has_query:
        yield QUERY, item[QUERY], join_pointer(item_pointer, QUERY)
    if extra is None:
        return
    extra_pointer = join_pointer(item_pointer, "additionalOperations")
    if not isinstance(extra, dict):
        diagnostics.warning("`additionalOperations` is not an object; ignored", extra_pointer)
        return
    for method, node in extra.items():
        pointer = join_pointer(extra_pointer, method)
        if method.lower() in (*FIXED_METHODS, QUERY):
            diagnostics.skipped(
                f"additional operation {method!r} is a method the path item has a field for; skipped",
                "fixed method in additionalOperations", pointer, f"declare it as the path item's `{method.lower()}`",
            )
            continue
        if not _TOKEN.match(method):
            diagnostics.skipped(
                f"additional operation {method!r} is not an HTTP method name (RFC 9110 token); skipped",
                "invalid method", pointer,
            )
            continue
        yield method, node, pointer


def base_uri(document: dict[str, Any], diagnostics: Diagnostics) -> str | None:
    """The document's `$self` (3.2: its own URI, the base relative references resolve
    against), when it is an absolute URI without a fragment; else None, with a warning."""
    if "$self" not in document:
        return None
    value = document["$self"]
    version = document.get("openapi")
    if not (isinstance(version, str) and version.startswith("3.2")):
        diagnostics.warning("`$self` is an OpenAPI 3.2 field; this document is older, so it is ignored", "/$self")
        return None
    if not isinstance(value, str) or not urlsplit(value).scheme or "#" in value:
        diagnostics.warning(
            f"`$self` {value!r} is not an absolute URI without a fragment; ignored (relative references are "
            "resolved against the file's own location)",
            "/$self",
        )
        return None
    return value


def rebase(ref_address: str, self_uri: str) -> str | None:
    """Where a reference's address (the part before `#`) of the root document leads, given
    its `$self`: "" for the document itself; a path relative to the document's folder for a
    URI under `$self`'s folder (read from the spec's folder tree, as a relative ref would be);
    None for anywhere else (the address is then used as written)."""
    target = urldefrag(urljoin(self_uri, ref_address)).url
    if target == urldefrag(self_uri).url:
        return ""
    folder = self_uri.rsplit("/", 1)[0] + "/"
    if target.startswith(folder) and not urlsplit(target).query:
        return target[len(folder):]
    return None
