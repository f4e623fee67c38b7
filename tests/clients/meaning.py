"""Does a framework's converted tool schema accept and refuse what the served inputSchema does?

For each tool, arguments are sampled from the ORIGINAL inputSchema: likely-valid ones, one
broken leaf each, mcpgen's minimal valid instance, and near-misses built on a valid instance
(a property of the wrong JSON type, a required property left out, an enum value outside, an
extra key where `additionalProperties` is false, anywhere in the object tree). Each is validated
by jsonschema (Draft 2020-12) against the original and against the converted schema, mapped
back to JSON Schema (a Gemini `Schema` through `gemini_to_json_schema`); a tool whose two
verdicts differ on any instance has lost meaning in that conversion.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from referencing.exceptions import Unresolvable

from mcpgen.schema.instances import Unsynthesisable, minimal_instance
from tests.property.test_portable_input import mutate, sample

_GEMINI_TYPES = {"STRING": "string", "NUMBER": "number", "INTEGER": "integer", "BOOLEAN": "boolean",
                 "OBJECT": "object", "ARRAY": "array", "NULL": "null"}
_GEMINI_KEYWORDS = {"min_items": "minItems", "max_items": "maxItems", "minimum": "minimum", "maximum": "maximum",
                    "min_length": "minLength", "max_length": "maxLength", "pattern": "pattern",
                    "min_properties": "minProperties", "max_properties": "maxProperties"}
_WRONG = {"string": 12345, "integer": "not-a-number", "number": "not-a-number", "boolean": "yes",
          "object": "not-an-object", "array": "not-an-array"}


def gemini_to_json_schema(schema: Any) -> Any:
    """What a Gemini `Schema` (dumped with its python field names) accepts, as JSON Schema.
    Gemini has no `additionalProperties`: an object accepts any other keys."""
    if not isinstance(schema, dict):
        return {}
    out: dict[str, Any] = {}
    kind = _GEMINI_TYPES.get(str(schema.get("type", "")).upper())
    if kind is not None:
        out["type"] = [kind, "null"] if schema.get("nullable") and kind != "null" else kind
    if isinstance(schema.get("properties"), dict):
        out["properties"] = {name: gemini_to_json_schema(sub) for name, sub in schema["properties"].items()}
    if isinstance(schema.get("required"), list):
        out["required"] = list(schema["required"])
    if "items" in schema:
        out["items"] = gemini_to_json_schema(schema["items"])
    if isinstance(schema.get("enum"), list):
        # Gemini's enum holds strings only; a nullable enum also takes null
        out["enum"] = [*schema["enum"], *([None] if schema.get("nullable") else [])]
    for source, target in _GEMINI_KEYWORDS.items():
        if schema.get(source) is not None:
            out[target] = schema[source]
    if isinstance(schema.get("any_of"), list):
        branches = [gemini_to_json_schema(b) for b in schema["any_of"]]
        out["anyOf"] = [*branches, {"type": "null"}] if schema.get("nullable") else branches
    elif schema.get("nullable") and kind is None and out:
        out = {"anyOf": [out, {"type": "null"}]}
    return out


def as_json_schema(entry: dict[str, Any]) -> Any:
    """The converted schema of one driver report entry (tests/clients/agent_driver.py), as JSON Schema."""
    return gemini_to_json_schema(entry["schema"]) if entry.get("kind") == "gemini" else entry["schema"]


# -- what a target format cannot say, by its own rules -------------------------------------------
# A converter that follows its format's documented limits changes meaning in known ways; the
# original is respelt with those limits first, so what remains is loss beyond them. The test
# counts the tools each limit touches (known, with the reason) apart from the rest.


def _each_object(node: Any, change: Any, depth: int = 0) -> Any:
    """`node` with `change` applied to every schema object in it, children first."""
    if isinstance(node, list):
        return [_each_object(item, change, depth + 1) for item in node]
    if not isinstance(node, dict) or depth > 400:
        return node
    out = {}
    for key, value in node.items():
        if key in ("properties", "patternProperties", "$defs", "definitions") and isinstance(value, dict):
            out[key] = {name: _each_object(sub, change, depth + 1) for name, sub in value.items()}
        elif key in ("anyOf", "oneOf", "allOf", "prefixItems", "items", "additionalProperties", "not"):
            out[key] = _each_object(value, change, depth + 1)
        else:
            out[key] = value
    return change(out)


def open_objects(schema: Any) -> Any:
    """Gemini's `Schema` has no `additionalProperties`: every object takes any other key, of any value."""
    return _each_object(schema, lambda n: {k: v for k, v in n.items() if k not in ("additionalProperties",
                                                                                    "unevaluatedProperties")})


def strict_objects(schema: Any) -> Any:
    """OpenAI strict mode: every object lists every property as required and takes no other key."""
    def change(node: dict[str, Any]) -> dict[str, Any]:
        if node.get("type") != "object" and "properties" not in node:
            return node
        props = node.get("properties") if isinstance(node.get("properties"), dict) else {}
        out = {**node, "required": list(props)}
        if not isinstance(out.get("additionalProperties"), dict):
            out["additionalProperties"] = False
        return out
    return _each_object(schema, change)


# -- instances ---------------------------------------------------------------------------------


def _objects(schema: Any, value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], dict[str, Any]]]:
    """(path in `value`, object schema) for each object of `value` described by a plain `properties` schema."""
    if not isinstance(schema, dict) or not isinstance(value, dict) or len(path) > 6:
        return
    yield path, schema
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    for name, sub in props.items():
        if name in value:
            yield from _objects(sub, value[name], (*path, name))


def _replace(value: Any, path: tuple[Any, ...], change: Any) -> Any:
    out = copy.deepcopy(value)
    node = out
    for key in path:
        node = node[key]
    change(node)
    return out


def near_misses(schema: dict[str, Any], valid: Any) -> list[Any]:
    """Instances one step from `valid`: a wrong type, a missing required, an enum outside, an extra key,
    a map value of the wrong type."""
    found: list[Any] = []
    for path, node in _objects(schema, valid):
        props = node.get("properties") if isinstance(node.get("properties"), dict) else {}
        for name in node.get("required") or []:
            if isinstance(name, str):
                found.append(_replace(valid, path, lambda n, k=name: n.pop(k, None)))
        for name, sub in props.items():
            if not isinstance(sub, dict):
                continue
            kind = sub.get("type")
            if isinstance(kind, str) and kind in _WRONG:
                found.append(_replace(valid, path, lambda n, k=name, w=_WRONG[kind]: n.__setitem__(k, w)))
            if isinstance(sub.get("enum"), list):
                found.append(_replace(valid, path, lambda n, k=name: n.__setitem__(k, "value-outside-the-enum")))
            found.append(_replace(valid, path, lambda n, k=name: n.__setitem__(k, None)))
            values = sub.get("additionalProperties")
            if isinstance(values, dict) and isinstance(values.get("type"), str) and values["type"] in _WRONG:
                # a map whose value is of the wrong type
                wrong = {"zz_key": _WRONG[values["type"]]}
                found.append(_replace(valid, path, lambda n, k=name, w=wrong: n.__setitem__(k, w)))
        if node.get("additionalProperties") is False or props:
            found.append(_replace(valid, path, lambda n: n.__setitem__("zz_extra_key", "x")))
    return found


def instances(schema: dict[str, Any], seed: str, count: int = 4) -> list[Any]:
    rng = random.Random(seed)
    defs = schema.get("$defs") or {}
    found: list[Any] = []
    for _ in range(count):
        value = sample(schema, defs, rng, 0)
        found += [value, mutate(value, rng)]
    try:
        valid = minimal_instance(schema)
    except (Unsynthesisable, RecursionError, KeyError, TypeError, ValueError):
        valid = None
    for base in [valid, *found[::2]]:
        if isinstance(base, dict) and _valid(schema, base):
            found += near_misses(schema, base)
    unique: dict[str, Any] = {}
    for value in found:
        unique.setdefault(json.dumps(value, sort_keys=True, default=str), value)
    return list(unique.values())


def _valid(schema: Any, instance: Any) -> bool:
    try:
        return bool(Draft202012Validator(schema).is_valid(instance))
    except (SchemaError, Unresolvable, RecursionError):
        return False


# -- the check -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Difference:
    """One instance on which the two schemas disagree."""

    instance: Any
    original: bool  # accepted by the original
    converted: bool

    def describe(self) -> str:
        verdict = "accepts" if self.converted else "refuses"
        return f"converted {verdict} what the original {'accepts' if self.original else 'refuses'}: " + json.dumps(
            self.instance, default=str)[:200]


def differences(original: dict[str, Any], converted: Any, tried: list[Any]) -> list[Difference]:
    """The instances of `tried` on which `converted` and `original` disagree."""
    before = Draft202012Validator(original)
    try:
        after = Draft202012Validator(converted if isinstance(converted, (dict, bool)) else {})
        verdicts = [(before.is_valid(i), after.is_valid(i)) for i in tried]
    except (Unresolvable, RecursionError) as error:
        return [Difference(f"converted schema unusable: {type(error).__name__}", True, False)]
    return [Difference(i, a, b) for i, (a, b) in zip(tried, verdicts, strict=True) if a != b]


def check(original: dict[str, Any], converted: Any, seed: str) -> list[Difference]:
    return differences(original, converted, instances(original, seed))
