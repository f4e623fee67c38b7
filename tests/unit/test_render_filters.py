"""The escaping filters: whatever the text, the literal they write reads back as that text."""

from __future__ import annotations

import ast

from hypothesis import example, given
from hypothesis import strategies as st

from mcpgen.rendering.filters import docstring, pyrepr


@given(st.text())
def test_string_literals_read_back_as_the_text(text: str) -> None:
    assert ast.literal_eval(pyrepr(text)) == text


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(), lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner)))
def test_json_values_read_back_as_the_value(value: object) -> None:
    assert ast.literal_eval(pyrepr(value)) == value


@given(st.text())
@example('"""')
@example('a\\"')
@example('a\\\\"""')
def test_docstrings_cannot_end_early(text: str) -> None:
    tree = ast.parse(f'def f():\n    """{docstring(text)}"""\n')
    function = tree.body[0]
    assert isinstance(function, ast.FunctionDef) and len(function.body) == 1
