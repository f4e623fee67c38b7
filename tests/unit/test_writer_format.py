"""Formatting only what black would change (`writer.format_files(black_but_long_lines=...)`):
whatever the reading decides, the result is black's, byte for byte."""

from __future__ import annotations

import ast
import json
from collections.abc import Callable
from pathlib import Path

import black
import pytest

from mcpgen.api import generate_openapi
from mcpgen.options import Options
from mcpgen.rendering.render import docstring_literal
from mcpgen.writer import _MODE, LINE_LENGTH, _format_statements, format_files, long_lines

SAMPLES = Path(__file__).resolve().parents[2] / "samples"

# Descriptions as specs write them: what docstring_literal must lay out as black does.
DESCRIPTIONS = [
    "List pets.",
    "",
    '"Quoted" at the start and at the end "too"',
    "Ends with a backslash \\",
    "Ends with three quotes \"\"\"",
    "A line\n\n    indented text\n  less indented\n\tTabbed start\n| a\ttable | row |",
    "Long " + "word " * 40,
    "First\n" + "x" * 120,
    "Trailing spaces   \nand a line of spaces\n   \nend",
    "Closing line exactly at the limit: " + "y" * 62,
    "Unicode  ideographic　space and non\u00a0breaking",
    "Markdown:\n\n```json\n{\"a\": 1}\n```\n\n- one\n  - two",
]


def _typed_api(description: str) -> str:
    return (
        "from __future__ import annotations\n\n\n"
        "async def list_pets(\n    *,\n    limit: int | None = None,\n) -> Any:\n"
        f"    {docstring_literal(description)}\n"
        "    response = await _call(\n        \"listPets\",\n        {\n"
        "            \"a_parameter_name_that_is_long_enough_to_push_this_entry_past_the_line_limit_of_black\": "
        "a_parameter_name_that_is_long_enough,\n"
        "        },\n        client,\n    )\n    return response.json()\n"
    )


@pytest.mark.parametrize("description", DESCRIPTIONS)
def test_a_module_read_as_black_formatted_is_left_as_black_leaves_it(description: str) -> None:
    source = _typed_api(description)
    formatted = format_files({"m.py": source}, black_but_long_lines=frozenset({"m.py"}))["m.py"]
    assert formatted == black.format_str(source, mode=_MODE)
    if long_lines(source) == []:  # skipped black: it would have changed nothing
        assert black.format_str(source, mode=_MODE) == source


def test_the_typed_api_skips_black_for_these_descriptions() -> None:
    # Most descriptions really take the fast path (tabs and odd spaces go to black).
    skipped = [d for d in DESCRIPTIONS if long_lines(_typed_api(d)) == []]
    assert len(skipped) >= len(DESCRIPTIONS) - 3


MODEL = '''from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field


class Cache(BaseModel):
    """A cache entry."""

    key: Annotated[str | None, Field(examples=["Linux-node-958aff96db2d75d67787d1e634ae70b659de937b"])] = None
    short: int | None = None
    url: Annotated[str, Field(examples=["https://github.com/octocat/Hello-World/pull/12#pullrequestreview-80"])]
    version: Annotated[str | None, Field(examples=["73885106f58cc52a7df9ec4d4a5622a5614813162cb516c759a30af6bf56e6f0"])] = None
'''


def test_long_fields_are_formatted_alone_as_black_formats_the_module() -> None:
    found = long_lines(MODEL)
    assert found is not None and len(found) == 3
    spliced = _format_statements(MODEL, found, ast.parse(MODEL))
    assert spliced == black.format_str(MODEL, mode=_MODE) != MODEL


@pytest.mark.parametrize(
    "module",
    [
        MODEL.replace('] = None\n    short', '] = None  # a comment\n    short'),  # a comment: black whole
        MODEL.replace("class Cache(BaseModel):", "class Cache(BaseModel, " + "Mixin, " * 14 + "Other):"),
        MODEL + "\n\nX = {\n    'a': " + "1 + " * 30 + "1,\n}\n",  # a long line outside a class
    ],
)
def test_any_other_long_line_sends_the_module_to_black(module: str) -> None:
    found = long_lines(module)
    assert found is None or _format_statements(module, found, ast.parse(module)) is None
    assert format_files({"m.py": module}, black_but_long_lines=frozenset({"m.py"}))["m.py"] == black.format_str(
        module, mode=_MODE
    )


@pytest.mark.parametrize(
    "module",
    [
        "x = 1 \n",  # a trailing space
        "x = 1\n\tpass\n",  # a tab outside a docstring
        'def f():\n    """Text\n      deeper only\n    """\n',  # docstring text indented deeper than its quotes
        'def f():\n    """ Text"""\n',  # a leading space black strips
        'def f():\n    """Text\n\u3000odd indentation\n    """\n',
        'def f():\n    """Unclosed\n',
        "x = 1\x0cy = 2\n",
    ],
)
def test_what_the_reading_cannot_judge_goes_to_black(module: str) -> None:
    assert long_lines(module) is None


def test_black_leaves_a_long_string_key_and_name_entry_as_it_is() -> None:
    # The rule `long_lines` relies on for the typed API's argument dicts.
    entry = "            \"" + "k" * 90 + "\": " + "v" * 40 + ","
    source = f"def f():\n    return g(\n        {{\n{entry}\n        }},\n    )\n"
    assert black.format_str(source, mode=_MODE) == source
    assert long_lines(source) == []


_NO_MODELS = {
    "openapi": "3.0.3",
    "info": {"title": "Plain", "version": "1"},
    "paths": {"/ping": {"get": {"operationId": "ping", "responses": {"204": {"description": "none"}}}}},
}


@pytest.mark.parametrize("spec", ["petstore.yaml", "bookshelf.yaml", "no-models.json"])
def test_the_typed_api_and_models_written_without_black_are_as_black_writes_them(spec: str, tmp_path: Path) -> None:
    # The templates write the typed API and models in black's layout so that black can be
    # skipped for them: every such file must be what black would make of it.
    source = tmp_path / spec
    if spec == "no-models.json":
        source.write_text(json.dumps(_NO_MODELS))
    else:
        source.write_bytes((SAMPLES / spec).read_bytes())
    out = tmp_path / "out"
    generate_openapi(source, Options(output=out, force=True))
    package = next(p for p in (out / "src").iterdir() if p.is_dir())
    checked = [package / "operations.py", *sorted((package / "models").rglob("*.py"))]
    for path in checked:
        if path.exists():
            text = path.read_text()
            assert black.format_str(text, mode=_MODE) == text, path.relative_to(out)
    assert (package / "operations.py").exists()


def test_formatting_across_processes_gives_what_one_process_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    from mcpgen import writer

    long_field = "class A:\n    x: Annotated[str, Field(description='" + "d" * 90 + "')] = None\n"
    files = {
        "black.py": "x = {  'a':1 }\n",
        "fields.py": long_field,
        "kept.py": "y = 2\n",
        "tools.json": "{}",
    }
    keep, lines = frozenset({"kept.py"}), frozenset({"fields.py"})
    monkeypatch.setattr(writer, "_workers", lambda python_bytes: 1)
    alone = format_files(files, keep, lines)
    monkeypatch.setattr(writer, "_workers", lambda python_bytes: 2)
    assert format_files(files, keep, lines) == alone
    assert alone["kept.py"] == "y = 2\n" and alone["tools.json"] == "{}" and alone["black.py"] == 'x = {"a": 1}\n'


def _annotated_fields() -> list[str]:
    """Long model fields around every boundary of `_annotated_field`'s reading."""
    lines = []
    for name in ("x", "html_url"):
        for annotation in ("str", "AnyUrl | None"):
            for n in range(40, 130, 3):
                for default in ("", " = None", " = False"):
                    for field in (
                        f'Field(examples=["{"x" * n}"])',
                        f'Field(description="{"y" * n}", ge=0)',
                        f"Field(pattern='^[a-z]{{{n}}}$')",
                        f'Field(examples=[["{"z" * (n // 2)}", "b,]"]], max_length=5)',
                        f'Field(examples=["{"w" * (n // 2)}",])',  # a magic trailing comma
                        f'Field(examples=["é{"v" * n}"])',  # a character black may count as two columns
                    ):
                        line = f"    {name}: Annotated[{annotation}, {field}]{default}"
                        if len(line) > LINE_LENGTH:
                            lines.append(line)
    return lines


def test_long_model_fields_laid_out_without_black_are_as_black_lays_them_out() -> None:
    from mcpgen.writer import _annotated_field

    assert _laid_out_as_black(_annotated_field, _annotated_fields()) > 100  # most of them; black gets the rest


def _laid_out_as_black(layout_of: Callable[[str], list[str] | None], lines: list[str]) -> int:
    """How many of `lines` (class-body statements) `layout_of` lays out; asserts each is as black lays it out."""
    read = 0
    for line in lines:
        layout = layout_of(line)
        if layout is not None:
            read += 1
            assert layout == black.format_str(f"class A:\n{line}\n", mode=_MODE)[len("class A:\n") :].rstrip("\n").split("\n"), line
    return read


def _plain_annotations() -> list[str]:
    """Long fields typed by other modules' classes, around every boundary of `_plain_annotation`."""
    lines = []
    for name in ("x", "html_url", "a" * 40):
        for n in range(5, 125, 3):
            cls = f"some_module.{'C' * n}"
            for annotation in (cls, f"{cls} | None", f"{cls} | other.Thing | None", f"list[{cls}]", f"list[{cls}] | None"):
                for default in ("", " = None", " = True"):
                    line = f"    {name}: {annotation}{default}"
                    if len(line) > LINE_LENGTH:
                        lines.append(line)
    return lines


def test_long_fields_of_other_modules_classes_laid_out_without_black_are_as_black_lays_them_out() -> None:
    from mcpgen.writer import _plain_annotation

    assert _laid_out_as_black(_plain_annotation, _plain_annotations()) > 500


@pytest.mark.parametrize("names", [["a" * 96], ["mod_" + "x" * 40, "other_" + "y" * 40 + " as other_1"], [f"m{i}" * 9 for i in range(12)]])
def test_long_imports_laid_out_without_black_are_as_black_lays_them_out(names: list[str]) -> None:
    module = "from . import " + ", ".join(names) + "\n\n\nclass A:\n    x: int\n"
    already_split = "from . import (\n    " + "x" * 100 + " as y,\n)\n"
    for source in (module, already_split + module):
        found = long_lines(source)
        assert found
        assert _format_statements(source, found, ast.parse(source)) == black.format_str(source, mode=_MODE)


def _long_strings() -> list[str]:
    """Long enum members and fields with one long example, as black_style leaves their quotes."""
    lines = []
    for name in ("x", "html_url", "a" * 30):
        for n in range(40, 200, 4):
            for text in ('"' + "h" * n + '"', "'a \" b " + "z" * n + "'", '"' + "h" * (n // 2) + "\\n" + "y" * (n // 2) + '"'):
                lines.append(f"    {name} = {text}")
                for annotation in ("str", "AnyUrl | None", "list[str] | None"):
                    for default in ("", " = None"):
                        lines.append(f"    {name}: Annotated[{annotation}, Field(examples=[{text}])]{default}")
    return [line for line in lines if len(line) > LINE_LENGTH]


def test_long_strings_laid_out_without_black_are_as_black_lays_them_out() -> None:
    from mcpgen.writer import _annotated_field, _string_assignment

    assert _laid_out_as_black(lambda line: _annotated_field(line) or _string_assignment(line), _long_strings()) > 1000
