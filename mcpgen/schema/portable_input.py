"""Tool input schemas that survive every agent framework's conversion to a model's function format.

google-adk / google-genai map a tool's inputSchema onto Gemini's `Schema`; openai-agents and
pydantic-ai rewrite it for OpenAI's strict mode. Each reads a subset of JSON Schema and drops
the rest without a word: a property inside a nested union, an `enum` beside a union, a map's
value type, an `items: {}` (read as an object), a bare `$ref`. `portable_input_schema`
respells a served inputSchema so that less is lost. Every rewrite keeps the set of accepted
instances exactly (tests/property/test_portable_input.py checks it against jsonschema):

- `$defs` no definition cycle needs are inlined (`inline_defs`); a recursive one is kept,
  spelled out once where the tool's own schema first uses it;
- a union inside a union branch becomes branches of the outer one, and a `oneOf` whose
  branches cannot both hold (their JSON types differ) is the `anyOf` it means;
- `enum`/`const`, and keywords that only constrain one JSON type (`maxLength`, `minimum`...),
  beside a union of single-type branches move into the branches they constrain;
- an object with `properties` and no `required` says `required: []`;
- an array's unconstrained `items` (missing, `{}`, `true`) is `ANY_ITEM`;
- a map's value schema (`additionalProperties: {...}`) is kept, and said in the description.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft202012Validator
from referencing.exceptions import Unresolvable

from mcpgen.ir import JsonSchema

# Any JSON value as an array's items. An `anyOf` of single types: google-adk reads `{}` (and
# `true`) as `{"type": "object"}` and a `type` list as its first type (`array` if listed, else
# the first: `_sanitize_schema_type`), while google-genai's `Schema.from_json_schema` keeps an
# `anyOf` as `any_of`, one branch per type (`{"type": "null"}` becomes `nullable`). OpenAI and
# Anthropic accept it; strict OpenAI has no "any" (an open object is refused either way).
# `number` covers integers; the array branch says `items: {}` (OpenAI wants `items` on every
# array; one level of "any", not an infinite one). Checked with google-adk 2.13's
# `_to_gemini_schema` over google-genai 3.3: `{}` -> OBJECT; this -> any_of STRING, NUMBER,
# BOOLEAN, OBJECT, ARRAY (of OBJECT), nullable.
ANY_ITEM: JsonSchema = {
    "anyOf": [
        {"type": "string"},
        {"type": "number"},
        {"type": "boolean"},
        {"type": "object"},
        {"type": "array", "items": {}},
        {"type": "null"},
    ]
}

# Keywords that never change which instances a schema accepts.
ANNOTATIONS = frozenset({
    "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly", "$comment",
    "discriminator", "contentMediaType", "contentEncoding", "format",
})
# Keywords that must stay together in one schema object: each reads the others.
_COUPLED = (
    frozenset({"properties", "patternProperties", "additionalProperties", "unevaluatedProperties"}),
    frozenset({"prefixItems", "items", "unevaluatedItems", "contains", "minContains", "maxContains"}),
    frozenset({"if", "then", "else"}),
)
# Keywords that constrain instances of one JSON type only (vacuous for every other type).
_TYPE_KEYWORDS: dict[str, frozenset[str]] = {
    "string": frozenset({"minLength", "maxLength", "pattern", "format", "contentMediaType", "contentEncoding"}),
    "number": frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}),
    "array": frozenset({"items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains",
                        "minContains", "maxContains", "unevaluatedItems"}),
    "object": frozenset({"properties", "required", "additionalProperties", "patternProperties",
                         "minProperties", "maxProperties", "propertyNames", "dependentRequired",
                         "dependentSchemas", "unevaluatedProperties"}),
}
_ALL_TYPES = frozenset({"string", "number", "boolean", "object", "array", "null"})  # integer is a number here
_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
_SCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_SCHEMA_VALUES = frozenset({"items", "additionalProperties", "unevaluatedProperties", "unevaluatedItems",
                            "not", "if", "then", "else", "contains", "propertyNames", "additionalItems"})
_MAX_DEPTH = 200  # a guard: served schemas are finite trees far shallower than this
# Inlining stops (the `$defs` kept) past this size, as the OpenAPI converter does: shared
# definitions copied once per use grow exponentially on real specs (see schema/convert.py).
MAX_INLINED_BYTES = 32_000
_MAP_NOTE = "each value:"
# Keywords whose value, when it accepts anything (`{}`, `true`), holds of every instance.
_VACUOUS_IF_ANY = frozenset({"items", "additionalProperties", "unevaluatedItems", "unevaluatedProperties",
                             "propertyNames", "additionalItems"})


@dataclass(slots=True)
class Changes:
    """What `portable_input_schema` rewrote in one schema, counted per kind (for reports)."""

    counts: dict[str, int] = field(default_factory=dict)
    bare_refs: list[str] = field(default_factory=list)  # JSON pointers of `$ref`s left (recursion)

    def add(self, kind: str) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1


def portable_input_schema(schema: JsonSchema, changes: Changes | None = None) -> JsonSchema:
    """A copy of `schema` respelt for framework converters; the same instances are accepted."""
    changes = changes if changes is not None else Changes()
    try:
        out = inline_defs(copy.deepcopy(schema), changes)
        found = out.get("$defs")
        defs: dict[str, Any] = found if isinstance(found, dict) else {}
        result: JsonSchema = _walk(out, defs, changes, 0)
    except RecursionError:  # nested deeper than Python's stack: served as the source made it
        changes.counts.clear()
        result = schema  # (not copied: a copy would recurse as deep)
    changes.bare_refs = [p for p, node in _nodes(result, "") if isinstance(node.get("$ref"), str)]
    return result


# -- $defs ------------------------------------------------------------------------------------


def _def_key(ref: Any) -> str | None:
    if not isinstance(ref, str) or not ref.startswith("#/$defs/") or ref.count("/") != 2:
        return None
    return ref[len("#/$defs/"):].replace("~1", "/").replace("~0", "~")


def _refs(node: Any) -> Iterator[str]:
    for _, sub in _nodes(node, ""):
        key = _def_key(sub.get("$ref"))
        if key is not None:
            yield key


def recursive_defs(defs: dict[str, Any]) -> frozenset[str]:
    """The definitions that reach themselves through references (on a cycle)."""
    edges = {name: {r for r in _refs(body) if r in defs} for name, body in defs.items()}
    found = set()
    for start, first in edges.items():
        seen, todo = set(), list(first)
        while todo:
            name = todo.pop()
            if name == start:
                found.add(start)
                break
            if name not in seen:
                seen.add(name)
                todo.extend(edges[name])
    return frozenset(found)


def inline_defs(schema: JsonSchema, changes: Changes) -> JsonSchema:
    """`schema` with every `$ref` to a definition off any cycle replaced by the definition,
    and each recursive definition spelt out once where the body outside `$defs` uses it
    (its own references to itself stay). Left whole when that would pass MAX_INLINED_BYTES."""
    defs = schema.get("$defs")
    if not isinstance(defs, dict) or not defs:
        return schema
    recursive = recursive_defs(defs)
    body = {k: v for k, v in schema.items() if k != "$defs"}
    budget = [MAX_INLINED_BYTES * 4]  # schema objects visited: stops an exponential expansion early

    def expand(node: Any, in_defs: bool, unrolling: frozenset[str]) -> Any:
        budget[0] -= 1
        if budget[0] < 0:
            raise _TooBig
        if isinstance(node, list):
            return [expand(item, in_defs, unrolling) for item in node]
        if not isinstance(node, dict):
            return node
        key = _def_key(node.get("$ref"))
        inline = key is not None and key in defs and isinstance(defs[key], (dict, bool))
        if inline and (key not in recursive or (not in_defs and key not in unrolling)):
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            deeper = unrolling | {key} if key in recursive else unrolling
            target = expand(copy.deepcopy(defs[key]), in_defs, deeper)
            changes.add("inlined $ref")
            return _conjoin(target, expand(siblings, in_defs, unrolling))
        return {k: (v if _is_data(k) else _expand_keyword(k, v, in_defs, unrolling)) for k, v in node.items()}

    def _expand_keyword(keyword: str, value: Any, in_defs: bool, unrolling: frozenset[str]) -> Any:
        if keyword in _SCHEMA_MAPS and isinstance(value, dict):
            return {name: expand(sub, in_defs, unrolling) for name, sub in value.items()}
        if keyword in _SCHEMA_LISTS or keyword in _SCHEMA_VALUES or keyword == "items":
            return expand(value, in_defs, unrolling)
        return value

    try:
        out = expand(body, False, frozenset())
        stay = recursive | {name for name, value in defs.items() if not isinstance(value, (dict, bool))}
        expanded = {name: expand(defs[name], True, frozenset()) for name in sorted(stay)}
    except _TooBig:
        return schema
    used = _reachable(out, expanded)
    kept = {name: expanded[name] for name in defs if name in used}
    size = len(json.dumps(out)) + len(json.dumps(kept))
    if size > MAX_INLINED_BYTES and size > len(json.dumps(schema)):
        return schema
    if kept:
        out["$defs"] = kept
    inlined: JsonSchema = out
    return inlined


class _TooBig(Exception):
    pass


def _reachable(body: Any, defs: dict[str, Any]) -> set[str]:
    used: set[str] = set()
    todo = list(_refs(body))
    while todo:
        name = todo.pop()
        if name in defs and name not in used:
            used.add(name)
            todo.extend(_refs(defs[name]))
    return used


def _is_data(keyword: str) -> bool:
    return keyword in ("enum", "const", "default", "examples", "required", "dependentRequired")


def _conjoin(left: Any, right: Any) -> Any:
    """One schema accepting what both accept: merged when no keyword (or coupled group) is in
    both but annotations (`right`'s win), else `left` under `right`'s `allOf`."""
    if not isinstance(right, dict) or not right:
        return left
    if not isinstance(left, dict):
        return {**right, "allOf": [*right.get("allOf", []), left]} if left is not True else right
    if _mergeable(left, right):
        return {**left, **right}
    return {**right, "allOf": [*right.get("allOf", []), left]}


def _mergeable(left: JsonSchema, right: JsonSchema) -> bool:
    shared = (set(left) & set(right)) - ANNOTATIONS
    if shared:
        return False
    for group in _COUPLED:
        if group & set(left) and group & set(right):
            return False
    return not ("$ref" in left and "$ref" in right)


# -- one schema object at a time, its children first ------------------------------------------


def _walk(node: Any, defs: dict[str, Any], changes: Changes, depth: int) -> Any:
    if not isinstance(node, dict) or depth > _MAX_DEPTH or _is_any_item(node):
        return node
    out: JsonSchema = {}
    for key, value in node.items():
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: _walk(sub, defs, changes, depth + 1) for name, sub in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [_walk(sub, defs, changes, depth + 1) for sub in value]
        elif key in _SCHEMA_VALUES:
            out[key] = _walk(value, defs, changes, depth + 1)
        else:
            out[key] = value
    for step in _STEPS:
        out = step(out, defs, changes)
    return out


def _flatten_unions(node: JsonSchema, defs: dict[str, Any], changes: Changes) -> JsonSchema:
    """anyOf in anyOf -> one anyOf; a oneOf of type-disjoint branches -> anyOf; an anyOf of one merged."""
    one_of = node.get("oneOf")
    if isinstance(one_of, list) and one_of and "anyOf" not in node and _disjoint(one_of, defs):
        node = {("anyOf" if k == "oneOf" else k): v for k, v in node.items()}
        changes.add("oneOf of disjoint branches as anyOf")
    branches = node.get("anyOf")
    if not isinstance(branches, list) or not branches:
        return node
    flat: list[Any] = []
    for branch in branches:
        inner = _pure_union(branch)
        if inner is None:
            flat.append(branch)
            continue
        changes.add("nested union flattened")
        notes = {k: v for k, v in branch.items() if k in ("title", "description")}
        # the branch's title and description go to its branches (not to a `null` one: it then
        # merges with the outer union's own, if it has one)
        flat.extend({**notes, **sub} if isinstance(sub, dict) and sub.get("type") != "null" else sub for sub in inner)
    unique: list[Any] = []
    for branch in flat:
        if branch not in unique:
            unique.append(branch)
    node = {**node, "anyOf": unique}
    if len(unique) == 1 and isinstance(unique[0], dict):
        rest = {k: v for k, v in node.items() if k != "anyOf"}
        if _mergeable(unique[0], rest):
            node = {**unique[0], **rest}
    return node


def _pure_union(branch: Any) -> list[Any] | None:
    """The branches of a branch that is only a union (and annotations); None otherwise."""
    if not isinstance(branch, dict):
        return None
    rest = set(branch) - ANNOTATIONS - {"anyOf", "oneOf"}
    if rest or set(branch) & {"default", "examples"}:
        return None
    if isinstance(branch.get("anyOf"), list) and "oneOf" not in branch and branch["anyOf"]:
        return list(branch["anyOf"])
    return None


def _types(node: Any, defs: dict[str, Any], depth: int = 0) -> frozenset[str]:
    """The JSON types `node` may accept, over-approximated (integer counted as number)."""
    if node is False:
        return frozenset()
    if not isinstance(node, dict) or depth > 20:
        return _ALL_TYPES
    found = _ALL_TYPES
    kind = node.get("type")
    if isinstance(kind, (str, list)):
        names = [kind] if isinstance(kind, str) else kind
        found = frozenset("number" if k == "integer" else k for k in names if isinstance(k, str))
    for key in ("enum", "const"):
        if key in node:
            values = node[key] if key == "enum" and isinstance(node[key], list) else [node[key]]
            found = found & frozenset(_json_type(v) for v in values)
    for key in ("anyOf", "oneOf"):
        if isinstance(node.get(key), list):
            found = found & frozenset().union(*(_types(b, defs, depth + 1) for b in node[key]))
    if isinstance(node.get("allOf"), list):
        for part in node["allOf"]:
            found = found & _types(part, defs, depth + 1)
    ref = _def_key(node.get("$ref"))
    if ref is not None and ref in defs:
        found = found & _types(defs[ref], defs, depth + 1)
    return found


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _disjoint(branches: list[Any], defs: dict[str, Any]) -> bool:
    seen: set[str] = set()
    for branch in branches:
        kinds = _types(branch, defs)
        if kinds & seen:
            return False
        seen |= kinds
    return True


def _single_type(branch: Any) -> str | None:
    kind = branch.get("type") if isinstance(branch, dict) else None
    return ("number" if kind == "integer" else kind) if isinstance(kind, str) else None


def _push_into_branches(node: JsonSchema, defs: dict[str, Any], changes: Changes) -> JsonSchema:
    """`enum`/`const` and one-type keywords beside a union of single-type branches, moved into
    the branches they constrain (each branch keeps the enum values it accepts)."""
    key = "anyOf" if isinstance(node.get("anyOf"), list) else "oneOf" if isinstance(node.get("oneOf"), list) else None
    if key is None or (key == "oneOf" and "anyOf" in node) or not node[key]:
        return node
    node = dict(node)
    branches = [dict(b) if isinstance(b, dict) else ({} if b is True else b) for b in node[key]]
    kinds = [_single_type(b) for b in branches]
    for kind, words in _TYPE_KEYWORDS.items() if None not in kinds else ():
        moving = [w for w in node if w in words]
        if not moving or any(_coupled_elsewhere(w, node, words) for w in moving):
            continue
        targets = [i for i, k in enumerate(kinds) if k == kind]
        for branch in (branches[i] for i in targets):  # `items: {}` beside the moving `items: {...}`
            for word in [w for w in branch if w in _VACUOUS_IF_ANY and _unconstrained(branch[w])]:
                del branch[word]  # says nothing: it gives way
        if any(
            set(moving) & set(branches[i]) or any(g & set(moving) and g & set(branches[i]) for g in _COUPLED)
            for i in targets
        ):
            continue
        for i in targets:
            branch = {**branches[i], **{w: copy.deepcopy(node[w]) for w in moving}}
            for step in _BRANCH_STEPS:  # the branch was walked before it got these keywords
                branch = step(branch, defs, changes)
            branches[i] = branch
        for w in moving:
            del node[w]
        changes.add("keyword moved into its branch")
    for word in ("enum", "const"):
        values = node.get(word) if word == "enum" else [node[word]] if word in node else None
        if not isinstance(values, list):
            continue
        kept: list[Any] = []
        for branch in branches:
            fits = [v for v in values if isinstance(branch, dict) and _accepts(branch, v, defs)]
            if not fits:
                continue  # a branch no value fits can never hold: dropped
            if branch.get("type") == "null":
                kept.append(branch)  # null is its only value
            else:
                kept.append({**branch, word: fits[0]} if word == "const" else {**branch, "enum": fits})
        if not kept:
            continue  # no value fits any branch: left as it is (it accepts nothing)
        branches = kept
        del node[word]
        changes.add("enum moved into its branch")
    node[key] = branches
    return node


def _coupled_elsewhere(word: str, node: JsonSchema, words: frozenset[str]) -> bool:
    """`word` reads a keyword of `node` that is not moving with it (`additionalProperties`
    without its `properties`, say), or `node` holds keywords that read every property."""
    if "unevaluatedProperties" in node or "unevaluatedItems" in node:
        return True
    return any(word in g and (g - words) & set(node) for g in _COUPLED)


def _accepts(branch: JsonSchema, value: Any, defs: dict[str, Any]) -> bool:
    try:
        return bool(Draft202012Validator({**branch, "$defs": defs} if defs else branch).is_valid(value))
    except (Unresolvable, re.error, RecursionError):
        return True  # kept: moving a value into a branch that may refuse it is still exact


def _object_required(node: JsonSchema, defs: dict[str, Any], changes: Changes) -> JsonSchema:
    if isinstance(node.get("properties"), dict) and "required" not in node:
        changes.add("required: [] added")
        return {**node, "required": []}
    return node


def _is_any_item(schema: Any) -> bool:
    return isinstance(schema, dict) and schema.get("anyOf") == ANY_ITEM["anyOf"] and not (set(schema) - ANNOTATIONS - {"anyOf"})


def _unconstrained(schema: Any) -> bool:
    """True for a schema every instance fits: `true`, `{}`, annotations only, ANY_ITEM."""
    return schema is True or _is_any_item(schema) or (isinstance(schema, dict) and not (set(schema) - ANNOTATIONS))


def _any_items(node: JsonSchema, defs: dict[str, Any], changes: Changes) -> JsonSchema:
    if node.get("type") != "array" and not (isinstance(node.get("type"), list) and "array" in node["type"]):
        return node
    items = node.get("items")
    if items is None or (_unconstrained(items) and not _is_any_item(items)):
        notes = {k: v for k, v in items.items() if k in ANNOTATIONS} if isinstance(items, dict) else {}
        changes.add("items: any value")
        return {**node, "items": {**notes, **copy.deepcopy(ANY_ITEM)}}
    return node


def _describe_map(node: JsonSchema, defs: dict[str, Any], changes: Changes) -> JsonSchema:
    """A map's value type said in words: Gemini's Schema has no `additionalProperties`."""
    values = node.get("additionalProperties")
    if not isinstance(values, dict) or _unconstrained(values):
        return node
    description = node.get("description")
    if isinstance(description, str) and _MAP_NOTE in description:
        return node
    named = "Other keys" if node.get("properties") or node.get("patternProperties") else "Keys"
    keys = f"{named} are free" if "propertyNames" not in node else f"{named} follow propertyNames"
    note = f"{keys}; {_MAP_NOTE} {value_summary(values, defs)}."
    changes.add("map value type described")
    text = f"{description.rstrip()} {note}" if isinstance(description, str) and description.strip() else note
    return {**node, "description": text}


def value_summary(schema: Any, defs: dict[str, Any], depth: int = 0) -> str:
    """A few words for a schema's type, built from JSON Schema's own type names only (no spec
    text: a description is data, but it is read by a model as instructions might be)."""
    if not isinstance(schema, dict) or depth > 3:
        return "any JSON value"
    ref = _def_key(schema.get("$ref"))
    if ref is not None and ref in defs:
        return value_summary(defs[ref], defs, depth + 1)
    kind = schema.get("type")
    if kind == "array":
        return f"array of {value_summary(schema.get('items'), defs, depth + 1)}"
    if isinstance(kind, str) and kind in _ALL_TYPES | {"integer"}:
        return f"{kind} (one of a fixed set)" if "enum" in schema or "const" in schema else kind
    branches = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(branches, list) and branches:
        parts = list(dict.fromkeys(value_summary(b, defs, depth + 1) for b in branches))
        return " or ".join(parts)
    return "any JSON value"


_Step = Callable[[JsonSchema, dict[str, Any], Changes], JsonSchema]
# The steps that read one schema object's own keywords; rerun on a branch that keywords moved into.
_BRANCH_STEPS: tuple[_Step, ...] = (_object_required, _any_items, _describe_map)
_STEPS: tuple[_Step, ...] = (_flatten_unions, _push_into_branches, _flatten_unions, *_BRANCH_STEPS)


def _nodes(node: Any, pointer: str) -> Iterator[tuple[str, JsonSchema]]:
    """Every schema object under `node` with its pointer; iterative (schemas nest deeply)."""
    stack: list[tuple[Any, str]] = [(node, pointer)]
    while stack:
        current, here = stack.pop()
        if not isinstance(current, dict):
            continue
        yield here, current
        for key, value in current.items():
            token = key.replace("~", "~0").replace("/", "~1")
            if key in _SCHEMA_MAPS and isinstance(value, dict):
                stack.extend((sub, f"{here}/{token}/{n.replace('~', '~0').replace('/', '~1')}") for n, sub in value.items())
            elif (key in _SCHEMA_LISTS or key == "items") and isinstance(value, list):
                stack.extend((sub, f"{here}/{token}/{i}") for i, sub in enumerate(value))
            elif key in _SCHEMA_VALUES:
                stack.append((value, f"{here}/{token}"))
