"""What the OpenAPI source puts in the IR for the runtime: OAuth2 schemes, optional
security, multipart file fields and `encoding`, and relaxed output schemas."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema

from mcpgen.schema.output import relax_output_schema, with_content_id
from tests.unit.spec_helpers import ok, parse, spec


def test_oauth2_client_credentials_scheme(tmp_path: Path) -> None:
    doc = spec(
        {"/x": {"get": {"operationId": "x", "security": [{}, {"cc": ["read"]}], "responses": ok()}}},
        components={"securitySchemes": {
            "cc": {"type": "oauth2", "flows": {"clientCredentials": {"tokenUrl": "/token", "scopes": {}}}},
            "code": {"type": "oauth2", "flows": {"authorizationCode": {"authorizationUrl": "/a", "tokenUrl": "/t", "scopes": {}}}},
            "oidc": {"type": "openIdConnect", "openIdConnectUrl": "https://id.example/.well-known"},
        }},
    )
    project, _ = parse(tmp_path, doc, name="shelf")
    schemes = {s.name: s for s in project.security_schemes}
    assert (schemes["cc"].kind, schemes["cc"].token_url) == ("oauth2", "/token")
    assert schemes["cc"].env_vars == (
        "SHELF_CC", "SHELF_CC_CLIENT_ID", "SHELF_CC_CLIENT_SECRET", "SHELF_CC_TOKEN_URL", "SHELF_CC_SCOPES",
    )
    # no client-credentials flow, or OpenID Connect: a pre-obtained token sent as Bearer
    assert (schemes["code"].kind, schemes["code"].env_vars) == ("bearer", ("SHELF_CODE",))
    assert (schemes["oidc"].kind, schemes["oidc"].env_vars) == ("bearer", ("SHELF_OIDC",))
    env = {v.name: v for v in project.env_vars}
    assert env["SHELF_CC_TOKEN_URL"].default == "/token" and not env["SHELF_CC_TOKEN_URL"].secret
    assert env["SHELF_CC_CLIENT_SECRET"].secret
    route = project.tools[0].route
    assert route is not None and route.security == ((), ("cc",))  # `{}` kept: credentials optional


def test_multipart_file_fields_and_encoding(tmp_path: Path) -> None:
    body = {"content": {"multipart/form-data": {
        "schema": {"type": "object", "properties": {
            "doc": {"type": "string", "format": "binary"},
            "pics": {"type": "array", "items": {"type": "string", "format": "binary"}},
            "note": {"type": "string"},
            "meta": {"type": "object"},
        }},
        "encoding": {"meta": {"contentType": "application/json"}, "note": {"style": "form"}},
    }}}
    doc = spec({"/u": {"post": {"operationId": "u", "requestBody": body, "responses": ok()}}})
    project, _ = parse(tmp_path, doc, name="shelf")
    tool = project.tools[0]
    assert tool.route is not None and tool.route.body is not None
    fields = {f.name: f for f in tool.route.body.fields}
    assert [n for n, f in fields.items() if f.file] == ["doc", "pics"]
    assert (fields["meta"].content_type, fields["note"].style, fields["note"].explode) == ("application/json", "form", True)
    props = tool.input_schema["properties"]
    assert props["doc"]["type"] == "object" and "SHELF_UPLOAD_DIR" in props["doc"]["description"]
    assert props["pics"]["items"]["properties"].keys() == {"content", "filename", "contentType", "path"}
    validator = jsonschema.Draft202012Validator(tool.input_schema)
    assert validator.is_valid({"doc": {"content": "aGk=", "filename": "a.txt"}, "pics": [{"path": "x.png"}]})
    assert not validator.is_valid({"doc": {"filename": "a.txt"}})  # neither content nor path


def test_binary_property_of_a_json_body_is_no_file(tmp_path: Path) -> None:
    body = {"content": {"application/json": {"schema": {"type": "object", "properties": {"b": {"type": "string", "format": "binary"}}}}}}
    project, _ = parse(tmp_path, spec({"/j": {"post": {"operationId": "j", "requestBody": body, "responses": ok()}}}))
    route = project.tools[0].route
    assert route is not None and route.body is not None and not route.body.fields[0].file


def test_output_schema_is_relaxed_but_root_stays_an_object(tmp_path: Path) -> None:
    pet = {"type": "object", "required": ["id"], "additionalProperties": False, "properties": {
        "id": {"type": "integer", "minimum": 1}, "status": {"type": "string", "enum": ["a", "b"]},
    }}
    doc = spec({"/p": {"get": {"operationId": "p", "responses": ok(schema=pet)}},
                "/ps": {"get": {"operationId": "ps", "responses": ok(schema={"type": "array", "items": pet})}}})
    project, _ = parse(tmp_path, doc)
    by_name = {t.name: t for t in project.tools}
    assert by_name["p"].output_schema == with_content_id({"type": "object", "properties": {
        "id": {"type": "integer"}, "status": {"type": "string"},
    }})
    wrapped = by_name["ps"].output_schema
    assert wrapped is not None and "required" not in wrapped  # `{}` validates: the conformer's last resort
    assert wrapped["properties"]["result"]["type"] == "array"


def relaxed_accepts(schema: dict[str, Any], instance: Any) -> bool:
    relaxed = relax_output_schema(schema)
    jsonschema.Draft202012Validator.check_schema(relaxed)
    return jsonschema.Draft202012Validator(relaxed).is_valid(instance)


def test_relaxed_schemas_accept_what_real_apis_send() -> None:
    closed = {"type": "object", "additionalProperties": False, "properties": {"a": {"type": "string"}}, "required": ["a"]}
    assert relaxed_accepts(closed, {"b": 1})  # extra member, missing required
    assert relaxed_accepts({"type": "string", "enum": ["x"], "pattern": "^x$", "maxLength": 1}, "yy")
    assert relaxed_accepts({"type": "array", "items": {"type": "integer"}, "maxItems": 1, "uniqueItems": True}, [1, 1])
    assert not relaxed_accepts({"type": "array", "items": {"type": "integer"}}, [None])  # undeclared nulls: conformed
    both = {"oneOf": [{"type": "object", "properties": {"a": {"type": "integer"}}}, {"type": "object"}]}
    assert relaxed_accepts(both, {"a": 1})  # oneOf would fail: both branches match
    defs = {"$defs": {"N": {"type": "object", "properties": {"next": {"$ref": "#/$defs/N"}}, "required": ["next"]}},
            "$ref": "#/$defs/N"}
    assert relaxed_accepts(defs, {})
    assert relaxed_accepts({"type": ["string", "null"]}, None)  # declared nulls stay
    assert relaxed_accepts({"type": "object", "properties": {"d": {"type": "string", "format": "date"}}}, {"d": "not a date"})
    assert not relaxed_accepts({"type": "object", "properties": {"n": {"type": "integer"}}}, {"n": "seven"})  # types stay


def test_relax_keeps_descriptions_and_names_formats_in_them() -> None:
    schema = {"type": "string", "format": "date-time", "description": "When", "const": "x"}
    assert relax_output_schema(schema) == {"type": "string", "description": "When (format: date-time)"}
    assert relax_output_schema({"type": "integer", "format": "int64", "example": 3}) == {"type": "integer"}


def test_swagger2_form_data_file_is_a_file_part(tmp_path: Path) -> None:
    doc = {
        "swagger": "2.0", "info": {"title": "Old", "version": "1"}, "paths": {"/up": {"post": {
            "operationId": "up", "consumes": ["multipart/form-data"],
            "parameters": [{"name": "file", "in": "formData", "type": "file"}, {"name": "note", "in": "formData", "type": "string"}],
            "responses": {"200": {"description": "ok"}},
        }}},
    }
    project, _ = parse(tmp_path, doc)
    route = project.tools[0].route
    assert route is not None and route.body is not None
    assert route.body.content_type == "multipart/form-data"
    assert [(f.name, f.file) for f in route.body.fields] == [("file", True), ("note", False)]


def test_response_cap_comes_from_the_project(tmp_path: Path) -> None:
    """The generated default cap is `Project.max_response_chars` (the env var overrides it)."""
    from dataclasses import replace

    from mcpgen.rendering.render import render_project

    project, _ = parse(tmp_path, spec({"/x": {"get": {"operationId": "x", "responses": ok()}}}), name="shelf")
    files = render_project(replace(project, max_response_chars=5_000))
    assert "    max_response_chars=5000,\n" in files["src/shelf_mcp/project.py"]
    assert "| `SHELF_MAX_RESPONSE_CHARS` | Longer results are truncated, with a note | 5000 |" in files["README.md"]
