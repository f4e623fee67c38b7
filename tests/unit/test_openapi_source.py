"""The OpenAPI parser, one inline spec per rule."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest

from mcpgen.diagnostics import Diagnostics, GenerationError, Level
from mcpgen.naming import short_hash
from mcpgen.sources.openapi.parser import OpenApiOptions, parse_openapi
from tests.unit.spec_helpers import ok, parse, spec

PET = {"type": "object", "required": ["name"], "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}}


def test_parameters_and_object_body_are_flat_arguments(tmp_path: Path) -> None:
    doc = spec({"/pets/{id}": {"put": {
        "operationId": "updatePet",
        "parameters": [
            {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}},
            {"name": "dryRun", "in": "query", "schema": {"type": "boolean"}},
            {"name": "X-Trace", "in": "header", "schema": {"type": "string"}},
            {"name": "Accept", "in": "header", "schema": {"type": "string"}},
        ],
        "requestBody": {"required": True, "content": {"application/json": {"schema": PET}}},
        "responses": ok(schema=PET),
    }}})
    project, _ = parse(tmp_path, doc)
    (tool,) = project.tools
    schema = tool.input_schema
    jsonschema.Draft202012Validator.check_schema(schema)
    # the body's `id` clashes with the path's `id`: the path keeps it, the body's is prefixed
    assert list(schema["properties"]) == ["id", "dryRun", "X-Trace", "body_id", "name"]
    assert schema["required"] == ["id", "name"]
    assert schema["additionalProperties"] is False
    assert tool.route is not None and tool.route.body is not None
    assert [(f.name, f.argument) for f in tool.route.body.fields] == [("id", "body_id"), ("name", "name")]
    assert tool.annotations.idempotent is True and tool.annotations.open_world is True


def test_non_object_body_goes_under_body(tmp_path: Path) -> None:
    doc = spec({"/tags": {"post": {
        "requestBody": {"content": {"application/json": {"schema": {"type": "array", "items": {"type": "string"}}}}},
        "responses": ok(),
    }}})
    (tool,) = parse(tmp_path, doc)[0].tools
    assert tool.input_schema["properties"]["body"] == {"type": "array", "items": {"type": "string"}}
    assert "required" not in tool.input_schema  # the body was not required
    assert tool.name == "post_tags"


def test_union_body_is_not_flattened_and_no_top_level_union(tmp_path: Path) -> None:
    body = {"oneOf": [{"type": "object", "properties": {"a": {"type": "string"}}}, {"type": "object", "properties": {"b": {"type": "string"}}}]}
    doc = spec({"/x": {"post": {"operationId": "x", "requestBody": {"required": True, "content": {"application/json": {"schema": body}}}, "responses": ok()}}})
    (tool,) = parse(tmp_path, doc)[0].tools
    assert not {"oneOf", "anyOf", "allOf"} & set(tool.input_schema)
    assert "oneOf" in tool.input_schema["properties"]["body"]
    assert tool.input_schema["required"] == ["body"]


@pytest.mark.parametrize(
    ("response_schema", "wrapped"),
    [({"type": "array", "items": {"type": "integer"}}, True), ({"type": "string"}, True), (PET, False),
     ({"allOf": [PET, {"properties": {"age": {"type": "integer"}}}]}, False)],
)
def test_output_schema_is_an_object_wrapping_other_results(tmp_path: Path, response_schema: dict, wrapped: bool) -> None:
    doc = spec({"/x": {"get": {"operationId": "x", "responses": ok(schema=response_schema)}}})
    (tool,) = parse(tmp_path, doc)[0].tools
    assert tool.output_schema is not None and tool.output_schema["type"] == "object"
    assert tool.wraps_result is wrapped
    if wrapped:
        assert "required" not in tool.output_schema  # `{}` validates: the conformer's last resort
    assert "allOf" not in tool.output_schema


def test_no_json_success_means_no_output_schema(tmp_path: Path) -> None:
    doc = spec({"/a": {"delete": {"operationId": "a", "responses": {"204": {"description": "gone"}}}},
                "/b": {"get": {"operationId": "b", "responses": ok(schema={"type": "string"}, media="text/plain")}}})
    a, b = parse(tmp_path, doc)[0].tools
    assert a.output_schema is None and a.route is not None and a.route.response_kind == "empty"
    assert a.annotations.destructive is True
    assert b.output_schema is None and b.route is not None and b.route.response_kind == "text"
    assert b.annotations.read_only is True


def test_one_bad_operation_is_skipped_with_its_location(tmp_path: Path) -> None:
    doc = spec({
        "/good": {"get": {"operationId": "good", "responses": ok()}},
        "/bad/{id}": {"get": {"operationId": "bad", "responses": ok()}},  # {id} never declared
        "/worse": {"get": {"operationId": "worse", "parameters": "nope", "responses": ok()}},
    })
    project, diagnostics = parse(tmp_path, doc)
    assert [t.name for t in project.tools] == ["good"]
    messages = {d.pointer: d.message for d in diagnostics if d.level is Level.WARNING}
    assert "not declared" in messages["/paths/~1bad~1{id}/get"]
    assert "invalid operation" in messages["/paths/~1worse/get"]


def test_optional_path_parameter_is_made_required_with_a_warning(tmp_path: Path) -> None:
    doc = spec({"/p/{id}": {"get": {"operationId": "p", "parameters": [{"name": "id", "in": "path", "schema": {"type": "string"}}], "responses": ok()}}})
    project, diagnostics = parse(tmp_path, doc)
    assert project.tools[0].input_schema["required"] == ["id"]
    assert any("must be required" in d.message and d.pointer == "/paths/~1p~1{id}/get/parameters/0" for d in diagnostics)


def test_security_schemes_become_env_vars(tmp_path: Path) -> None:
    doc = spec(
        {"/x": {"get": {"operationId": "x", "responses": ok()}}},
        components={"securitySchemes": {
            "apiKey": {"type": "apiKey", "in": "query", "name": "key"},
            "basic": {"type": "http", "scheme": "basic"},
            "token": {"type": "http", "scheme": "bearer"},
            "mtls": {"type": "mutualTLS"},
        }},
        security=[{"apiKey": []}, {"basic": []}],
    )
    project, diagnostics = parse(tmp_path, doc, name="shelf")
    by_name = {s.name: s.env_vars for s in project.security_schemes}
    assert by_name == {"apiKey": ("SHELF_API_KEY",), "basic": ("SHELF_BASIC_USERNAME", "SHELF_BASIC_PASSWORD"), "token": ("SHELF_TOKEN",)}
    assert project.tools[0].route is not None and project.tools[0].route.security == (("apiKey",), ("basic",))
    assert any("mutualTLS" in d.message for d in diagnostics)


def test_base_url_uses_server_variable_defaults(tmp_path: Path) -> None:
    doc = spec({}, servers=[{"url": "https://{region}.example.com/{v}/", "variables": {"region": {"default": "eu"}, "v": {"default": "v2"}}}])
    project, _ = parse(tmp_path, doc)
    assert project.base_url == "https://eu.example.com/v2"
    assert project.env_vars[0].name == "TEST_BASE_URL"


def test_parse_is_deterministic(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2] / "samples" / "petstore.yaml"
    first = parse_openapi(root, OpenApiOptions(models=False), Diagnostics())
    second = parse_openapi(root, OpenApiOptions(models=False), Diagnostics())
    assert first == second


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"swagger": "1.2", "info": {}, "paths": {}}', "Swagger 1.2 is not supported"),
        ('{"openapi": "4.0.0", "paths": {}}', "unsupported or missing `openapi` version"),
        ("openapi: 3.0.0\ninfo: [unclosed\n", "invalid YAML at line 3, column 1"),
        ("[1, 2]", "not a mapping"),
    ],
)
def test_unusable_documents_stop_with_an_error(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text(text)
    with pytest.raises(GenerationError) as caught:
        parse_openapi(path, OpenApiOptions(models=False), Diagnostics(file=str(path)))
    assert message in str(caught.value)


def test_yaml_diagnostics_carry_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text("openapi: 3.0.3\ninfo:\n  title: T\n  version: '1'\npaths:\n  /a/{id}:\n    get:\n      operationId: a\n      responses:\n        '200':\n          description: ok\n")
    diagnostics = Diagnostics(file="spec.yaml")
    parse_openapi(path, OpenApiOptions(models=False), diagnostics)
    (warning,) = [d for d in diagnostics.items if d.level is Level.WARNING]
    assert str(warning).startswith("warning: spec.yaml#/paths/~1a~1{id}/get (line 7): path parameter(s) ['id'] are not declared")


@pytest.mark.parametrize(
    ("server", "info", "expected", "warning"),
    [
        ({"url": "https://{region}.example.com", "variables": {"region": {"enum": ["us", "eu"]}}}, {},
         "https://us.example.com", "server variable 'region' has no default; using the first of its enum, 'us'"),
        ({"url": "https://{region}.example.com", "variables": {"region": {"default": "mars", "enum": ["us", "eu"]}}}, {},
         "https://mars.example.com", "server variable 'region': default 'mars' is not among its enum ['us', 'eu']"),
        ({"url": "https://{region}.example.com"}, {}, None, "has variables without defaults"),
        ({"url": "/api/v2"}, {"x-origin": [{"url": "https://docs.example.com/specs/openapi.json"}]},
         "https://docs.example.com/api/v2", None),
        ({"url": "v2/"}, {"x-origin": [{"url": "https://docs.example.com/specs/openapi.json"}]},
         "https://docs.example.com/specs/v2", None),
        ({"url": "//api.example.com/v1"}, {}, "https://api.example.com/v1", None),
        ({"url": "/api/v2"}, {}, None, "server URL '/api/v2' is relative and the spec's own location is unknown"),
    ],
    ids=["enum-no-default", "default-outside-enum", "no-default", "relative-origin", "relative-path-origin",
         "scheme-relative", "relative-unknown"],
)
def test_server_urls(tmp_path: Path, server: dict, info: dict, expected: str | None, warning: str | None) -> None:
    doc = spec({}, servers=[server])
    doc["info"].update(info)
    project, diagnostics = parse(tmp_path, doc)
    assert project.base_url == expected
    warnings = [d.message for d in diagnostics if d.level is Level.WARNING]
    if warning is None:
        assert warnings == []
    else:
        assert len(warnings) == 1 and warning in warnings[0]
    base = project.env_vars[0]
    assert base.name == "TEST_BASE_URL" and base.default == expected
    assert ("required" in base.description) == (expected is None)


def _clashing_schemes() -> dict:
    return spec(
        {"/pets": {"get": {"operationId": "listPets", "responses": ok(),
                           "security": [{"Api_Key": []}, {"api-key": []}]}}},
        components={"securitySchemes": {
            "api-key": {"type": "http", "scheme": "bearer"},
            "Api_Key": {"type": "apiKey", "in": "query", "name": "key"},
            "timeout": {"type": "http", "scheme": "basic"},  # the server's own <PREFIX>_TIMEOUT
            "base_url": {"type": "apiKey", "in": "header", "name": "X-Base"},
        }},
    )


def test_security_schemes_never_share_a_variable(tmp_path: Path) -> None:
    project, diagnostics = parse(tmp_path, _clashing_schemes())
    env = {s.name: s.env_vars for s in project.security_schemes}
    assert env["Api_Key"] == ("TEST_API_KEY",)  # first by name keeps the plain variable
    assert env["api-key"] == ("TEST_API_KEY_" + short_hash("api-key").upper(),)
    assert env["timeout"][0].startswith("TEST_TIMEOUT_") and env["timeout"][0].endswith("_USERNAME")
    assert env["base_url"][0].startswith("TEST_BASE_URL_")
    every = [v for vars_ in env.values() for v in vars_]
    assert len(every) == len(set(every))
    warning = next(d for d in diagnostics if "security scheme 'api-key' reads" in d.message)
    assert str(warning) == (
        f"warning: spec.json#/components/securitySchemes/api-key (line 1): security scheme 'api-key' reads {env['api-key'][0]}: "
        "its plain variable is taken by another scheme or a server setting, and one credential must never be sent "
        "as another's"
    )
    assert [s.name for s in project.security_schemes] == ["api-key", "Api_Key", "timeout", "base_url"]


def test_a_bearer_token_is_never_sent_as_another_schemes_query_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The runtime, given the schemes as generated: with only the bearer token set, the query
    key's scheme is not configured, so the token goes out as a bearer token and never as ?key=."""
    import anyio

    from mcpgen.rendering.render import security_view
    from mcpgen.runtime import auth

    project, _ = parse(tmp_path, _clashing_schemes())
    views = {s.name: security_view(s) for s in project.security_schemes}
    bearer_var = views["api-key"]["env"][0]
    monkeypatch.setattr(auth, "_scheme", lambda name: views[name])
    monkeypatch.setattr(auth, "_env", lambda variable: "the-token" if variable == bearer_var else None)
    headers: dict[str, str] = {}
    query: list[tuple[str, str]] = []

    async def go() -> None:
        await auth.apply([["Api_Key"], ["api-key"]], None, headers, query, {})  # type: ignore[arg-type]

    anyio.run(go)
    assert headers == {"Authorization": "Bearer the-token"}
    assert query == []


@pytest.mark.parametrize(
    ("literal", "reason"),
    [("NaN", "NaN"), ("-Infinity", "-Infinity"), ("1e999", "Infinity"), ("-1E+400", "-Infinity")],
)
def test_json_numbers_strict_json_cannot_carry_are_dropped_where_they_are(literal: str, reason: str) -> None:
    from mcpgen.sources.openapi.document import parse_text

    diagnostics = Diagnostics(file="spec.json")
    text = '{"a": {"keep": 1.5, "n": LITERAL}, "sha": "1e997d00", "list": [LITERAL, 2]}'.replace("LITERAL", literal)
    assert parse_text(text, True, diagnostics) == {"a": {"keep": 1.5}, "sha": "1e997d00", "list": [2]}
    assert [(d.pointer, d.message) for d in diagnostics.items] == [
        ("/a/n", f"{reason} is not a JSON number; dropped"),
        ("/list/0", f"{reason} is not a JSON number; dropped"),
    ]


def test_a_string_that_looks_like_a_big_exponent_drops_nothing() -> None:
    from mcpgen.sources.openapi.document import parse_text

    diagnostics = Diagnostics(file="spec.json")
    text = '{"sha": "51e997a", "note": "NaN and Infinity are words here", "n": 1e308}'
    assert parse_text(text, True, diagnostics) == {"sha": "51e997a", "note": "NaN and Infinity are words here", "n": 1e308}
    assert diagnostics.items == []
