"""`mcpgen new` refuses bad names and occupied directories with a clear message, exit 1,
and nothing written; `--force` replaces a directory whole."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def mcpgen(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcpgen", *args], check=False, cwd=cwd, capture_output=True, text=True, timeout=300,
        env={**os.environ, "NO_COLOR": "1"},
    )


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("1weather", "use letters, digits, '-' or '_', start with a letter"),
        ("weather tools", "use letters, digits, '-' or '_', start with a letter"),
        ("weather--tools", "use letters, digits, '-' or '_', start with a letter"),
        ("weather/../x", "use letters, digits, '-' or '_', start with a letter"),
        ("a" * 65, "at most 64 characters"),
        ("mcp", "its package 'mcp' would shadow"),
        ("json", "its package 'json' would shadow"),
        ("class", "its package 'class' would shadow"),
        ("Tests", "its package 'tests' would shadow"),
    ],
)
def test_invalid_name_is_refused(tmp_path: Path, name: str, reason: str) -> None:
    result = mcpgen("new", name, cwd=tmp_path)
    assert result.returncode == 1
    [line] = result.stderr.splitlines()
    assert line.startswith(f"error: invalid project name {name!r}: ") and reason in line, line
    assert list(tmp_path.iterdir()) == []


def test_default_output_is_the_name_and_names_follow_it(tmp_path: Path) -> None:
    result = mcpgen("new", "Weather_Tools", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    project = tmp_path / "weather-tools"
    assert f"Created 10 files in {project}" in result.stdout
    assert (project / "src" / "weather_tools" / "server.py").is_file()
    assert 'name = "weather-tools"' in (project / "pyproject.toml").read_text()
    assert "MCPServer(\n    \"weather-tools\"," in (project / "src" / "weather_tools" / "server.py").read_text()


def test_non_empty_directory_is_refused_and_kept(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "mine.txt").write_text("keep me")
    result = mcpgen("new", "weather", "-o", str(out), cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.strip() == f"error: {out} exists and is not empty; pass --force to replace it (everything in it goes)"
    assert [p.name for p in out.iterdir()] == ["mine.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no staging dir left behind


def test_file_in_the_way_is_refused(tmp_path: Path) -> None:
    (tmp_path / "weather").write_text("a file")
    result = mcpgen("new", "weather", cwd=tmp_path)
    assert result.returncode == 1
    assert "exists and is not a directory" in result.stderr
    assert (tmp_path / "weather").read_text() == "a file"


def test_force_replaces_the_directory_whole(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "stale.txt").write_text("old")
    result = mcpgen("new", "weather", "-o", str(out), "--force", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert not (out / "stale.txt").exists()
    assert (out / "src" / "weather" / "__main__.py").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
