"""JSON Schema clean-up for tool schemas.

Input: OpenAPI 3.0/3.1 schema dicts. Output: self-contained JSON Schema 2020-12 that
strict MCP clients accept: local `$ref`s inlined where they are used once, kept once in
`$defs` where they are shared or recursive; OpenAPI-only keywords dropped; 3.0
`nullable`/`example`/boolean exclusive bounds translated; every array given `items`;
patterns Python cannot compile and keyword values of the wrong type dropped with a warning.
"""

from __future__ import annotations

import copy
import json
import math
import re
import warnings
from collections import Counter, deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from mcpgen.ir import JsonSchema
from mcpgen.schema.portable import ANY_VALUE

Direction = Literal["request", "response"]
_DROP = frozenset({"xml", "externalDocs", "nullable", "example", "$schema", "$id", "id"})
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SCHEMA_VALUES = (
    "items", "additionalProperties", "not", "contains", "if", "then", "else",
    "propertyNames", "unevaluatedProperties", "unevaluatedItems", "additionalItems",
)
# Refs inlined inside each other beyond this depth go to `$defs`: it bounds both the
# schema size and Python's stack on deeply nested (non-recursive) specs.
_MAX_INLINE_DEPTH = 24
# A bound on one schema's conversion: some reference graphs still expand combinatorially
# (presalytics.io's OOXML spec ran for over 15 minutes): fewer levels of references are kept,
# and if even one level is too many, the operation is skipped.
# The largest in GitHub's and Stripe's specs need about 1,100 and 3,000.
_MAX_NODES = 200_000
# One converted schema (a parameter, a body, a response) beyond this many bytes of JSON is
# converted again keeping fewer levels of references (see `SchemaConverter.convert`).
_MAX_SCHEMA_BYTES = 64_000
_MAX_KEPT_DEPTH = 8
_SHALLOW_KEYS = frozenset({"type", "nullable", "format", "title", "description"})
_TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})
_PYTHON_TYPES: dict[str, type | tuple[type, ...]] = {"number": (int, float), "string": str, "object": dict, "array": list}
# What the 2020-12 meta-schema requires of each keyword's value; anything else is dropped.
_COUNTS = ("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains")
_NUMBERS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
_STRINGS = ("format", "title", "description", "$comment", "contentEncoding", "contentMediaType", "pattern", "$ref")
_BOOLEANS = ("uniqueItems", "readOnly", "writeOnly", "deprecated")


class SchemaTooLarge(Exception):
    """A schema whose conversion would exceed _MAX_NODES schema objects."""


@dataclass(slots=True)
class _Root:
    """The state of one conversion: its direction, the refs it shares, its `$defs`."""

    direction: Direction
    shared: frozenset[str]
    max_depth: int | None  # refs nested deeper than this are elided; None keeps all
    defs: dict[str, JsonSchema] = field(default_factory=dict)
    pending: deque[str] = field(default_factory=deque)  # refs named in `defs`, not yet converted
    depths: dict[str, int] = field(default_factory=dict)  # `$defs` ref -> nesting depth where first met
    base: int = 0  # nesting depth of the definition being converted
    elided: bool = False  # some reference was cut at max_depth
    nodes: int = 0  # schema objects converted so far, bounded by _MAX_NODES


@dataclass(slots=True)
class SchemaConverter:
    """Converts schemas of one document; `resolve(pointer)` returns the raw node at a local ref."""

    resolve: Callable[[str], Any]
    openapi_30: bool  # informative: legacy spellings are translated in 3.1 documents too
    warn: Callable[[str, str], None]
    _warned: set[tuple[str, str]] = field(default_factory=set)
    _def_names: dict[str, str] = field(default_factory=dict)  # ref -> `$defs` key, document-wide
    _def_taken: set[str] = field(default_factory=set)
    _targets: dict[str, tuple[tuple[str, ...], int]] = field(default_factory=dict)  # see _target_refs
    _inlined_sizes: dict[str, int] = field(default_factory=dict)  # see _ref_inlined_size

    def convert(self, schema: Any, pointer: str, direction: Direction) -> JsonSchema:
        """A standalone schema: shared and recursive refs end up in its root `$defs`.

        One over `_MAX_SCHEMA_BYTES` keeps only as many levels of references as fit, the
        deeper ones left open: on specs whose schemas form one big graph (Stripe: any object
        can expand into others) each tool would otherwise carry most of the spec, 375 kB per
        outputSchema on average.
        """
        shared, estimate = self._closure(schema)
        if shared and self._inlined_size(schema) <= _MAX_SCHEMA_BYTES // 2:
            shared = frozenset()  # small enough to inline every non-recursive ref: what clients handle best
        try:
            if estimate <= _MAX_SCHEMA_BYTES // 2:  # conversion adds far less than it would take to double
                return self._convert(schema, pointer, _Root(direction, shared, None))
            if estimate <= _MAX_SCHEMA_BYTES * 4:  # the estimate counts what conversion drops
                out = self._convert(schema, pointer, _Root(direction, shared, None))
                if _json_size(out) <= _MAX_SCHEMA_BYTES:
                    return out
        except SchemaTooLarge:  # whole, it expands too far: keep fewer levels
            estimate = -1
        # Fewest levels first: each try costs about its own size, never the whole graph's.
        best = self._convert(schema, pointer, root := _Root(direction, shared, 0))
        kept = 0
        while root.elided and kept < _MAX_KEPT_DEPTH:
            try:
                candidate = self._convert(schema, pointer, deeper := _Root(direction, shared, kept + 1))
            except SchemaTooLarge:
                break
            if _json_size(candidate) > _MAX_SCHEMA_BYTES:
                break
            best, root, kept = candidate, deeper, kept + 1
        if root.elided:
            size = f"about {estimate // 1000} kB" if estimate >= 0 else f"over {_MAX_NODES:,} schema objects"
            self._warn_once(
                f"schema of {size}: {kept} level(s) of references kept, "
                f"deeper ones accept any value of their type ({_json_size(best) // 1000} kB)",
                pointer,
            )
        return best

    def _convert(self, schema: Any, pointer: str, root: _Root) -> JsonSchema:
        out = self._node(schema, pointer, root, (), inline=True)
        # Definitions are converted here rather than where first met, so the Python stack
        # stays as deep as one definition, whatever the shape of the reference graph.
        # First met, first converted: a definition gets the shallowest depth it is known at.
        while root.pending:
            ref = root.pending.popleft()
            root.base = root.depths[ref]
            root.defs[self._def_name(ref)] = self._node(self._target(ref, pointer), ref[1:], root, (ref,))
        if not isinstance(out, dict):
            out = {} if out is True else {"not": {}}
        if root.defs:
            out = {**out, "$defs": dict(sorted(root.defs.items()))}
        return out

    def _warn_once(self, message: str, pointer: str) -> None:
        if (message, pointer) not in self._warned:
            self._warned.add((message, pointer))
            self.warn(message, pointer)

    # -- references ------------------------------------------------------------

    def _closure(self, schema: Any) -> tuple[frozenset[str], int]:
        """The refs met at two or more places in `schema` and all it reaches, and a size
        estimate: the JSON size of `schema` plus that of each definition it reaches.

        Shared refs go to `$defs` once: inlining them copies a shared sub-graph once per
        path to it, which grows exponentially on real specs (a Xero outputSchema reached
        4 MB, its tools.json 410 MB). A ref met once is still inlined, which is what most
        clients handle best, and keeps the schema linear in the definitions it uses.
        """
        sites: Counter[str] = Counter(_refs_in(schema))
        size = _json_size(schema)
        todo = list(sites)
        while todo:
            ref = todo.pop()
            refs, ref_size = self._target_refs(ref)
            size += ref_size
            for inner in refs:
                sites[inner] += 1
                if sites[inner] == 1:
                    todo.append(inner)
        return frozenset(ref for ref, count in sites.items() if count > 1), size

    def _inlined_size(self, schema: Any) -> int:
        """About how many bytes `schema` takes with every non-recursive ref inlined."""
        return _json_size(schema) + sum(self._ref_inlined_size(ref) for ref in _refs_in(schema))

    def _ref_inlined_size(self, ref: str) -> int:
        """The same for the target of `ref`; memoized. A depth-first walk with its own stack:
        chains of refs can be deeper than Python's (a RecursionError is a crash)."""
        if ref in self._inlined_sizes:
            return self._inlined_sizes[ref]
        visiting = {ref}  # refs on the current path: met again, they are recursion
        path = [(ref, iter(self._target_refs(ref)[0]))]
        while path:
            current, inner = path[-1]
            child = next((r for r in inner if r not in self._inlined_sizes and r not in visiting), None)
            if child is not None:
                visiting.add(child)
                path.append((child, iter(self._target_refs(child)[0])))
                continue
            path.pop()
            visiting.discard(current)
            refs, size = self._target_refs(current)
            # recursion counts 0 (it stays a `$defs` reference); capped: the sum only needs
            # to say "too big", and shared sub-graphs grow exponentially
            total = size + sum(self._inlined_sizes.get(r, 0) for r in refs)
            self._inlined_sizes[current] = min(total, 1 << 40)
        return self._inlined_sizes[ref]

    def _target_refs(self, ref: str) -> tuple[tuple[str, ...], int]:
        """The refs in the target of `ref` (one per place), and its JSON size; memoized."""
        if ref not in self._targets:
            try:
                target = self.resolve(ref) if ref.startswith("#/") else {}
            except KeyError:
                target = {}  # reported when converted
            self._targets[ref] = (tuple(_refs_in(target)), _json_size(target))
        return self._targets[ref]

    def _def_name(self, ref: str) -> str:
        """A readable `$defs` key, the same for one ref across the document, unique per ref."""
        name = self._def_names.get(ref)
        if name is None:
            base = def_name(ref)
            name, n = base, 2
            while name in self._def_taken:
                name, n = f"{base}_{n}", n + 1
            self._def_names[ref] = name
            self._def_taken.add(name)
        return name

    def _ref(
        self, schema: JsonSchema, ref: str, pointer: str, root: _Root, stack: tuple[str, ...], inline: bool
    ) -> Any:
        if not ref.startswith("#/"):
            self._warn_once(f"external $ref {ref!r} is not supported; accepting any value", pointer)
            return {}
        siblings = {k: v for k, v in schema.items() if k not in ("$ref", "nullable")}
        depth = root.base + len(stack)
        if root.max_depth is not None and depth >= root.max_depth and not inline:
            out: Any = {**self._elided(ref, pointer, root), **self._node(siblings, pointer, root, stack)}
        elif ref in stack or (ref in root.shared and not inline) or len(stack) >= _MAX_INLINE_DEPTH:
            name = self._def_name(ref)
            if name not in root.defs:
                root.defs[name] = {}  # placeholder until `_convert` converts it
                root.pending.append(ref)
                root.depths[ref] = depth
            out = {"$ref": f"#/$defs/{name}", **self._node(siblings, pointer, root, stack)}
        else:
            out = self._node(self._target(ref, pointer), ref[1:], root, (*stack, ref), inline)
            if siblings and isinstance(out, dict):
                out = {**out, **self._node(siblings, pointer, root, stack)}
        if schema.get("nullable") is True:  # 3.0 `nullable` beside a $ref widens the target
            out = {"anyOf": [out, {"type": "null"}]}
        return out

    def _elided(self, ref: str, pointer: str, root: _Root) -> JsonSchema:
        """The target's own type, title and description, without its structure. Sound for
        validation: whatever the whole definition accepts, this accepts too."""
        root.elided = True
        target = self._target(ref, pointer)
        shallow = {k: v for k, v in target.items() if k in _SHALLOW_KEYS} if isinstance(target, dict) else {}
        out: JsonSchema = self._node(shallow, ref[1:], root, ())  # a dict in, so a dict out
        if "type" not in out:  # an untyped target (an allOf, say): any value, spelled portably
            out = {**ANY_VALUE, **out}
        out["description"] = (str(out.get("description", "")) + " (structure not shown)").strip()
        return out

    def _target(self, ref: str, pointer: str) -> Any:
        try:
            return self.resolve(ref)
        except KeyError:
            self._warn_once(f"$ref {ref!r} points at nothing; accepting any value", pointer)
            return {}

    # -- one schema object -------------------------------------------------------

    def _node(self, schema: Any, pointer: str, root: _Root, stack: tuple[str, ...], inline: bool = False) -> Any:
        """Convert one schema. `inline`: it sits at the root, or in an `allOf` that is;
        its refs are always inlined, so a root object schema stays one (see merge_all_of)."""
        if isinstance(schema, bool):
            return schema
        if not isinstance(schema, dict):
            self._warn_once("schema is not an object; accepting any value", pointer)
            return {}
        root.nodes += 1
        if root.nodes > _MAX_NODES:
            raise SchemaTooLarge(f"its schemas expand to over {_MAX_NODES:,} schema objects")
        ref = schema.get("$ref")
        if isinstance(ref, str):
            return self._ref(schema, ref, pointer, root, stack, inline)

        out: JsonSchema = {}
        for key, value in schema.items():
            if key in _DROP or key.startswith("x-"):
                continue
            if key in _SCHEMA_MAPS or key in _SCHEMA_LISTS or key in _SCHEMA_VALUES:
                converted = self._subschemas(key, value, pointer, root, stack, inline)
                if converted is not None:
                    out[converted[0]] = converted[1]
            elif key == "pattern" and isinstance(value, str):
                if _compiles(value):
                    out[key] = value
                else:
                    self._warn_once(f"pattern {value!r} is not a valid Python regex; dropped", pointer)
            elif key == "required" and not isinstance(value, list):
                continue  # OpenAPI 3.0 property-level `required: true` is meaningless here
            elif key == "discriminator":
                if isinstance(value, dict) and isinstance(value.get("propertyName"), str):
                    # an annotation for readers; its `mapping` names spec refs the schema no longer has
                    out[key] = {"propertyName": value["propertyName"]}
            else:
                out[key] = copy.deepcopy(value)

        if not self.openapi_30 and any(isinstance(schema.get(k), bool) for k in ("exclusiveMinimum", "exclusiveMaximum")):
            self._warn_once("boolean exclusiveMinimum/exclusiveMaximum is OpenAPI 3.0 syntax; read as such", pointer)
        _legacy_keywords(schema, out)
        self._check_values(out, pointer)
        if schema.get("nullable") is True:
            _make_nullable(out)
        _drop_one_way_properties(out, root.direction)
        if out.get("type") == "array" or (isinstance(out.get("type"), list) and "array" in out["type"]):
            out.setdefault("items", {})
        self._check_required(out, pointer)
        self._check_instances(out, pointer)
        return out

    def _subschemas(
        self, key: str, value: Any, pointer: str, root: _Root, stack: tuple[str, ...], inline: bool
    ) -> tuple[str, Any] | None:
        """(key, converted value) for a keyword that holds schemas; None, with a warning,
        when the value has the wrong shape (`additionalProperties: "true"`)."""
        here = f"{pointer}/{escape_token(key)}"
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            converted = {str(k): self._node(v, f"{here}/{escape_token(str(k))}", root, stack) for k, v in value.items()}
            return ("$defs" if key == "definitions" else key), converted
        if key in _SCHEMA_LISTS and isinstance(value, list):
            keep_inline = inline and key == "allOf"
            return key, [self._node(v, f"{here}/{i}", root, stack, keep_inline) for i, v in enumerate(value)]
        if key in _SCHEMA_VALUES and isinstance(value, (dict, bool)):
            return key, self._node(value, here, root, stack)
        if key == "items" and isinstance(value, list):  # draft-4 tuple form
            return "prefixItems", [self._node(v, f"{here}/{i}", root, stack) for i, v in enumerate(value)]
        self._warn_once(f"`{key}` must hold {'schemas' if key in _SCHEMA_LISTS else 'a schema'}; dropped", pointer)
        return None

    def _check_values(self, out: JsonSchema, pointer: str) -> None:
        """Drop keyword values the 2020-12 meta-schema rejects (`minLength: "1"`, `type: file`)."""
        for key in list(out):
            problem = keyword_value_problem(key, out[key])
            if problem is None:
                continue
            self._warn_once(f"`{key}`: {problem}; dropped", pointer)
            known = _known_types(out[key]) if key == "type" else []
            if known:
                out[key] = known
            else:
                del out[key]

    def _check_required(self, out: JsonSchema, pointer: str) -> None:
        """`required` as unique strings, without names no property declares (stale or misspelt
        entries would make every real response fail its outputSchema)."""
        if "required" not in out:
            return
        undeclared = _undeclared_required(out)
        if undeclared:
            self._warn_once(f"required {undeclared} not among the properties; dropped", pointer)
        names = [r for r in out["required"] if isinstance(r, str) and r not in undeclared]
        out["required"] = list(dict.fromkeys(names))
        if not out["required"]:
            del out["required"]

    def _check_instances(self, out: JsonSchema, pointer: str) -> None:
        """A `default` or `examples` entry of the wrong type or outside `enum` would mislead
        the model that reads the schema."""
        if "default" in out and not fits_node(out["default"], out):
            self._warn_once(f"default {out['default']!r} does not match the schema; dropped", pointer)
            del out["default"]
        examples = out.get("examples")
        if isinstance(examples, list) and not all(fits_node(e, out) for e in examples):
            self._warn_once("examples that do not match the schema; dropped", pointer)
            out["examples"] = [e for e in examples if fits_node(e, out)]
            if not out["examples"]:
                del out["examples"]


def _legacy_keywords(schema: JsonSchema, out: JsonSchema) -> None:
    """OpenAPI 3.0 / draft-4 spellings, translated whatever version the document claims:
    3.1 documents in the wild still use boolean exclusive bounds and `example`."""
    if "example" in schema and "examples" not in out:
        out["examples"] = [copy.deepcopy(schema["example"])]
    if "examples" in out and not isinstance(out["examples"], list):
        out["examples"] = [out["examples"]]  # OpenAPI's map-shaped examples are not a list
    for bound, exclusive in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
        if out.get(exclusive) is True and bound in out:
            out[exclusive] = out.pop(bound)
        elif isinstance(out.get(exclusive), bool):
            del out[exclusive]


def keyword_value_problem(key: str, value: Any) -> str | None:
    """Why `value` is not valid for `key` in JSON Schema 2020-12, or None."""
    number = (isinstance(value, int) and not isinstance(value, bool)) or (isinstance(value, float) and math.isfinite(value))
    if key in _COUNTS and not (number and value >= 0 and (isinstance(value, int) or value.is_integer())):
        return f"{_brief(value)} is not a non-negative integer"
    if key in _NUMBERS and not number:
        return f"{_brief(value)} is not a finite number"
    if key == "multipleOf" and not (number and value > 0):
        return f"{_brief(value)} is not a number above 0"
    if key in _STRINGS and not isinstance(value, str):
        return f"{_brief(value)} is not a string"
    if key in _BOOLEANS and not isinstance(value, bool):
        return f"{_brief(value)} is not a boolean"
    if key == "enum" and not isinstance(value, list):
        return f"{_brief(value)} is not a list"
    if key == "type":
        types = value if isinstance(value, list) else [value]
        unknown = [t for t in types if not (isinstance(t, str) and t in _TYPES)]
        if unknown or not types:
            return f"unknown type {_brief(unknown[0] if unknown else value)}"
    return None


def _known_types(value: Any) -> list[str]:
    """The valid entries of a `type` list (`["string", "file"]` -> `["string"]`)."""
    names = value if isinstance(value, list) else []
    return list(dict.fromkeys(t for t in names if isinstance(t, str) and t in _TYPES))


def _brief(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"


def _json_size(schema: JsonSchema) -> int:
    return len(json.dumps(schema, separators=(",", ":"), ensure_ascii=False))


def _refs_in(schema: Any) -> Iterator[str]:
    """Every `$ref` in `schema`, not following them; data keywords (enum, default) are skipped."""
    if not isinstance(schema, dict):
        return
    if isinstance(schema.get("$ref"), str):
        yield schema["$ref"]
    for key, value in schema.items():
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            for sub in value.values():
                yield from _refs_in(sub)
        elif (key in _SCHEMA_LISTS or key == "items") and isinstance(value, list):
            for sub in value:
                yield from _refs_in(sub)
        elif key in _SCHEMA_VALUES:
            yield from _refs_in(value)


def _drop_one_way_properties(out: JsonSchema, direction: Direction) -> None:
    """readOnly properties are not sent in requests; writeOnly ones never come back."""
    props = out.get("properties")
    if not isinstance(props, dict):
        return
    flag = "readOnly" if direction == "request" else "writeOnly"
    dropped = [k for k, v in props.items() if isinstance(v, dict) and v.get(flag) is True]
    for k in dropped:
        del props[k]
    if dropped and isinstance(out.get("required"), list):
        out["required"] = [r for r in out["required"] if r not in dropped]


def _undeclared_required(out: JsonSchema) -> list[str]:
    """`required` names no keyword of this node declares, where none could come from
    elsewhere (a composition, pattern or schema-valued additionalProperties)."""
    props = out.get("properties")
    if not isinstance(props, dict) or not isinstance(out.get("required"), list):
        return []
    if any(k in out for k in ("allOf", "anyOf", "oneOf", "patternProperties", "dependentSchemas", "if")):
        return []
    if isinstance(out.get("additionalProperties"), dict):
        return []
    return [r for r in out["required"] if isinstance(r, str) and r not in props]


def fits_node(value: Any, out: JsonSchema) -> bool:
    """Whether `value` fits this node's own `type` and `enum` (sub-schemas are not looked at)."""
    if isinstance(out.get("enum"), list) and value not in out["enum"]:
        return False
    kinds = out.get("type")
    if kinds is None:
        return True
    return any(_is_type(value, kind) for kind in (kinds if isinstance(kinds, list) else [kinds]))


def _is_type(value: Any, kind: str) -> bool:
    if isinstance(value, bool) or value is None:
        return kind == ("boolean" if isinstance(value, bool) else "null")
    if kind == "integer":
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    python = _PYTHON_TYPES.get(kind)
    return python is not None and isinstance(value, python)


def _make_nullable(out: JsonSchema) -> None:
    kind = out.get("type")
    if isinstance(kind, str):
        out["type"] = [kind, "null"]
    elif isinstance(kind, list) and "null" not in kind:
        out["type"] = [*kind, "null"]
    elif kind is None:
        inner = {k: out.pop(k) for k in list(out)}
        out["anyOf"] = [inner, {"type": "null"}]
    if isinstance(out.get("enum"), list) and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]


def _compiles(pattern: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            re.compile(pattern)
    except (re.error, RecursionError, OverflowError):
        return False
    return True


def escape_token(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def def_name(ref: str) -> str:
    """`#/components/schemas/Node` -> `Node` (a readable `$defs` key)."""
    last = ref.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
    return re.sub(r"[^A-Za-z0-9_.-]", "_", last) or "Schema"


def merge_all_of(schema: JsonSchema) -> JsonSchema:
    """Merge an `allOf` of object schemas into one object schema, when that is exact enough.

    Clients reject a top-level `allOf`; merging the properties and `required` of object
    parts keeps the meaning for the common "base + extension" pattern.
    """
    parts = schema.get("allOf")
    if not isinstance(parts, list) or not all(isinstance(p, dict) and is_object_schema(p) for p in parts):
        return schema
    merged: JsonSchema = {k: v for k, v in schema.items() if k != "allOf"}
    merged["type"] = "object"
    props: dict[str, Any] = dict(merged.get("properties", {}))
    required: list[str] = list(merged.get("required", []))
    defs: dict[str, Any] = dict(merged.get("$defs", {}))
    for part in parts:
        part = merge_all_of(part)
        props.update(part.get("properties", {}))
        required.extend(r for r in part.get("required", []) if r not in required)
        defs.update(part.get("$defs", {}))
        for key in ("description", "title"):
            if key in part and key not in merged:
                merged[key] = part[key]
    merged["properties"] = props
    if required:
        merged["required"] = required
    if defs:
        merged["$defs"] = defs
    return merged


def is_object_schema(schema: JsonSchema) -> bool:
    """True for a plain object schema: no top-level union, object type or properties."""
    if any(k in schema for k in ("oneOf", "anyOf", "not", "$ref")):
        return False
    if "allOf" in schema:
        return all(isinstance(p, dict) and is_object_schema(p) for p in schema["allOf"])
    kind = schema.get("type")
    return kind == "object" or (kind is None and isinstance(schema.get("properties"), dict))


def hoist_defs(schema: JsonSchema) -> tuple[JsonSchema, dict[str, Any]]:
    """Split a converted schema from its `$defs`, so several can share one root."""
    rest = {k: v for k, v in schema.items() if k != "$defs"}
    return rest, dict(schema.get("$defs", {}))
