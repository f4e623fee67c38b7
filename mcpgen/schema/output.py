"""Output schemas that every client accepts, for responses that stray from them.

MCP clients validate `structuredContent` against a tool's `outputSchema` and refuse the
whole result on any mismatch: the TypeScript SDK behind Claude Desktop, Claude Code, VS
Code, Cursor and the Inspector with ajv and ajv-formats (1.x with ajv's draft-07 class,
2.x with its 2020-12 one), the Python SDK with jsonschema. So an advertised output schema

- asserts no `format`: ajv-formats rejects `""` as a uri and a zoneless date-time, and real
  APIs send both. A string's format is named in its description instead;
- uses only keywords that mean the same to both ajv classes and to jsonschema: no tuple
  `items`/`prefixItems`, `unevaluated*`, `dependencies`, `patternProperties` (JavaScript and
  Python regexes differ), nested `$id`/`$anchor`/`$schema`;
- is portable as the Inspector judges it: a type union is spelled as `anyOf` of single
  types, and a subschema that accepts anything is left out (an open object accepts the
  property anyway) or, in `$defs`, spelled as a union of every type;
- carries none of the annotations no client reads (examples, defaults, `x-` extensions),
  which were most of its bytes.

Cheap to compile: every TypeScript client compiles every tool's validator after listing
(GitHub's took 11 s, with the Python client's whole list at 0.5 s). A schema of more
subschemas than its budget (`subschema_budget`, a share of a per-server total) is cut by
`bound_output_schema` to as many levels of nested properties as fit, references inlined;
deeper objects are just `object`. A client never needs more to accept the data, which the
text content and structuredContent still carry whole. And each schema gets an `$id` of its
content (`with_content_id`): the TypeScript SDK compiles a schema with a known `$id` once.

For an OpenAPI response, `relax_output_schema` also drops what only constrains (`required`,
`enum`/`const`, bounds, patterns, closed objects; `oneOf` becomes `anyOf`, as relaxed
branches overlap), because real APIs add enum values, omit "required" fields and send
longer strings. Types stay as declared: an undeclared null, like any other stray, is left
out of `structuredContent` by the generated server's conformer (`results.conform`), and the
text content keeps the whole response. An empty object therefore always validates: it is
the conformer's last resort, checked at generation (`accepts_empty_object`).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import jsonschema

from mcpgen.ir import JsonSchema
from mcpgen.schema.portable import ANY_VALUE, add_union, type_union_branches

# Keywords that only reject instances; without them the schema still says what comes back.
_CONSTRAINTS = frozenset({
    "required", "enum", "const", "pattern", "minLength", "maxLength", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems", "uniqueItems",
    "minProperties", "maxProperties", "minContains", "maxContains", "contains", "propertyNames",
    "dependentRequired", "dependentSchemas", "not", "if", "then", "else",
})
# Read by no client validating a result, and most of a real spec's schema bytes.
_ANNOTATIONS = frozenset({
    "examples", "example", "default", "deprecated", "readOnly", "writeOnly", "xml", "externalDocs",
    "discriminator", "$comment", "contentMediaType", "contentEncoding", "contentSchema",
    "$schema", "$id", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "nullable",
})
# Keywords draft-07 ajv, 2020-12 ajv and jsonschema do not read alike (or regexes they run differently).
_AMBIGUOUS = frozenset({
    "prefixItems", "unevaluatedProperties", "unevaluatedItems", "additionalItems", "dependencies",
    "patternProperties", "$dynamicRef", "$recursiveRef",
})
# Subschema-valued keywords kept as they are in an unrelaxed schema (Python return types).
_SCHEMA_VALUES = ("not", "if", "then", "else", "contains", "propertyNames")
# What the Inspector counts as constraining; a schema with none of these accepts anything.
_CONSTRAINING = frozenset({
    "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
    "maxLength", "minLength", "pattern", "format", "maxItems", "minItems", "uniqueItems", "maxProperties",
    "minProperties", "required", "dependentRequired", "allOf", "anyOf", "oneOf", "not", "items",
    "contains", "properties", "additionalProperties", "propertyNames", "dependentSchemas", "$ref",
})
# Formats that only say how wide a number is: nothing worth a word in a description.
_NUMERIC_FORMATS = frozenset({"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                              "float", "double", "decimal", "number", "integer"})
# ajv reads a missing member named like one of JavaScript's Object.prototype members as that
# member (a function), so `constructor: {type: string}` rejects `{}`. An open object still
# accepts these members; they are just not described.
_PROTOTYPE_NAMES = frozenset({
    "constructor", "toString", "toLocaleString", "valueOf", "hasOwnProperty", "isPrototypeOf",
    "propertyIsEnumerable", "__proto__", "__defineGetter__", "__defineSetter__", "__lookupGetter__",
    "__lookupSetter__",
})
_MAX_DEPTH = 200  # converted schemas are finite trees; a guard, not a limit met in practice
MAX_SUBSCHEMAS = 250  # per output schema
MIN_SUBSCHEMAS = 20
TOTAL_SUBSCHEMAS = 50_000  # per server: what a TypeScript client compiles after listing (see bench_clients)
_MAX_LEVELS = 16  # levels of nested properties tried when cutting (recursive schemas never end)
_STUB_KEYS = ("title", "description")  # what an unresolvable reference keeps
# What describes an object's members: left out below the levels kept.
_MEMBER_KEYS = frozenset({"properties", "patternProperties", "additionalProperties", "required", "propertyNames",
                          "minProperties", "maxProperties", "dependentRequired", "dependentSchemas"})


def relax_output_schema(schema: JsonSchema) -> JsonSchema:
    """A portable copy of `schema` (a converted 2020-12 schema) that describes a response
    without constraining it; `{}` when it says nothing."""
    return _portable(schema, relax=True, depth=0) or {}


def portable_output_schema(schema: JsonSchema) -> JsonSchema:
    """A portable copy of `schema` with its constraints kept (a Python function's return type)."""
    return _portable(schema, relax=False, depth=0) or {}


def subschema_budget(tools: int) -> int:
    """Subschemas per output schema for a server of `tools` tools: all of them together stay
    within `TOTAL_SUBSCHEMAS` (GitHub's 1,186 tools: 42 each), none above `MAX_SUBSCHEMAS`
    nor below `MIN_SUBSCHEMAS`; one level of properties is kept whatever the budget."""
    return max(MIN_SUBSCHEMAS, min(MAX_SUBSCHEMAS, TOTAL_SUBSCHEMAS // max(1, tools)))


def bound_output_schema(schema: JsonSchema, budget: int = MAX_SUBSCHEMAS) -> JsonSchema:
    """`schema` as it is when it holds at most `budget` subschemas; otherwise inlined and
    cut to the most levels of nested properties that fit (at least one)."""
    if _count(schema) <= budget:
        return schema
    found = schema.get("$defs")
    defs: dict[str, Any] = found if isinstance(found, dict) else {}
    best: JsonSchema = _cut(schema, defs, 1, ())
    for levels in range(2, _MAX_LEVELS + 1):
        deeper = _cut(schema, defs, levels, ())
        if _count(deeper) > budget or deeper == best:
            break
        best = deeper
    return best


def with_content_id(schema: JsonSchema) -> JsonSchema:
    """`schema` with an `$id` made of its content. The TypeScript SDK's validator looks a
    schema with an `$id` up before compiling it, so tools that return the same thing (GitHub:
    903 output schemas, 450 distinct) cost a client one compilation, not one each. (A client
    that fed every schema to one ajv instance's `compile` without that lookup would be refused
    the second copy of an `$id`; both TypeScript SDKs look it up, tests/clients proves it.)"""
    body = {k: v for k, v in schema.items() if k != "$id"}
    digest = hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()
    return {"$id": f"urn:mcpgen:schema:{digest[:24]}", **body}


def accepts_empty_object(schema: JsonSchema) -> bool:
    """Whether `{}` validates: the structuredContent a conformer falls back to."""
    try:
        return bool(jsonschema.Draft202012Validator(schema).is_valid({}))
    except Exception:  # noqa: BLE001 - a ref that resolves nowhere, a malformed keyword: not usable
        return False


def _portable(node: Any, relax: bool, depth: int) -> JsonSchema | None:
    """The portable form of a subschema, or None when it accepts any value."""
    if node is False:
        return {"not": {}}
    if not isinstance(node, dict) or depth > _MAX_DEPTH:
        return None
    out: JsonSchema = {}
    unions: list[list[JsonSchema]] = []  # anyOf/oneOf branch lists; several are combined below
    opened = False
    for key, value in node.items():
        if key in _ANNOTATIONS or key in _AMBIGUOUS or key == "format" or key.startswith("x-"):
            continue
        if relax and key in _CONSTRAINTS:
            continue
        if key == "properties" and isinstance(value, dict):
            kept = {
                name: sub for name, sub in _each(value, relax, depth) if sub is not None and name not in _PROTOTYPE_NAMES
            }
            if kept:
                out[key] = kept
            opened = len(kept) < len(value)  # a member left undescribed must stay allowed
        elif key == "$defs" and isinstance(value, dict):
            out[key] = {name: sub if sub is not None else ANY_VALUE for name, sub in _each(value, relax, depth)}
        elif key == "allOf" and isinstance(value, list):
            kept_branches = [b for b in (_portable(v, relax, depth + 1) for v in value) if b is not None]
            if kept_branches:
                out.setdefault("allOf", []).extend(kept_branches)
        elif key in ("anyOf", "oneOf") and isinstance(value, list):
            branches = [_portable(v, relax, depth + 1) for v in value]
            if branches and all(b is not None for b in branches):  # one open branch: the union accepts anything
                if key == "oneOf" and not relax:
                    out["oneOf"] = branches
                else:
                    unions.append([b for b in branches if b is not None])
        elif key == "items":
            continue  # with prefixItems, below
        elif key == "additionalProperties":
            if value is False and not relax:
                out[key] = False
            elif isinstance(value, dict):
                extra = _portable(value, relax, depth + 1)
                if extra is not None:
                    out[key] = extra
        elif key in _SCHEMA_VALUES:
            if isinstance(value, (dict, bool)):
                out[key] = _portable(value, relax, depth + 1) or {}
        else:
            out[key] = value
    items = _items(node, relax, depth)
    if items is not None:
        out["items"] = items
    if opened and out.get("additionalProperties") is False:
        del out["additionalProperties"]
    _spell_type_union(out, unions)
    for union in unions:
        add_union(out, union)
    form = node.get("format")
    if isinstance(form, str) and form and form not in _NUMERIC_FORMATS:
        described = out.get("description")
        out["description"] = f"{described} (format: {form})" if isinstance(described, str) and described else f"Format: {form}"
    return out if any(key in _CONSTRAINING for key in out) else None


def _items(node: JsonSchema, relax: bool, depth: int) -> JsonSchema | None:
    """One `items` schema for every element: tuple forms (`prefixItems`, draft-4 `items`
    lists) mean different things to draft-07 and 2020-12 readers, so their element schemas
    become one `anyOf`; an array always says what its items are (strict clients want it)."""
    elements: list[Any] = []
    prefix, items = node.get("prefixItems"), node.get("items")
    elements += prefix if isinstance(prefix, list) else []
    elements += items if isinstance(items, list) else [items] if isinstance(items, dict) or items is True else []
    kind = node.get("type")
    if not elements and kind != "array" and not (isinstance(kind, list) and "array" in kind):
        return None
    branches = [_portable(element, relax, depth + 1) for element in elements]
    if not branches or any(branch is None for branch in branches):
        return ANY_VALUE
    flat = [inner for b in branches if b is not None for inner in (b["anyOf"] if list(b) == ["anyOf"] else [b])]
    unique = list({json.dumps(b, sort_keys=True): b for b in flat}.values())
    return unique[0] if len(unique) == 1 else {"anyOf": unique}


def _each(schemas: dict[str, Any], relax: bool, depth: int) -> list[tuple[str, JsonSchema | None]]:
    return [(name, _portable(sub, relax, depth + 1)) for name, sub in schemas.items()]


def _spell_type_union(out: JsonSchema, unions: list[list[JsonSchema]]) -> None:
    """`type: [A, B]` as an `anyOf` of single types, queued with the node's other unions."""
    branches = type_union_branches(out)
    if branches is not None:
        del out["type"]
        unions.insert(0, branches)
    elif isinstance(out.get("type"), list):
        kinds = [k for k in out["type"] if isinstance(k, str)]
        del out["type"]
        if kinds:
            out["type"] = kinds[0]


def count_subschemas(schema: JsonSchema) -> int:
    """Subschemas (JSON objects) in `schema`, `$defs` included: what a validator compiles."""
    return _count(schema)


def _count(node: Any) -> int:
    """Subschemas (JSON objects) in a schema, `$defs` included."""
    if isinstance(node, dict):
        return 1 + sum(_count(v) for v in node.values())
    if isinstance(node, list):
        return sum(_count(v) for v in node)
    return 0


def _cut(node: Any, defs: dict[str, Any], levels: int, refs: tuple[str, ...]) -> Any:
    """`node` with local references inlined and `levels` levels of nested properties kept;
    an object below them keeps only its type and words. `refs`: the references being inlined."""
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        target = defs.get(ref.removeprefix("#/$defs/")) if ref.startswith("#/$defs/") else None
        if not isinstance(target, dict) or ref in refs:  # a cycle with no property between: say "anything"
            return {**ANY_VALUE, **{k: node[k] for k in _STUB_KEYS if k in node}}
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        return _cut({**target, **siblings}, defs, levels, (*refs, ref))
    out: JsonSchema = {}
    for key, value in node.items():
        if key == "$defs" or (levels <= 0 and key in _MEMBER_KEYS):
            continue
        if key in ("properties", "patternProperties") and isinstance(value, dict):
            out[key] = {name: _cut(sub, defs, levels - 1, ()) for name, sub in value.items()}
        elif key == "additionalProperties" and isinstance(value, dict):
            out[key] = _cut(value, defs, levels - 1, ())
        elif key in ("allOf", "anyOf", "oneOf") and isinstance(value, list):
            out[key] = [_cut(sub, defs, levels, refs) for sub in value]
        elif key in ("items", "not") and isinstance(value, dict):
            out[key] = _cut(value, defs, levels, refs)
        else:
            out[key] = value
    if not any(key in _CONSTRAINING for key in out):  # a cut object: still an object
        out["type"] = "object"
    return out

