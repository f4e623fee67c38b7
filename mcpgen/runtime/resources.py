# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""Resources and resource templates: GET operations read through resources/read.

`resources.json` (beside this module) holds each one's URI or URI template, the schema
each template variable's value must match, and its HTTP route (or the function bound to
it). Reading performs the request; the response's content type becomes the mimeType, and
anything that is not text comes back as a base64 blob.

A read goes through `guarded` like a tool call: the access policy decides on the
resource's registry entry (its name, which an operation's resource shares with its tool, and
its scopes, which are its operation's), template variables are checked against their
parameter schemas before anything is sent, rate limits apply, text and error messages are
cleaned, and it writes an audit line. A hidden resource is neither listed, readable
(answered like an unknown one, -32002), subscribable, nor are its variables completed.
"""

from __future__ import annotations

import base64
import functools
import inspect
import json
import math
import re
from functools import cache
from typing import Any

import anyio.to_thread
import jsonschema
import pydantic_core
from mcp import MCPError, types
from mcp.server import ServerRequestContext

from . import audit, guard, guarded, paging, policy, settings
from .project import current
from .registry import resource_at, resource_data, resource_entry

RESOURCE_NOT_FOUND = -32002  # the MCP spec's error code for an unknown resource
MAX_ERROR_BODY = 2_000
_TEXTUAL = ("application/json", "application/xml", "application/yaml", "application/javascript")


_VARIABLE = re.compile(r"\{([^{}]+)\}")


def resource_entries() -> list[dict[str, Any]]:
    """Every entry of `resources.json`, hidden ones included."""
    return resource_data()


def _shown(entry: dict[str, Any]) -> bool:
    found = resource_entry(entry)
    return found is not None and policy.allowed(found)


def _wire(entry: dict[str, Any], *fields: str) -> dict[str, Any]:
    return {
        key: entry[key]
        for key in ("name", "title", *fields, "description", "mimeType")
        if key in entry
    }


@policy.per_caller
def _resource_list() -> list[types.Resource]:
    entries = [e for e in resource_data() if "uri" in e and _shown(e)]
    return [types.Resource.model_validate(_wire(e, "uri")) for e in entries]


@policy.per_caller
def _template_list() -> list[types.ResourceTemplate]:
    entries = [e for e in resource_data() if "uriTemplate" in e and _shown(e)]
    return [types.ResourceTemplate.model_validate(_wire(e, "uriTemplate")) for e in entries]


@policy.per_caller
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


def served(uri: str) -> bool:
    """Whether `uri` names a resource this server serves and shows."""
    matched = resource_at(uri)
    return matched is not None and _shown(matched[0])


def function_bound() -> bool:
    """Whether any resource is served by a Python function (whose code can announce updates)."""
    return any("http" not in entry for entry in resource_entries())


async def read_resource(
    ctx: ServerRequestContext, params: types.ReadResourceRequestParams
) -> types.ReadResourceResult:
    uri = str(params.uri)
    matched = resource_at(uri)
    entry, arguments = matched if matched is not None else ({}, {})
    values: dict[str, Any] = {}

    def validate() -> list[str]:
        checked, problems = check_variables(entry, arguments)
        values.update(checked)
        return problems

    def missing(why: str | None) -> MCPError:
        shown = f"Resource not found: {uri}" + (f" ({why})" if why else "")
        return MCPError(code=RESOURCE_NOT_FOUND, message=shown)

    def invalid(problems: list[str]) -> types.ReadResourceResult:
        raise MCPError(
            code=types.INVALID_PARAMS,
            message=f"Invalid resource URI {uri}:\n" + "\n".join(problems),
        )

    return await guarded.run(
        "resource",
        entry.get("name"),
        resource_entry(entry) if matched is not None else None,
        arguments,
        lambda: _read(uri, entry, values),
        guarded.clean_read,
        missing=missing,
        validate=validate,
        invalid=invalid,
        fields={"uri": uri},
    )


def check_variables(
    entry: dict[str, Any], arguments: dict[str, str]
) -> tuple[dict[str, Any], list[str]]:
    """The template variables' values as their parameter schemas type them (`"7"` -> 7 for an
    integer), and what is wrong with each value no schema admits, named by template variable."""
    schemas: dict[str, Any] = entry.get("schemas", {})
    names = _VARIABLE.findall(entry.get("uriTemplate", ""))
    variables = dict(zip(entry.get("variables", []), names, strict=False))
    values: dict[str, Any] = {}
    problems: list[str] = []
    for argument, text in arguments.items():
        variable = variables.get(argument, argument)
        if variable not in schemas:
            values[argument] = text
            continue
        validator = _validator(json.dumps(schemas[variable], sort_keys=True))
        candidates: list[Any] = [text, *_typed(text)]
        admitted = [value for value in candidates if validator.is_valid(value)]
        if admitted:
            values[argument] = admitted[0]
        else:  # what is wrong with the value as typed: "-1 is less than the minimum of 1"
            errors = sorted(validator.iter_errors(candidates[-1]), key=lambda e: e.message)
            problems.append(f"{variable}: {errors[0].message}")
    return values, problems


def _typed(text: str) -> list[Any]:
    """The number or boolean a URI's text stands for, if it is one."""
    try:
        value = json.loads(text)
    except ValueError:
        return []
    if isinstance(value, bool) or (isinstance(value, (int, float)) and math.isfinite(value)):
        return [value]
    return []


@cache
def _validator(schema: str) -> Any:
    return jsonschema.Draft202012Validator(json.loads(schema))


async def _read(
    uri: str, entry: dict[str, Any], arguments: dict[str, Any]
) -> types.ReadResourceResult:
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
    if status == 429:  # later reads and calls wait out Retry-After here, not at the API
        message = await guard.shared_upstream_limited(429, response.headers.get("retry-after"))
        audit.mark("rate_limited")
        raise MCPError(code=guarded.RATE_LIMITED, message=message)
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
    entry = next((e for e in resource_data() if e.get("uriTemplate") == uri_template), None)
    if entry is None or not _shown(entry):  # a hidden template is not there to complete
        return None
    values: list[str] = entry.get("completions", {}).get(variable, [])
    return values
