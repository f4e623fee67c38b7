"""Synthesised instances: valid against their schema (checked with jsonschema), or refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from mcpgen.schema.instances import Unsynthesisable, invalid_arguments, minimal_instance

GOLDEN = Path(__file__).resolve().parents[1] / "golden"

CASES: list[tuple[str, dict[str, Any], Any]] = [
    ("empty", {}, {}),
    ("const wins", {"type": "string", "const": "v1", "examples": ["x"]}, "v1"),
    ("example first", {"type": "integer", "examples": [7], "default": 3}, 7),
    ("default", {"type": "integer", "default": 3}, 3),
    ("enum", {"type": "string", "enum": ["b", "a"]}, "b"),
    ("string", {"type": "string"}, "x"),
    ("minLength", {"type": "string", "minLength": 3}, "xxx"),
    ("format", {"type": "string", "format": "date-time"}, "2024-01-02T03:04:05Z"),
    ("integer bounds", {"type": "integer", "minimum": 5, "maximum": 9}, 5),
    ("exclusive", {"type": "integer", "exclusiveMinimum": 1}, 2),
    ("multipleOf", {"type": "number", "minimum": 3, "multipleOf": 2.5}, 5.0),
    ("negative only", {"type": "integer", "maximum": -4}, -4),
    ("number", {"type": "number"}, 1),
    ("boolean", {"type": "boolean"}, True),
    ("nullable", {"type": ["null", "string"]}, "x"),
    ("null", {"type": "null"}, None),
    ("array", {"type": "array", "items": {"type": "integer"}}, []),
    ("minItems", {"type": "array", "items": {"type": "integer", "minimum": 2}, "minItems": 2}, [2, 2]),
    (
        "required only",
        {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["b"]},
        {"b": 1},
    ),
    (
        "ref",
        {"type": "object", "properties": {"p": {"$ref": "#/$defs/P"}}, "required": ["p"],
         "$defs": {"P": {"type": "object", "properties": {"n": {"type": "string"}}, "required": ["n"]}}},
        {"p": {"n": "x"}},
    ),
    ("anyOf skips null", {"anyOf": [{"type": "null"}, {"type": "integer"}]}, 1),
    ("oneOf by type", {"oneOf": [{"type": "string"}, {"type": "integer"}]}, "x"),
    (
        "allOf objects",
        {"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                   {"type": "object", "properties": {"b": {"type": "boolean"}}, "required": ["b"]}]},
        {"a": "x", "b": True},
    ),
    (
        "additionalProperties",
        {"type": "object", "required": ["k"], "additionalProperties": {"type": "integer"}},
        {"k": 1},
    ),
]


@pytest.mark.parametrize(("schema", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_minimal_instance(schema: dict[str, Any], expected: Any) -> None:
    value = minimal_instance(schema)
    assert value == expected
    jsonschema.Draft202012Validator(schema).validate(value)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "string", "pattern": "^[A-Z]{3}$"},
        {"not": {"type": "string"}},
        {"$ref": "other.json#/x"},
        {"$ref": "#/$defs/missing"},
        {"type": "string", "format": "date-time", "maxLength": 4},
        {"type": "integer", "minimum": 3, "maximum": 2},
        {"type": "integer", "minimum": 1, "maximum": 1, "multipleOf": 2},
        {"type": "array", "items": {"type": "integer"}, "minItems": 2, "uniqueItems": True},
        {"oneOf": [{"type": "integer"}, {"type": "number"}]},
        {"type": "object", "required": ["a"], "additionalProperties": False},
        {"$ref": "#/$defs/N", "$defs": {"N": {"type": "object", "properties": {"n": {"$ref": "#/$defs/N"}},
                                              "required": ["n"]}}},
        {"enum": []},
    ],
    ids=["pattern", "not", "external-ref", "missing-ref", "format-too-long", "empty-range", "no-multiple",
         "unique-items", "overlapping-oneOf", "forbidden-required", "required-recursion", "empty-enum"],
)
def test_unsynthesisable(schema: dict[str, Any]) -> None:
    with pytest.raises(Unsynthesisable):
        minimal_instance(schema)


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}, {}),
        ({"type": "object", "properties": {"a": {"type": "string"}}}, {"a": {"unexpected": True}}),
        ({"type": "object", "properties": {"n": {"type": "integer"}}}, {"n": {"unexpected": True}}),
        ({"type": "object", "properties": {"o": {"type": ["object", "array"]}}}, {"o": 0.5}),
        ({"type": "object", "properties": {"a": {}}, "additionalProperties": False}, {"unexpected_argument": 1}),
        ({"type": "object", "properties": {"a": {}}}, None),
    ],
)
def test_invalid_arguments(schema: dict[str, Any], expected: Any) -> None:
    bad = invalid_arguments(schema)
    assert bad == expected
    if bad is not None:
        assert not jsonschema.Draft202012Validator(schema).is_valid(bad)


def test_invalid_arguments_keep_the_rest_valid() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
              "required": ["a", "b"]}
    assert invalid_arguments(schema, minimal_instance(schema)) == {"b": "x"}


def test_every_golden_tool_gets_valid_instances() -> None:
    """Whatever is synthesised for the samples' tools validates; refusals are the known ones."""
    refused = []
    for path in sorted(GOLDEN.glob("*/src/*/tools.json")):
        for entry in json.loads(path.read_text()):
            tool = entry["tool"]
            for key in ("inputSchema", "outputSchema"):
                if key not in tool:
                    continue
                try:
                    value = minimal_instance(tool[key])
                except Unsynthesisable:
                    refused.append((tool["name"], key))
                    continue
                jsonschema.Draft202012Validator(tool[key]).validate(value)
            bad = invalid_arguments(tool["inputSchema"])
            if bad is None:  # only a schema that accepts every object (a profile dropped additionalProperties)
                assert tool["inputSchema"] in (
                    {"type": "object", "properties": {}},
                    {"type": "object", "properties": {}, "required": []},  # as portable_input_schema spells it
                ), tool["name"]
                continue
            assert not jsonschema.Draft202012Validator(tool["inputSchema"]).is_valid(bad)
    assert all(key == "inputSchema" for _, key in refused), refused
    assert len(refused) < 10, refused
