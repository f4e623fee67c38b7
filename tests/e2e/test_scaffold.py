"""`mcpgen new`: the project passes mypy --strict, ruff and black with its own configuration,
is the same bytes every time, and the wheel ships its templates."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mcpgen.api import new_project
from mcpgen.formatting import format_files
from mcpgen.rendering.scaffold import project_names, render_new

from .test_wheel import tree
from .wheel import WheelInstall


def run(args: list[str | Path], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in args], check=False, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)


@pytest.fixture(scope="module")
def scaffolded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target, _ = new_project("weather-tools", tmp_path_factory.mktemp("new") / "weather-tools")
    return target


def test_mypy_strict(scaffolded: Path, tmp_path: Path) -> None:
    done = run([sys.executable, "-m", "mypy", "--strict", f"--cache-dir={tmp_path}", "src", "tests"], scaffolded)
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_and_black(scaffolded: Path) -> None:
    done = run([sys.executable, "-m", "ruff", "check", "--no-cache", "."], scaffolded)
    assert done.returncode == 0, done.stdout + done.stderr
    done = run([sys.executable, "-m", "black", "--check", "--line-length", "100", "src", "tests"], scaffolded)
    assert done.returncode == 0, done.stdout + done.stderr


def test_same_bytes_every_time(scaffolded: Path) -> None:
    assert format_files(render_new(project_names("weather-tools"))) == {
        path: data.decode() for path, data in tree(scaffolded).items()
    } | {".gitignore": (scaffolded / ".gitignore").read_text()}


def test_readme_has_client_snippets(scaffolded: Path) -> None:
    readme = (scaffolded / "README.md").read_text()
    for client in ("Claude Desktop", "VS Code", "Cursor"):
        assert client in readme
    assert '"command": "weather-tools"' in readme


@pytest.mark.slow
def test_wheel_ships_new_templates(wheel_install: WheelInstall | None, scaffolded: Path, tmp_path: Path) -> None:
    assert wheel_install is not None
    venv = wheel_install.wait()
    env = {"PATH": f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}", "HOME": str(tmp_path)}
    done = run([venv / "bin" / "mcpgen", "new", "weather-tools"], tmp_path, env)
    assert done.returncode == 0, done.stdout + done.stderr
    out = tmp_path / "weather-tools"
    assert tree(out) == tree(scaffolded)
    assert (out / ".gitignore").read_bytes() == (scaffolded / ".gitignore").read_bytes()
