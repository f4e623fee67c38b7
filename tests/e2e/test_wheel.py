"""Templates ship inside the wheel: mcpgen's wheel, installed into a fresh venv, generates
from an unrelated directory exactly what the checkout generates."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from .conftest import PETSTORE
from .wheel import WheelInstall


def run(args: list[str | Path], cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(
        [str(a) for a in args], check=False, cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"{args}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def tree(root: Path) -> dict[str, bytes]:
    """Every file by relative path; caches (.mypy_cache, __pycache__, ...) are left out."""
    files = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if path.is_file() and not any(p.startswith(".") or p == "__pycache__" for p in relative.parts):
            files[str(relative)] = path.read_bytes()
    return files


@pytest.mark.slow
def test_wheel_ships_templates(wheel_install: WheelInstall | None, generated: Path, tmp_path: Path) -> None:
    assert wheel_install is not None  # started by the session fixture for `slow` tests
    venv = wheel_install.wait()
    assert wheel_install.wheel is not None
    # A clean environment in an unrelated directory: nothing from the checkout is importable.
    env = {"PATH": f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}", "HOME": str(tmp_path)}
    python = venv / "bin" / "python"
    located = Path(run([python, "-c", "import mcpgen.rendering.render as r; print(r.templates_dir())"], tmp_path, env).strip())
    assert located.is_relative_to(venv), located
    assert (located / "src" / "server.py.j2").is_file()

    out = tmp_path / "petstore-mcp"
    # The same options as the `generated` fixture (which keeps the deprecated findPetsByTags).
    run([venv / "bin" / "mcpgen", "from-openapi", PETSTORE, "-o", out, "--include-deprecated"], tmp_path, env)
    assert tree(out) == tree(generated)
