"""The generated project passes mypy --strict, ruff and black with its own configuration."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, check=False, cwd=cwd, capture_output=True, text=True, timeout=300)


def test_mypy_strict(generated: Path, tmp_path: Path) -> None:
    # cwd = the output dir: mypy reads its pyproject.toml ([tool.mypy] strict, pydantic plugin)
    cache = f"--cache-dir={tmp_path / 'mypy-cache'}"
    done = run([sys.executable, "-m", "mypy", "--strict", cache, "src", "tests"], generated)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success" in done.stdout


def test_ruff(generated: Path) -> None:
    done = run([sys.executable, "-m", "ruff", "check", "--no-cache", "."], generated)
    assert done.returncode == 0, done.stdout + done.stderr


def test_black(generated: Path) -> None:
    # with the project's own [tool.black] settings, as its developers will run it
    done = run([sys.executable, "-m", "black", "--check", "src", "tests"], generated)
    assert done.returncode == 0, done.stdout + done.stderr
