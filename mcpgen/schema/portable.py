"""JSON Schema spellings every MCP client reads alike.

The Inspector's portability check (and clients that map tool schemas onto a single-`type`
dialect, such as Gemini's function declarations) flag `type: [A, B]`; an `anyOf` of
single-type branches says the same to every validator.
"""

from __future__ import annotations

from typing import Any

from mcpgen.ir import JsonSchema

# Any JSON value, spelled so that a keyword constrains (a bare `{}` is a portability warning).
ANY_VALUE: JsonSchema = {"anyOf": [{"type": kind} for kind in ("null", "boolean", "object", "array", "number", "string")]}


def split_type_unions(schema: JsonSchema) -> JsonSchema:
    """A copy of `schema` with every `type` list spelled as an `anyOf` of single types."""
    out: JsonSchema = _split(schema, 0)
    return out


def type_union_branches(node: JsonSchema) -> list[JsonSchema] | None:
    """`{"type": t}` for each type of a `type` list of two or more; None otherwise."""
    kind = node.get("type")
    if not isinstance(kind, list):
        return None
    kinds = list(dict.fromkeys(k for k in kind if isinstance(k, str)))
    return [{"type": k} for k in kinds] if len(kinds) > 1 else None


def add_union(node: JsonSchema, branches: list[JsonSchema]) -> None:
    """`branches` as the node's `anyOf`, or, when it has one, as one more `allOf` entry (all must hold)."""
    if "anyOf" not in node:
        node["anyOf"] = branches
    else:
        node["allOf"] = [*node.get("allOf", []), {"anyOf": branches}]


_MAX_DEPTH = 200  # converted schemas are finite trees; a guard, not a limit met in practice
_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
_SCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_SCHEMA_VALUES = frozenset({"items", "additionalProperties", "unevaluatedProperties", "unevaluatedItems",
                            "not", "if", "then", "else", "contains", "propertyNames"})


def _split(node: Any, depth: int) -> Any:
    """Keywords are told from data (`enum`, `default`, a property named `type`) by where they stand."""
    if not isinstance(node, dict) or depth > _MAX_DEPTH:
        return node
    out: JsonSchema = {}
    for key, value in node.items():
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: _split(sub, depth + 1) for name, sub in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [_split(sub, depth + 1) for sub in value]
        elif key in _SCHEMA_VALUES:
            out[key] = _split(value, depth + 1)
        else:
            out[key] = value
    branches = type_union_branches(out)
    if branches is not None:
        del out["type"]
        add_union(out, branches)
    elif isinstance(out.get("type"), list) and len(out["type"]) == 1:
        out["type"] = out["type"][0]
    return out
