"""What makes the runtime copyable byte for byte: it imports itself only relatively, never
mcpgen, and it is laid out as ruff format and black lay out generated code (line length 100),
so the copy in a generated project is already formatted by that project's own settings."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import black
import pytest

from mcpgen.formatting import LINE_LENGTH, formatter_command
from mcpgen.rendering.render import runtime_dir

SOURCES = sorted(runtime_dir().glob("*.py"))
# Parsed at collection, before any test runs: after some in-process tests, CPython 3.11.7's
# compile() raises "SystemError: AST constructor recursion depth mismatch" for these files
# (seen only when the whole tests/runtime folder runs first; an interpreter bug, not the source).
TREES = {path: ast.parse(path.read_text("utf-8")) for path in SOURCES}
HEADER = "# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.\n"
# What a generated server may import besides the standard library and its own package
# (redis: the `redis` extra, imported only when PREFIX_REDIS_URL is set; runtime/shared.py;
# jwt: PyJWT, which mcp depends on as pyjwt[crypto]; opentelemetry: the API a dependency, the SDK and
# exporters the `otel` extra, imported only when OTEL_* or PREFIX_METRICS ask for them; prometheus_client:
# the otel extra's, for GET /metrics; runtime/telemetry.py).
ALLOWED = {
    "anyio", "httpx2", "jsonschema", "jwt", "mcp", "pydantic", "pydantic_core", "re2", "redis", "starlette", "uvicorn",
    "opentelemetry", "prometheus_client", "pydantic_monty",
}


def test_the_runtime_has_modules() -> None:
    assert {"app", "settings", "project", "upstream", "guard", "redact"} <= {p.stem for p in SOURCES}


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_imports_are_relative_or_dependencies(path: Path) -> None:
    for node in ast.walk(TREES[path]):
        if isinstance(node, ast.Import):
            tops = [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: within the runtime (a parent package would not exist at source)
                assert node.level == 1, f"{path.name}:{node.lineno}: imports beyond the runtime"
                continue
            tops = [(node.module or "").split(".")[0]]
        else:
            continue
        for top in tops:
            assert top in sys.stdlib_module_names or top in ALLOWED, f"{path.name}:{node.lineno}: imports {top}"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_black_leaves_it_as_it_is(path: Path) -> None:
    text = path.read_text("utf-8")
    mode = black.Mode(target_versions={black.TargetVersion.PY310}, line_length=LINE_LENGTH)
    assert black.format_str(text, mode=mode) == text


def test_ruff_format_leaves_it_as_it_is() -> None:
    """The runtime is copied, never formatted: it is in both formatters' style already."""
    done = subprocess.run([*formatter_command("ruff"), "--check", *map(str, SOURCES)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_each_file_says_where_to_edit_it(path: Path) -> None:
    assert path.read_text("utf-8").startswith(HEADER)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_no_noqa_comments(path: Path) -> None:
    """A generated project lints its copy with its own ruff, which reports a `noqa` for a rule it
    does not enable (RUF100): exceptions belong in mcpgen's per-file-ignores."""
    assert "# noqa" not in path.read_text("utf-8")
