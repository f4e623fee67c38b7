"""The escaping filters: whatever the text, the literal they write reads back as that text."""

from __future__ import annotations

import ast

from hypothesis import example, given
from hypothesis import strategies as st

from mcpgen.rendering.render import docstring, pyrepr


@given(st.text())
def test_string_literals_read_back_as_the_text(text: str) -> None:
    assert ast.literal_eval(pyrepr(text)) == text


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(), lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner)))
def test_json_values_read_back_as_the_value(value: object) -> None:
    assert ast.literal_eval(pyrepr(value)) == value


def test_strings_are_double_quoted_as_black_writes_them() -> None:
    assert pyrepr("plain") == '"plain"'
    assert pyrepr("it's") == '"it\'s"'
    assert pyrepr('say "hi"') == "'say \"hi\"'"  # double quotes would need escapes
    assert pyrepr({"k": ["v", 1, None]}) == '{"k": ["v", 1, None]}'


@given(st.text())
@example('"""')
@example('a\\"')
@example('a\\\\"""')
def test_docstrings_cannot_end_early(text: str) -> None:
    tree = ast.parse(f'def f():\n    """{docstring(text)}"""\n')
    function = tree.body[0]
    assert isinstance(function, ast.FunctionDef) and len(function.body) == 1


@given(st.text(alphabet=st.sampled_from('ab "\'\\\t\n-:.`{}'), max_size=300) | st.text())
def test_docstring_literals_are_laid_out_as_black_writes_them(text: str) -> None:
    import black

    from mcpgen.rendering.render import docstring_literal
    from mcpgen.writer import _MODE

    source = f"async def f() -> None:\n    {docstring_literal(text)}\n    return None\n"
    assert black.format_str(source, mode=_MODE) == source
    function = ast.parse(source).body[0]
    assert isinstance(function, ast.AsyncFunctionDef) and len(function.body) == 2


def test_a_long_last_line_puts_the_closing_quotes_on_their_own_line() -> None:
    from mcpgen.rendering.render import docstring_literal

    text = "Summary.\n\n" + "x" * 95
    assert docstring_literal(text).endswith("x" * 95 + '\n    """')
    assert docstring_literal("Summary.\n\nshort") == '"""Summary.\n\n    short"""'
