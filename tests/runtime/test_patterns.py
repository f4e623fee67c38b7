"""`patterns`: spec patterns checked in linear time (RE2), with jsonschema's messages; a pattern
RE2 cannot compile is checked with `re` on bounded input only."""

from __future__ import annotations

import time
from typing import Any

import jsonschema
import pytest

from mcpgen.runtime import patterns

HOSTILE = "^(a+)+$"  # exponential for a backtracking engine on "aaa…a!"


def messages(schema: dict[str, Any], instance: Any) -> list[str]:
    return sorted(e.message for e in patterns.validator(schema).iter_errors(instance))


def test_a_catastrophic_pattern_is_checked_in_linear_time() -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string", "pattern": HOSTILE}}}
    started = time.perf_counter()
    for length in (27, 1_000, 100_000):
        found = messages(schema, {"q": "a" * length + "!"})
        assert len(found) == 1 and f"does not match {HOSTILE!r}" in found[0]
        assert messages(schema, {"q": "a" * length}) == []
    # Python's re needs seconds for the 27 characters alone; RE2 a few microseconds for all.
    assert time.perf_counter() - started < 2


def test_pattern_properties_and_additional_properties_use_it_too() -> None:
    schema = {
        "type": "object",
        "patternProperties": {"^x-(a+)+$": {"type": "integer"}},
        "additionalProperties": False,
    }
    hostile_key = "x-" + "a" * 40 + "!"
    started = time.perf_counter()
    assert messages(schema, {hostile_key: 1, "x-aa": "no"}) == [
        "'no' is not of type 'integer'",
        f"'{hostile_key}' does not match any of the regexes: '^x-(a+)+$'",
    ]
    assert time.perf_counter() - started < 2
    names = {"type": "object", "propertyNames": {"pattern": HOSTILE}}
    assert len(messages(names, {"a" * 40 + "!": 1})) == 1


@pytest.mark.parametrize(
    ("schema", "instance"),
    [
        ({"pattern": "^[A-Z]{3}-\\d{4}$"}, "ABC-1234"),
        ({"pattern": "^[A-Z]{3}-\\d{4}$"}, "abc-1234"),
        ({"pattern": "b"}, "abc"),  # search, not full match
        ({"pattern": "^a.c$"}, "a\nc"),  # "." stops at a newline in both
        ({"properties": {"a": {}}, "additionalProperties": False}, {"a": 1, "b": 2, "c": 3}),
        ({"properties": {"a": {}}, "additionalProperties": False}, {"b": 2}),
        ({"patternProperties": {"^p": {}, "^q": {}}, "additionalProperties": False}, {"p1": 1, "r": 2, "s": 3}),
        ({"patternProperties": {"^p": {"type": "string"}}, "additionalProperties": {"type": "integer"}}, {"p": 1, "z": "x"}),
        ({"pattern": "^a"}, 5),  # not a string: not checked
    ],
)
def test_same_answers_as_jsonschema(schema: dict[str, Any], instance: Any) -> None:
    expected = sorted(e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(instance))
    assert messages(schema, instance) == expected


def test_a_pattern_re2_cannot_compile_falls_back_on_bounded_input() -> None:
    schema = {"type": "string", "pattern": "^(?=.*\\d)[a-z0-9]+$"}  # lookahead: not RE2
    assert messages(schema, "abc1") == []
    assert messages(schema, "abc") == ["'abc' does not match '^(?=.*\\\\d)[a-z0-9]+$'"]
    long = "a" * (patterns.FALLBACK_MAX_CHARS + 1)
    [message] = messages(schema, long)
    assert f"{len(long)} characters are too many to check" in message and "lookaround" in message
    assert messages({"type": "string", "pattern": "(a)\\1"}, "xaa") == []  # a backreference


def test_an_invalid_pattern_is_an_error_as_before() -> None:
    with pytest.raises(Exception, match=r"unterminated|missing"):
        messages({"pattern": "(a"}, "a")


def test_a_long_argument_is_cut_in_the_message() -> None:
    [message] = messages({"pattern": "^b"}, "a" * 10_000)
    assert len(message) < 300 and "10,000 characters" in message


def test_the_servers_validators_are_these(project: Any) -> None:
    from mcpgen.runtime import dynamic

    assert isinstance(dynamic._validator(dynamic.SEARCH), patterns.Validator)
