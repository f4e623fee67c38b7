"""Typed models are generated for the schemas the selected operations use, and model
modules skip black only when black would leave them as they are."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import black
import pytest

from mcpgen.diagnostics import Diagnostics
from mcpgen.models.generate import generate_models, used_schemas
from mcpgen.models.style import _double_quoted, black_style, is_black_formatted
from mcpgen.options import OperationFilter
from mcpgen.sources.openapi.parser import OpenApiOptions, parse_openapi
from mcpgen.writer import _MODE

OBJECT: dict[str, Any] = {"type": "object", "properties": {"id": {"type": "integer"}}}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _spec() -> dict[str, Any]:
    """Each used schema is reached a different way; `Webhook` and `Orphan` by none."""
    return {
        "openapi": "3.0.3",
        "info": {"title": "t", "version": "1"},
        "paths": {
            "/pets/{id}": {
                "parameters": [{"name": "id", "in": "path", "required": True, "schema": _ref("PetId")}],
                "get": {"operationId": "getPet", "tags": ["pets"], "responses": {"200": {"$ref": "#/components/responses/Pet"}}},
            },
            "/shapes": {
                "post": {
                    "operationId": "addShape", "tags": ["shapes"],
                    "requestBody": {"$ref": "#/components/requestBodies/Shape"},
                    "responses": {"204": {"description": "ok"}},
                },
            },
        },
        "components": {
            "responses": {"Pet": {"description": "a pet", "content": {"application/json": {"schema": _ref("Pet")}}}},
            "requestBodies": {"Shape": {"content": {"application/json": {"schema": _ref("Shape")}}}},
            "schemas": {
                "PetId": {"type": "integer"},
                "Pet": {"type": "object", "properties": {"owner": {"$ref": "#/components/schemas/Owner/properties/name"}}},
                "Owner": {"type": "object", "properties": {"name": {"type": "string"}, "home": _ref("Home")}},
                "Home": OBJECT,
                "Shape": {"oneOf": [_ref("Circle")], "discriminator": {"propertyName": "kind", "mapping": {"c": "Circle", "s": "#/components/schemas/Square"}}},
                "Circle": OBJECT,
                "Square": OBJECT,
                "Webhook": {"type": "object", "properties": {"pet": _ref("Pet"), "orphan": _ref("Orphan")}},
                "Orphan": OBJECT,
            },
        },
    }


def test_used_schemas_follow_every_kind_of_reference() -> None:
    doc = _spec()
    roots = [item for path in doc["paths"].values() for item in path.values()]
    assert used_schemas(doc, roots) == {"PetId", "Pet", "Owner", "Home", "Shape", "Circle", "Square"}


def test_used_schemas_survive_cycles_and_dangling_refs() -> None:
    doc = {"components": {"schemas": {"A": {"properties": {"b": _ref("B"), "x": _ref("Missing")}}, "B": {"items": _ref("A")}}}}
    assert used_schemas(doc, [_ref("A"), {"$ref": "#/nowhere/at/all"}, {"$ref": "other.yaml#/A"}]) == {"A", "B"}


def test_used_schemas_follow_refs_into_lists() -> None:
    doc = {"paths": {"/a": {"get": {"parameters": [{"schema": _ref("P")}]}}}, "components": {"schemas": {"P": OBJECT, "Q": OBJECT}}}
    assert used_schemas(doc, [{"$ref": "#/paths/~1a/get/parameters/0"}]) == {"P"}


def _model_classes(tmp_path: Path, filters: OperationFilter | None = None) -> set[str]:
    import yaml

    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(_spec()), "utf-8")
    options = OpenApiOptions(models=True) if filters is None else OpenApiOptions(models=True, filters=filters)
    project = parse_openapi(spec, options, Diagnostics(file=str(spec)))
    return {m.path[:-3] for m in project.models if m.path != "__init__.py"}


def test_models_only_for_the_schemas_operations_use(tmp_path: Path) -> None:
    modules = _model_classes(tmp_path)
    assert {"pet", "owner", "home", "shape", "circle", "square"} <= modules
    assert "webhook" not in modules and "orphan" not in modules


def test_filters_narrow_the_models_too(tmp_path: Path) -> None:
    modules = _model_classes(tmp_path, OperationFilter(include_tags=("shapes",)))
    assert {"shape", "circle", "square"} <= modules
    assert not modules & {"pet", "owner", "home", "webhook"}


def test_unused_schemas_need_no_roots_when_none_are_given() -> None:
    doc = _spec()
    assert {"webhook.py", "orphan.py"} <= {m.path for m in generate_models(doc).modules}


@pytest.mark.parametrize(
    ("source", "skips_black"),
    [
        ("class A(BaseModel):\n    x: int = 1\n", True),
        ("class A(BaseModel):\n    x: int = 1 \n", False),  # trailing space
        ("class A(BaseModel):\n    x: Annotated[str, Field(description='" + "d" * 90 + "')]\n", False),  # too long
        ("class A(BaseModel):\n    x: int = \\\n        1\n", False),  # continuation
        ("class A(BaseModel):\n\tx: int = 1\n", False),
    ],
    ids=["plain", "trailing-space", "long-line", "continuation", "tab"],
)
def test_a_module_skips_black_only_when_black_would_not_change_it(source: str, skips_black: bool) -> None:
    styled = black_style(source)
    assert is_black_formatted(styled) is skips_black
    assert (black.format_str(styled, mode=_MODE) == styled) is skips_black


def test_black_style_double_quotes_code_strings_but_not_docstring_text() -> None:
    source = (
        "from enum import Enum\n\n\nclass Side(Enum):\n    \"\"\"\n    It's 'left' = 'right'.\n    \"\"\"\n\n"
        "    left = 'left'\n    quote = '\"'\n"
    )
    styled = black_style(source)
    assert "    left = \"left\"\n" in styled and "It's 'left' = 'right'." in styled and "quote = '\"'" in styled
    assert is_black_formatted(styled) and black.format_str(styled, mode=_MODE) == styled


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("x = 'a'\n", 'x = "a"\n'),
        ("x = 'it\\'s'\n", 'x = "it\'s"\n'),  # the escape is needless between double quotes
        ("x = 'a\\nb'  # it's 'c'\n", "x = \"a\\nb\"  # it's 'c'\n"),  # other escapes, and comments, kept
        ("x = r'a' + b'b' + f'{y}'\n", "x = r'a' + b'b' + f'{y}'\n"),  # prefixed: black leaves them too
        ("x = '''a'''\ny = ''\n", "x = '''a'''\ny = \"\"\n"),
        ('x = """it\'s \'q\' # no"""\ny = \'z\'\n', 'x = """it\'s \'q\' # no"""\ny = "z"\n'),
        ("x = 'a\\\nb'\ny = '\"'\n", "x = 'a\\\nb'\ny = '\"'\n"),  # across lines; holding a double quote
        ("x = 'open\ny = 'b'\n", "x = 'open\ny = 'b'\n"),  # not Python: left as it is, for black to report
    ],
    ids=["plain", "escaped-quote", "escapes-comment", "prefixed", "triple-empty", "docstring", "multi-line", "unterminated"],
)
def test_single_quoted_strings_become_double_quoted_where_black_would(source: str, expected: str) -> None:
    assert _double_quoted(source) == expected


def test_a_re_export_module_keeps_one_blank_line_after_its_imports() -> None:
    # datamodel-code-generator's modules for schema cycles re-export from `_internal`
    styled = black_style("# h\n\nfrom __future__ import annotations\n\nfrom ._internal import Orbit\n\n__all__ = ['Orbit']\n")
    assert is_black_formatted(styled) and black.format_str(styled, mode=_MODE) == styled


def test_a_spec_without_components_has_no_models() -> None:
    doc = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {"/a": {"get": {"responses": {"204": {"description": "ok"}}}}}}
    assert generate_models(doc, roots=[doc["paths"]["/a"]["get"]]).modules == ()


def test_long_lines_inside_docstrings_need_no_black() -> None:
    long = "    " + "word " * 30
    styled = black_style(f'class A(BaseModel):\n    """\n{long.rstrip()}\n    """\n\n    x: int\n    """\n{long.rstrip()}\n    """\n')
    assert is_black_formatted(styled) and black.format_str(styled, mode=_MODE) == styled
    unclosed = black_style(f'class A(BaseModel):\n    x: int\n    """\n{long.rstrip()}\n')
    assert not is_black_formatted(unclosed)


def test_a_docstring_indented_other_than_its_quotes_goes_to_black() -> None:
    # Adyen: descriptions starting with a space; black re-indents a class docstring
    styled = black_style('class C(Enum):\n    """\n     The type.\n\n      - **bank**: x\n\n    """\n\n    bank = "bank"\n')
    assert not is_black_formatted(styled) and black.format_str(styled, mode=_MODE) != styled


def test_escaped_single_quotes_are_unescaped_between_double_quotes() -> None:
    # GitHub: `won_t_fix = 'won\'t fix'`, as datamodel-code-generator writes it
    source = "class R(Enum):\n    won_t_fix = 'won\\'t fix'\n    path = 'C:\\\\dir\\\\'\n    mixed = 'a\\\\\\'b', 'x'\n"
    styled = black_style(source)
    values = [ast.literal_eval(line.split(" = ")[1]) for line in source.splitlines()[1:]]
    assert [ast.literal_eval(line.split(" = ")[1]) for line in styled.splitlines()[1:]] == values
    assert "won_t_fix = \"won't fix\"" in styled and "'" not in styled.replace("won't", "").replace("\\'", "")
    assert is_black_formatted(styled) and black.format_str(styled, mode=_MODE) == styled


def test_quotes_are_found_on_the_right_line_after_unusual_line_breaks() -> None:
    # \u2028, \x0c and \r are line breaks to str.splitlines, not to tokenize
    source = "class J(Enum):\n    \"\"\"\n    a\u2028b\x0cc\rd\n    \"\"\"\n\n    x = 'x'\n    y = 'y'\n"
    styled = black_style(source)
    assert styled == source.replace("'x'", '"x"').replace("'y'", '"y"')


def test_a_schema_that_expands_too_far_keeps_fewer_levels_or_skips_its_operation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """presalytics.io's OOXML schemas expanded for over 15 minutes; the conversion is bounded."""
    import json

    from mcpgen.schema import convert as schemas

    monkeypatch.setattr(schemas, "_MAX_NODES", 40)
    leaf = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(8)}}
    nested = {"type": "object", "properties": {f"n{i}": _ref("Leaf") for i in range(3)}}
    wide = {"type": "object", "properties": {f"w{i}": {"type": "string"} for i in range(60)}}
    spec = {
        "openapi": "3.0.3", "info": {"title": "t", "version": "1"},
        "paths": {
            "/deep": {"get": {"operationId": "deep", "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": _ref("Top")}}}}}},
            "/wide": {"get": {"operationId": "wide", "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": wide}}}}}},
        },
        "components": {"schemas": {"Leaf": leaf, "Mid": nested, "Top": {"type": "object", "properties": {f"m{i}": _ref("Mid") for i in range(3)}}}},
    }
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec), "utf-8")
    diagnostics = Diagnostics(file=str(path))
    project = parse_openapi(path, OpenApiOptions(models=False), diagnostics)
    assert [t.name for t in project.tools] == ["deep"]  # `wide` has 61 objects at its root: skipped
    messages = [d.message for d in diagnostics.items]
    assert any("over 40 schema objects" in m and "level(s) of references kept" in m for m in messages)
    assert any("over 40 schema objects, too many to convert; operation skipped" in m for m in messages)
