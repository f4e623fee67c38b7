"""Output schemas that describe a response without rejecting real ones.

MCP clients validate `structuredContent` against a tool's `outputSchema` and refuse the
whole result on any mismatch, while real APIs routinely stray from their own spec:
undeclared nulls, new enum values, missing "required" fields, longer strings. So an
output schema keeps the shape (types, properties, items, `$defs`, descriptions, formats
as annotations) and drops what only constrains: every type also admits null, `required`,
`enum`/`const`, bounds, patterns and closed objects go, `oneOf` becomes `anyOf` (relaxed
branches overlap). What still fails at run time (a string where a number was declared)
is repaired by the generated server, which then leaves the mismatching parts out of
`structuredContent` and sends the raw body as text.
"""

from __future__ import annotations

from typing import Any

from mcpgen.ir import JsonSchema

# Keywords that only reject instances; without them the schema still says what comes back.
_CONSTRAINTS = frozenset({
    "required", "enum", "const", "pattern", "minLength", "maxLength", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems", "uniqueItems",
    "minProperties", "maxProperties", "minContains", "maxContains", "contains", "propertyNames",
    "dependentRequired", "dependentSchemas", "not", "if", "then", "else",
})
# Keywords whose value is a map of name -> schema.
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs")
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SCHEMA_VALUES = ("items", "additionalProperties", "unevaluatedProperties", "unevaluatedItems")


def relax_output_schema(schema: JsonSchema) -> JsonSchema:
    """A copy of `schema` (a converted 2020-12 schema) that describes without over-constraining."""
    relaxed = _relax(schema, 0)
    return relaxed if isinstance(relaxed, dict) else {}


def _relax(node: Any, depth: int) -> Any:
    if not isinstance(node, dict):
        return node
    if depth > 200:  # converted schemas are finite trees; a guard, not a limit met in practice
        return {}
    out: JsonSchema = {}
    for key, value in node.items():
        if key in _CONSTRAINTS:
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {k: _relax(v, depth + 1) for k, v in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out["anyOf" if key == "oneOf" else key] = [_relax(v, depth + 1) for v in value]
        elif key in _SCHEMA_VALUES:
            if value is False:
                continue  # a closed object or tuple: extra members are what APIs add first
            out[key] = _relax(value, depth + 1)
        else:
            out[key] = value
    if "oneOf" in node and "anyOf" in node:  # both present: keep both, as an allOf of two anyOfs
        out["allOf"] = [*out.get("allOf", []), {"anyOf": [_relax(v, depth + 1) for v in node["anyOf"]]}]
        out["anyOf"] = [_relax(v, depth + 1) for v in node["oneOf"]]
    kind = out.get("type")
    if isinstance(kind, str) and kind != "null":
        out["type"] = [kind, "null"]
    elif isinstance(kind, list) and kind and "null" not in kind:
        out["type"] = [*kind, "null"]
    return out
