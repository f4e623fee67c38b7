"""OpenAPI 3.2 documents: each construct read into the IR, or a located warning."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcpgen.diagnostics import Diagnostic, Diagnostics, Level
from mcpgen.ir import Project
from mcpgen.rendering.views import route_entry
from mcpgen.sources.openapi.parser import OpenApiOptions, parse_openapi
from tests.unit.spec_helpers import ok, parse, spec

FEEDS = Path(__file__).resolve().parents[1] / "e2e" / "specs" / "feeds_32.yaml"
EVENT = {"type": "object", "required": ["seq"], "properties": {"seq": {"type": "integer"}}}


def v32(paths: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return spec(paths, "3.2.0", **extra)


def warnings(items: list[Diagnostic]) -> list[str]:
    """The warnings, but the one every spec without a security scheme gets."""
    return [f"{d.pointer}: {d.message}" for d in items
            if d.level is Level.WARNING and d.pointer != "/components/securitySchemes"]


def feeds() -> tuple[Project, list[Diagnostic]]:
    diagnostics = Diagnostics(file="feeds_32.yaml")
    return parse_openapi(FEEDS, OpenApiOptions(models=False), diagnostics), diagnostics.items


def test_a_32_document_is_read(tmp_path: Path) -> None:
    project, items = parse(tmp_path, v32({"/pets": {"get": {"operationId": "list", "responses": ok()}}}))
    assert [t.name for t in project.tools] == ["list"]
    assert not warnings(items)


def test_query_method_is_a_safe_tool_with_a_body(tmp_path: Path) -> None:
    body = {"required": True, "content": {"application/json": {"schema": {
        "type": "object", "properties": {"q": {"type": "string"}}}}}}
    project, _ = parse(tmp_path, v32({"/search": {"query": {"requestBody": body, "responses": ok()}}}))
    (tool,) = project.tools
    assert tool.name == "query_search" and tool.route is not None
    assert tool.route.method == "QUERY" and tool.route.body is not None
    assert tool.annotations.read_only is True and tool.annotations.idempotent is True
    assert tool.description.endswith("HTTP QUERY /search")


def test_additional_operations_keep_their_method_and_fixed_ones_warn(tmp_path: Path) -> None:
    doc = v32({"/pets/{id}": {
        "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
        "additionalOperations": {
            "LINK": {"operationId": "link", "responses": ok()},
            "post": {"operationId": "shadow", "responses": ok()},
            "BAD METHOD": {"operationId": "bad", "responses": ok()},
        },
    }})
    project, items = parse(tmp_path, doc)
    (tool,) = project.tools
    assert (tool.name, tool.route.method if tool.route else None) == ("link", "LINK")
    assert tool.annotations.read_only is False and tool.annotations.idempotent is False
    assert [p.name for p in tool.route.params] == ["id"] if tool.route else False  # the path item's
    assert warnings(items) == [
        ("/paths/~1pets~1{id}/additionalOperations/post: additional operation 'post' is a method the path item "
        "has a field for; skipped"),
        ("/paths/~1pets~1{id}/additionalOperations/BAD METHOD: additional operation 'BAD METHOD' is not an HTTP "
        "method name (RFC 9110 token); skipped"),
    ]


def test_query_and_additional_operations_in_a_31_document_warn(tmp_path: Path) -> None:
    doc = spec({"/s": {"query": {"responses": ok()}, "additionalOperations": {"LINK": {"responses": ok()}},
                       "get": {"operationId": "g", "responses": ok()}}}, "3.1.0")
    project, items = parse(tmp_path, doc)
    assert [t.name for t in project.tools] == ["g"]
    assert [w.split(":")[0] for w in warnings(items)] == ["/paths/~1s/query", "/paths/~1s/additionalOperations"]
    assert all("OpenAPI 3.2 field" in w for w in warnings(items))


def test_querystring_parameter_is_one_argument_with_its_media_type(tmp_path: Path) -> None:
    selector = {"type": "object", "properties": {"kind": {"type": "string"}}}
    doc = v32({"/find": {"get": {"operationId": "find", "parameters": [
        {"name": "selector", "in": "querystring", "required": True,
         "content": {"application/x-www-form-urlencoded": {"schema": selector}}},
    ], "responses": ok()}}})
    project, items = parse(tmp_path, doc)
    (tool,) = project.tools
    assert tool.input_schema["properties"]["selector"] == selector
    assert tool.input_schema["required"] == ["selector"]
    assert tool.route is not None
    (param,) = tool.route.params
    assert (param.location, param.content_type) == ("querystring", "application/x-www-form-urlencoded")
    assert route_entry(tool.route)["params"][0]["contentType"] == "application/x-www-form-urlencoded"
    assert not warnings(items)


@pytest.mark.parametrize(("param", "message"), [
    ({"name": "q", "in": "querystring", "schema": {"type": "string"}},
     "querystring parameter 'q' needs `content` with exactly one media type; ignored"),
    ({"name": "q", "in": "querystring", "content": {"application/xml": {"schema": {"type": "string"}}}},
     ("querystring parameter 'q': media type 'application/xml' is not supported (form-urlencoded, JSON or text "
     "are); ignored")),
])
def test_unusable_querystring_parameters_warn(tmp_path: Path, param: dict[str, Any], message: str) -> None:
    doc = v32({"/find": {"get": {"operationId": "find", "parameters": [param], "responses": ok()}}})
    project, items = parse(tmp_path, doc)
    assert project.tools[0].input_schema["properties"] == {}
    assert warnings(items) == [f"/paths/~1find/get/parameters/0: {message}"]


def test_querystring_beside_query_parameters_warns_and_sends_both(tmp_path: Path) -> None:
    doc = v32({"/find": {"get": {"operationId": "find", "parameters": [
        {"name": "page", "in": "query", "schema": {"type": "integer"}},
        {"name": "raw", "in": "querystring", "content": {"text/plain": {"schema": {"type": "string"}}}},
    ], "responses": ok()}}})
    project, items = parse(tmp_path, doc)
    assert [p.location for p in project.tools[0].route.params] == ["query", "querystring"]  # type: ignore[union-attr]
    assert warnings(items) == [("/paths/~1find/get: a querystring parameter and query parameters in one operation "
                               "(OpenAPI 3.2 forbids it); both are sent, the query parameters first")]


def test_querystring_in_a_31_document_is_not_read(tmp_path: Path) -> None:
    doc = spec({"/find": {"get": {"operationId": "find", "parameters": [
        {"name": "q", "in": "querystring", "content": {"text/plain": {"schema": {"type": "string"}}}},
    ], "responses": ok()}}}, "3.1.0")
    project, items = parse(tmp_path, doc)
    assert project.tools[0].input_schema["properties"] == {}  # the parameter is left out, not the operation
    (warning,) = [d for d in items if d.pointer == "/paths/~1find/get/parameters/0"]
    assert warning.message == "parameter location 'querystring' is not supported; ignored"
    assert warning.hint == "`in: querystring` is OpenAPI 3.2; declare `openapi: 3.2.0`"


def test_tags_carry_summary_kind_parent_and_root(tmp_path: Path) -> None:
    doc = v32({"/a": {"get": {"tags": ["leaf"], "responses": ok()}}}, tags=[
        {"name": "top", "summary": "Top", "kind": "nav", "description": "The top."},
        {"name": "mid", "parent": "top"},
        {"name": "leaf", "parent": "mid", "kind": "badge"},
        {"name": "orphan", "parent": "nowhere"},
        {"name": "x", "parent": "y"}, {"name": "y", "parent": "x"},
        {"name": "top"},
        {"summary": "nameless"},
    ])
    project, items = parse(tmp_path, doc)
    shown = [(t.name, t.summary, t.parent, t.root, t.kind) for t in project.tags]
    assert shown == [
        ("top", "Top", None, "top", "nav"), ("mid", "", "top", "top", None), ("leaf", "", "mid", "top", "badge"),
        ("orphan", "", None, "orphan", None), ("x", "", None, "x", None), ("y", "", "x", "x", None),
    ]
    assert project.tags[0].description == "The top." and project.tags[0].origin.pointer == "/tags/0"
    assert project.tools[0].tags == ("leaf",)
    assert warnings(items) == [
        "/tags/6: tag 'top' is declared twice; the first one is kept",
        "/tags/7: tag without a `name`; ignored",
        "/tags/3/parent: tag 'orphan': parent 'nowhere' is not a declared tag; treated as top-level",
        "/tags/4/parent: tag 'x': its parents lead back to it (x -> y -> x); treated as top-level",
    ]


def test_tag_parent_in_a_31_document_warns(tmp_path: Path) -> None:
    doc = spec({}, "3.1.0", tags=[{"name": "a"}, {"name": "b", "parent": "a", "kind": "nav"}])
    project, items = parse(tmp_path, doc)
    assert [(t.name, t.parent, t.kind) for t in project.tags] == [("a", None, None), ("b", None, None)]
    assert "/tags/1/parent: tag `parent` is an OpenAPI 3.2 field; ignored in this document" in warnings(items)


def test_security_scheme_32_fields(tmp_path: Path) -> None:
    project, items = feeds()
    schemes = {s.name: s for s in project.security_schemes}
    assert schemes["legacyKey"].deprecated is True
    assert schemes["legacyKey"].description.endswith("(deprecated by the API)")
    device = schemes["device"]
    assert (device.kind, device.env_vars) == ("bearer", ("FEEDS_DEVICE",))
    assert device.device_authorization_url == "https://auth.feeds.example/device"
    assert device.metadata_url == "https://auth.feeds.example/.well-known/oauth-authorization-server"
    located = {d.pointer: d for d in items if d.level is Level.WARNING}
    for pointer in ("/components/securitySchemes/legacyKey/deprecated",
                    "/components/securitySchemes/device/oauth2MetadataUrl",
                    "/components/securitySchemes/device/flows/deviceAuthorization"):
        assert located[pointer].line is not None and located[pointer].file == "feeds_32.yaml"


def test_device_flow_beside_client_credentials_uses_the_latter(tmp_path: Path) -> None:
    flows = {"clientCredentials": {"tokenUrl": "https://a.example/token", "scopes": {}},
             "deviceAuthorization": {"deviceAuthorizationUrl": "https://a.example/device",
                                     "tokenUrl": "https://a.example/token", "scopes": {}}}
    doc = v32({"/a": {"get": {"security": [{"o": []}], "responses": ok()}}},
              components={"securitySchemes": {"o": {"type": "oauth2", "flows": flows}}})
    project, items = parse(tmp_path, doc)
    (scheme,) = project.security_schemes
    assert scheme.kind == "oauth2" and scheme.token_url == "https://a.example/token"
    assert any("its client credentials flow is used" in w for w in warnings(items))


def test_self_is_the_base_of_references(tmp_path: Path) -> None:
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "event.json").write_text(json.dumps(EVENT))
    doc = v32({"/a": {"get": {"responses": {"200": {"description": "ok", "content": {"application/json": {
        "schema": {"type": "object", "properties": {
            "own": {"$ref": "https://api.example/specs/spec.json#/components/schemas/Mine"},
            "shared": {"$ref": "https://api.example/specs/shared/event.json"},
        }}}}}}}}}, **{"$self": "https://api.example/specs/spec.json",
                      "components": {"schemas": {"Mine": {"type": "string"}}}})
    project, items = parse(tmp_path, doc)
    properties = project.tools[0].output_schema["properties"]  # type: ignore[index]
    assert properties["own"] == {"type": "string"}
    assert properties["shared"]["properties"] == EVENT["properties"]
    assert not warnings(items)


@pytest.mark.parametrize(("value", "version", "message"), [
    ("specs/spec.json", "3.2.0", "`$self` 'specs/spec.json' is not an absolute URI without a fragment; ignored"),
    ("https://a.example/x#frag", "3.2.0", "is not an absolute URI without a fragment"),
    ("https://a.example/x", "3.1.0", "`$self` is an OpenAPI 3.2 field; this document is older, so it is ignored"),
])
def test_unusable_self_warns(tmp_path: Path, value: str, version: str, message: str) -> None:
    _, items = parse(tmp_path, spec({}, version, **{"$self": value}))
    (found,) = [d for d in items if d.pointer == "/$self"]
    assert found.level is Level.WARNING and message in found.message


@pytest.mark.parametrize(("media", "fmt"), [
    ("application/jsonl", "jsonl"), ("application/x-ndjson", "jsonl"), ("application/json-seq", "json-seq"),
    ("text/event-stream", "sse"),
])
def test_sequential_responses_stream(tmp_path: Path, media: str, fmt: str) -> None:
    doc = v32({"/e": {"get": {"operationId": "e", "responses": {"200": {
        "description": "items", "content": {media: {"itemSchema": EVENT}}}}}}})
    project, items = parse(tmp_path, doc)
    (tool,) = project.tools
    assert tool.route is not None and tool.route.response_stream == fmt
    assert route_entry(tool.route)["stream"] == fmt
    schema = tool.output_schema or {}
    assert schema["properties"]["items"] == {"type": "array", "items": {
        "type": "object", "properties": {"seq": {"type": "integer"}}}}  # relaxed, as every response schema
    assert set(schema["properties"]) == {"items", "complete", "note"} and not tool.wraps_result
    assert f"Streams its response ({media})" in tool.description
    assert not warnings(items)


def test_stream_item_schema_falls_back_to_the_schema_items(tmp_path: Path) -> None:
    doc = v32({"/e": {"get": {"responses": {"200": {"description": "items", "content": {
        "application/jsonl": {"schema": {"type": "array", "items": {"type": "integer"}}}}}}}}})
    (tool,) = parse(tmp_path, doc)[0].tools
    assert tool.output_schema["properties"]["items"] == {"type": "array", "items": {"type": "integer"}}  # type: ignore[index]


def test_item_schema_where_it_cannot_apply_warns(tmp_path: Path) -> None:
    content = {"application/json": {"schema": {"type": "object"}, "itemSchema": EVENT}}
    doc = v32({"/e": {"get": {"responses": {"200": {"description": "x", "content": content}}}}})
    project, items = parse(tmp_path, doc)
    assert project.tools[0].route.response_stream is None  # type: ignore[union-attr]
    assert warnings(items) == [("/paths/~1e/get/responses/200/content/application~1json/itemSchema: `itemSchema` on "
                               "'application/json', which mcpgen does not read as a sequence (JSON Lines, JSON Seq "
                               "and server-sent events are); ignored")]
    old = spec({"/e": {"get": {"responses": {"200": {"description": "x", "content": {
        "application/jsonl": {"itemSchema": EVENT}}}}}}}, "3.1.0")
    project, items = parse(tmp_path, old)
    assert project.tools[0].route.response_stream is None  # type: ignore[union-attr]
    assert any("`itemSchema` is an OpenAPI 3.2 field" in w for w in warnings(items))


def test_feeds_fixture_reads_every_construct() -> None:
    project, items = feeds()
    routes = {t.name: t.route for t in project.tools if t.route}
    assert {n: (r.method, r.response_stream) for n, r in routes.items()} == {
        "listEvents": ("GET", "jsonl"), "liveEvents": ("GET", "sse"), "listRecords": ("GET", "json-seq"),
        "searchEvents": ("QUERY", None), "findEvents": ("GET", None), "linkEvent": ("LINK", None),
    }
    assert [(t.name, t.root) for t in project.tags] == [("feeds", "feeds"), ("events", "feeds"), ("live", "feeds"),
                                                       ("search", "search")]
    assert not [d for d in items if d.level is Level.ERROR]
    assert all(d.line is not None for d in items if d.level is Level.WARNING)
