"""Property-based: `portable_input_schema` accepts exactly what the schema it rewrites accepts.

Random schemas (nested unions, enums and one-type keywords beside unions, `$defs` with and
without recursion, arrays without items, maps) and every tool input schema of the 40 public
corpus specs (tests/corpus.py; .ci/run fetches them): sample
instances, valid and not, are checked by jsonschema's Draft 2020-12 validator against the
original and the rewritten schema, which must agree; rewriting twice gives the same bytes.

`python -m tests.property.test_portable_input SPEC...` prints, per rewrite, how many tool
schemas of those specs it changed.
"""

from __future__ import annotations

import copy
import json
import os
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from mcpgen.schema.instances import Unsynthesisable, invalid_arguments, minimal_instance
from mcpgen.schema.portable_input import ANY_ITEM, Changes, portable_input_schema
from tests import corpus

_HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large]
_EXAMPLES = 400 if os.environ.get("HYPOTHESIS_PROFILE") == "long" else 120

TYPES = st.sampled_from(["string", "integer", "number", "boolean", "object", "array", "null"])
SCALARS = st.sampled_from([None, True, False, 0, 1, 2, -1, 1.5, "", "a", "b", "abcd"])
NAMES = st.sampled_from(["p", "q", "next", "v"])
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(NAMES, inner, max_size=3),
    max_leaves=6,
)
ENUMS = st.lists(VALUES, min_size=1, max_size=4, unique_by=lambda v: json.dumps(v, sort_keys=True))
ONE_TYPE_KEYWORDS = st.sampled_from([
    {"maxLength": 1}, {"minLength": 1, "pattern": "^a"}, {"minimum": 1}, {"multipleOf": 2}, {"minItems": 1},
    {"items": {"type": "string"}}, {"required": ["p"]}, {"properties": {"p": {"type": "string"}}},
    {"properties": {"p": {"type": "integer"}}, "additionalProperties": False}, {"additionalProperties": {"type": "integer"}},
    {"maxProperties": 1},
])


def _leaves(with_refs: bool) -> st.SearchStrategy[Any]:
    plain = [
        st.builds(lambda t: {"type": t}, TYPES),
        st.sampled_from([{}, True, False, {"description": "d"}, {"type": "array"}, {"type": "array", "items": {}},
                         {"type": "array", "items": True}, {"type": ["string", "null"]}]),
        st.builds(lambda t, e: {"type": t, "enum": e}, TYPES, ENUMS),
        st.builds(lambda e: {"enum": e}, ENUMS),
        st.builds(lambda v: {"const": v}, VALUES),
        st.builds(lambda t, kw: {"type": t, **kw}, TYPES, ONE_TYPE_KEYWORDS),
    ]
    refs = st.sampled_from([
        {"$ref": "#/$defs/A"}, {"$ref": "#/$defs/R"}, {"$ref": "#/$defs/A", "description": "x"},
        {"$ref": "#/$defs/A", "maxLength": 2}, {"$ref": "#/$defs/R", "required": ["v"]},
        {"$ref": "#/$defs/A", "type": "integer"}, {"$ref": "#/$defs/A", "enum": [1, "a", None]},
        {"$ref": "#/$defs/R", "additionalProperties": False}, {"$ref": "#/$defs/S", "type": "integer"},
        {"$ref": "#/$defs/S", "maxLength": 3}, {"$ref": "#/$defs/S", "enum": ["a", "abc", 1]}, {"$ref": "#/$defs/S"},
    ])
    return st.one_of(refs, st.one_of(*plain)) if with_refs else st.one_of(*plain)


def _extend(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    branches = st.lists(children, min_size=1, max_size=3)
    typed = st.lists(st.builds(lambda t: {"type": t}, TYPES), min_size=1, max_size=3)
    return st.one_of(
        st.builds(lambda bs: {"anyOf": bs}, branches),
        st.builds(lambda bs: {"oneOf": bs}, branches),
        st.builds(lambda bs, e: {"enum": e, "anyOf": bs}, branches, ENUMS),
        st.builds(lambda bs, e: {"enum": e, "oneOf": bs}, typed, ENUMS),
        st.builds(lambda bs, v: {"const": v, "anyOf": bs}, typed, VALUES),
        st.builds(lambda bs, kw: {**kw, "anyOf": bs}, typed, ONE_TYPE_KEYWORDS),
        st.builds(lambda bs, kw: {**kw, "oneOf": bs}, typed, ONE_TYPE_KEYWORDS),
        st.builds(lambda x: {"anyOf": [x, {"type": "null"}]}, children),
        st.builds(lambda x: {"oneOf": [x, {"type": "null"}], "description": "n"}, children),
        st.builds(lambda x, d: {"anyOf": [{"anyOf": [x, {"type": "integer"}], "description": d}, {"type": "null"}]},
                  children, st.sampled_from(["inner", ""])),
        st.builds(
            lambda props, extra: {"type": "object", "properties": props, **extra},
            st.dictionaries(NAMES, children, max_size=3),
            st.sampled_from([{}, {"required": ["p"]}, {"additionalProperties": False},
                             {"additionalProperties": {"type": "string"}}]),
        ),
        st.builds(lambda it: {"type": "array", "items": it}, children),
        st.builds(lambda v: {"type": "object", "additionalProperties": v}, children),
        st.builds(lambda a, b: {"allOf": [a, b]}, children, children),
        st.builds(lambda a: {"not": a}, children),
    )


NO_REFS = st.recursive(_leaves(False), _extend, max_leaves=6)
SCHEMAS = st.recursive(_leaves(True), _extend, max_leaves=8)


@st.composite
def rooted(draw: st.DrawFn) -> dict[str, Any]:
    """A schema with `$defs`: `A` (no reference), `R` (recursive through `next`), `S` (a short string)."""
    body = draw(SCHEMAS)
    body = {"allOf": [body]} if not isinstance(body, dict) else body
    defs = {
        "A": draw(NO_REFS),
        "R": {"type": "object", "properties": {"next": {"$ref": "#/$defs/R"}, "v": draw(NO_REFS)}},
        "S": {"type": "string", "maxLength": 1},
    }
    return {**body, "$defs": defs}


def _agree(original: dict[str, Any], instances: list[Any]) -> None:
    before = Draft202012Validator(original)
    rewritten = portable_input_schema(original)
    after = Draft202012Validator(rewritten)
    for instance in instances:
        assert before.is_valid(instance) == after.is_valid(instance), (
            f"\ninstance {json.dumps(instance)}\noriginal  {json.dumps(original)}\nrewritten {json.dumps(rewritten)}"
        )


@settings(max_examples=_EXAMPLES, deadline=None, suppress_health_check=_HEALTH)
@given(rooted(), st.lists(VALUES, min_size=10, max_size=30), st.integers(0, 2**32))
def test_random_schemas_accept_the_same_instances(schema: dict[str, Any], values: list[Any], seed: int) -> None:
    keep = copy.deepcopy(schema)
    instances = [*values, *samples(schema, random.Random(seed), 12)]
    _agree(schema, instances)
    assert schema == keep  # the input is left alone
    once = portable_input_schema(schema)
    assert json.dumps(once) == json.dumps(portable_input_schema(schema))  # same input, same bytes


REF_LEAVES = _leaves(True).filter(lambda leaf: isinstance(leaf, dict) and "$ref" in leaf)


@settings(max_examples=_EXAMPLES, deadline=None, suppress_health_check=_HEALTH)
@given(rooted(), st.lists(REF_LEAVES, min_size=1, max_size=3), st.integers(0, 2**32))
def test_references_with_siblings_accept_the_same_instances(schema: dict[str, Any], refs: list[Any], seed: int) -> None:
    """`$ref`s beside other keywords, inlined: merged only where nothing constrains twice."""
    schema = {"type": "object", "properties": dict(zip(("p", "q", "v"), refs, strict=False)),
              "$defs": schema["$defs"]}
    _agree(schema, samples(schema, random.Random(seed), 20))


@settings(max_examples=_EXAMPLES, deadline=None, suppress_health_check=_HEALTH)
@given(rooted())
def test_rewriting_a_rewritten_schema_changes_no_instance(schema: dict[str, Any]) -> None:
    once = portable_input_schema(schema)
    twice = portable_input_schema(once)
    _agree(once, samples(once, random.Random(0), 20))
    assert Draft202012Validator(twice)  # still a schema


# -- examples of each rewrite ----------------------------------------------------------------


def test_the_cases_found_on_real_specs() -> None:
    github_state = {"type": "object", "properties": {"state": {
        "description": "s", "enum": ["open", "closed", None], "anyOf": [{"type": "string"}, {"type": "null"}]}}}
    out = portable_input_schema(github_state)
    assert out["properties"]["state"] == {
        "description": "s", "anyOf": [{"type": "string", "enum": ["open", "closed"]}, {"type": "null"}]}
    assert out["required"] == []

    nested = {"type": "object", "properties": {"dag": {"anyOf": [
        {"anyOf": [{"type": "object", "properties": {"is_paused": {"type": "boolean"}}, "required": []},
                   {"type": "string"}]},
        {"type": "null"}]}}, "required": []}
    assert portable_input_schema(nested)["properties"]["dag"]["anyOf"] == [
        {"type": "object", "properties": {"is_paused": {"type": "boolean"}}, "required": []},
        {"type": "string"}, {"type": "null"}]

    # GitHub's code_scanning_options: `properties` beside a nullable union move into the object branch,
    # which then says `required: []` too (pydantic-ai infers strict only with it)
    split = {"type": "object", "properties": {"options": {"anyOf": [{"type": "object"}, {"type": "null"}],
                                                          "properties": {"allow_advanced": {"type": "boolean"}}}},
             "required": []}
    assert portable_input_schema(split)["properties"]["options"]["anyOf"] == [
        {"type": "object", "properties": {"allow_advanced": {"type": "boolean"}}, "required": []}, {"type": "null"}]

    docker = {"type": "object", "properties": {"Cmd": {"type": "array", "items": {}}}, "required": []}
    assert portable_input_schema(docker)["properties"]["Cmd"]["items"] == ANY_ITEM

    stripe = {"type": "object", "properties": {"metadata": {"type": "object", "additionalProperties": {"type": "string"}}},
              "required": []}
    metadata = portable_input_schema(stripe)["properties"]["metadata"]
    assert metadata["additionalProperties"] == {"type": "string"}
    assert metadata["description"] == "Keys are free; each value: string."


def test_defs_inlined_but_recursive_ones() -> None:
    schema = {
        "type": "object", "required": ["item", "tree"],
        "properties": {"item": {"$ref": "#/$defs/Item", "description": "The item."}, "tree": {"$ref": "#/$defs/Node"}},
        "$defs": {
            "Item": {"type": "object", "title": "Item", "properties": {"kind": {"$ref": "#/$defs/Kind"}}, "required": []},
            "Kind": {"enum": ["a", "b"], "type": "string"},
            "Node": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
                     "required": []},
        },
    }
    changes = Changes()
    out = portable_input_schema(schema, changes)
    assert out["properties"]["item"] == {"type": "object", "title": "Item", "description": "The item.",
                                         "properties": {"kind": {"enum": ["a", "b"], "type": "string"}}, "required": []}
    # the recursive definition is spelt out where the tool uses it; it recurs through $defs
    assert out["properties"]["tree"]["properties"]["kids"]["items"] == {"$ref": "#/$defs/Node"}
    assert list(out["$defs"]) == ["Node"]
    assert changes.bare_refs == ["/$defs/Node/properties/kids/items", "/properties/tree/properties/kids/items"]


def test_a_ref_with_constraining_siblings_is_an_allof() -> None:
    schema = {"type": "object", "properties": {"x": {"$ref": "#/$defs/S", "maxLength": 3}}, "required": [],
              "$defs": {"S": {"type": "string", "maxLength": 5}}}
    out = portable_input_schema(schema)
    assert out["properties"]["x"] == {"maxLength": 3, "allOf": [{"type": "string", "maxLength": 5}]}
    assert "$defs" not in out


def test_a_map_note_is_built_from_type_names_only() -> None:
    hostile = {"type": "object", "additionalProperties": {
        "title": "\"}]; import os", "description": "{{ evil }}", "type": "string"}}
    out = portable_input_schema(hostile)
    assert out["description"] == "Keys are free; each value: string."


# -- instances sampled from a schema ---------------------------------------------------------

_POOL = [None, True, False, 0, 1, -1, 2.5, "", "a", "zz", [], {}, [1], {"p": 1}]


def samples(schema: dict[str, Any], rng: random.Random, count: int) -> list[Any]:
    """Instances likely valid (`sample`), one broken leaf each (`mutate`), the synthesised ones."""
    found: list[Any] = []
    defs = schema.get("$defs") or {}
    for _ in range(count):
        value = sample(schema, defs, rng, 0)
        found.append(value)
        found.append(mutate(value, rng))
    try:
        valid = minimal_instance(schema)
        found.append(valid)
        if isinstance(valid, dict):
            found.append(invalid_arguments(schema, valid))
    except (Unsynthesisable, RecursionError, KeyError, TypeError, ValueError):
        pass
    return found


def sample(schema: Any, defs: dict[str, Any], rng: random.Random, depth: int) -> Any:
    if not isinstance(schema, dict) or depth > 8:
        return rng.choice(_POOL)
    if isinstance(schema.get("$ref"), str) and schema["$ref"].startswith("#/$defs/"):
        return sample(defs.get(schema["$ref"][8:], {}), defs, rng, depth + 1)
    for key in ("enum",):
        if isinstance(schema.get(key), list) and schema[key] and rng.random() < 0.9:
            return copy.deepcopy(rng.choice(schema[key]))
    if "const" in schema and rng.random() < 0.9:
        return copy.deepcopy(schema["const"])
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list) and schema[key] and rng.random() < 0.9:
            merged = {k: v for k, v in schema.items() if k not in (key, "enum", "const")}
            branch = rng.choice(schema[key])
            return sample({**merged, **branch} if isinstance(branch, dict) else merged, defs, rng, depth + 1)
    if isinstance(schema.get("allOf"), list) and schema["allOf"]:
        part = rng.choice(schema["allOf"])
        return sample({**{k: v for k, v in schema.items() if k != "allOf"}, **(part if isinstance(part, dict) else {})},
                      defs, rng, depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = rng.choice(kind) if kind else None
    if kind is None:
        kind = "object" if "properties" in schema else rng.choice(["string", "integer", "object", "array", "null"])
    if kind == "object":
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        required = schema.get("required") if isinstance(schema.get("required"), list) else []
        out = {name: sample(sub, defs, rng, depth + 1) for name, sub in props.items()
               if name in required or rng.random() < 0.6}
        extra = schema.get("additionalProperties")
        if extra is not False and rng.random() < 0.3:
            out["extra"] = sample(extra if isinstance(extra, dict) else {}, defs, rng, depth + 1)
        return out
    if kind == "array":
        return [sample(schema.get("items", {}), defs, rng, depth + 1) for _ in range(rng.randint(0, 2))]
    if kind == "string":
        length = schema.get("maxLength", 4) if isinstance(schema.get("maxLength"), int) else 4
        return "".join(rng.choice("ab") for _ in range(rng.randint(0, max(0, length))))
    if kind in ("integer", "number"):
        low = schema.get("minimum", -2) if isinstance(schema.get("minimum"), (int, float)) else -2
        value = rng.randint(int(low), int(low) + 4)
        return value + (0.5 if kind == "number" and rng.random() < 0.3 else 0)
    if kind == "boolean":
        return rng.random() < 0.5
    return None


def mutate(value: Any, rng: random.Random) -> Any:
    """`value` with one leaf (or itself) replaced by a pool value."""
    if isinstance(value, dict) and value and rng.random() < 0.7:
        key = rng.choice(sorted(value))
        return {**value, key: mutate(value[key], rng)}
    if isinstance(value, list) and value and rng.random() < 0.7:
        index = rng.randrange(len(value))
        return [*value[:index], mutate(value[index], rng), *value[index + 1 :]]
    return copy.deepcopy(rng.choice(_POOL))


# -- the corpus ------------------------------------------------------------------------------

def corpus_schemas(spec: Path) -> list[tuple[str, dict[str, Any]]]:
    """(tool name, input schema as the source parsed it, before any pass) for one spec."""
    from mcpgen import api
    from mcpgen.options import Options

    project, _ = api.build_openapi(spec, Options(models=False))
    return [(tool.name, tool.input_schema) for tool in project.tools]


@pytest.mark.parametrize("relative", corpus.public_specs())
def test_corpus_tool_schemas_accept_the_same_instances(relative: str) -> None:
    spec = corpus.spec(relative)
    rng = random.Random(relative)
    for _name, schema in corpus_schemas(spec):
        _agree(schema, samples(schema, rng, 6))
        assert json.dumps(portable_input_schema(schema)) == json.dumps(portable_input_schema(copy.deepcopy(schema)))


def figures(specs: list[Path]) -> None:
    """How many tool schemas each rewrite changed, over `specs`."""
    tools, changed, kinds, left = 0, 0, Counter[str](), 0
    for spec in specs:
        for _name, schema in corpus_schemas(spec):
            changes = Changes()
            out = portable_input_schema(schema, changes)
            tools += 1
            changed += out != schema
            kinds.update(changes.counts.keys())
            left += bool(changes.bare_refs)
    print(f"{tools} tool input schemas, {changed} rewritten")
    for kind, count in sorted(kinds.items()):
        print(f"  {count:6} {kind}")
    print(f"  {left:6} still hold a $ref (recursive definitions)")


if __name__ == "__main__":
    figures([Path(p) for p in sys.argv[1:]])
