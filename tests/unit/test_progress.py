"""Progress for people at a terminal, and nothing extra for anyone else: the pipeline names its
steps, the CLI shows them only when stderr is a terminal and --quiet is not given."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from mcpgen import api, progress
from mcpgen.options import Options

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def test_a_generation_names_its_steps_to_a_reporter(tmp_path: Path) -> None:
    steps: list[str] = []
    with progress.reporting(steps.append):
        api.generate_openapi(SAMPLES / "petstore.yaml", Options(output=tmp_path / "out"))
    assert steps[0] == "reading petstore.yaml"
    assert [s.split()[0] for s in steps] == ["reading", "generating", "rendering", "formatting", "writing"]
    assert steps[1:3] == ["generating models for 4 schemas", "rendering 12 tools"]


def test_without_a_reporter_steps_go_nowhere(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The library API prints nothing of its own."""
    progress.step("nobody hears this")
    api.generate_openapi(SAMPLES / "petstore.yaml", Options(output=tmp_path / "out"))
    assert capsys.readouterr() == ("", "")


def test_the_terminal_line_is_rewritten_in_place_and_cleared() -> None:
    stream = io.StringIO()
    line = progress.TerminalLine(stream)
    line("reading spec.yaml")
    line("formatting 3 Python files")
    line.clear()
    text = stream.getvalue()
    assert text.startswith("\r\x1b[Kreading spec.yaml … (") and "\r\x1b[Kformatting 3 Python files … (" in text
    assert text.endswith("\r\x1b[K") and "\n" not in text
    silent = io.StringIO()
    progress.TerminalLine(silent).clear()  # nothing shown, nothing to clear
    assert silent.getvalue() == ""


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mcpgen", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, check=False)


def test_piped_output_has_no_progress_and_quiet_has_no_notes(tmp_path: Path) -> None:
    done = run("from-openapi", str(SAMPLES / "petstore.yaml"), "-o", str(tmp_path / "a"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "\r" not in done.stderr and "\x1b" not in done.stderr  # stderr is a pipe here
    assert "Generated 12 tools" in done.stdout and "info: " in done.stderr
    quiet = run("from-openapi", str(SAMPLES / "petstore.yaml"), "-o", str(tmp_path / "b"), "--quiet", cwd=tmp_path)
    assert quiet.returncode == 0, quiet.stderr
    assert quiet.stdout == "" and "info: " not in quiet.stderr
    assert (tmp_path / "b" / "pyproject.toml").is_file()
