"""The golden cases: each bundled sample and the options it is generated with."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from mcpgen import api
from mcpgen.options import Options

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


@dataclass(frozen=True)
class Case:
    name: str  # folder under tests/golden/
    source: str  # file under samples/
    kind: str  # "openapi" | "python"
    tool_mode: str = "static"
    client_profile: str | None = None


CASES = (
    Case("petstore", "petstore.yaml", "openapi"),
    Case("bookshelf", "bookshelf.yaml", "openapi"),
    Case("tools", "tools.py", "python"),
    Case("petstore-dynamic-gemini", "petstore.yaml", "openapi", tool_mode="dynamic", client_profile="gemini"),
)


def is_runtime_copy(path: str) -> bool:
    """`src/<package>/runtime/...`: mcpgen/runtime copied verbatim, not kept in the golden trees."""
    parts = path.split("/")
    return len(parts) > 3 and parts[0] == "src" and parts[2] == "runtime"


def generate(case: Case, output: Path) -> api.Result:
    options = Options(output=output, force=True, tool_mode=case.tool_mode, client_profile=case.client_profile)
    if case.kind == "openapi":
        result = api.generate_openapi(SAMPLES / case.source, options)
    else:
        result = api.generate_python(str(SAMPLES / case.source), options)
    # mcpgen.toml holds the source relative to the output, which differs between the
    # golden folder and a test's tmp dir: store a placeholder instead.
    project_file = output / "mcpgen.toml"
    relative = os.path.relpath(SAMPLES / case.source, output.resolve()).replace(os.sep, "/")
    text = project_file.read_text("utf-8")
    assert f'"{relative}"' in text, relative
    project_file.write_text(text.replace(f'"{relative}"', f'"<samples>/{case.source}"'), "utf-8")
    return result
