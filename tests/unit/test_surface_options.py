"""Tool mode, page size, client profile and --resources survive `mcpgen regenerate`:
they are recorded in mcpgen.toml, so a regeneration rebuilds the same server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpgen import api
from mcpgen.diagnostics import GenerationError
from mcpgen.options import Options

PETSTORE = Path(__file__).resolve().parents[2] / "samples" / "petstore.yaml"


def test_regenerate_keeps_the_surface(tmp_path: Path) -> None:
    out = tmp_path / "pet"
    options = Options(output=out, tool_mode="dynamic", page_size=7, client_profile="gemini", resources=True)
    first = api.generate_openapi(PETSTORE, options)
    package = out / "src" / first.project.package
    assert '    tool_mode="dynamic",\n' in (package / "project.py").read_text() and (package / "resources.json").is_file()
    again = api.regenerate(out, check=True)
    assert not again.pending, again.plan.lines() if again.plan else "manifest differs"
    assert again.project.tool_mode == "dynamic" and again.project.page_size == 7
    assert again.project.client_profile == "gemini" and again.project.resources
    assert any("inputValidation" in json.loads(line.rstrip(",")) for line in (package / "tools.json").read_text().splitlines()[1:-1])


@pytest.mark.parametrize(
    ("line", "expected"),
    [('tool_mode = "sometimes"', "options.tool_mode"), ("page_size = 0", "options.page_size"),
     ('client_profile = "netscape"', "options.client_profile")],
)
def test_bad_surface_options_in_mcpgen_toml(tmp_path: Path, line: str, expected: str) -> None:
    out = tmp_path / "pet"
    api.generate_openapi(PETSTORE, Options(output=out))
    toml = out / "mcpgen.toml"
    key = line.split(" =", maxsplit=1)[0]
    text = "\n".join(line if row.startswith(key + " =") else row for row in toml.read_text().splitlines())
    toml.write_text(text + "\n")
    with pytest.raises(GenerationError) as caught:
        api.regenerate(out, check=True)
    assert any(d.pointer == expected or expected in str(d) for d in caught.value.diagnostics)


def test_dynamic_mode_renames_operations_named_like_its_meta_tools(tmp_path: Path) -> None:
    from mcpgen.diagnostics import Level
    from mcpgen.naming import meta_tool_names

    META_TOOL_NAMES = meta_tool_names()
    assert {"search_tools", "describe_tool", "call_tool"} == META_TOOL_NAMES

    operations = ["search_tools", "call_tool", "describe_tool", "search_tools_op"]
    paths = {f"/{name}": {"get": {"operationId": name, "responses": {"200": {"description": "ok"}}}} for name in operations}
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"openapi": "3.0.3", "info": {"title": "Meta", "version": "1"}, "paths": paths}))
    options = Options(tool_mode="dynamic", models=False)
    project, diagnostics = api.run_passes(*api.build_openapi(spec, options), options, api.Diagnostics(file=api.OPTIONS))
    names = [tool.name for tool in project.tools]
    assert not META_TOOL_NAMES & set(names) and len(set(names)) == len(names)
    assert names[1:3] == ["call_tool_op", "describe_tool_op"] and names[3] == "search_tools_op"
    assert names[0].startswith("search_tools_") and names[0] != "search_tools_op"  # that one is taken
    renames = [str(d) for d in diagnostics if d.level is Level.INFO and "meta-tool" in d.message]
    assert renames[1] == (
        "info: spec.json#/paths/~1call_tool/get: tool 'call_tool' renamed to 'call_tool_op': the name of a meta-tool in "
        'dynamic tool mode (rename it in mcpgen.toml: [tools.call_tool] name = "...")'
    )
    static, _ = api.run_passes(*api.build_openapi(spec, Options(models=False)), Options(models=False),
                               api.Diagnostics(file=api.OPTIONS))
    assert [tool.name for tool in static.tools] == operations  # static mode has no meta-tools
