"""Output schemas every client accepts (`mcpgen.schema.output`, `mcpgen.schema.portable`) and the
tools/list page count mcpgen checks at generation (`mcpgen.lint.page_count`)."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from mcpgen.clients.lint import CLIENT_MAX_PAGES, page_count, page_count_notes
from mcpgen.runtime.paging import MAX_PAGE_BYTES
from mcpgen.schema.output import (
    MAX_SUBSCHEMAS,
    MIN_SUBSCHEMAS,
    TOTAL_SUBSCHEMAS,
    accepts_empty_object,
    bound_output_schema,
    portable_output_schema,
    relax_output_schema,
    subschema_budget,
    with_content_id,
)
from mcpgen.schema.portable import ANY_VALUE, split_type_unions


def constraining_everywhere(schema: Any, path: str = "#") -> list[str]:
    """Subschemas the Inspector's portability check flags: type lists, and ones that constrain nothing."""
    found: list[str] = []
    if not isinstance(schema, dict):
        return found
    if isinstance(schema.get("type"), list):
        found.append(f"{path}: type list")
    if not schema.keys() & {"type", "anyOf", "allOf", "oneOf", "$ref", "not", "enum", "const", "properties", "items"}:
        found.append(f"{path}: constrains nothing")
    for key in ("properties", "$defs"):
        for name, sub in schema.get(key, {}).items():
            found += constraining_everywhere(sub, f"{path}/{key}/{name}")
    for key in ("anyOf", "allOf", "oneOf"):
        for index, sub in enumerate(schema.get(key, [])):
            found += constraining_everywhere(sub, f"{path}/{key}/{index}")
    for key in ("items", "additionalProperties", "not"):
        if isinstance(schema.get(key), dict):
            found += constraining_everywhere(schema[key], f"{path}/{key}")
    return found


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        # A format is named, never asserted (ajv-formats rejects "" as a uri); number widths are noise.
        ({"type": "string", "format": "uri"}, {"type": "string", "description": "Format: uri"}),
        ({"type": "string", "format": "date", "description": "Born"}, {"type": "string", "description": "Born (format: date)"}),
        ({"type": "integer", "format": "int64"}, {"type": "integer"}),
        # A declared null stays, as anyOf; examples, defaults and extensions go.
        ({"type": ["string", "null"], "example": "x", "default": "y", "x-go-name": "Z"},
         {"anyOf": [{"type": "string"}, {"type": "null"}]}),
        # Tuples mean different things to draft-07 and 2020-12: one items schema for every element.
        ({"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": {"type": "integer"}},
         {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}),
        # An array always says what its items are; "anything" is spelled with constraining keywords.
        ({"type": "array", "items": {}}, {"type": "array", "items": ANY_VALUE}),
        # A member that accepts anything, or one ajv would read off Object.prototype, is left undescribed.
        ({"type": "object", "properties": {"a": {}, "constructor": {"type": "string"}, "b": {"type": "boolean"}}},
         {"type": "object", "properties": {"b": {"type": "boolean"}}}),
        # patternProperties run as JavaScript regexes in one client and Python ones in another.
        ({"type": "object", "patternProperties": {"^x": {"type": "string"}}}, {"type": "object"}),
    ],
)
def test_relaxed_schemas_are_portable(schema: dict[str, Any], expected: dict[str, Any]) -> None:
    assert relax_output_schema(schema) == expected
    assert constraining_everywhere(expected) == []


def test_unrelaxed_schemas_keep_constraints_but_stay_open_where_members_went() -> None:
    closed = {"type": "object", "additionalProperties": False, "required": ["a"],
              "properties": {"a": {"type": "string", "format": "date-time"}, "anything": {}}}
    portable = portable_output_schema(closed)
    assert portable == {"type": "object", "required": ["a"], "properties": {"a": {"type": "string", "description": "Format: date-time"}}}
    assert jsonschema.Draft202012Validator(portable).is_valid({"a": "2024-05-01T10:00:00", "anything": [1]})


def big_schema(properties: int, depth: int) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "string"}
    for level in range(depth):
        node = {"type": "object", "description": f"level {level}",
                "properties": {f"p{i}": node if i == 0 else {"type": "integer"} for i in range(properties)}}
    return node


def test_small_schemas_are_kept_whole() -> None:
    schema = {"type": "object", "properties": {"next": {"$ref": "#/$defs/N"}},
              "$defs": {"N": {"type": "object", "properties": {"next": {"$ref": "#/$defs/N"}}}}}
    assert bound_output_schema(schema) == schema  # recursive, but small: references stay


def test_big_schemas_keep_the_levels_that_fit() -> None:
    schema = big_schema(properties=20, depth=6)  # 6 levels of 20 members
    bounded = bound_output_schema(schema, budget=50)
    assert bounded["properties"]["p0"]["properties"]["p1"] == {"type": "integer"}  # two levels fit
    assert bounded["properties"]["p0"]["properties"]["p0"] == {"type": "object", "description": "level 3"}
    assert jsonschema.Draft202012Validator(bounded).is_valid({"p0": {"p0": {"deep": {"er": [1]}}}})


def test_cut_references_are_inlined_and_cycles_end() -> None:
    defs = {"U": {"type": "object", "properties": {"login": {"type": "string"}, "friend": {"$ref": "#/$defs/U"}}}}
    schema = {"type": "object", "properties": {f"u{i}": {"$ref": "#/$defs/U"} for i in range(40)}, "$defs": defs}
    bounded = bound_output_schema(schema, budget=30)
    assert "$defs" not in bounded and "$ref" not in str(bounded)
    assert bounded["properties"]["u0"] == {"type": "object"}  # one level: a user is an object
    jsonschema.Draft202012Validator.check_schema(bounded)


def test_an_empty_object_is_the_fallback_every_relaxed_object_accepts() -> None:
    assert accepts_empty_object(relax_output_schema(big_schema(3, 3)))
    assert not accepts_empty_object({"type": "object", "allOf": [{"type": "string"}]})


def test_type_unions_in_input_schemas_become_any_of() -> None:
    schema = {"type": "object", "properties": {"when": {"type": ["string", "null"], "format": "date", "enum": ["a", None]}}}
    assert split_type_unions(schema)["properties"]["when"] == {
        "format": "date", "enum": ["a", None], "anyOf": [{"type": "string"}, {"type": "null"}],
    }
    assert schema["properties"]["when"]["type"] == ["string", "null"]  # a copy: the route keeps the spec's types


def test_pages_widen_to_fit_the_clients_page_cap() -> None:
    assert page_count([100] * 1186, 25, one_page_bytes=0) == 48  # GitHub-sized: 25 a page
    assert page_count([100] * 11412, 25, one_page_bytes=0) <= 48  # Graph-sized: wider pages
    assert page_count([MAX_PAGE_BYTES // 2 + 1] * 10, 25) == 10  # bytes bound a page too
    too_big = page_count_notes([MAX_PAGE_BYTES] * (CLIENT_MAX_PAGES + 1), 25)
    assert len(too_big) == 2 and "--tool-mode dynamic" in too_big[1] and "stop listing after 64" in too_big[1]


def test_a_list_within_the_one_page_budget_is_one_page() -> None:
    assert page_count([100] * 11412, 25) == 1  # 1.1 MB: within the default 2 MB budget
    assert page_count_notes([100] * 11412, 25) == []
    assert page_count([100] * 11412, 25, one_page_bytes=1_141_200) == 1  # the budget is inclusive
    over = page_count_notes([100] * 11412, 25, one_page_bytes=1_000_000)
    assert len(over) == 1 and "google-adk" in over[0] and "238 of 11412 tools" in over[0], over


def test_content_ids_name_the_content() -> None:
    pet = {"type": "object", "properties": {"id": {"type": "integer"}}}
    first, again = with_content_id(pet), with_content_id(dict(reversed(list(pet.items()))))
    assert first == again and first["$id"].startswith("urn:mcpgen:schema:")  # key order does not matter
    assert with_content_id(first) == first  # an $id is not part of the content
    assert with_content_id({**pet, "title": "Pet"})["$id"] != first["$id"]
    jsonschema.Draft202012Validator(with_content_id({**pet, "$defs": {"N": {"type": "string"}},
                                                     "properties": {"n": {"$ref": "#/$defs/N"}}})).validate({"n": "x"})


def test_budgets_share_a_total_across_the_tools() -> None:
    assert subschema_budget(12) == MAX_SUBSCHEMAS
    assert subschema_budget(1186) == TOTAL_SUBSCHEMAS // 1186
    assert subschema_budget(11412) == MIN_SUBSCHEMAS
