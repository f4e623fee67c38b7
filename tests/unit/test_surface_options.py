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
