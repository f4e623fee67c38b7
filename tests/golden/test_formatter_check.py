"""The format stage leaves nothing for a formatter to change: `--check` over every golden tree
passes with ruff format (the default) and with black (the option), and generating with
`formatter = "black"` gives the same Python as the committed trees."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from mcpgen import api
from mcpgen.formatting import FORMATTERS, Formatter, formatter_command
from mcpgen.options import Options
from tests.golden.cases import CASES, SAMPLES, Case, is_runtime_copy

GOLDEN = Path(__file__).parent


def _formatted_files(case: Case) -> list[Path]:
    """The golden tree's Python files the format stage laid out: the user's copied module aside
    (kept byte for byte: its line numbers must match the original)."""
    root = GOLDEN / case.name
    copied = {path.relative_to(root).as_posix() for path in root.glob("src/*/source/*.py")}
    return [p for p in sorted(root.rglob("*.py")) if p.relative_to(root).as_posix() not in copied]


@pytest.mark.parametrize("formatter", FORMATTERS)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_formatter_check_changes_nothing(case: Case, formatter: Formatter) -> None:
    files = _formatted_files(case)
    assert any("/models/" in str(p) for p in files) == (case.kind == "openapi")
    # black reads this repository's pyproject.toml, which has no [tool.black]: the command line's settings
    done = subprocess.run([*formatter_command(formatter), "--check", *map(str, files)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("case", [c for c in CASES if c.name in ("petstore", "tools")], ids=lambda c: c.name)
def test_black_option_generates_the_same_python(case: Case, tmp_path: Path) -> None:
    options = Options(output=tmp_path / "out", force=True, formatter="black")
    if case.kind == "openapi":
        result = api.generate_openapi(SAMPLES / case.source, options)
    else:
        result = api.generate_python(str(SAMPLES / case.source), options)
    python = {path: text for path, text in result.files.items() if path.endswith(".py") and not is_runtime_copy(path)}
    assert python
    for path, text in python.items():
        assert (GOLDEN / case.name / path).read_text("utf-8") == text, path
