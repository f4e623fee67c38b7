# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""Resources and resource templates: GET operations read through resources/read.

`resources.json` (beside this module) holds each one's URI or URI template and its
HTTP route. Reading performs the request; the response's content type becomes the
mimeType, and anything that is not text comes back as a base64 blob.
"""

from __future__ import annotations

import base64
import functools
import inspect
import json
import re
from functools import cache
from typing import Any
from urllib.parse import unquote

import anyio.to_thread
import pydantic_core
from mcp import MCPError, types
from mcp.server import ServerRequestContext

from . import paging, settings
from .project import current, resets

RESOURCE_NOT_FOUND = -32002  # the MCP spec's error code for an unknown resource
MAX_ERROR_BODY = 2_000
_TEXTUAL = ("application/json", "application/xml", "application/yaml", "application/javascript")


@resets
@cache
def _entries() -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = current().read_json("resources.json")
    return entries


@resets
@cache
def _fixed() -> dict[str, dict[str, Any]]:
    return {entry["uri"]: entry for entry in _entries() if "uri" in entry}


@resets
@cache
def _templates() -> list[tuple[re.Pattern[str], dict[str, Any]]]:
    return [(re.compile(entry["pattern"]), entry) for entry in _entries() if "uriTemplate" in entry]


def _wire(entry: dict[str, Any], *fields: str) -> dict[str, Any]:
    return {
        key: entry[key]
        for key in ("name", "title", *fields, "description", "mimeType")
        if key in entry
    }


@resets
@cache
def _resource_list() -> list[types.Resource]:
    return [types.Resource.model_validate(_wire(e, "uri")) for e in _fixed().values()]


@resets
@cache
def _template_list() -> list[types.ResourceTemplate]:
    return [types.ResourceTemplate.model_validate(_wire(e, "uriTemplate")) for _, e in _templates()]


@resets
@cache
def _digests() -> tuple[str, str]:
    return (
        paging.digest([r.uri for r in _resource_list()]),
        paging.digest([t.uri_template for t in _template_list()]),
    )


async def list_resources(
    ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
) -> types.ListResourcesResult:
    cursor = params.cursor if params is not None else None
    items, next_cursor = paging.page(
        _resource_list(), _digests()[0], cursor, settings.current().page_size
    )
    return types.ListResourcesResult(resources=items, next_cursor=next_cursor)


async def list_resource_templates(
    ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
) -> types.ListResourceTemplatesResult:
    cursor = params.cursor if params is not None else None
    items, next_cursor = paging.page(
        _template_list(), _digests()[1], cursor, settings.current().page_size
    )
    return types.ListResourceTemplatesResult(resource_templates=items, next_cursor=next_cursor)


def _match(uri: str) -> tuple[dict[str, Any], dict[str, str]] | None:
    """The entry serving `uri` and the path arguments its template variables carry."""
    if uri in _fixed():
        return _fixed()[uri], {}
    for pattern, entry in _templates():
        found = pattern.fullmatch(uri)
        if found:
            return entry, {
                arg: unquote(value)
                for arg, value in zip(entry["variables"], found.groups(), strict=True)
            }
    return None


async def read_resource(
    ctx: ServerRequestContext, params: types.ReadResourceRequestParams
) -> types.ReadResourceResult:
    uri = str(params.uri)
    matched = _match(uri)
    if matched is None:
        raise MCPError(code=RESOURCE_NOT_FOUND, message=f"Resource not found: {uri}")
    entry, arguments = matched
    if "http" not in entry:  # bound to a Python function
        return types.ReadResourceResult(contents=[await _call(uri, entry, arguments)])
    from . import upstream

    try:
        response = await upstream.send(entry["http"], arguments)
    except upstream.InvalidArgument as exc:
        raise MCPError(
            code=types.INVALID_PARAMS, message=f"Invalid resource URI {uri}: {exc}"
        ) from None
    except (upstream.MissingCredential, upstream.UpstreamError) as exc:
        raise MCPError(code=types.INTERNAL_ERROR, message=str(exc)) from None
    status: int = response.status_code
    if status == 404:
        raise MCPError(code=RESOURCE_NOT_FOUND, message=f"Resource not found: {uri} (HTTP 404)")
    if status >= 400:
        body = response.text[:MAX_ERROR_BODY]
        raise MCPError(
            code=types.INTERNAL_ERROR,
            message=f"HTTP {status} {response.reason_phrase}: {body}".rstrip(": "),
        )
    media = response.headers.get("content-type", "").split(";")[0].strip().lower()
    if media.startswith("text/") or media in _TEXTUAL or media.endswith(("+json", "+xml")):
        text = types.TextResourceContents(uri=uri, mime_type=media, text=response.text)
        return types.ReadResourceResult(contents=[text])
    blob = types.BlobResourceContents(
        uri=uri,
        mime_type=media or "application/octet-stream",
        blob=base64.b64encode(response.content).decode("ascii"),
    )
    return types.ReadResourceResult(contents=[blob])


async def _call(
    uri: str, entry: dict[str, Any], arguments: dict[str, str]
) -> types.TextResourceContents | types.BlobResourceContents:
    """The bound function's value: str as text, bytes as a blob, anything else as JSON text."""
    module_name, function_name, is_async = entry["call"]
    function = getattr(current().module(module_name), function_name)
    try:
        if is_async:
            value = await function(**arguments)
        else:  # a worker thread keeps the server responsive
            value = await anyio.to_thread.run_sync(functools.partial(function, **arguments))
        if inspect.isawaitable(value):
            value = await value
    except LookupError as exc:  # KeyError/IndexError: nothing at that URI
        raise MCPError(
            code=RESOURCE_NOT_FOUND, message=f"Resource not found: {uri} ({exc})"
        ) from None
    except Exception as exc:
        raise MCPError(
            code=types.INTERNAL_ERROR, message=f"Reading {uri} failed: {type(exc).__name__}: {exc}"
        ) from exc
    if isinstance(value, (bytes, bytearray)):
        blob = base64.b64encode(bytes(value)).decode("ascii")
        return types.BlobResourceContents(
            uri=uri, mime_type=entry.get("mimeType", "application/octet-stream"), blob=blob
        )
    if isinstance(value, str):
        return types.TextResourceContents(
            uri=uri, mime_type=entry.get("mimeType", "text/plain"), text=value
        )
    text = json.dumps(pydantic_core.to_jsonable_python(value), ensure_ascii=False)
    return types.TextResourceContents(
        uri=uri, mime_type=entry.get("mimeType", "application/json"), text=text
    )


def template_values(uri_template: str, variable: str) -> list[str] | None:
    """A template variable's known values (its parameter's enum); None: not a template here."""
    entry = next((e for _, e in _templates() if e["uriTemplate"] == uri_template), None)
    if entry is None:
        return None
    values: list[str] = entry.get("completions", {}).get(variable, [])
    return values
