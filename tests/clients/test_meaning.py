"""The meaning checker of the agents matrix (tests/clients/meaning.py) on small known cases: it must find
each kind of loss the matrix relies on it to find, and none where nothing was lost."""

from __future__ import annotations

from typing import Any

import pytest

from .meaning import as_json_schema, check, gemini_to_json_schema, instances, near_misses

PET: dict[str, Any] = {
    "type": "object", "required": ["name"], "additionalProperties": False,
    "properties": {"name": {"type": "string"}, "status": {"type": "string", "enum": ["available", "sold"]},
                   "age": {"type": "integer"},
                   "metadata": {"type": "object", "additionalProperties": {"type": "string"}}},
}


def _without(schema: dict[str, Any], *path: str) -> dict[str, Any]:
    """`schema` with the keyword at `path` removed (a copy)."""
    import copy

    out = copy.deepcopy(schema)
    node = out
    for key in path[:-1]:
        node = node[key]
    del node[path[-1]]
    return out


def test_the_same_schema_loses_nothing() -> None:
    assert check(PET, PET, "same") == []


@pytest.mark.parametrize("lost", [
    ("required",),  # a missing required accepted
    ("additionalProperties",),  # an extra key accepted
    ("properties", "status", "enum"),  # a value outside the enum accepted
    ("properties", "age", "type"),  # a wrong type accepted
    ("properties", "metadata", "additionalProperties"),  # a map's value type dropped
])
def test_each_dropped_keyword_is_found(lost: tuple[str, ...]) -> None:
    found = check(PET, _without(PET, *lost), "-".join(lost))
    assert found, f"dropping {'/'.join(lost)} went unnoticed"
    assert all(d.converted and not d.original for d in found)  # the converted one is looser


def test_a_stricter_conversion_is_found() -> None:
    strict = {**PET, "required": ["name", "status", "age", "metadata"]}  # strict mode's every-property-required
    found = check(PET, strict, "strict")
    assert found and any(d.original and not d.converted for d in found)


def test_near_misses_break_one_thing_each() -> None:
    misses = near_misses(PET, {"name": "Rex", "status": "sold"})
    assert {"status": "sold"} in misses  # required left out
    assert {"name": 12345, "status": "sold"} in misses  # wrong type
    assert {"name": "Rex", "status": "value-outside-the-enum"} in misses
    assert {"name": "Rex", "status": "sold", "zz_extra_key": "x"} in misses


def test_instances_hold_valid_and_invalid_arguments() -> None:
    from jsonschema import Draft202012Validator

    verdicts = {Draft202012Validator(PET).is_valid(i) for i in instances(PET, "seed")}
    assert verdicts == {True, False}


def test_gemini_schemas_map_back() -> None:
    gemini = {"type": "OBJECT", "required": ["a"], "properties": {
        "a": {"type": "STRING", "nullable": True, "enum": ["x", "y"]},
        "b": {"type": "ARRAY", "items": {"type": "INTEGER"}, "min_items": 1},
        "c": {"any_of": [{"type": "STRING"}, {"type": "NUMBER"}], "nullable": True}}}
    assert gemini_to_json_schema(gemini) == {"type": "object", "required": ["a"], "properties": {
        "a": {"type": ["string", "null"], "enum": ["x", "y", None]},
        "b": {"type": "array", "items": {"type": "integer"}, "minItems": 1},
        "c": {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "null"}]}}}
    assert as_json_schema({"kind": "json", "schema": PET}) is PET


def test_a_gemini_object_is_open() -> None:
    """Gemini's Schema has no additionalProperties: the checker must see the extra key accepted."""
    converted = {"kind": "gemini", "schema": {"type": "OBJECT", "required": ["name"], "properties": {
        "name": {"type": "STRING"}, "status": {"type": "STRING", "enum": ["available", "sold"]},
        "age": {"type": "INTEGER"}, "metadata": {"type": "OBJECT"}}}}
    found = check(PET, as_json_schema(converted), "gemini")
    assert any(isinstance(d.instance, dict) and "zz_extra_key" in d.instance for d in found)
