"""Build a tiny OpenAPI document around one rule under test, and parse it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcpgen.diagnostics import Diagnostic, Diagnostics
from mcpgen.ir import ModelSchemas, Project
from mcpgen.models.generate import ModelIndex, generate_models
from mcpgen.sources.openapi.parser import OpenApiOptions, parse_openapi


def spec(paths: dict[str, Any], version: str = "3.0.3", **extra: Any) -> dict[str, Any]:
    return {"openapi": version, "info": {"title": "Test API", "version": "1.0"}, "paths": paths, **extra}


def parse(tmp_path: Path, document: dict[str, Any], **options: Any) -> tuple[Project, list[Diagnostic]]:
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(document))
    diagnostics = Diagnostics(file="spec.json")
    project = parse_openapi(path, OpenApiOptions(models=False, **options), diagnostics)
    return project, diagnostics.items


def ok(description: str = "ok", schema: dict[str, Any] | None = None, media: str = "application/json") -> dict[str, Any]:
    response: dict[str, Any] = {"description": description}
    if schema is not None:
        response["content"] = {media: {"schema": schema}}
    return {"200": response}


def models_of(document: dict[str, Any]) -> ModelIndex:
    """Typed models for every component schema of `document` (no operation needed)."""
    schemas = document["components"]["schemas"]
    return generate_models(ModelSchemas(document, tuple(schemas), "spec.json"))
