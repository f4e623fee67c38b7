"""Property-based: whatever an API sends back, a generated server's structuredContent passes
the TypeScript MCP clients' check against the tool's advertised outputSchema.

Clients built on `@modelcontextprotocol/sdk` 1.x (ajv's draft-07 class) and
`@modelcontextprotocol/client` 2.x (Ajv2020), both with ajv-formats, validate every result and
throw on a mismatch (shared/MCP-SDK.md §12). So, for random OpenAPI 3.0/3.1 response schemas
written the way real specs write them, pushed through mcpgen's real pipeline (parse, convert,
relax, wrap; `render.tool_entry` gives the entry exactly as tools.json holds it), and for
random values that match the schema and then stray from it as real APIs do:

- the advertised outputSchema compiles in both ajv flavours;
- the generated server's `json_result(..., lenient=True)` (the path upstream JSON takes, its
  conformer included) returns structuredContent, and that content, serialised as the SDK's
  transport sends it, passes ajv v1, ajv v2 and jsonschema 2020-12 with format assertions;
- a value the advertised schema already accepts comes through unchanged (bar the server's
  documented redaction of control characters and credentials).

The runtime is a real generated package, generated once per module; each example swaps its one
tool's catalog entry. The default run is bounded (150 examples, a few seconds);
`HYPOTHESIS_PROFILE=long` runs 2,000.
"""

from __future__ import annotations

import base64
import importlib
import itertools
import json
import logging
import math
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timezone
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from mcp import types

from mcpgen import api
from mcpgen.options import Options
from mcpgen.rendering import render
from tests.clients.ajv import Ajv

_LONG = os.environ.get("HYPOTHESIS_PROFILE") == "long"
# Set per test rather than as a profile: a loaded profile is global and would reach every other test.
_SETTINGS = settings(
    max_examples=2_000 if _LONG else 150,
    deadline=None,
    # Shrinking is cheap here (milliseconds an example), unlike the other module's default profile.
    phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
_TOOL_SPEC = {
    "openapi": "3.0.3",
    "info": {"title": "conform", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {"/thing": {"get": {"operationId": "get_thing", "responses": {"200": {
        "description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}}}}},
}


# -- the generated server, once per module -------------------------------------------


@dataclass
class Runtime:
    server: Any  # the generated package's modules: typed there, not known to mypy here
    redact: Any
    spec_dir: Path
    names: Iterator[int]


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runtime]:
    root = tmp_path_factory.mktemp("conform")
    (root / "spec.json").write_text(json.dumps(_TOOL_SPEC))
    api.generate_openapi(root / "spec.json", Options(output=root / "out", name="conform-prop", models=False))
    src = root / "out" / "src"
    (package,) = [p.name for p in src.iterdir() if p.is_dir()]
    sys.path.insert(0, str(src))
    # Each repaired result logs a warning; the assertion messages say more, and say it once.
    logging.getLogger(package).setLevel(logging.ERROR)
    try:
        server = importlib.import_module(f"{package}.runtime.app")
        yield Runtime(server, importlib.import_module(f"{package}.runtime.redact"), root, itertools.count())
    finally:
        sys.path.remove(str(src))
        for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
            del sys.modules[name]


@pytest.fixture(scope="module")
def ajv() -> Iterator[Ajv]:
    with Ajv() as checker:
        yield checker


def tool_entry(runtime: Runtime, version: str, schema: dict[str, Any], components: dict[str, Any]) -> dict[str, Any]:
    """The tool's catalog entry as a server generated from a one-operation spec holds it."""
    spec: dict[str, Any] = {
        **_TOOL_SPEC, "openapi": version,
        "paths": {"/thing": {"get": {"operationId": "get_thing", "responses": {"200": {
            "description": "ok", "content": {"application/json": {"schema": schema}}}}}}},
    }
    if components:
        spec["components"] = {"schemas": components}
    path = runtime.spec_dir / "example.json"
    path.write_text(json.dumps(spec))
    options = Options(name="conform-prop", models=False)
    project, diagnostics = api.build_openapi(path, options)
    project, diagnostics = api.shape_surface(project, diagnostics, options)
    assert len(project.tools) == 1, [d.message for d in diagnostics]
    entry = render.tool_entry(project.tools[0])
    assert "outputSchema" in entry["tool"], entry
    return entry


def wire(result: types.CallToolResult) -> dict[str, Any]:
    """The result as a client parses it: dumped by the SDK's runner, framed and written by its
    transports (stdio and streamable HTTP both call `model_dump_json`)."""
    message = types.JSONRPCResponse(
        jsonrpc="2.0", id=1, result=result.model_dump(by_alias=True, mode="json", exclude_none=True)
    )
    try:
        text = message.model_dump_json(by_alias=True, exclude_unset=True)
    except Exception as exc:  # e.g. a lone surrogate: the transport cannot send the result at all
        raise AssertionError(f"the transport cannot serialise the result: {exc}") from exc
    loaded: dict[str, Any] = json.loads(text)["result"]
    return loaded


def rejections(ajv: Ajv, schema: dict[str, Any], instance: Any) -> dict[str, Any]:
    """What each client-side checker says against `instance`; empty when all accept it."""
    found: dict[str, Any] = {}
    answer = ajv.check(schema, instance)
    for flavour in ("v1", "v2"):
        if not answer[flavour]["valid"]:
            found[f"ajv {flavour}"] = answer[flavour]["errors"][:5]
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    errors = [f"{list(e.absolute_path)}: {e.message[:200]}" for e in validator.iter_errors(instance)]
    if errors:
        found["jsonschema"] = errors[:5]
    return found


def check_result(
    runtime: Runtime, ajv: Ajv, version: str, schema: dict[str, Any], components: dict[str, Any], value: Any
) -> None:
    """The property, for one response schema and one upstream value."""
    entry = tool_entry(runtime, version, schema, components)
    advertised = entry["tool"]["outputSchema"]
    compiled = ajv.check(advertised, {})
    for flavour in ("v1", "v2"):
        compile_errors = [e for e in compiled[flavour]["errors"] if e["keyword"] == "compile"]
        assert not compile_errors, f"outputSchema does not compile in ajv {flavour}: {compile_errors}\n{advertised}"

    # A fresh name per example: nothing the server caches per tool (validators) can go stale.
    name = f"t{next(runtime.names)}"
    entry = {**entry, "tool": {**entry["tool"], "name": name}}
    server = runtime.server
    original = server.tool_table
    server.tool_table = lambda: {name: entry}
    try:
        result = server.json_result(name, value, lenient=True)
    finally:
        server.tool_table = original
    sent = wire(result)
    context = f"\noutputSchema: {json.dumps(advertised)}\nupstream value: {value!r}\nsent: {json.dumps(sent)[:3000]}"
    assert not sent.get("isError"), "the result became a tool error" + context
    assert "structuredContent" in sent, "no structuredContent for a tool with an outputSchema" + context
    problems = rejections(ajv, advertised, sent["structuredContent"])
    assert not problems, f"clients reject structuredContent: {json.dumps(problems, ensure_ascii=False)}" + context

    # Unchanged when already acceptable: compared as both would travel, after the redaction
    # json_result applies to every value before it looks at the schema.
    structured = {"result": value} if entry["wrapsResult"] else value
    if isinstance(structured, dict) and _finite(structured):  # inf and NaN are no JSON: they never matched
        cleaned = runtime.redact.clean_value(structured)
        as_sent = wire(types.CallToolResult(content=[], structured_content=cleaned))["structuredContent"]
        if not rejections(ajv, advertised, as_sent):
            assert sent["structuredContent"] == as_sent, "a value the schema accepts was changed" + context


def _finite(value: Any) -> bool:
    """No NaN, infinity or integer beyond a double's range: numbers no JavaScript client reads as sent."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return abs(value) <= sys.float_info.max
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    return True


# -- response schemas as specs write them ---------------------------------------------

_NAMES = ["id", "name", "status", "homepage", "createdAt", "tags", "owner", "email", "count", "price",
          "data", "items", "next", "x-rate-limit", "constructor", "日付", "a b", "type"]
names = st.sampled_from(_NAMES) | st.from_regex(r"[a-z][A-Za-z0-9_]{0,8}", fullmatch=True)
_STRING_FORMATS = ["date", "date-time", "time", "uri", "email", "uuid", "ipv4", "ipv6", "hostname", "byte",
                   "binary", "password", "decimal", "phone"]  # the last two: formats no validator knows
_PATTERNS = [r"^[a-z]+$", r"^[A-Z]{3}$", r"^\d{4}-\d{2}$", r"^[A-Za-z0-9_-]{1,16}$", r"^\+?[0-9 ]{3,15}$"]
_MAX_DEPTH = 3


def _nullable(draw: st.DrawFn, version: str, schema: dict[str, Any]) -> dict[str, Any]:
    """Sometimes nullable, as each version spells it."""
    if draw(st.integers(0, 3)) != 0:
        return schema
    if version.startswith("3.0"):
        return {**schema, "nullable": True}
    if draw(st.booleans()) and "type" in schema:
        return {**schema, "type": [schema["type"], "null"]}
    return {"oneOf": [schema, {"type": "null"}]}  # how 3.1 specs often write a nullable $ref


@st.composite
def scalar_schemas(draw: st.DrawFn, version: str) -> dict[str, Any]:
    kind = draw(st.sampled_from(["string", "string", "integer", "number", "boolean"]))
    schema: dict[str, Any] = {"type": kind}
    if kind == "string":
        choice = draw(st.integers(0, 5))
        if choice <= 1:
            schema["format"] = draw(st.sampled_from(_STRING_FORMATS))
        elif choice == 2:
            schema["enum"] = draw(st.lists(st.sampled_from(["available", "pending", "sold", "a", "B-2", "ü"]),
                                           min_size=1, max_size=4, unique=True))
        elif choice == 3:
            schema["pattern"] = draw(st.sampled_from(_PATTERNS))
        if "enum" not in schema and "pattern" not in schema and draw(st.integers(0, 3)) == 0:
            schema["minLength"], schema["maxLength"] = 1, draw(st.integers(1, 40))
    elif kind in ("integer", "number"):
        if draw(st.booleans()):
            schema["format"] = draw(st.sampled_from(["int32", "int64"] if kind == "integer" else ["float", "double"]))
        if draw(st.integers(0, 2)) == 0:
            low = draw(st.integers(-100, 0))
            schema["minimum"], schema["maximum"] = low, low + draw(st.integers(1, 1000))
            if draw(st.booleans()):  # 3.0 says it with a boolean, 3.1 with the bound itself
                if version.startswith("3.0"):
                    schema["exclusiveMinimum"] = True
                else:
                    schema["exclusiveMinimum"] = schema.pop("minimum")
    if draw(st.integers(0, 4)) == 0:
        schema["description"] = draw(st.text(max_size=10))
    return _nullable(draw, version, schema)


@st.composite
def source_schemas(draw: st.DrawFn, version: str, refs: tuple[str, ...], depth: int = 0) -> dict[str, Any]:
    choices = ["scalar"] * 3 + (["object", "array", "combo"] if depth < _MAX_DEPTH else []) + (["ref"] if refs else [])
    kind = draw(st.sampled_from(choices))
    if kind == "scalar":
        return draw(scalar_schemas(version))
    if kind == "ref":
        return _nullable(draw, version, {"$ref": f"#/components/schemas/{draw(st.sampled_from(refs))}"}) \
            if version.startswith("3.1") else {"$ref": f"#/components/schemas/{draw(st.sampled_from(refs))}"}
    if kind == "object":
        return draw(object_schemas(version, refs, depth))
    if kind == "array":
        schema: dict[str, Any] = {"type": "array", "items": draw(source_schemas(version, refs, depth + 1))}
        if draw(st.integers(0, 3)) == 0:
            schema["maxItems"] = draw(st.integers(1, 10))
        return _nullable(draw, version, schema)
    keyword = draw(st.sampled_from(["oneOf", "anyOf", "allOf"]))
    if keyword == "allOf":  # composition of objects, as specs extend a base schema
        return {"allOf": draw(st.lists(object_schemas(version, refs, depth + 1) | (
            st.sampled_from(refs).map(lambda r: {"$ref": f"#/components/schemas/{r}"}) if refs else st.nothing()
        ), min_size=1, max_size=3))}
    return {keyword: draw(st.lists(source_schemas(version, refs, depth + 1), min_size=1, max_size=3))}


@st.composite
def object_schemas(
    draw: st.DrawFn, version: str, refs: tuple[str, ...], depth: int, recursive: str | None = None
) -> dict[str, Any]:
    properties = draw(st.dictionaries(names, source_schemas(version, refs, depth + 1), max_size=5))
    if recursive is not None and draw(st.booleans()):  # a self-reference, only through an optional array
        properties["children"] = {"type": "array", "items": {"$ref": f"#/components/schemas/{recursive}"}}
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    required = sorted(p for p in properties if p != "children" and draw(st.booleans()))
    if required:
        schema["required"] = required
    extra = draw(st.integers(0, 5))
    if extra == 0:
        schema["additionalProperties"] = False
    elif extra == 1:
        schema["additionalProperties"] = True
    elif extra == 2:
        schema["additionalProperties"] = draw(scalar_schemas(version))
    return _nullable(draw, version, schema) if depth else schema


@st.composite
def specs(draw: st.DrawFn) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """(OpenAPI version, the 200 response's schema, components/schemas)."""
    version = draw(st.sampled_from(["3.0.3", "3.1.0"]))
    components: dict[str, Any] = {}
    for name in draw(st.lists(st.sampled_from(["Pet", "Tag", "Owner", "Error", "Page"]), max_size=3, unique=True)):
        # Refs only to earlier components, and to itself through an array: every schema has finite values.
        components[name] = draw(object_schemas(version, tuple(components), 0, recursive=name)
                                | source_schemas(version, tuple(components), 1))
    refs = tuple(components)
    root = draw(st.one_of(
        object_schemas(version, refs, 0),
        source_schemas(version, refs, 0),
        st.sampled_from(refs).map(lambda r: {"$ref": f"#/components/schemas/{r}"}) if refs else st.nothing(),
    ))
    return version, root, components


# -- values that match, then stray ---------------------------------------------------

_FORMAT_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "date": st.dates().map(lambda d: d.isoformat()),
    "date-time": st.datetimes(timezones=st.just(timezone.utc)).map(lambda d: d.isoformat()),
    "time": st.times().map(lambda t: t.replace(microsecond=0).isoformat() + "Z"),
    "uri": st.sampled_from(["https://example.com/", "https://api.example.com/v1/pets?limit=10", "mailto:a@b.co",
                            "urn:isbn:0451450523", "http://127.0.0.1:8080/x#frag"]),
    "email": st.from_regex(r"[a-z]{1,8}(\.[a-z]{1,5})?@[a-z]{1,8}\.(com|org|io)", fullmatch=True),
    "uuid": st.uuids().map(str),
    "ipv4": st.ip_addresses(v=4).map(str),
    "ipv6": st.ip_addresses(v=6).map(str),
    "hostname": st.from_regex(r"[a-z]{1,10}(\.[a-z]{2,6}){1,2}", fullmatch=True),
    "byte": st.binary(max_size=12).map(lambda b: base64.b64encode(b).decode()),
}
_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]), max_size=12)


def _resolve(schema: dict[str, Any], components: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[1]]
    return schema


@st.composite
def values_for(draw: st.DrawFn, schema: dict[str, Any], components: dict[str, Any], depth: int = 0) -> Any:
    """A value the spec's schema accepts (formats included, as ajv-formats reads them)."""
    schema = _resolve(schema, components)
    kind = schema.get("type")
    nullable = schema.get("nullable") is True or (isinstance(kind, list) and "null" in kind)
    if nullable and draw(st.integers(0, 4)) == 0:
        return None
    if isinstance(kind, list):
        kind = next(k for k in kind if k != "null")
    if "oneOf" in schema or "anyOf" in schema:
        branches = schema.get("oneOf") or schema["anyOf"]
        return draw(values_for(draw(st.sampled_from(branches)), components, depth + 1))
    if "allOf" in schema:
        merged: dict[str, Any] = {}
        for branch in schema["allOf"]:
            part = draw(values_for(branch, components, depth + 1))
            if isinstance(part, dict):
                merged.update(part)
        return merged
    if kind == "null":
        return None
    if "enum" in schema:
        return draw(st.sampled_from(schema["enum"]))
    if kind == "boolean":
        return draw(st.booleans())
    if kind in ("integer", "number"):
        low, high = schema.get("minimum"), schema.get("maximum")
        if isinstance(schema.get("exclusiveMinimum"), (int, float)) and not isinstance(schema["exclusiveMinimum"], bool):
            low = schema["exclusiveMinimum"] + 1
        elif schema.get("exclusiveMinimum") is True and low is not None:
            low += 1
        if schema.get("format") == "int32":
            low, high = max(low if low is not None else -2**31, -2**31), min(high if high is not None else 2**31 - 1, 2**31 - 1)
        if kind == "integer":
            return draw(st.integers(low, high))
        return draw(st.integers(low, high) | st.floats(low, high, allow_nan=False, allow_infinity=False))
    if kind == "string":
        if schema.get("format") in _FORMAT_VALUES:
            return draw(_FORMAT_VALUES[schema["format"]])
        if "pattern" in schema:
            return draw(st.from_regex(schema["pattern"].replace(r"\d", "[0-9]"), fullmatch=True))
        text = draw(_TEXT)
        if "minLength" in schema:
            text = (text or "x")[: schema["maxLength"]]
        return text
    if kind == "array":
        items = schema.get("items", {})
        most = min(schema.get("maxItems", 3), 3) if depth < 6 else 0
        return draw(st.lists(values_for(items, components, depth + 1), max_size=most))
    # an object (or a schema without a type: any object will do)
    properties: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", []))
    out: dict[str, Any] = {}
    for name, child in properties.items():
        if name in required or (depth < 6 and draw(st.booleans())):
            out[name] = draw(values_for(child, components, depth + 1))
    extra = schema.get("additionalProperties")
    if extra is not False and extra is not None and draw(st.integers(0, 3)) == 0:
        key = draw(st.sampled_from(["extra", "x-extension", "未知"]))
        if key not in properties:
            out[key] = draw(values_for(extra, components, depth + 1)) if isinstance(extra, dict) else draw(_TEXT)
    return out


def _deep(depth: int) -> Any:
    value: Any = "bottom"
    for i in range(depth):
        value = [value] if i % 2 else {"next": value}
    return value


# What real APIs send where the spec said otherwise; json.loads('1e400') is how inf arrives
# (httpx's response.json() parses leniently: NaN and Infinity literals too).
_STRAYS: list[Any] = [
    None, "", "01/02/2020", "2024-05-01T10:00:00", "not a uri", "http//x", "1.2.3", "ftp:", " ",
    "00000000-0000-0000-0000-00000000000g", "sold-out", "UNKNOWN_ENUM_VALUE", "404", "12.50", "true",
    0, -1, 404, 1.5, 1e308, -1e308, 10**30, -(2**63), 2**64, 10**400, json.loads("1e400"), -math.inf, math.nan,
    True, False, [], {}, [None], {"unexpected": 1}, "日本語 \u2028 \u202e", "\ud800", "\x00ctl\x1b",
    "x" * 5000,
]


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    yield path, value
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _paths(child, (*path, index))


def _replace(root: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    copied: Any = dict(root) if isinstance(root, dict) else list(root)
    copied[path[0]] = _replace(root[path[0]], path[1:], new)
    return copied


@st.composite
def strayed(draw: st.DrawFn, value: Any) -> Any:
    """`value` with up to three parts replaced, removed, added to or retyped."""
    for _ in range(draw(st.integers(1, 3))):
        path, node = draw(st.sampled_from(list(_paths(value))))
        move = draw(st.sampled_from(["stray", "stray", "retype", "drop_key", "add_key", "wrap", "deep"]))
        if move == "drop_key" and isinstance(node, dict) and node:
            new: Any = {k: v for k, v in node.items() if k != draw(st.sampled_from(sorted(node)))}
        elif move == "add_key" and isinstance(node, dict):
            new = {**node, draw(st.sampled_from(["unexpected", "status", "__meta", "日本"])): draw(st.sampled_from(_STRAYS))}
        elif move == "wrap":  # an array where an object was declared, and the other way round
            new = {"items": node} if isinstance(node, list) else [node]
        elif move == "retype":  # number as string, string as number, object as its JSON text
            if isinstance(node, bool) or node is None:
                new = str(node).lower()
            elif isinstance(node, (int, float)):
                new = str(node)
            elif isinstance(node, str):
                new = len(node)
            else:
                new = json.dumps(node)
        elif move == "deep":
            new = _deep(draw(st.integers(20, 120)))
        else:
            new = draw(st.sampled_from(_STRAYS))
        value = _replace(value, path, new)
    return value


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, dict[str, Any], dict[str, Any], Any]:
    version, root, components = draw(specs())
    value = draw(values_for(root, components))
    if draw(st.integers(0, 4)):  # one in five stays as the spec says
        value = draw(strayed(value))
    return version, root, components, value


# -- the property, and the cases seen in the field -----------------------------------

_PET = {
    "type": "object",
    "required": ["id", "name"],
    "properties": {
        "id": {"type": "integer", "format": "int64"},
        "name": {"type": "string"},
        "status": {"type": "string", "enum": ["available", "pending", "sold"]},
        "homepage": {"type": "string", "format": "uri"},
        "birthday": {"type": "string", "format": "date"},
        "createdAt": {"type": "string", "format": "date-time"},
        "tags": {"type": "array", "items": {"$ref": "#/components/schemas/Tag"}},
    },
}
_TAG = {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}}
_COMPONENTS = {"Pet": _PET, "Tag": _TAG}
_PET_REF = {"$ref": "#/components/schemas/Pet"}
_PETS = {"type": "array", "items": _PET_REF}
FIELD_CASES: dict[str, tuple[dict[str, Any], Any]] = {
    "empty homepage (uri)": (_PET_REF, {"id": 1, "name": "Rex", "homepage": ""}),
    "US date (date)": (_PET_REF, {"id": 1, "name": "Rex", "birthday": "01/02/2020"}),
    "date-time without zone": (_PET_REF, {"id": 1, "name": "Rex", "createdAt": "2024-05-01T10:00:00"}),
    "unknown enum value": (_PET_REF, {"id": 1, "name": "Rex", "status": "sold-out"}),
    "error body for a Pet": (_PET_REF, {"status": 404, "message": "Not found"}),
    "null items in an array of objects": (_PETS, [{"id": 1, "name": "a"}, None, {"id": 2, "name": "b"}]),
    "null tag inside a Pet": (_PET_REF, {"id": 1, "name": "Rex", "tags": [None, {"id": 3}]}),
    "id beyond 2**63": (_PET_REF, {"id": 2**64, "name": "Rex"}),
    "inf from lenient JSON": (_PET_REF, {"id": json.loads("1e400"), "name": "Rex"}),
    # ajv reads properties without ownProperties: an absent `constructor` is Object's, a function.
    "absent property named constructor": ({"type": "object", "properties": {
        "constructor": {"type": "string"}, "name": {"type": "string"}}}, {"name": "Ferrari"}),
    # Half an emoji, as APIs that cut UTF-16 text send it; json.loads takes the escape.
    "lone surrogate": (_PET_REF, json.loads('{"id": 1, "name": "Rex \\ud83d"}')),
}


@pytest.mark.parametrize("version", ["3.0.3", "3.1.0"])
@pytest.mark.parametrize("case", sorted(FIELD_CASES))
def test_field_cases(case: str, version: str, runtime: Runtime, ajv: Ajv) -> None:
    schema, value = FIELD_CASES[case]
    check_result(runtime, ajv, version, schema, _COMPONENTS, value)


# The field cases are a separate test, not @example: a failing explicit example stops Hypothesis
# before it generates anything, and each test should report what it finds on its own.
@_SETTINGS
@given(case=cases())
def test_structured_content_passes_client_validation(
    case: tuple[str, dict[str, Any], dict[str, Any], Any], runtime: Runtime, ajv: Ajv
) -> None:
    version, schema, components, value = case
    check_result(runtime, ajv, version, schema, components, value)
