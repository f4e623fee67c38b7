"""Spec text never becomes code: quotes, backslashes, Jinja braces and newlines-then-code
in every field a template reads must give a correct, inert server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

from mcpgen import api
from mcpgen.options import Options

SPEC = Path(__file__).parent / "specs" / "inject.yaml"


def test_hostile_text_stays_data(tmp_path: Path) -> None:
    result = api.generate_openapi(SPEC, Options(output=tmp_path / "out"))
    package = tmp_path / "out/src" / result.project.package
    for path in package.rglob("*.py"):
        compile(path.read_text(), str(path), "exec")
    # import every module and list the tools, in a clean process run from an empty folder
    script = (
        f"import json, {result.project.package}.operations, {result.project.package}.project as p\n"
        f"from {result.project.package}.runtime import app\n"
        "print(json.dumps([[t['name'], t.get('title'), t['description']] for t in app._tool_list()] + [p.PROJECT.base_url]))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script], check=False, cwd=tmp_path, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(tmp_path / "out/src")},
    )
    assert run.returncode == 0, run.stderr
    assert not list(tmp_path.rglob("PWNED")) and not Path("PWNED").exists()
    (name, title, description), base_url = json.loads(run.stdout)[0], json.loads(run.stdout)[1]
    spec = yaml.safe_load(SPEC.read_text())
    operation = next(iter(spec["paths"].values()))["get"]
    assert title == operation["summary"]
    assert description.startswith(operation["summary"] + "\n\n" + operation["description"])
    assert name.startswith("x_import_os")
    assert base_url == spec["servers"][0]["url"]


def test_hostile_text_passes_the_linters(tmp_path: Path) -> None:
    api.generate_openapi(SPEC, Options(output=tmp_path / "out"))
    pyproject = (tmp_path / "out/pyproject.toml").read_text()
    import tomllib

    assert tomllib.loads(pyproject)["project"]["name"] == "inject-mcp"
    readme = (tmp_path / "out/README.md").read_text()
    assert readme.count("```") % 2 == 0  # spec text cannot open or close a code block
