"""JSON Schema clean-up for tool schemas, and the one datamodel-code-generator call.

Input: OpenAPI 3.0/3.1 schema dicts. Output: self-contained JSON Schema 2020-12 that
strict MCP clients accept: local `$ref`s inlined (recursive ones kept in `$defs`),
OpenAPI-only keywords dropped, 3.0 `nullable`/`example`/boolean exclusive bounds
translated, every array given `items`, patterns Python cannot compile dropped.
"""

from __future__ import annotations

import copy
import json
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from mcpgen.ir import JsonSchema, ModelModule

Direction = Literal["request", "response"]
_DROP = frozenset({"discriminator", "xml", "externalDocs", "nullable", "example", "$schema", "$id", "id"})
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SCHEMA_VALUES = (
    "items", "additionalProperties", "not", "contains", "if", "then", "else",
    "propertyNames", "unevaluatedProperties", "unevaluatedItems", "additionalItems",
)
_REF_PREFIX = "#/components/schemas/"


class SchemaError(Exception):
    """A schema that cannot be used; `pointer` says where."""

    def __init__(self, message: str, pointer: str) -> None:
        super().__init__(message)
        self.pointer = pointer


@dataclass(slots=True)
class SchemaConverter:
    """Converts schemas of one document; `resolve(pointer)` returns the raw node at a local ref."""

    resolve: Callable[[str], Any]
    openapi_30: bool
    warn: Callable[[str, str], None]
    _warned: set[tuple[str, str]] = field(default_factory=set)

    def convert(self, schema: Any, pointer: str, direction: Direction) -> JsonSchema:
        """A standalone schema: recursive refs end up in its root `$defs`."""
        defs: dict[str, JsonSchema] = {}
        out = self._node(schema, pointer, direction, (), defs)
        if not isinstance(out, dict):
            out = {} if out is True else {"not": {}}
        if defs:
            out = {**out, "$defs": dict(sorted(defs.items()))}
        return out

    def _warn_once(self, message: str, pointer: str) -> None:
        if (message, pointer) not in self._warned:
            self._warned.add((message, pointer))
            self.warn(message, pointer)

    def _node(
        self,
        schema: Any,
        pointer: str,
        direction: Direction,
        stack: tuple[str, ...],
        defs: dict[str, JsonSchema],
    ) -> Any:
        if isinstance(schema, bool):
            return schema
        if not isinstance(schema, dict):
            self._warn_once("schema is not an object; accepting any value", pointer)
            return {}
        ref = schema.get("$ref")
        if isinstance(ref, str):
            return self._ref(schema, ref, pointer, direction, stack, defs)

        out: JsonSchema = {}
        for key, value in schema.items():
            if key in _DROP or key.startswith("x-"):
                continue
            if key in _SCHEMA_MAPS and isinstance(value, dict):
                out[key if key != "definitions" else "$defs"] = {
                    k: self._node(v, f"{pointer}/{key}/{_esc(k)}", direction, stack, defs)
                    for k, v in value.items()
                }
            elif key in _SCHEMA_LISTS and isinstance(value, list):
                out[key] = [
                    self._node(v, f"{pointer}/{key}/{i}", direction, stack, defs) for i, v in enumerate(value)
                ]
            elif key in _SCHEMA_VALUES and isinstance(value, (dict, bool)):
                out[key] = self._node(value, f"{pointer}/{key}", direction, stack, defs)
            elif key == "items" and isinstance(value, list):  # draft-4 tuple form
                out["prefixItems"] = [
                    self._node(v, f"{pointer}/items/{i}", direction, stack, defs) for i, v in enumerate(value)
                ]
            elif key == "pattern" and isinstance(value, str):
                if _compiles(value):
                    out[key] = value
                else:
                    self._warn_once(f"pattern {value!r} is not a valid Python regex; dropped", pointer)
            elif key == "required" and not isinstance(value, list):
                continue  # OpenAPI 3.0 property-level `required: true` is meaningless here
            else:
                out[key] = copy.deepcopy(value)

        self._openapi_30_keywords(schema, out)
        self._drop_one_way_properties(out, direction)
        if out.get("type") == "array" or (isinstance(out.get("type"), list) and "array" in out["type"]):
            out.setdefault("items", {})
        if isinstance(out.get("required"), list) and isinstance(out.get("properties"), dict):
            known = out["properties"]
            if out.get("additionalProperties") is False:
                out["required"] = [r for r in out["required"] if r in known]
            out["required"] = list(dict.fromkeys(r for r in out["required"] if isinstance(r, str)))
            if not out["required"]:
                del out["required"]
        return out

    def _ref(
        self,
        schema: JsonSchema,
        ref: str,
        pointer: str,
        direction: Direction,
        stack: tuple[str, ...],
        defs: dict[str, JsonSchema],
    ) -> Any:
        if not ref.startswith("#/"):
            self._warn_once(f"external $ref {ref!r} is not supported; accepting any value", pointer)
            return {}
        siblings = {k: v for k, v in schema.items() if k != "$ref"}
        if ref in stack:  # recursion: keep a reference, define it once in $defs
            name = def_name(ref)
            if name not in defs:
                defs[name] = {}  # placeholder stops re-entry
                target = self._target(ref, pointer)
                defs[name] = self._node(target, ref[1:], direction, (ref,), defs)
            return {"$ref": f"#/$defs/{name}", **self._node(siblings, pointer, direction, stack, defs)}
        target = self._target(ref, pointer)
        resolved = self._node(target, ref[1:], direction, (*stack, ref), defs)
        if siblings and isinstance(resolved, dict):
            extra = self._node(siblings, pointer, direction, stack, defs)
            resolved = {**resolved, **extra}
        return resolved

    def _target(self, ref: str, pointer: str) -> Any:
        try:
            return self.resolve(ref)
        except KeyError:
            self._warn_once(f"$ref {ref!r} points at nothing; accepting any value", pointer)
            return {}

    def _openapi_30_keywords(self, schema: JsonSchema, out: JsonSchema) -> None:
        if "example" in schema and "examples" not in out:
            out["examples"] = [copy.deepcopy(schema["example"])]
        if self.openapi_30:
            for bound, exclusive in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
                if out.get(exclusive) is True and bound in out:
                    out[exclusive] = out.pop(bound)
                elif isinstance(out.get(exclusive), bool):
                    del out[exclusive]
            if "examples" in out and not isinstance(out["examples"], list):
                out["examples"] = [out["examples"]]
        if schema.get("nullable") is True:
            _make_nullable(out)

    @staticmethod
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


def _esc(token: str) -> str:
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


def sort_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


# -- typed models -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ModelIndex:
    """Generated model modules and where each component schema's class lives."""

    modules: tuple[ModelModule, ...]
    classes: dict[str, tuple[str, str]]  # schema name -> (module path, class name)


def generate_models(document: dict[str, Any]) -> ModelIndex:
    """Pydantic models for the document's component schemas, one module per model.

    One module per class keeps imports lazy: a typed function imports only the models
    it returns. Raises whatever datamodel-code-generator raises; the caller decides.
    """
    from datamodel_code_generator import (  # heavy import, only when models are wanted
        DataModelType,
        InputFileType,
        PythonVersion,
        generate,
    )
    from datamodel_code_generator.format import Formatter

    schemas = document.get("components", {}).get("schemas") or {}
    if not schemas:
        return ModelIndex((), {})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = generate(
            json.dumps(document),
            input_file_type=InputFileType.OpenAPI,
            output_model_type=DataModelType.PydanticV2BaseModel,
            target_python_version=PythonVersion.PY_310,
            disable_timestamp=True,
            module_split_mode="single",
            use_annotated=True,
            use_standard_collections=True,
            use_union_operator=True,
            use_schema_description=True,
            use_field_description=True,
            formatters=[Formatter.ISORT],  # black runs later, on every generated file
            custom_file_header="# Generated by mcpgen from the spec's component schemas. Do not edit.",
        )
    files: dict[str, str] = {}
    if isinstance(out, str):
        files["__init__.py"] = out
    elif out:
        for parts, text in out.items():
            files["/".join(parts)] = text
    files.setdefault("__init__.py", "# Generated by mcpgen from the spec's component schemas. Do not edit.\n")
    classes = _locate_classes(schemas, files)
    modules = tuple(ModelModule(path, text) for path, text in sorted(files.items()))
    return ModelIndex(modules, classes)


_CLASS_DEF = re.compile(r"^class (\w+)\(", re.MULTILINE)


def _locate_classes(schemas: dict[str, Any], files: dict[str, str]) -> dict[str, tuple[str, str]]:
    from mcpgen.naming import class_name, snake

    defined: dict[str, list[str]] = {}
    for path, text in files.items():
        for name in _CLASS_DEF.findall(text):
            defined.setdefault(name, []).append(path)
    located = {}
    for schema_name in schemas:
        for candidate in (schema_name, class_name(schema_name)):
            paths = defined.get(candidate, [])
            exact = [p for p in paths if p.rsplit("/", 1)[-1][:-3] == snake(schema_name)]
            chosen = exact or (paths if len(paths) == 1 else [])
            if chosen:
                located[schema_name] = (chosen[0], candidate)
                break
    return located
