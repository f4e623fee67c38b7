"""Schema rules of issue 5, one small spec each: what is kept, translated, dropped, warned."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from mcpgen import api
from mcpgen.diagnostics import Level
from mcpgen.options import Options
from tests.unit.spec_helpers import models_of, ok, parse, spec
from tests.unit.test_schemas import convert


def _body_op(schema: dict[str, Any], response: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"post": {
        "operationId": "op",
        "requestBody": {"required": True, "content": {"application/json": {"schema": schema}}},
        "responses": ok(schema=response if response is not None else schema),
    }}


# -- leniency: warn with the location, generate anyway ------------------------------


def test_lenient_rules_warn_with_location_and_generate(tmp_path: Path) -> None:
    schema = {
        "type": "object",
        "required": ["name", "ghost"],  # `ghost` is no property
        "properties": {
            "name": {"type": "string", "pattern": "^\\p{L}+$"},  # ECMAScript (u flag) only
            "size": {"type": "integer", "default": "big"},  # default of the wrong type
            "score": {"type": "number", "maximum": 10, "exclusiveMaximum": True},  # 3.0 syntax in 3.1
        },
    }
    doc = spec({"/x": _body_op(schema)}, version="3.1.0", components={"schemas": {"Thing": schema}})
    doc["paths"]["/x"]["post"]["responses"] = ok(schema={"$ref": "#/components/schemas/Thing"})
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(doc, indent=1))
    project, diagnostics = api.build_typed_openapi(path, Options())
    (tool,) = project.tools
    warnings = {(d.pointer, d.message) for d in diagnostics if d.level is Level.WARNING}
    body = "/paths/~1x/post/requestBody/content/application~1json/schema"
    assert (body, "required ['ghost'] not among the properties; dropped") in warnings
    assert (f"{body}/properties/name", "pattern '^\\\\p{L}+$' is not a valid Python regex; dropped") in warnings
    assert (f"{body}/properties/size", "default 'big' does not match the schema; dropped") in warnings
    assert (f"{body}/properties/score",
            "boolean exclusiveMinimum/exclusiveMaximum is OpenAPI 3.0 syntax; read as such") in warnings
    assert all(d.line is not None for d in diagnostics if d.pointer.startswith(body))
    props = tool.input_schema["properties"]
    assert tool.input_schema["required"] == ["name"]
    assert props["score"] == {"type": "number", "exclusiveMaximum": 10}
    assert props["size"] == {"type": "integer"} and props["name"] == {"type": "string"}
    # the typed model was generated too, despite the same problems in the component schema
    assert tool.route is not None and tool.route.response_model == "Thing"


def test_one_broken_operation_is_skipped_the_rest_generated(tmp_path: Path) -> None:
    doc = spec({
        "/a": {"get": {"operationId": "a", "responses": ok(schema={"type": "file"})}},  # type: file (2.0 only)
        "/b": {"get": {"operationId": "b", "responses": "not a map"}},
        "/c": {"post": {"operationId": "c", "requestBody": {"content": {"application/x-unknown": {}}}, "responses": ok()}},
    })
    project, diagnostics = parse(tmp_path, doc)
    assert [t.name for t in project.tools] == ["a"]  # a bad *schema* is repaired, not fatal
    warned = {d.pointer for d in diagnostics if d.level is Level.WARNING}
    assert "/paths/~1b/get" in warned and "/paths/~1c/post/requestBody" in warned


def test_schemas_are_blanked_before_operation_validation(tmp_path: Path) -> None:
    # map-shaped `examples` inside a schema fail openapi-pydantic; the operation survives
    weird = {"type": "object", "properties": {"a": {"type": "string", "examples": {"one": "x"}}}}
    project, _ = parse(tmp_path, spec({"/x": {"get": {"operationId": "x", "responses": ok(schema=weird)}}}))
    (tool,) = project.tools
    assert tool.output_schema is not None
    assert tool.output_schema["properties"]["a"] == {"type": "string"}  # the map is no example list


# -- schema shapes -------------------------------------------------------------------


def test_unions_and_discriminator_are_kept_below_the_top_level(tmp_path: Path) -> None:
    cat = {"type": "object", "properties": {"kind": {"const": "cat"}, "meow": {"type": "boolean"}}}
    dog = {"type": "object", "properties": {"kind": {"const": "dog"}, "bark": {"type": "boolean"}}}
    pet = {"oneOf": [{"$ref": "#/components/schemas/Cat"}, {"$ref": "#/components/schemas/Dog"}],
           "discriminator": {"propertyName": "kind", "mapping": {"cat": "#/components/schemas/Cat"}}}
    body = {"type": "object", "properties": {"pet": pet, "tag": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}}
    doc = spec({"/x": _body_op(body), "/y": _body_op(pet)}, version="3.1.0",
               components={"schemas": {"Cat": cat, "Dog": dog}})
    x, y = parse(tmp_path, doc)[0].tools
    for tool in (x, y):
        jsonschema.Draft202012Validator.check_schema(tool.input_schema)
        assert not {"oneOf", "anyOf", "allOf", "discriminator"} & set(tool.input_schema)
    assert x.input_schema["properties"]["pet"]["discriminator"] == {"propertyName": "kind"}
    assert len(x.input_schema["properties"]["pet"]["oneOf"]) == 2
    assert "anyOf" in x.input_schema["properties"]["tag"]
    assert "oneOf" in y.input_schema["properties"]["body"]  # a union body goes under `body`


def test_all_of_is_merged_only_where_safe(tmp_path: Path) -> None:
    base = {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}}
    merged = {"allOf": [{"$ref": "#/components/schemas/Base"}, {"properties": {"name": {"type": "string"}}}]}
    unsafe = {"allOf": [{"$ref": "#/components/schemas/Base"}, {"oneOf": [{"required": ["a"]}, {"required": ["b"]}]}]}
    doc = spec({"/m": _body_op(merged), "/u": _body_op(unsafe)}, components={"schemas": {"Base": base}})
    m, u = parse(tmp_path, doc)[0].tools
    assert list(m.input_schema["properties"]) == ["id", "name"] and m.input_schema["required"] == ["id"]
    assert "allOf" in u.input_schema["properties"]["body"]  # kept whole, under `body`


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"type": "integer", "nullable": True}, {"type": ["integer", "null"]}),
        ({"$ref": "#/components/schemas/A", "nullable": True}, {"anyOf": [{"type": "string", "format": "uuid"}, {"type": "null"}]}),
        ({"nullable": True, "description": "d"}, {"anyOf": [{"description": "d"}, {"type": "null"}]}),
        ({"enum": [1, "a", True, None, 1.5]}, {"enum": [1, "a", True, None, 1.5]}),
        ({"type": "integer", "enum": [1, 2], "nullable": True}, {"type": ["integer", "null"], "enum": [1, 2, None]}),
        ({"type": "string", "format": "date-time"}, {"type": "string", "format": "date-time"}),
        ({"type": "string", "format": "my-own-format"}, {"type": "string", "format": "my-own-format"}),
    ],
    ids=["nullable", "nullable-ref", "nullable-untyped", "scalar-enum", "nullable-enum", "format", "custom-format"],
)
def test_nullable_enums_and_formats(schema: dict[str, Any], expected: dict[str, Any]) -> None:
    assert convert(schema, {"A": {"type": "string", "format": "uuid"}})[0] == expected


def test_read_only_and_write_only_through_a_whole_operation(tmp_path: Path) -> None:
    user = {"type": "object", "required": ["id", "password", "name"], "properties": {
        "id": {"type": "integer", "readOnly": True},
        "password": {"type": "string", "writeOnly": True},
        "name": {"type": "string"},
    }}
    doc = spec({"/u": _body_op({"$ref": "#/components/schemas/User"}, {"$ref": "#/components/schemas/User"})},
               components={"schemas": {"User": user}})
    (tool,) = parse(tmp_path, doc)[0].tools
    assert list(tool.input_schema["properties"]) == ["password", "name"]
    assert tool.input_schema["required"] == ["password", "name"]
    assert tool.output_schema is not None
    assert list(tool.output_schema["properties"]) == ["id", "name"]
    assert "required" not in tool.output_schema  # outputs describe, never constrain (mcpgen.schema.output)


def test_recursive_schemas_live_in_defs_of_the_input_schema(tmp_path: Path) -> None:
    node = {"type": "object", "properties": {"label": {"type": "string"},
                                              "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}}}
    doc = spec({"/t": _body_op({"$ref": "#/components/schemas/Node"})}, components={"schemas": {"Node": node}})
    (tool,) = parse(tmp_path, doc)[0].tools
    schema = tool.input_schema
    assert schema["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    assert "Node" in schema["$defs"]
    validator = jsonschema.Draft202012Validator(schema)
    assert validator.is_valid({"label": "a", "children": [{"children": [{"label": "c"}]}]})
    assert not validator.is_valid({"children": [{"children": [{"label": 3}]}]})


@pytest.mark.parametrize(
    ("schema", "expected", "warning"),
    [
        ({"type": "string", "enum": ["a", "b"], "default": "c"}, {"type": "string", "enum": ["a", "b"]},
         "default 'c' does not match the schema; dropped"),
        ({"type": "integer", "default": 3}, {"type": "integer", "default": 3}, None),
        ({"type": "object", "properties": {"a": {}}, "required": ["a", "b"]},
         {"type": "object", "properties": {"a": {}}, "required": ["a"]}, "required ['b'] not among the properties; dropped"),
        ({"type": "object", "properties": {"a": {}}, "required": ["b"]}, {"type": "object", "properties": {"a": {}}},
         "required ['b'] not among the properties; dropped"),
        # `b` may come from additionalProperties: kept
        ({"type": "object", "properties": {"a": {}}, "additionalProperties": {"type": "string"}, "required": ["b"]},
         {"type": "object", "properties": {"a": {}}, "additionalProperties": {"type": "string"}, "required": ["b"]}, None),
    ],
    ids=["default-outside-enum", "default-ok", "required-partly-missing", "required-all-missing", "required-additional"],
)
def test_default_and_required_pruning(schema: dict[str, Any], expected: dict[str, Any], warning: str | None) -> None:
    out, warnings = convert(schema)
    assert out == expected
    assert warnings == ([f"/x: {warning}"] if warning else [])


# -- typed models ----------------------------------------------------------------------


def _import_models(tmp_path: Path, modules: Any, package: str) -> Any:
    root = tmp_path / package / "models"
    root.mkdir(parents=True)
    (tmp_path / package / "__init__.py").write_text("")
    for module in modules:
        (root / module.path).parent.mkdir(parents=True, exist_ok=True)
        (root / module.path).write_text(module.source)
    sys.path.insert(0, str(tmp_path))
    try:
        return importlib.import_module(f"{package}.models")
    finally:
        sys.path.remove(str(tmp_path))


def test_keyword_named_model_classes_get_importable_modules(tmp_path: Path) -> None:
    doc = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {}, "components": {"schemas": {
        "from": {"type": "object", "properties": {"a": {"type": "string"}}},
        "Class": {"type": "object", "properties": {"b": {"type": "integer"}}},
    }}}
    index = models_of(doc)
    assert set(index.classes) == {"from", "Class"}
    for name, (path, _cls) in index.classes.items():
        module_name = path[:-3].replace("/", ".")
        assert module_name.isidentifier() or all(p.isidentifier() for p in module_name.split("."))
        assert not __import__("keyword").iskeyword(module_name.rsplit(".", 1)[-1]), (name, path)
    _import_models(tmp_path, index.modules, "kwpkg")
    for path, cls in index.classes.values():
        module = importlib.import_module("kwpkg.models." + path[:-3].replace("/", "."))
        getattr(module, cls)


def test_x_python_import_and_other_extensions_never_reach_models() -> None:
    doc = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {}, "components": {"schemas": {
        "Evil": {"type": "object", "x-python-import": {"import": "os", "from": "os"},
                 "properties": {"a": {"type": "string", "x-python-type": "os.system"}}},
    }}}
    index = models_of(doc)
    text = "\n".join(m.source for m in index.modules)
    assert "import os" not in text and "os.system" not in text and "class Evil" in text


def test_a_model_generator_failure_is_a_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mcpgen.models import generate as schemas

    def explode(*args: Any) -> Any:
        raise ValueError("no models today")

    monkeypatch.setattr(schemas, "_datamodel_codegen", explode)
    doc = spec({"/p": {"get": {"operationId": "p", "responses": ok(schema={"$ref": "#/components/schemas/Pet"})}}},
               components={"schemas": {"Pet": {"type": "object"}}})
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(doc))
    project, diagnostics = api.build_typed_openapi(path, Options())
    assert [t.name for t in project.tools] == ["p"] and project.models == ()
    assert project.tools[0].route is not None and project.tools[0].route.response_type == "Any"
    assert any("typed models could not be generated (ValueError: no models today)" in x.message for x in diagnostics)


def test_enum_defaults_are_enum_members_not_strings(tmp_path: Path) -> None:
    # GitHub's `start_side: {enum: [LEFT, RIGHT], default: RIGHT}` gave `= "RIGHT"`, which mypy --strict rejects
    side = {"type": "string", "enum": ["LEFT", "RIGHT"], "default": "RIGHT"}
    doc = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {}, "components": {"schemas": {
        "Comment": {"type": "object", "properties": {"side": side, "start_side": {**side, "nullable": True}}}}}}
    index = models_of(doc)
    _import_models(tmp_path, index.modules, "enumpkg")
    path, cls = index.classes["Comment"]
    comment = getattr(importlib.import_module("enumpkg.models." + path[:-3]), cls)()
    assert type(comment.side).__name__ == "Side" and comment.side.value == "RIGHT"
    assert comment.start_side.value == "RIGHT"


def test_defaults_of_the_wrong_type_do_not_reach_models() -> None:
    # Xero: `IsFlagged: {type: boolean, default: "false"}` gave `bool | None = "false"`
    doc = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {}, "components": {"schemas": {
        "Account": {"type": "object", "properties": {
            "flagged": {"type": "boolean", "default": "false"}, "count": {"type": "integer", "default": 3}}}}}}
    text = "\n".join(m.source for m in models_of(doc).modules)
    assert "flagged: bool | None = None" in text and "count: int | None = 3" in text


def test_string_defaults_of_typed_formats_do_not_reach_models(tmp_path: Path) -> None:
    # GitHub: `environment_url: {type: string, format: uri, default: ""}` gave `AnyUrl | None = ""`
    doc = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {}, "components": {"schemas": {
        "Deployment": {"type": "object", "properties": {
            "url": {"type": "string", "format": "uri", "default": ""},
            "at": {"type": "string", "format": "date-time", "default": "now"},
            "name": {"type": "string", "format": "hostname-ish", "default": "x"}}}}}}
    text = "\n".join(m.source for m in models_of(doc).modules)  # as generated, before the format stage
    assert "= ''" not in text and "'now'" not in text and "= 'x'" in text
