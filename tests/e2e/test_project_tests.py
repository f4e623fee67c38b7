"""The tests a project ships pass in that project: petstore, bookshelf and the Python
sample as generated, and a `mcpgen new` project, each `pip install -e '.[test]'`-ed into
one fresh venv (a single pip run for all four) and then tested with its own `pytest`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mcpgen.api import generate_openapi, generate_python, new_project
from mcpgen.options import Options

from .conftest import REPO

SAMPLES = REPO / "samples"
PROJECTS = ("petstore", "bookshelf", "tools", "new")


def run(args: list[str | Path], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args], check=False, cwd=cwd, env=env, capture_output=True, text=True, timeout=900
    )


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Path]]:
    """(venv python, project dirs): the four projects installed editable with their test extra."""
    root = tmp_path_factory.mktemp("project-tests")
    projects = {
        "petstore": generate_openapi(SAMPLES / "petstore.yaml", Options(output=root / "petstore-mcp")).output,
        "bookshelf": generate_openapi(SAMPLES / "bookshelf.yaml", Options(output=root / "bookshelf-mcp")).output,
        "tools": generate_python(str(SAMPLES / "tools.py"), Options(output=root / "tools-mcp")).output,
        "new": new_project("weather-tools", root / "weather-tools")[0],
    }
    venv = root / "venv"
    done = run([sys.executable, "-m", "venv", "--without-pip", venv], root)
    assert done.returncode == 0, done.stderr
    python = venv / "bin" / "python"
    editables = [arg for path in projects.values() for arg in ("-e", f"{path}[test]")]
    done = run([sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--no-compile", *editables], root)
    assert done.returncode == 0, done.stdout + done.stderr
    return python, projects


def project_env(home: Path, **extra: str) -> dict[str, str]:
    """Nothing from this checkout's environment: the project stands on its own venv."""
    return {"PATH": os.environ.get("PATH", ""), "HOME": str(home), **extra}


@pytest.mark.slow
@pytest.mark.parametrize("name", PROJECTS)
def test_project_tests_pass(installed: tuple[Path, dict[str, Path]], name: str, tmp_path: Path) -> None:
    python, projects = installed
    done = run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider"], projects[name], project_env(tmp_path))
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    assert " passed" in done.stdout
    assert " failed" not in done.stdout and "error" not in done.stdout.splitlines()[-1]


@pytest.mark.slow
def test_python_smoke_calls_every_tool_on_request(installed: tuple[Path, dict[str, Path]], tmp_path: Path) -> None:
    """With INVENTORY_SMOKE_CALLS=all the smoke test calls the sample's tools for real too
    (its functions only touch an in-memory inventory); by default it calls none of them,
    as none is marked read-only (the parametrized test above)."""
    python, projects = installed
    every = run(
        [python, "-m", "pytest", "-v", "-p", "no:cacheprovider", "tests/test_smoke.py"],
        projects["tools"],
        project_env(tmp_path, INVENTORY_SMOKE_CALLS="all"),
    )
    assert every.returncode == 0, every.stdout[-6000:] + every.stderr[-3000:]
    called = [line for line in every.stdout.splitlines() if "test_call_gives_a_well_formed_result[" in line]
    assert len(called) >= 3 and all("PASSED" in line for line in called), called
