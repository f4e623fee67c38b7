"""JSON Schema clean-up: OpenAPI schema in, strict-client JSON Schema 2020-12 out."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from mcpgen.schema.convert import SchemaConverter, merge_all_of


def convert(schema: Any, components: dict[str, Any] | None = None, openapi_30: bool = True, direction: str = "response") -> tuple[dict[str, Any], list[str]]:
    doc = {"components": {"schemas": components or {}}}
    warnings: list[str] = []

    def resolve(ref: str) -> Any:
        node: Any = doc
        for token in ref[2:].split("/"):
            node = node[token]
        return node

    out = SchemaConverter(resolve, openapi_30, lambda m, p: warnings.append(f"{p}: {m}")).convert(schema, "/x", direction)  # type: ignore[arg-type]
    jsonschema.Draft202012Validator.check_schema(out)
    return out, warnings


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"type": "string", "nullable": True}, {"type": ["string", "null"]}),
        ({"type": "string", "enum": ["a"], "nullable": True}, {"type": ["string", "null"], "enum": ["a", None]}),
        ({"type": "integer", "minimum": 1, "exclusiveMinimum": True}, {"type": "integer", "exclusiveMinimum": 1}),
        ({"type": "integer", "maximum": 9, "exclusiveMaximum": False}, {"type": "integer", "maximum": 9}),
        ({"type": "string", "example": "x"}, {"type": "string", "examples": ["x"]}),
        ({"type": "array"}, {"type": "array", "items": {}}),
        ({"type": "object", "discriminator": {"propertyName": "k", "mapping": {"a": "#/x"}}, "xml": {}, "x-internal": 1},
         {"type": "object", "discriminator": {"propertyName": "k"}}),
        ({"type": "string", "pattern": "^(?<year>\\d{4})$"}, {"type": "string"}),  # ECMAScript named group
        ({"type": "object", "properties": {"a": {}}, "required": ["a", "a"]}, {"type": "object", "properties": {"a": {}}, "required": ["a"]}),
    ],
)
def test_openapi_30_keywords(schema: dict[str, Any], expected: dict[str, Any]) -> None:
    assert convert(schema)[0] == expected


def test_invalid_pattern_is_dropped_with_a_located_warning() -> None:
    _, warnings = convert({"type": "string", "pattern": "(?<name>x)"})
    assert warnings == ["/x: pattern '(?<name>x)' is not a valid Python regex; dropped"]


def test_refs_are_inlined() -> None:
    out, _ = convert({"$ref": "#/components/schemas/A"}, {"A": {"type": "object", "properties": {"b": {"$ref": "#/components/schemas/B"}}}, "B": {"type": "integer"}})
    assert out == {"type": "object", "properties": {"b": {"type": "integer"}}}


def test_recursive_refs_end_in_defs_without_looping() -> None:
    node = {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}}}
    out, _ = convert({"$ref": "#/components/schemas/Node"}, {"Node": node})
    assert out["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    assert out["$defs"]["Node"]["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    jsonschema.validate({"children": [{"children": []}]}, out)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"children": [{"children": 5}]}, out)


def test_mutual_recursion() -> None:
    components = {
        "A": {"type": "object", "properties": {"b": {"$ref": "#/components/schemas/B"}}},
        "B": {"type": "object", "properties": {"a": {"$ref": "#/components/schemas/A"}}},
    }
    out, _ = convert({"$ref": "#/components/schemas/A"}, components)
    jsonschema.validate({"b": {"a": {"b": {}}}}, out)
    assert set(out["$defs"]) == {"A"}


def test_dangling_and_external_refs_warn_and_accept_anything() -> None:
    out, warnings = convert({"type": "object", "properties": {"a": {"$ref": "#/components/schemas/Nope"}, "b": {"$ref": "other.yaml#/X"}}})
    assert out["properties"] == {"a": {}, "b": {}}
    assert len(warnings) == 2


def test_read_only_properties_leave_requests_and_write_only_leave_responses() -> None:
    schema = {"type": "object", "required": ["id", "pw"], "properties": {"id": {"type": "integer", "readOnly": True}, "pw": {"type": "string", "writeOnly": True}}}
    request, _ = convert(schema, direction="request")
    response, _ = convert(schema, direction="response")
    assert list(request["properties"]) == ["pw"] and request["required"] == ["pw"]
    assert list(response["properties"]) == ["id"] and response["required"] == ["id"]


def test_openapi_31_keeps_type_arrays_and_const() -> None:
    out, _ = convert({"type": ["string", "null"], "const": "x", "exclusiveMinimum": 3}, openapi_30=False)
    assert out == {"type": ["string", "null"], "const": "x", "exclusiveMinimum": 3}


def test_all_of_objects_merge() -> None:
    merged = merge_all_of({"allOf": [
        {"type": "object", "properties": {"a": {}}, "required": ["a"]},
        {"properties": {"b": {}}, "required": ["b"]},
    ]})
    assert merged == {"type": "object", "properties": {"a": {}, "b": {}}, "required": ["a", "b"]}


def test_all_of_with_a_non_object_part_is_kept() -> None:
    schema = {"allOf": [{"type": "object"}, {"type": "string"}]}
    assert merge_all_of(schema) is schema


def test_small_shared_refs_are_inlined() -> None:
    schema = {"type": "object", "properties": {"a": {"$ref": "#/components/schemas/B"}, "b": {"$ref": "#/components/schemas/B"}}}
    out, _ = convert(schema, {"B": {"type": "integer"}})
    assert out == {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}


def test_exponentially_shared_graphs_keep_shared_refs_in_defs() -> None:
    # L0 -> L1 twice -> L2 twice ...: inlined, 2**30 copies of L30
    components: dict[str, Any] = {
        f"L{i}": {"type": "object", "properties": {"x": {"$ref": f"#/components/schemas/L{i + 1}"}, "y": {"$ref": f"#/components/schemas/L{i + 1}"}}}
        for i in range(30)
    }
    components["L30"] = {"type": "string"}
    out, _ = convert({"$ref": "#/components/schemas/L0"}, components)
    assert "$defs" in out and len(json.dumps(out)) < 64_000


def test_an_elided_untyped_reference_accepts_any_value_portably(monkeypatch: pytest.MonkeyPatch) -> None:
    """A reference cut for size keeps its target's type; an allOf target has none, and a bare
    `{"description": ...}` is a portability warning in the Inspector (Microsoft Graph: 5,007)."""
    from mcpgen.schema import convert as schemas
    from mcpgen.schema.portable import ANY_VALUE

    monkeypatch.setattr(schemas, "_MAX_NODES", 40)
    entity = {"allOf": [{"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(8)}}],
              "description": "An entity."}
    holder = {"type": "object", "properties": {f"e{i}": {"$ref": "#/components/schemas/Entity"} for i in range(3)}}
    top = {"type": "object", "properties": {f"h{i}": {"$ref": "#/components/schemas/Holder"} for i in range(3)}}
    out, warnings = convert(top, {"Entity": entity, "Holder": holder})
    assert any("level(s) of references kept" in w for w in warnings)
    stubs = [e for h in out["properties"].values() for e in h.get("properties", {}).values()]
    assert stubs and all(s == {**ANY_VALUE, "description": "An entity. (structure not shown)"} for s in stubs), stubs
