"""Swagger 2.0 documents are rewritten to OpenAPI 3.0 and parsed like any other."""

from __future__ import annotations

from pathlib import Path

from tests.unit.spec_helpers import parse

SWAGGER = {
    "swagger": "2.0",
    "info": {"title": "Old API", "version": "1"},
    "host": "api.example.com",
    "basePath": "/v1",
    "schemes": ["http", "https"],
    "consumes": ["application/json"],
    "produces": ["application/json"],
    "securityDefinitions": {"basic": {"type": "basic"}, "key": {"type": "apiKey", "in": "header", "name": "X-Key"}},
    "security": [{"key": []}],
    "parameters": {"limit": {"name": "limit", "in": "query", "type": "integer", "maximum": 50}},
    "definitions": {
        "Pet": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}, "tag": {"type": "string", "x-nullable": True}}},
    },
    "paths": {
        "/pets": {
            "get": {
                "operationId": "listPets",
                "parameters": [
                    {"$ref": "#/parameters/limit"},
                    {"name": "tags", "in": "query", "type": "array", "items": {"type": "string"}, "collectionFormat": "multi"},
                    {"name": "ids", "in": "query", "type": "array", "items": {"type": "integer"}},
                ],
                "responses": {"200": {"description": "ok", "schema": {"type": "array", "items": {"$ref": "#/definitions/Pet"}}}},
            },
            "post": {
                "operationId": "addPet",
                "parameters": [{"name": "pet", "in": "body", "required": True, "schema": {"$ref": "#/definitions/Pet"}}],
                "responses": {"201": {"description": "created", "schema": {"$ref": "#/definitions/Pet"}}},
            },
        },
        "/pets/{id}/photo": {
            "post": {
                "operationId": "uploadPhoto",
                "consumes": ["multipart/form-data"],
                "security": [{"basic": []}],
                "parameters": [
                    {"name": "id", "in": "path", "required": True, "type": "integer"},
                    {"name": "caption", "in": "formData", "type": "string", "required": True},
                ],
                "responses": {"204": {"description": "stored"}},
            }
        },
    },
}


def test_swagger2_is_converted_and_parsed(tmp_path: Path) -> None:
    project, diagnostics = parse(tmp_path, SWAGGER)
    assert any("converted to OpenAPI 3.0" in d.message for d in diagnostics)
    assert project.base_url == "https://api.example.com/v1"
    list_pets, add_pet, upload = project.tools
    assert list_pets.input_schema["properties"]["limit"] == {"type": "integer", "maximum": 50}
    assert list_pets.route is not None
    styles = {p.name: (p.style, p.explode) for p in list_pets.route.params}
    assert styles == {"limit": ("form", True), "tags": ("form", True), "ids": ("form", False)}
    assert list_pets.output_schema is not None and list_pets.wraps_result
    item = list_pets.output_schema["properties"]["result"]["items"]
    assert item["properties"]["tag"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    assert add_pet.input_schema["required"] == ["name"]
    assert add_pet.route is not None and add_pet.route.body is not None
    assert add_pet.route.body.content_type == "application/json"
    assert upload.route is not None and upload.route.body is not None
    assert upload.route.body.content_type == "multipart/form-data"
    assert upload.input_schema["required"] == ["id", "caption"]
    assert upload.route.security == (("basic",),)
    assert {s.name: s.kind for s in project.security_schemes} == {"basic": "basic", "key": "apiKey"}
