"""The format stage (`mcpgen.formatting`): one run over the tree, files kept byte for byte, a
file that is not Python named in the error."""

from __future__ import annotations

import pytest

from mcpgen.formatting import FORMATTERS, FormatError, Formatter, format_files

UNFORMATTED = "import os\nimport sys\nfrom __future__ import annotations\nx = {'a':1,\n 'b':[1,2,3]}\n"


@pytest.mark.parametrize("formatter", FORMATTERS)
def test_python_is_laid_out_and_the_rest_left_alone(formatter: Formatter) -> None:
    files = {"src/pkg/a.py": UNFORMATTED, "src/pkg/kept.py": "x = {'a':1}\n", "README.md": "x = {'a':1}\n"}
    out = format_files(files, keep=frozenset({"src/pkg/kept.py"}), formatter=formatter)
    assert out["src/pkg/a.py"] == 'from __future__ import annotations\n\nimport os\nimport sys\n\nx = {"a": 1, "b": [1, 2, 3]}\n'
    assert out["src/pkg/kept.py"] == files["src/pkg/kept.py"]
    assert out["README.md"] == files["README.md"]
    assert list(out) == list(files)


def test_long_lines_are_split_at_line_length_100() -> None:
    call = "result = function(" + ", ".join(f"argument_{i}" for i in range(12)) + ")\n"
    out = format_files({"a.py": call})["a.py"]
    assert len(call) > 100 and all(len(line) <= 100 for line in out.splitlines())
    assert out.count("\n") > 1


@pytest.mark.parametrize("kept", [False, True])
def test_invalid_python_is_an_error_naming_the_file(kept: bool) -> None:
    files = {"good.py": "x = 1\n", "src/pkg/bad.py": "def f(:\n"}
    with pytest.raises(FormatError, match=r"src/pkg/bad\.py is not valid Python"):
        format_files(files, keep=frozenset({"src/pkg/bad.py"}) if kept else frozenset())


def test_a_path_outside_the_tree_is_refused() -> None:
    with pytest.raises(FormatError, match="not a path inside"):
        format_files({"../escape.py": "x = 1\n"})


def test_first_party_imports_are_their_own_group() -> None:
    source = "import pytest\nfrom pkg.runtime.catalog import tool_table\nfrom mcp import Client\n"
    out = format_files({"tests/test_x.py": source, "src/pkg/__init__.py": ""})["tests/test_x.py"]
    assert out == "import pytest\nfrom mcp import Client\n\nfrom pkg.runtime.catalog import tool_table\n"
