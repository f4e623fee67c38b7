"""Which OpenAPI tools ask the user before calling: `[tools.X] confirm` and `[options]
confirm` (HTTP methods or "destructive") in mcpgen.toml, their errors, the round trip,
and `confirm_tools` in the generated project.py."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from mcpgen.api import generate_openapi
from mcpgen.diagnostics import GenerationError
from mcpgen.options import Options, ToolOverride
from mcpgen.project.project_file import ProjectFile, read_project_file, render_project_file
from tests.unit.spec_helpers import ok, spec

METHODS = ("get", "put", "delete", "post")


def _generate(tmp_path: Path, **options: object) -> tuple[str, ...]:
    document = spec({"/things": {m: {"operationId": f"{m}Things", "responses": ok()} for m in METHODS}})
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(document))
    out = tmp_path / "out"
    generate_openapi(path, Options(output=out, force=True, **options))  # type: ignore[arg-type]
    text = next(out.glob("src/*/project.py")).read_text()
    marker = "confirm_tools=("
    if marker not in text:
        return ()
    start = text.index(marker) + len(marker) - 1
    value = ast.literal_eval(text[start : text.index(")", start) + 1])  # a tuple of str literals
    return (value,) if isinstance(value, str) else tuple(value)


def test_nothing_is_confirmed_unless_asked(tmp_path: Path) -> None:
    assert _generate(tmp_path) == ()


def test_methods_destructive_and_per_tool_overrides(tmp_path: Path) -> None:
    assert _generate(tmp_path / "a", confirm=("delete",)) == ("deleteThings",)
    # PUT, DELETE and POST are destructive by their method; a tool's own hint counts.
    assert set(_generate(tmp_path / "b", confirm="destructive")) == {"putThings", "deleteThings", "postThings"}
    overrides = (ToolOverride(key="postThings", destructive=False), ToolOverride(key="putThings", confirm=False),
                 ToolOverride(key="getThings", confirm=True))
    assert set(_generate(tmp_path / "c", confirm=("destructive",), overrides=overrides)) == {"deleteThings", "getThings"}


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ('[options]\nconfirm = ["DELET"]\n', "options.confirm: expected \"destructive\" or a list of HTTP methods such as [\"DELETE\", \"PUT\"], got 'DELET'"),
        ("[options]\nconfirm = true\n", "options.confirm: expected \"destructive\" or a list of HTTP methods"),
        ('[tools.getThings]\nconfirm = "yes"\n', "tools.getThings.confirm: expected true or false"),
    ],
)
def test_bad_values_name_file_and_key(tmp_path: Path, toml: str, message: str) -> None:
    (tmp_path / "mcpgen.toml").write_text(f'[source]\nopenapi = "a.yaml"\n\n{toml}')
    with pytest.raises(GenerationError) as caught:
        read_project_file(tmp_path)
    found = [d for d in caught.value.diagnostics if message in d.message]
    assert found, [str(d) for d in caught.value.diagnostics]
    assert found[0].file.endswith("mcpgen.toml")


def test_a_python_source_has_no_confirm_option(tmp_path: Path) -> None:
    (tmp_path / "mcpgen.toml").write_text('[source]\npython = "m.py"\n\n[options]\nconfirm = ["DELETE"]\n')
    with pytest.raises(GenerationError) as caught:
        read_project_file(tmp_path)
    assert any("options.confirm" in d.message for d in caught.value.diagnostics), caught.value.diagnostics


def test_confirm_round_trips_through_the_project_file(tmp_path: Path) -> None:
    original = ProjectFile(source_kind="openapi", source="a.yaml", options=Options(
        confirm=("DELETE", "destructive"),
        overrides=(ToolOverride(key="getThings", confirm=True), ToolOverride(key="putThings", confirm=False)),
    ))
    (tmp_path / "mcpgen.toml").write_text(render_project_file(original, "getThings"))
    assert read_project_file(tmp_path)[0] == original


def test_a_python_tool_cannot_be_confirmed_by_mcpgen(tmp_path: Path) -> None:
    from mcpgen.api import generate_python

    source = tmp_path / "m.py"
    source.write_text('def remove(n: int) -> int:\n    """Removes n."""\n    return n\n')
    options = Options(output=tmp_path / "out", force=True, overrides=(ToolOverride(key="remove", confirm=True),))
    with pytest.raises(GenerationError) as caught:
        generate_python(str(source), options)
    (error,) = [d for d in caught.value.diagnostics if "confirm" in d.message]
    assert error.message == "tools.remove.confirm: only OpenAPI tools are confirmed by mcpgen"
    assert error.hint is not None and "ctx.elicit()" in error.hint
