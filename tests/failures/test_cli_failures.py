"""Bad input: a clear, located message, a non-zero exit, nothing half-written or overwritten."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SPECS = Path(__file__).parent / "specs"
SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def mcpgen(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcpgen", *args], check=False, cwd=cwd, capture_output=True, text=True, timeout=300,
        env={**os.environ, "NO_COLOR": "1"},
    )


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (None, "error: {spec}: file not found (check the path)"),
        ('{"swagger": "1.2", "info": {"title": "t", "version": "1"}, "paths": {}}',
         "error: {spec}#/swagger (line 1): Swagger 1.2 is not supported (convert it to OpenAPI 3 first, e.g. with swagger2openapi)"),
        ("openapi: 3.0.0\ninfo:\n  title: [x\n", "error: {spec}: invalid YAML at line 4, column 1: did not find expected ',' or ']'"),
        ('{"openapi": "3.0.0", "info": ', "error: {spec}: invalid JSON at line 1, column 30: Expecting value"),
    ],
    ids=["missing", "swagger1", "bad-yaml", "bad-json"],
)
def test_unusable_spec_exits_non_zero_and_writes_nothing(tmp_path: Path, content: str | None, expected: str) -> None:
    spec = tmp_path / ("spec.json" if content and content.startswith("{") else "spec.yaml")
    if content is not None:
        spec.write_text(content)
    result = mcpgen("from-openapi", str(spec), "-o", str(tmp_path / "out"), cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.splitlines() == [expected.format(spec=spec), "error: nothing was written."]
    assert not (tmp_path / "out").exists()
    assert [p.name for p in tmp_path.iterdir()] == ([spec.name] if content is not None else [])


def test_messy_spec_warns_per_operation_and_generates_the_rest(tmp_path: Path) -> None:
    result = mcpgen("from-openapi", str(SPECS / "messy.yaml"), "-o", str(tmp_path / "out"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    spec = SPECS / "messy.yaml"
    lines = result.stderr.splitlines()
    assert f"warning: {spec}#/paths/~1items~1{{id}}/get (line 13): path parameter(s) ['id'] are not declared; operation skipped" in lines
    assert any(line.startswith(f"warning: {spec}#/paths/~1broken/post (line 19): invalid operation, skipped:") for line in lines)
    assert any("pattern '^(?<area>\\\\d{3})$' is not a valid Python regex; dropped" in line for line in lines)
    summary = result.stdout.splitlines()
    assert summary[:2] == [f"Generated 3 tools for 'Messy' in {tmp_path / 'out'}", "Renamed 1 tool (listed above):"]
    assert summary[2].endswith("→ thisOperationIdIsFarTooLongForStrictClientsBecauseItGoesO_9525b7")
    assert summary[2].split()[:2] == ["1", "longer"]
    assert summary[3:6] == [
        "Skipped 2 operations (the lines above say where and why):",
        "       1  invalid operation: /paths/~1broken/post",
        "       1  undeclared path parameters: /paths/~1items~1{id}/get",
    ]
    tools = json.loads((tmp_path / "out/src/messy_mcp/tools.json").read_text())
    assert [t["tool"]["name"][:20] for t in tools] == ["fine", "ecmaRegex", "thisOperationIdIsFar"]


def test_existing_output_is_refused_and_kept_without_force(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "mine.py").write_text("# user code\n")
    result = mcpgen("from-openapi", str(SAMPLES / "petstore.yaml"), "-o", str(out), cwd=tmp_path)
    assert result.returncode == 1
    assert "exists and is not empty; to update a generated project run `mcpgen regenerate" in result.stderr
    assert [p.name for p in out.iterdir()] == ["mine.py"]
    forced = mcpgen("from-openapi", str(SAMPLES / "petstore.yaml"), "-o", str(out), "--force", cwd=tmp_path)
    assert forced.returncode == 0, forced.stderr
    assert (out / "src/petstore_mcp/server.py").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out.")], "staging leftovers"


def test_python_module_that_fails_to_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("def f(x: int) -> int:\n    return x\n\nraise RuntimeError('boom at import')\n")
    result = mcpgen("from-python", str(bad), "-o", str(tmp_path / "out"), cwd=tmp_path)
    assert result.returncode == 1
    assert "RuntimeError: boom at import" in result.stderr
    assert "nothing was written" in result.stderr
    assert not (tmp_path / "out").exists()


def test_default_output_dir_and_name(tmp_path: Path) -> None:
    result = mcpgen("from-openapi", str(SAMPLES / "bookshelf.yaml"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "bookshelf-mcp/src/bookshelf_mcp/__main__.py").exists()
    named = mcpgen("from-openapi", str(SAMPLES / "bookshelf.yaml"), "--name", "Shelf", cwd=tmp_path)
    assert named.returncode == 0, named.stderr
    assert (tmp_path / "shelf-mcp/src/shelf_mcp/project.py").read_text().count('env_prefix="SHELF"') == 1


@pytest.mark.parametrize("verbose", [False, True])
def test_many_renames_are_counted_per_reason_unless_verbose(tmp_path: Path, verbose: bool) -> None:
    """GitHub's spec renames all 1,186 tools ('repos/get' -> 'repos_get'): one line each buried
    the warnings. The first ten are listed; the summary counts them per reason, with two
    examples; --verbose lists each."""
    paths = {f"/r{i}": {"get": {"operationId": f"repos/get{i}", "responses": {"204": {"description": "ok"}}}}
             for i in range(13)}
    spec = tmp_path / "slashes.json"
    spec.write_text(json.dumps({"openapi": "3.0.3", "info": {"title": "Slashes", "version": "1"}, "paths": paths}))
    result = mcpgen("from-openapi", str(spec), "-o", str(tmp_path / "out"), *(["--verbose"] if verbose else []),
                    cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    listed = [line for line in lines if "renamed to 'repos_get" in line]
    assert len(listed) == (13 if verbose else 10)
    assert f"Renamed 13 tools ({'listed above' if verbose else '--verbose lists each'}):" in result.stdout
    reason = "characters outside [A-Za-z0-9_-] or a leading non-letter"
    assert f"      13  {reason}: repos/get0 → repos_get0, repos/get1 → repos_get1, ..." in result.stdout
    assert f"Run it: pip install {tmp_path / 'out'} && slashes-mcp" in result.stdout
