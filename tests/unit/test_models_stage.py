"""The models stage: what the generator is given (the component schemas the selected operations
use), how tools are typed by it, and where its warnings go."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest

from mcpgen import api
from mcpgen.diagnostics import Level
from mcpgen.models import stage
from mcpgen.models.generate import generate_models
from mcpgen.options import Options
from mcpgen.sources.openapi.model_schemas import model_schemas
from mcpgen.writer import OutputExists


def _schema_ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _spec(schemas: dict[str, Any], extra_components: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "openapi": "3.0.3",
        "info": {"title": "Models", "version": "1"},
        "paths": {
            f"/{name.lower()}": {"get": {"operationId": f"get{name}", "responses": {"200": {
                "description": "ok", "content": {"application/json": {"schema": _schema_ref(name)}}}}}}
            for name in schemas
        },
        "components": {"schemas": schemas, **(extra_components or {})},
    }


def _write(tmp_path: Path, doc: dict[str, Any]) -> Path:
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(doc, indent=1))
    return spec


def test_the_generator_is_given_the_component_schemas_alone() -> None:
    doc = _spec({"Pet": {"type": "object", "properties": {"id": {"type": "integer"}}}},
                {"examples": {"big": {"value": "x" * 1000}}})
    wanted = model_schemas(doc, [doc["paths"]], "spec.json")
    assert wanted is not None and wanted.names == ("Pet",)
    assert set(wanted.document) == {"openapi", "info", "components"} and set(wanted.document["components"]) == {"schemas"}


def test_only_the_schemas_the_selected_operations_reach_are_given() -> None:
    doc = _spec({"Pet": {"type": "object", "properties": {"owner": _schema_ref("Owner")}}})
    doc["components"]["schemas"]["Owner"] = {"type": "object", "properties": {"name": {"type": "string"}}}
    doc["components"]["schemas"]["Webhook"] = {"type": "object"}  # no operation uses it
    wanted = model_schemas(doc, [doc["paths"]], "spec.json")
    assert wanted is not None and sorted(wanted.names) == ["Owner", "Pet"]
    assert model_schemas(doc, [], "spec.json") is None


def test_a_schema_referring_outside_the_schemas_keeps_the_whole_document() -> None:
    pet = {"type": "object", "properties": {"id": {"$ref": "#/components/parameters/Id/schema"}}}
    doc = _spec({"Pet": pet}, {"parameters": {"Id": {"name": "id", "in": "query", "schema": {"type": "integer"}}}})
    wanted = model_schemas(doc, [doc["paths"]], "spec.json")
    assert wanted is not None and "paths" in wanted.document and "parameters" in wanted.document["components"]
    assert generate_models(wanted).classes["Pet"][1] == "Pet"


def test_the_generator_does_not_change_the_projects_input() -> None:
    doc = _spec({"Good": {"type": "object"}, "Bad": {"type": "array", "items": "nope"}})
    wanted = model_schemas(doc, [doc["paths"]], "spec.json")
    assert wanted is not None
    before = json.dumps(wanted.document, sort_keys=True)
    warnings: list[tuple[str, str]] = []
    index = generate_models(wanted, lambda message, pointer: warnings.append((message, pointer)))
    assert {"Good", "Bad"} <= set(index.classes)  # `Bad` generated again as any JSON value
    assert [pointer for _, pointer in warnings] == ["/components/schemas/Bad"]
    assert json.dumps(wanted.document, sort_keys=True) == before  # same input, same models, every time


def test_the_parser_leaves_typing_to_the_models_stage(tmp_path: Path) -> None:
    doc = _spec({"Pet": {"type": "object", "properties": {"id": {"type": "integer"}}}})
    doc["paths"]["/pets"] = {"get": {"operationId": "listPets", "responses": {"200": {"description": "ok", "content": {
        "application/json": {"schema": {"type": "array", "items": _schema_ref("Pet")}}}}}}}
    spec = _write(tmp_path, doc)
    parsed, _ = api.build_openapi(spec, Options())
    routes = {t.name: t.route for t in parsed.tools if t.route}
    assert parsed.models == () and {r.response_type for r in routes.values()} == {"Any"}
    assert (routes["getPet"].response_component, routes["getPet"].response_is_list) == ("Pet", False)
    assert (routes["listPets"].response_component, routes["listPets"].response_is_list) == ("Pet", True)
    typed, _ = api.build_typed_openapi(spec, Options())
    routes = {t.name: t.route for t in typed.tools if t.route}
    assert (routes["getPet"].response_type, routes["getPet"].response_model) == ("Pet", "Pet")
    assert (routes["listPets"].response_type, routes["listPets"].response_model) == ("list[Pet]", "Pet")
    assert typed.models and all(t.route.response_model_module.startswith("pet") for t in typed.tools if t.route)


def test_no_models_option_gives_the_stage_nothing(tmp_path: Path) -> None:
    spec = _write(tmp_path, _spec({"Pet": {"type": "object"}}))
    project, _ = api.build_typed_openapi(spec, Options(models=False))
    assert project.model_schemas is None and project.models == ()
    assert project.tools[0].route is not None and project.tools[0].route.response_model is None


def test_model_warnings_point_into_the_spec_with_its_lines(tmp_path: Path) -> None:
    schemas = {"Good": {"type": "object", "properties": {"n": {"type": "integer"}}},
               "Bad": {"type": "array", "items": "nope"}}
    spec = _write(tmp_path, _spec(schemas))
    result = api.generate_openapi(spec, Options(output=tmp_path / "out"))
    (warning,) = [d for d in result.diagnostics if "no typed model for schema 'Bad'" in d.message]
    assert warning.level is Level.WARNING and warning.file == str(spec) and warning.pointer == "/components/schemas/Bad"
    line = spec.read_text().splitlines()[warning.line - 1]  # type: ignore[operator]
    assert line.strip().startswith('"Bad"')
    typed = {t.route.response_model for t in result.project.tools if t.route}
    assert typed == {"Good", "Bad"}  # `Bad` as a model of any JSON value
    assert (tmp_path / "out" / "src" / "models_mcp" / "models").is_dir()


def _many_schemas(count: int = 120) -> dict[str, Any]:
    """Enough used schemas for the models to be generated ahead, in a child interpreter."""
    return {f"S{i}": {"type": "object", "properties": {"n": {"type": "integer"}}} for i in range(count)}


def _recording_children(monkeypatch: pytest.MonkeyPatch) -> list[stage.ModelsAhead]:
    started: list[stage.ModelsAhead] = []
    real = stage.ModelsAhead.__init__

    def record(self: stage.ModelsAhead) -> None:
        real(self)
        started.append(self)

    monkeypatch.setattr(stage.ModelsAhead, "__init__", record)
    return started


def test_models_generated_ahead_equal_models_made_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = _write(tmp_path, _spec(_many_schemas()))
    started = _recording_children(monkeypatch)
    result = api.generate_openapi(spec, Options(output=tmp_path / "out"))
    assert len(started) == 1 and started[0]._child.returncode == 0  # generated ahead, and done
    here, _ = api.build_typed_openapi(spec, Options())  # in process: no stage.ahead here
    assert len(started) == 1
    assert result.project.models == here.models and len(here.models) > 100
    assert [t.route for t in result.project.tools] == [t.route for t in here.tools]


def test_a_generation_stopped_before_the_models_arrive_stops_their_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = _write(tmp_path, _spec(_many_schemas()))
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "mine.txt").write_text("the user's")
    before = set(Path(tempfile.gettempdir()).glob("mcpgen-models-*"))
    started = _recording_children(monkeypatch)
    with pytest.raises(OutputExists):
        api.generate_openapi(spec, Options(output=taken))
    assert len(started) == 1 and started[0]._child.returncode is not None  # killed, or finished: not running
    assert set(Path(tempfile.gettempdir()).glob("mcpgen-models-*")) <= before  # its folder removed
    assert [p.name for p in taken.iterdir()] == ["mine.txt"]


def test_a_big_spec_file_starts_its_child_before_reading_and_any_number_of_schemas_goes_to_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stage, "EARLY_MIN_BYTES", 0)  # every spec file counts as big
    spec = _write(tmp_path, _spec(_many_schemas(3)))
    started = _recording_children(monkeypatch)
    result = api.generate_openapi(spec, Options(output=tmp_path / "out"))
    assert len(started) == 1 and started[0].submitted and started[0]._child.returncode == 0
    here, _ = api.build_typed_openapi(spec, Options())
    assert result.project.models == here.models and len(here.models) == 4  # three and __init__
    assert [t.route for t in result.project.tools] == [t.route for t in here.tools]


def test_an_early_child_whose_models_are_not_wanted_is_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stage, "EARLY_MIN_BYTES", 0)
    spec = _write(tmp_path, {"openapi": "3.0.3", "info": {"title": "none", "version": "1"}, "paths": {}})
    before = set(Path(tempfile.gettempdir()).glob("mcpgen-models-*"))
    started = _recording_children(monkeypatch)
    result = api.generate_openapi(spec, Options(output=tmp_path / "out"))
    assert result.project.model_schemas is None and result.project.models == ()
    assert len(started) == 1 and not started[0].submitted and started[0]._child.returncode is not None
    assert set(Path(tempfile.gettempdir()).glob("mcpgen-models-*")) <= before
    api.generate_openapi(spec, Options(output=tmp_path / "off", models=False))
    assert len(started) == 1  # models off: no child at all
