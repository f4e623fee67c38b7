"""The golden cases: each bundled sample and the options it is generated with."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mcpgen import api
from mcpgen.config import Options

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


def generate(case: Case, output: Path) -> api.Result:
    options = Options(output=output, force=True, tool_mode=case.tool_mode, client_profile=case.client_profile)
    if case.kind == "openapi":
        return api.generate_openapi(SAMPLES / case.source, options)
    return api.generate_python(str(SAMPLES / case.source), options)
