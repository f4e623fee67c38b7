"""Hostile inputs too large or too regular to keep as files: built on demand, deterministic.

Each builder returns the text of a spec; the test writes it next to the generated output.
"""

from __future__ import annotations

import json
from collections.abc import Callable

DEPTH = 2000


def _spec(schema: str, components: str = "") -> str:
    """One POST operation whose JSON body and 200 response are `schema` (JSON text: nesting this
    deep is beyond `json.dumps`' own recursion)."""
    content = '{"application/json": {"schema": %s}}' % schema
    return (
        '{"openapi": "3.1.0", "info": {"title": "Hostile", "version": "1"}, "paths": {"/x": {"post": {'
        '"operationId": "deep", "requestBody": {"content": %s}, '
        '"responses": {"200": {"description": "ok", "content": %s}}}}, '
        '"/ping": {"get": {"operationId": "ping", "responses": {"204": {"description": "ok"}}}}}%s}'
        % (content, content, f', "components": {{"schemas": {components}}}' if components else "")
    )


def _nested(opening: str, inner: str, closing: str, depth: int = DEPTH) -> str:
    return opening * depth + inner + closing * depth


def deep_properties(depth: int = DEPTH) -> str:
    return _spec(_nested('{"type": "object", "properties": {"a": ', '{"type": "string"}', "}}", depth))


def deep_items(depth: int = DEPTH) -> str:
    return _spec(_nested('{"type": "array", "items": ', '{"type": "integer"}', "}", depth))


def deep_combinators(depth: int = DEPTH) -> str:
    return _spec(_nested('{"anyOf": [{"type": "null"}, {"allOf": [', '{"type": "string"}', "]}]}", depth // 2))


def deep_ref_chain(depth: int) -> str:
    """S0 -> S1 -> ... each a property holding a ref to the next.

    60, not 2,000: each schema becomes a typed-model module importing the next, and a
    chain of 2,000 takes minutes to generate; beyond ~200 (fewer inside pytest) its import overflows Python's stack.
    """
    components = {f"S{i}": {"type": "object", "properties": {"next": {"$ref": f"#/components/schemas/S{i + 1}"}}}
                  for i in range(depth - 1)}
    components[f"S{depth - 1}"] = {"type": "string"}
    return _spec('{"$ref": "#/components/schemas/S0"}', json.dumps(components))


def deep_raw_json() -> str:
    """Nesting deeper than Python's recursion limit in a part of the spec mcpgen ignores."""
    return _spec('{"type": "object", "x-deep": %s}' % _nested("[", "", "]", 100_000))


def deep_raw_yaml() -> str:
    return "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\nx-deep: " + "[" * 100_000 + "]" * 100_000 + "\n"


def enormous() -> str:
    """Many operations with long names and text, a body of 1,500 properties, an enum of 10,000 values."""
    wide = {"type": "object", "properties": {f"p{i}": {"type": "string", "description": "d" * 50} for i in range(1500)}}
    spec = json.loads(_spec(json.dumps(wide)))
    spec["paths"]["/x"]["post"]["parameters"] = [
        {"name": "big", "in": "query", "schema": {"type": "string", "enum": [f"v{i}" for i in range(10000)]}}
    ]
    for i in range(80):
        spec["paths"]["/op%d/{%s}" % (i, "id" * 100)] = {"get": {
            "operationId": f"op{i}" + "x" * 200,
            "description": "word " * 500,
            "parameters": [{"name": "id" * 100, "in": "path", "required": True, "schema": {"type": "string"}}],
            "responses": {"200": {"description": "ok"}},
        }}
    return json.dumps(spec)


def billion_laughs() -> str:
    lines = ["openapi: 3.0.3", "info: {title: lol, version: '1'}", "paths: {}", 'a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        refs = ",".join([f"*a{i - 1}"] * 10)
        lines.append(f"a{i}: &a{i} [{refs}]")
    lines.append("x-bomb: *a9")
    return "\n".join(lines) + "\n"


def quadratic_blowup() -> str:
    """Few aliases of one huge anchored mapping: cheap for YAML, enormous once expanded into JSON data."""
    big = "{" + ", ".join(f"k{i}: {'v' * 100}" for i in range(2000)) + "}"
    aliases = "\n".join(f"  p{i}: *big" for i in range(5000))
    return f"openapi: 3.0.3\ninfo: {{title: q, version: '1'}}\npaths: {{}}\nx-big: &big {big}\nx-many:\n{aliases}\n"


BUILT: dict[str, Callable[[], str]] = {
    "deep-properties.json": deep_properties,
    "deep-items.json": deep_items,
    "deep-combinators.json": deep_combinators,
    "ref-chain-60.json": lambda: deep_ref_chain(60),
    "items-800.json": lambda: deep_items(800),
    "items-300.json": lambda: deep_items(300),
    "items-150.json": lambda: deep_items(150),
    "combinators-60.json": lambda: deep_combinators(60),
    "deep-raw.json": deep_raw_json,
    "deep-raw.yaml": deep_raw_yaml,
    "enormous.json": enormous,
    "billion-laughs.yaml": billion_laughs,
    "quadratic-blowup.yaml": quadratic_blowup,
}


def long_schema_name() -> str:
    """A 300-character schema name: its model's module would be a file name too long to write."""
    name = "A" * 150 + "b" * 150
    components = {name: {"type": "object", "properties": {"x": {"type": "string"}}}}
    return _spec('{"$ref": "#/components/schemas/%s"}' % name, json.dumps(components))


def long_integer() -> str:
    """A 5,000-digit integer: beyond what Python turns into an int from text."""
    return _spec('{"type": "integer", "default": %s}' % ("7" * 5000))


def not_json_numbers() -> str:
    """NaN and the infinities (Python's json reads them) in defaults, enums and examples."""
    return _spec('{"type": "object", "properties": {"n": {"type": "number", "default": NaN, '
                 '"enum": [Infinity, 1.5, -Infinity], "example": 1e999}}}')


BUILT.update({
    "long-schema-name.json": long_schema_name,
    "long-integer.json": long_integer,
    "not-json-numbers.json": not_json_numbers,
})
