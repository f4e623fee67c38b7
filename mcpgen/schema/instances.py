"""Small JSON instances of JSON Schemas: the arguments and canned responses a generated
project's own tests send and serve.

`minimal_instance` prefers data the schema carries (`const`, `examples`, `default`,
`enum`) and otherwise builds the smallest value that satisfies the common keywords:
required properties only, `minItems` items, bounds, lengths, well-known formats. A schema
it cannot satisfy with confidence (`pattern` without an example, `not`, unresolvable
`$ref`, recursion through required properties) raises `Unsynthesisable`; callers then
leave that tool's call out rather than send something that might be invalid.
Every result is checked with jsonschema before it is returned, and examples or defaults
that do not fit their schema (specs carry such) are passed over.
`invalid_arguments` finds arguments the schema rejects, for validation-error checks.
"""

from __future__ import annotations

import copy
import math
from typing import Any

import jsonschema
import referencing.exceptions

_MAX_DEPTH = 12
_FORMATS = {
    "date": "2024-01-02",
    "date-time": "2024-01-02T03:04:05Z",
    "time": "03:04:05Z",
    "email": "user@example.com",
    "idn-email": "user@example.com",
    "uri": "https://example.com/",
    "url": "https://example.com/",
    "iri": "https://example.com/",
    "uri-reference": "https://example.com/",
    "hostname": "example.com",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "byte": "AA==",
    "binary": "x",
    "password": "secret",
}
# Keywords whose effect this module does not model: an instance built without them
# might not validate.
_UNSUPPORTED = ("not", "if", "dependentSchemas", "dependentRequired", "patternProperties", "propertyNames",
                "contains", "minProperties", "unevaluatedProperties", "prefixItems")


class Unsynthesisable(ValueError):
    """No instance can be built from this schema with confidence."""


def minimal_instance(schema: Any, root: dict[str, Any] | None = None) -> Any:
    """A small value valid against `schema`; `root` resolves `#/...` references."""
    builder = _Builder(root if root is not None else schema)
    value = builder.build(schema, 0)
    if not builder.fits(value, schema):
        raise Unsynthesisable("the value built does not validate")
    return value


class _Builder:
    def __init__(self, root: Any) -> None:
        self.root = root
        self.validator = jsonschema.Draft202012Validator(root)

    def fits(self, value: Any, schema: Any) -> bool:
        try:
            return bool(self.validator.evolve(schema=schema).is_valid(value))
        except (jsonschema.exceptions.SchemaError, referencing.exceptions.Unresolvable, RecursionError):
            return False

    def resolve(self, ref: str) -> Any:
        if not ref.startswith("#"):
            raise Unsynthesisable(f"external $ref {ref}")
        node = self.root
        for token in ref[1:].split("/")[1:]:
            token = token.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, dict) or token not in node:
                raise Unsynthesisable(f"unresolvable $ref {ref}")
            node = node[token]
        return node

    def build(self, schema: Any, depth: int) -> Any:
        if depth > _MAX_DEPTH:
            raise Unsynthesisable("schema nests too deeply (recursive required properties?)")
        if schema is True or schema == {}:
            return None if depth else {}
        if not isinstance(schema, dict):
            raise Unsynthesisable("false or malformed schema")
        if "$ref" in schema:
            siblings = {k: v for k, v in schema.items() if k not in ("$ref", "description", "title", "$defs")}
            target = self.resolve(schema["$ref"])
            return self.build({**target, **siblings} if siblings else target, depth + 1)
        if "const" in schema:
            return copy.deepcopy(schema["const"])
        for key in ("examples", "default"):
            if key in schema and not any(k in schema for k in _UNSUPPORTED):
                values = schema[key] if key == "examples" else [schema[key]]
                for value in values if isinstance(values, list) else ():
                    if self.fits(value, schema):
                        return copy.deepcopy(value)
        if "enum" in schema:
            if not schema["enum"]:
                raise Unsynthesisable("empty enum")
            return copy.deepcopy(schema["enum"][0])
        unsupported = [k for k in _UNSUPPORTED if k in schema]
        if unsupported:
            raise Unsynthesisable(f"keyword {unsupported[0]} is not modelled")
        if "allOf" in schema:
            return self._all_of(schema, depth)
        for key in ("anyOf", "oneOf"):
            if key in schema:
                return self._any_of(schema, key, depth)
        return self._typed(schema, _types(schema), depth)

    def _all_of(self, schema: dict[str, Any], depth: int) -> Any:
        """Objects only: the parts' properties and required lists merged into one schema."""
        merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
        properties: dict[str, Any] = dict(merged.get("properties", {}))
        required: list[str] = list(merged.get("required", []))
        for part in schema["allOf"]:
            while isinstance(part, dict) and "$ref" in part:
                part = self.resolve(part["$ref"])
            if not isinstance(part, dict) or "allOf" in part or any(k in part for k in ("anyOf", "oneOf")):
                raise Unsynthesisable("allOf part that is not a plain object schema")
            if _types(part) - {"object"}:
                raise Unsynthesisable("allOf of non-object schemas")
            properties.update(part.get("properties", {}))
            required.extend(r for r in part.get("required", []) if r not in required)
            if part.get("additionalProperties") is False:
                merged["additionalProperties"] = False
        merged.update(type="object", properties=properties, required=required)
        return self.build(merged, depth + 1)

    def _any_of(self, schema: dict[str, Any], key: str, depth: int) -> Any:
        """The first alternative that builds; `null` last. For oneOf only an alternative
        no other one accepts by type would be safe, so alternatives must differ in type."""
        options = schema[key]
        if key == "oneOf":
            # integer values are numbers too: the two overlap
            kinds = [frozenset("number" if t == "integer" else t for t in _types(self._deref(o))) for o in options]
            if any(not k for k in kinds) or len(set().union(*kinds)) != sum(len(k) for k in kinds):
                raise Unsynthesisable("oneOf alternatives that overlap")
        ordered = sorted(options, key=lambda o: _types(self._deref(o)) == {"null"})
        base = {k: v for k, v in schema.items() if k != key}
        for option in ordered:
            try:
                return self.build({**base, **self._deref(option)} if base else option, depth + 1)
            except Unsynthesisable:
                continue
        raise Unsynthesisable(f"no {key} alternative could be built")

    def _deref(self, schema: Any) -> Any:
        while isinstance(schema, dict) and "$ref" in schema:
            schema = self.resolve(schema["$ref"])
        return schema

    def _typed(self, schema: dict[str, Any], types: set[str], depth: int) -> Any:
        if not types:
            types = {"object"} if "properties" in schema else {"string"} if "format" in schema else set()
            if not types:
                return {} if depth == 0 else "x"  # any value fits
        for kind in ("object", "string", "integer", "number", "boolean", "array", "null"):
            if kind in types:
                return _BUILDERS[kind](self, schema, depth)
        raise Unsynthesisable(f"unknown type {sorted(types)}")

    def object(self, schema: dict[str, Any], depth: int) -> Any:
        properties = schema.get("properties", {})
        out: dict[str, Any] = {}
        for name in schema.get("required", []):
            if name in properties:
                out[name] = self.build(properties[name], depth + 1)
            elif isinstance(schema.get("additionalProperties"), dict):
                out[name] = self.build(schema["additionalProperties"], depth + 1)
            elif schema.get("additionalProperties") is False:
                raise Unsynthesisable(f"required property {name} is not allowed")
            else:
                out[name] = "x"
        if len(out) > schema.get("maxProperties", math.inf):
            raise Unsynthesisable("more required properties than maxProperties")
        return out

    def string(self, schema: dict[str, Any], depth: int) -> Any:
        if "pattern" in schema:
            raise Unsynthesisable("string pattern without an example")
        text = _FORMATS.get(schema.get("format", ""), "x")
        low, high = schema.get("minLength", 0), schema.get("maxLength", math.inf)
        if len(text) < low:
            text += "x" * (low - len(text))
        if len(text) > high:
            if "format" in schema and schema["format"] in _FORMATS:
                raise Unsynthesisable("formatted string longer than maxLength")
            text = text[: int(high)]
        return text

    def number(self, schema: dict[str, Any], depth: int, integer: bool = False) -> Any:
        low = schema.get("minimum", -math.inf)
        if "exclusiveMinimum" in schema and isinstance(schema["exclusiveMinimum"], (int, float)):
            low = max(low, schema["exclusiveMinimum"] + (1 if integer else 0.5))
        high = schema.get("maximum", math.inf)
        if "exclusiveMaximum" in schema and isinstance(schema["exclusiveMaximum"], (int, float)):
            high = min(high, schema["exclusiveMaximum"] - (1 if integer else 0.5))
        step = schema.get("multipleOf", 1)
        value: float = 1 if low <= 1 <= high else low if low > -math.inf else high
        if not math.isfinite(value):
            raise Unsynthesisable("unbounded range")
        if isinstance(step, (int, float)) and step > 0:
            value = math.ceil(value / step) * step
        if integer:
            value = math.ceil(value)
        if not low <= value <= high:
            raise Unsynthesisable("no number fits the bounds")
        return int(value) if integer or (float(value).is_integer() and isinstance(step, int)) else value

    def array(self, schema: dict[str, Any], depth: int) -> Any:
        count = schema.get("minItems", 0)
        if count > schema.get("maxItems", math.inf):
            raise Unsynthesisable("minItems above maxItems")
        if not count:
            return []
        if count > 1 and schema.get("uniqueItems"):
            raise Unsynthesisable("several unique items")
        item = self.build(schema.get("items", {}), depth + 1)
        return [copy.deepcopy(item) for _ in range(count)]


_BUILDERS: dict[str, Any] = {
    "object": _Builder.object,
    "string": _Builder.string,
    "integer": lambda self, schema, depth: _Builder.number(self, schema, depth, integer=True),
    "number": _Builder.number,
    "boolean": lambda self, schema, depth: True,
    "array": _Builder.array,
    "null": lambda self, schema, depth: None,
}


def _types(schema: Any) -> set[str]:
    if not isinstance(schema, dict):
        return set()
    kind = schema.get("type")
    if isinstance(kind, str):
        return {kind}
    if isinstance(kind, list):
        return {k for k in kind if isinstance(k, str)}
    return set()


# Candidate wrong values, each with the JSON types it belongs to.
_WRONG: tuple[tuple[Any, frozenset[str]], ...] = (
    ({"unexpected": True}, frozenset({"object"})),
    ([None], frozenset({"array"})),
    (0.5, frozenset({"number"})),
    ("not-a-number", frozenset({"string"})),
    (True, frozenset({"boolean"})),
)


def invalid_arguments(input_schema: dict[str, Any], valid: Any | None = None) -> dict[str, Any] | None:
    """Arguments the input schema rejects, or None when no simple rejected value exists.

    A missing required property first; else one typed property given a value of the
    wrong JSON type (based on `valid`, when known, so nothing else is wrong); else an
    unknown property where `additionalProperties` is false.
    """
    properties: dict[str, Any] = input_schema.get("properties", {})
    required = [r for r in input_schema.get("required", []) if isinstance(r, str)]
    if required:
        base = dict(valid) if isinstance(valid, dict) else {}
        base.pop(required[0], None)
        return base
    for name, schema in properties.items():
        types = _types(schema)
        if not types or any(k in schema for k in ("anyOf", "oneOf", "allOf", "$ref")):
            continue
        for value, kinds in _WRONG:
            if not kinds & types:  # 0.5 is a number, so it is wrong for an integer too
                return {name: value}
    if input_schema.get("additionalProperties") is False:
        name = "unexpected_argument"
        while name in properties:
            name += "_"
        return {name: 1}
    return None
