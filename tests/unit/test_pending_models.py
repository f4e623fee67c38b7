"""Typed models generated while the rest of a project is rendered: what the generator is
given, where their warnings go, and that a generation stopping early stops them too."""

from __future__ import annotations

import json
import multiprocessing
import tempfile
import threading
from pathlib import Path
from typing import Any

import pytest

from mcpgen import api
from mcpgen.diagnostics import GenerationError
from mcpgen.models.generate import ModelJob, generate_models, model_source
from mcpgen.options import Options
from mcpgen.writer import OutputExists


def _schema_ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _spec(schemas: dict[str, Any], extra_components: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "openapi": "3.0.3",
        "info": {"title": "Pending", "version": "1"},
        "paths": {
            f"/{name.lower()}": {"get": {"operationId": f"get{name}", "responses": {"200": {
                "description": "ok", "content": {"application/json": {"schema": _schema_ref(name)}}}}}}
            for name in schemas
        },
        "components": {"schemas": schemas, **(extra_components or {})},
    }


def test_the_generator_is_given_the_component_schemas_alone() -> None:
    doc = _spec({"Pet": {"type": "object", "properties": {"id": {"type": "integer"}}}},
                {"examples": {"big": {"value": "x" * 1000}}})
    source, names = model_source(doc, [doc["paths"]])
    assert source is not None and names == ["Pet"]
    assert set(source) == {"openapi", "info", "components"} and set(source["components"]) == {"schemas"}


def test_a_schema_referring_outside_the_schemas_keeps_the_whole_document() -> None:
    pet = {"type": "object", "properties": {"id": {"$ref": "#/components/parameters/Id/schema"}}}
    doc = _spec({"Pet": pet}, {"parameters": {"Id": {"name": "id", "in": "query", "schema": {"type": "integer"}}}})
    source, _ = model_source(doc, [doc["paths"]])
    assert source is not None and "paths" in source and "parameters" in source["components"]
    classes = generate_models(doc, roots=[doc["paths"]]).classes
    assert classes["Pet"][1] == "Pet"


def _many_schemas(count: int = 120) -> dict[str, Any]:
    """Enough schemas for the models to be generated in a forked process."""
    return {f"S{i}": {"type": "object", "properties": {"n": {"type": "integer"}}} for i in range(count)}


def _write(tmp_path: Path, doc: dict[str, Any]) -> Path:
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(doc))
    return spec


def test_model_warnings_keep_their_place_among_the_sources_diagnostics(tmp_path: Path) -> None:
    # `Bad` is rejected by the generator (a warning from the models), and the spec has no
    # security scheme (a warning the parser gives after the tools): the order is the parser's.
    schemas = {"Good": {"type": "object", "properties": {"n": {"type": "integer"}}},
               "Bad": {"type": "array", "items": "nope"}}
    spec = _write(tmp_path, _spec(schemas))
    whole, diagnostics = api.build_openapi(spec, Options())
    result = api.generate_openapi(spec, Options(output=tmp_path / "out"))
    messages = [d.message for d in diagnostics]
    assert [d.message for d in result.diagnostics[: len(diagnostics)]] == messages
    model_warning = next(i for i, m in enumerate(messages) if "no typed model for schema 'Bad'" in m)
    assert model_warning < next(i for i, m in enumerate(messages) if "declares no security scheme" in m)
    assert result.project.models == whole.models
    typed = [(t.route.response_type, t.route.response_model) for t in result.project.tools if t.route]
    assert typed == [(t.route.response_type, t.route.response_model) for t in whole.tools if t.route]
    assert ("Good", "Good") in typed


def test_a_generation_that_stops_before_the_models_arrive_stops_their_process(tmp_path: Path) -> None:
    spec = _write(tmp_path, _spec(_many_schemas()))
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "mine.txt").write_text("the user's")
    before = set(Path(tempfile.gettempdir()).glob("mcpgen-models-*"))
    with pytest.raises(OutputExists):
        api.generate_openapi(spec, Options(output=taken))
    assert multiprocessing.active_children() == []
    assert set(Path(tempfile.gettempdir()).glob("mcpgen-models-*")) <= before
    assert [p.name for p in taken.iterdir()] == ["mine.txt"]


def test_a_forked_model_job_closed_before_its_result_leaves_nothing_running() -> None:
    doc = _spec(_many_schemas())
    job = ModelJob(doc, [doc["paths"]])
    if threading.active_count() > 1:  # this process cannot fork safely: the job ran here
        assert job._process is None and job.result()[0].classes
        return
    assert job._process is not None
    job.close()
    assert multiprocessing.active_children() == []
    job.close()  # twice is harmless


def test_options_errors_stop_pending_models_too(tmp_path: Path) -> None:
    spec = _write(tmp_path, _spec(_many_schemas()))
    options = Options(output=tmp_path / "out", overrides=({"key": "no_such_tool", "description": "x"},))
    with pytest.raises(GenerationError):
        api.generate_openapi(spec, options)
    assert multiprocessing.active_children() == []
