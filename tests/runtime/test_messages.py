"""`messages`: validation errors in plain words, naming the argument, what was expected and
what was given (not jsonschema's Python-flavoured `'abc' is not of type 'integer'`)."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from mcpgen.runtime.messages import given, problems

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "petId": {"type": "integer", "minimum": 1},
        "status": {"enum": ["available", "pending", "sold"]},
        "name": {"type": "string", "maxLength": 3, "pattern": "^a"},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2, "uniqueItems": True},
        "owner": {"type": "object", "required": ["id"], "properties": {"id": {"type": ["integer", "null"]}}},
        "ratio": {"type": "number", "exclusiveMaximum": 1, "multipleOf": 0.25},
    },
    "required": ["petId", "name"],
    "additionalProperties": False,
}


def check(arguments: Any) -> list[str]:
    return problems(Draft202012Validator(SCHEMA), arguments)


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"petId": "abc", "name": "a"}, 'petId: expected an integer, got the text "abc"'),
        ({"petId": 0, "name": "a"}, "petId: expected a number >= 1, got the number 0"),
        ({"petId": 1, "name": "a", "status": "lost"},
         'status: expected one of "available", "pending", "sold", got the text "lost"'),
        ({"petId": 1, "name": "abcd"}, 'name: expected at most 3 characters, got the text "abcd"'),
        ({"petId": 1, "name": "b"}, 'name: expected text matching "^a", got the text "b"'),
        ({"petId": 1, "name": "a", "tags": [1]}, "tags.0: expected text, got the number 1"),
        ({"petId": 1, "name": "a", "tags": ["x", "x"]}, "tags: expected a list without repeated items, got a list of 2"),
        ({"petId": 1, "name": "a", "owner": {"id": "7"}}, 'owner.id: expected an integer or null, got the text "7"'),
        ({"petId": 1, "name": "a", "ratio": 1}, "ratio: expected a number < 1, got the number 1"),
        ({"petId": 1, "name": "a", "ratio": 0.3}, "ratio: expected a multiple of 0.25, got the number 0.3"),
        ({"name": "a"}, "petId: required, but not given"),
        ({"petId": 1, "name": "a", "owner": {}}, "owner.id: required, but not given"),
        ({"petId": 1, "name": "a", "colour": "red"},
         '(arguments): unknown "colour" (known: name, owner, petId, ratio, status, tags)'),
        ([], "(arguments): expected an object, got a list of 0"),
    ],
)
def test_each_problem_in_plain_words(arguments: Any, expected: str) -> None:
    assert check(arguments) == [expected]


def test_every_problem_once_in_a_stable_order() -> None:
    found = check({"petId": "x", "status": "lost", "tags": [1, 2, 3]})
    assert found == sorted(found)
    assert "name: required, but not given" in found and 'petId: expected an integer, got the text "x"' in found
    assert len(found) == len(set(found)) == 7  # name, petId, status, tags (too many), tags.0, tags.1, tags.2
    assert check({"petId": 1, "name": "a"}) == []


def test_long_values_are_cut_and_kinds_are_named() -> None:
    assert given("x" * 500).endswith("…") and len(given("x" * 500)) < 80
    assert given(True) == "true" and given(None) == "null"
    assert given({"a": 1}) == "an object with 1 member" and given({}) == "an object with 0 members"
