"""`results`: results cut to a size (`fit_json`, `clip_text`) and to a shape (`conform`, `finite`),
with the notes that say what was left out."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from mcpgen.runtime import results

# `limit` and `q` look like arguments that narrow a result; `status` does not.
TOOL = {"name": "listPets", "inputSchema": {"type": "object", "properties": {"limit": {}, "status": {}, "q": {}}}}
BARE = {"name": "ping", "inputSchema": {"type": "object"}}


def size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False))


# -- size ---------------------------------------------------------------------------


def test_a_value_that_fits_is_returned_as_is() -> None:
    value = {"items": list(range(10))}
    assert results.fit_json(value, 1000, drop_keys=False) == (value, [])


def test_the_largest_array_keeps_its_first_items() -> None:
    value = {"items": [{"id": i, "name": f"pet {i}"} for i in range(1000)], "meta": {"total": 1000}}
    original = copy.deepcopy(value)
    fitted, notes = results.fit_json(value, 3000, drop_keys=False)
    assert size(fitted) <= 3000
    kept = len(fitted["items"])
    assert 0 < kept < 1000 and fitted["items"] == value["items"][:kept]
    assert fitted["meta"] == {"total": 1000}
    assert notes == [f"`$.items`: kept the first {kept:,} of 1,000 items"]
    assert value == original  # not changed in place


def test_a_top_level_array() -> None:
    fitted, notes = results.fit_json(list(range(5000)), 2000, drop_keys=True)
    assert size(fitted) <= 2000 and fitted == list(range(len(fitted)))
    assert notes == [f"`$`: kept the first {len(fitted):,} of 5,000 items"]


def test_a_long_string_is_cut_with_an_ellipsis() -> None:
    fitted, notes = results.fit_json({"text": "a" * 10_000, "id": 7}, 2000, drop_keys=False)
    assert size(fitted) <= 2000 and fitted["id"] == 7
    assert fitted["text"].endswith("a…") and set(fitted["text"][:-1]) == {"a"}
    assert notes == [f"`$.text`: kept the first {len(fitted['text']) - 1:,} of 10,000 characters"]


def test_paths_with_odd_keys_are_quoted() -> None:
    _, notes = results.fit_json({"pet list": list(range(3000))}, 1000, drop_keys=False)
    assert len(notes) == 1 and notes[0].startswith('`$["pet list"]`: kept the first ')


def test_object_members_are_dropped_only_when_allowed() -> None:
    value = {f"k{i}": i for i in range(2000)}  # nothing but small members
    assert results.fit_json(value, 3000, drop_keys=False) == (value, [])  # cannot cut: unchanged
    fitted, notes = results.fit_json(value, 3000, drop_keys=True)
    assert size(fitted) <= 3000
    assert list(fitted) == [f"k{i}" for i in range(len(fitted))]  # the first members kept, in order
    assert notes == [f"`$`: kept the first {len(fitted):,} of 2,000 members"]


def test_an_array_cut_more_than_once_reports_its_original_length() -> None:
    value = {"items": ["x" * 500] * 100 + ["y"] * 900}  # the first items are the large ones
    fitted, notes = results.fit_json(value, 5000, drop_keys=False)
    assert size(fitted) <= 5000
    assert notes == [f"`$.items`: kept the first {len(fitted['items']):,} of 1,000 items"]


def test_truncation_note() -> None:
    note = results.truncation_note(12_345, 1_000, ["`$.items`: kept the first 3 of 90 items"], TOOL)
    assert note == (
        "[Response truncated: 12,345 characters of JSON cut to 1,000 (11,345 cut): "
        "`$.items`: kept the first 3 of 90 items. "
        "To get less, call again with narrower arguments (this tool takes `limit`, `q`).]"
    )
    assert "the text was cut at the limit" in results.truncation_note(10, 5, [], BARE)
    many = results.truncation_note(10, 5, [f"cut {i}" for i in range(12)], BARE)
    assert "cut 9; …" in many and "cut 10" not in many
    assert many.endswith("To get less, call again with narrower arguments, if the tool takes any.]")


def test_narrowing_hint_names_at_most_eight_arguments() -> None:
    tool = {"inputSchema": {"properties": {f"filter{i}": {} for i in range(10)} | {"name": {}}}}
    hint = results.narrowing_hint(tool)
    assert hint.count("`filter") == 8 and "`name`" not in hint


def test_clip_text() -> None:
    assert results.clip_text("short", 10, TOOL) == ("short", None)
    assert results.clip_text("x" * 10, 10, TOOL) == ("x" * 10, None)
    clipped, note = results.clip_text("abcdefghij" * 3, 12, BARE)
    assert clipped == "abcdefghijab"
    assert note == (
        "[Response truncated: showing the first 12 of 30 characters (18 cut). "
        "To get less, call again with narrower arguments, if the tool takes any.]"
    )


# -- shape ----------------------------------------------------------------------------

PET = {
    "type": "object",
    "properties": {
        "id": {"type": "integer"},
        "name": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
}


def test_a_matching_value_is_kept_whole() -> None:
    value = {"id": 1, "name": "Rex", "tags": ["dog"]}
    assert results.conform(value, Draft202012Validator(PET)) == (value, [])


def test_failing_members_and_items_are_left_out() -> None:
    value = {"id": "one", "name": "Rex", "tags": ["a", 1, "b", 2, "c"]}
    conformed, problems = results.conform(value, Draft202012Validator(PET))
    assert conformed == {"name": "Rex", "tags": ["a", "b", "c"]}  # items taken out by their original index
    assert problems == [
        "$.id: 'one' is not of type 'integer'",
        "$.tags[1]: 1 is not of type 'string'",
        "$.tags[3]: 2 is not of type 'string'",
    ]
    assert value["tags"] == ["a", 1, "b", 2, "c"]


def test_problems_left_by_one_round_are_fixed_in_the_next() -> None:
    schema = {
        "type": "object",
        "properties": {"pets": {"type": "array", "minItems": 2, "items": {"type": "object", "required": ["id"]}}},
    }
    conformed, problems = results.conform({"pets": [{"id": 1}, {"name": "no id"}], "n": 2}, Draft202012Validator(schema))
    assert conformed == {"n": 2}  # the item goes first, then the array that became too short
    assert problems == ["$.pets[1]: 'id' is a required property", "$.pets: [{'id': 1}] is too short"]


def test_a_failing_root_falls_back_to_an_empty_object() -> None:
    conformed, problems = results.conform([1, 2], Draft202012Validator({"type": "object"}))
    assert conformed == {} and problems == ["$: [1, 2] is not of type 'object'"]


def test_nothing_passes_when_not_even_an_empty_object_does() -> None:
    schema = {"type": "object", "required": ["id"]}
    assert results.conform({"name": "x"}, Draft202012Validator(schema)) == (None, ["$: 'id' is a required property"])


def test_long_messages_are_cut() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    _, problems = results.conform({"a": "x" * 500}, Draft202012Validator(schema))
    assert len(problems) == 1 and problems[0].endswith("…") and len(problems[0]) == len("$.a: ") + 201


def test_finite_drops_what_json_cannot_carry() -> None:
    value = {
        "a": float("nan"), "b": [1, float("inf"), 2], "c": 10**400, "d": True, "e": 1.5,
        "f": {"g": -float("inf")}, "h": 2**53 + 1, "i": -(10**309),
    }
    kept, dropped = results.finite(value)
    assert kept == {"b": [1, 2], "d": True, "e": 1.5, "f": {}, "h": 2**53 + 1}
    assert dropped == [
        "$.a: nan is not a number every client can read",
        "$.b[1]: inf is not a number every client can read",
        f"$.c: {str(10**400)[:40]} is not a number every client can read",
        "$.f.g: -inf is not a number every client can read",
        f"$.i: {str(-(10**309))[:40]} is not a number every client can read",
    ]
    assert value["a"] != value["a"] and len(value) == 8  # the input is not changed


def test_finite_copies_nothing_when_nothing_goes() -> None:
    value = {"a": [1, 2.5, {"b": 1e308}], "big": 2**1000, "flag": False}
    kept, dropped = results.finite(value)
    assert kept is value and dropped == []


def test_finite_of_a_bare_unreadable_number() -> None:
    assert results.finite(float("inf")) == ({}, ["$: inf is not a number every client can read"])


def test_mismatch_note() -> None:
    note = results.mismatch_note(["$.id: bad", "$.name: worse"])
    assert note.startswith("[Note: this response does not match the tool's declared output schema")
    assert note.endswith("leaves out the parts that do not match:\n- $.id: bad\n- $.name: worse]")
    many = results.mismatch_note([f"$.p{i}: bad" for i in range(12)])
    assert many.endswith("- $.p9: bad\n- …]") and "$.p10" not in many


@pytest.mark.parametrize("limit", [1000, 5000, 20_000])
def test_fit_json_always_fits_cuttable_data(limit: int) -> None:
    value = {"pets": [{"id": i, "bio": "b" * (i % 300)} for i in range(800)], "cursor": "c" * 5000}
    fitted, notes = results.fit_json(value, limit, drop_keys=False)
    assert size(fitted) <= limit and notes
