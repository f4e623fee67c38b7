"""from-python: signatures -> schemas, skips, selection, import errors, and the generated functions.py."""

from __future__ import annotations

import dataclasses
import importlib
import importlib.metadata
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest

from mcpgen.diagnostics import Diagnostics, GenerationError, Level
from mcpgen.ir import Annotations, Project, PythonCall
from mcpgen.runtime import functions as runtime_functions
from mcpgen.runtime import project as runtime_project
from mcpgen.runtime.project import Project as RuntimeProject
from mcpgen.schema.output import with_content_id
from mcpgen.sources import python as python_source
from mcpgen.sources.python import parse_python

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = ROOT / "templates"
SAMPLE = ROOT / "samples" / "tools.py"

HEADER = '''\
"""Test module."""
from __future__ import annotations

import dataclasses
import enum
import socket
import typing
from collections.abc import Callable, Iterator
from typing import Annotated, Any, Literal, Optional

from pydantic import BaseModel, Field
from typing_extensions import TypedDict


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Point(BaseModel):
    """A point."""

    x: int
    y: int = 0


class Node(BaseModel):
    name: str
    children: list[Node] = []


@dataclasses.dataclass
class Box:
    width: float
    label: str = ""


class Span(TypedDict):
    start: int
    end: int


class OldSpan(typing.TypedDict):
    start: int
'''


def write_module(tmp_path: Path, body: str, stem: str = "mod") -> Path:
    path = tmp_path / f"{stem}.py"
    path.write_text(HEADER + "\n\n" + textwrap.dedent(body))
    return path


def parse(
    target: str | Path,
    *,
    name: str | None = None,
    include: list[str] | None = None,
    exclude: list[str] | None = None,
    max_name_length: int = 64,
) -> tuple[Project, Diagnostics]:
    diagnostics = Diagnostics(file=str(target))
    project = parse_python(
        str(target),
        name=name,
        include=include or [],
        exclude=exclude or [],
        max_name_length=max_name_length,
        diagnostics=diagnostics,
    )
    return project, diagnostics


def tool(project: Project, name: str) -> Any:
    return next(t for t in project.tools if t.name == name)


def messages(diagnostics: Diagnostics, level: Level) -> list[str]:
    return [str(d) for d in diagnostics.items if d.level is level]


def assert_strict_schema(schema: dict[str, Any]) -> None:
    """What strict MCP clients need: a valid 2020-12 object root, local refs, arrays with items."""
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["type"] == "object"
    assert not {"oneOf", "anyOf", "allOf", "$ref"} & schema.keys()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "array":
                assert "items" in node, node
            if "$ref" in node:
                ref = node["$ref"]
                assert ref.startswith("#/$defs/") and ref.removeprefix("#/$defs/") in schema["$defs"], ref
            for key, child in node.items():
                if key not in ("default", "enum", "const"):
                    walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(schema)


# --- signature -> inputSchema ---------------------------------------------------------

INPUT_CASES: list[tuple[str, dict[str, Any], bool]] = [
    ("a: int", {"title": "A", "type": "integer"}, True),
    ("a: int = 3", {"default": 3, "title": "A", "type": "integer"}, False),
    (
        "a: str | None = None",
        {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None, "title": "A"},
        False,
    ),
    ("a: Optional[str]", {"anyOf": [{"type": "string"}, {"type": "null"}], "title": "A"}, True),
    (
        "a: Literal['x', 'y'] = 'x'",
        {"default": "x", "enum": ["x", "y"], "title": "A", "type": "string"},
        False,
    ),
    ("a: Color", {"$ref": "#/$defs/Color"}, True),
    ("a: Color = Color.BLUE", {"$ref": "#/$defs/Color", "default": "blue"}, False),
    ("a: list[int]", {"items": {"type": "integer"}, "title": "A", "type": "array"}, True),
    ("a: list", {"items": {}, "title": "A", "type": "array"}, True),
    (
        "a: dict[str, float]",
        {"additionalProperties": {"type": "number"}, "title": "A", "type": "object"},
        True,
    ),
    (
        "a: tuple[int, str]",
        {
            "items": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
            "maxItems": 2,
            "minItems": 2,
            "prefixItems": [{"type": "integer"}, {"type": "string"}],
            "title": "A",
            "type": "array",
        },
        True,
    ),
    ("a: tuple[int, ...]", {"items": {"type": "integer"}, "title": "A", "type": "array"}, True),
    (
        "a: set[str] = {'pear', 'apple', 'fig', 'kiwi'}",  # sorted: sets iterate by hash
        {
            "default": ["apple", "fig", "kiwi", "pear"],
            "items": {"type": "string"},
            "title": "A",
            "type": "array",
            "uniqueItems": True,
        },
        False,
    ),
    ("a: Point", {"$ref": "#/$defs/Point"}, True),
    ("a: Box", {"$ref": "#/$defs/Box"}, True),
    ("a: Span | None = None", {"anyOf": [{"$ref": "#/$defs/Span"}, {"type": "null"}], "default": None}, False),
    ("a: Node", {"$ref": "#/$defs/Node"}, True),
    (
        "a: Annotated[int, Field(ge=1, le=10, description='How many.')] = 5",
        {"default": 5, "description": "How many.", "maximum": 10, "minimum": 1, "title": "A", "type": "integer"},
        False,
    ),
    (
        "a: Annotated[str, Field(min_length=1, max_length=3, pattern='^[a-z]+$')]",
        {"maxLength": 3, "minLength": 1, "pattern": "^[a-z]+$", "title": "A", "type": "string"},
        True,
    ),
    ("a: Any = None", {"default": None, "title": "A"}, False),
]


@pytest.mark.parametrize(("signature", "expected", "required"), INPUT_CASES, ids=[c[0] for c in INPUT_CASES])
def test_signature_to_input_schema(tmp_path: Path, signature: str, expected: dict[str, Any], required: bool) -> None:
    path = write_module(tmp_path, f"def f({signature}) -> None:\n    pass\n")
    project, diagnostics = parse(path)
    schema = tool(project, "f").input_schema
    assert schema["properties"] == {"a": expected}
    assert schema.get("required", []) == (["a"] if required else [])
    assert schema["additionalProperties"] is False
    assert "title" not in schema
    assert_strict_schema(schema)
    assert not messages(diagnostics, Level.WARNING)


def test_nested_types_land_in_defs(tmp_path: Path) -> None:
    path = write_module(tmp_path, "def f(p: Point, b: Box, s: Span, c: Color) -> None:\n    pass\n")
    defs = tool(parse(path)[0], "f").input_schema["$defs"]
    assert set(defs) == {"Point", "Box", "Span", "Color"}
    assert defs["Point"]["description"] == "A point."
    assert defs["Box"]["required"] == ["width"]
    assert defs["Span"]["required"] == ["start", "end"]
    assert defs["Color"]["enum"] == ["red", "blue"]


def test_parameter_names_that_clash_with_basemodel_attributes(tmp_path: Path) -> None:
    path = write_module(tmp_path, "def f(json: int, model_config: str, schema: bool = False) -> None:\n    pass\n")
    project, diagnostics = parse(path)
    schema = tool(project, "f").input_schema
    assert list(schema["properties"]) == ["json", "model_config", "schema"]
    assert schema["required"] == ["json", "model_config"]
    assert not messages(diagnostics, Level.WARNING)


def test_unserialisable_default_is_a_warning_not_a_skip(tmp_path: Path) -> None:
    path = write_module(tmp_path, "_SENTINEL = object()\n\ndef f(a: Any = _SENTINEL) -> None:\n    pass\n")
    project, diagnostics = parse(path)
    assert tool(project, "f").input_schema["properties"]["a"] == {"title": "A"}
    [warning] = [d for d in diagnostics.items if d.level is Level.WARNING]
    assert "not JSON serializable" in warning.message and warning.file == str(path)


# --- return annotation -> outputSchema ------------------------------------------------

OUTPUT_CASES: list[tuple[str, dict[str, Any] | None, bool]] = [
    ("-> None", None, False),
    ("", None, False),
    ("-> str", None, False),  # the text itself, not {"result": "..."}
    ("-> int", {"type": "object", "properties": {"result": {"type": "integer"}}, "required": ["result"]}, True),
    (
        "-> list[str]",
        {
            "type": "object",
            "properties": {"result": {"items": {"type": "string"}, "type": "array"}},
            "required": ["result"],
        },
        True,
    ),
    (
        "-> dict[str, int]",
        {
            "type": "object",
            "properties": {"result": {"additionalProperties": {"type": "integer"}, "type": "object"}},
            "required": ["result"],
        },
        True,
    ),
    (
        "-> Point",
        {
            "description": "A point.",
            "properties": {
                "x": {"title": "X", "type": "integer"},
                "y": {"title": "Y", "type": "integer"},  # defaults: annotations no client reads
            },
            "required": ["x"],
            "title": "Point",
            "type": "object",
        },
        False,
    ),
    (
        "-> Box",
        {
            "properties": {
                "width": {"title": "Width", "type": "number"},
                "label": {"title": "Label", "type": "string"},
            },
            "required": ["width"],
            "title": "Box",
            "type": "object",
        },
        False,
    ),
]


@pytest.mark.parametrize(
    ("returns", "expected", "wraps"), OUTPUT_CASES, ids=[c[0] or "no annotation" for c in OUTPUT_CASES]
)
def test_return_annotation_to_output_schema(
    tmp_path: Path, returns: str, expected: dict[str, Any] | None, wraps: bool
) -> None:
    path = write_module(tmp_path, f"def f(){returns}:\n    pass\n")
    t = tool(parse(path)[0], "f")
    assert t.output_schema == (expected and with_content_id(expected))  # an $id of its content: compiled once
    assert t.wraps_result is wraps


@pytest.mark.parametrize("returns", ["list[Point]", "Point | None", "Node", "Span"])
def test_output_refs_resolve_from_the_root(tmp_path: Path, returns: str) -> None:
    """Wrapped schemas keep $defs at the root; a recursive model (a bare $ref) is wrapped."""
    path = write_module(tmp_path, f"def f() -> {returns}:\n    raise NotImplementedError\n")
    t = tool(parse(path)[0], "f")
    assert_strict_schema(t.output_schema)
    assert t.wraps_result is (returns != "Span")
    if t.wraps_result:
        assert t.output_schema["required"] == ["result"] and "$defs" not in t.output_schema["properties"]["result"]


# --- descriptions ---------------------------------------------------------------------

DOCSTRINGS = {
    "google": '''
        """Add two numbers.

        Longer text.

        Args:
            a: The first.
            b: The second.
        """''',
    "numpy": '''
        """Add two numbers.

        Longer text.

        Parameters
        ----------
        a : int
            The first.
        b
            The second.
        """''',
    "rest": '''
        """Add two numbers.

        Longer text.

        :param a: The first.
        :param b: The second.
        :returns: The sum.
        """''',
}


@pytest.mark.parametrize("style", list(DOCSTRINGS))
def test_docstring_styles(tmp_path: Path, style: str) -> None:
    body = "def add(a: int, b: Annotated[int, Field(description='From Field.')] = 0) -> int:"
    body += textwrap.indent(textwrap.dedent(DOCSTRINGS[style]), "    ") + "\n    return a + b\n"
    t = tool(parse(write_module(tmp_path, body))[0], "add")
    assert t.description == "Add two numbers.\n\nLonger text."
    assert t.title is None
    properties = t.input_schema["properties"]
    assert properties["a"]["description"] == "The first."
    assert properties["b"]["description"] == "From Field."  # Field(description=...) wins


def test_no_docstring_gives_a_humanised_description(tmp_path: Path) -> None:
    project, diagnostics = parse(write_module(tmp_path, "def list_open_orders() -> None:\n    pass\n"))
    assert tool(project, "list_open_orders").description == "List open orders"
    assert any("no docstring" in m for m in messages(diagnostics, Level.INFO))


# --- skipped functions ----------------------------------------------------------------

SKIP_CASES: list[tuple[str, str, str]] = [
    ("def f(\n    a: int,\n    *args: int,  # <-\n) -> None:\n    pass\n", "'args'", "*args"),
    ("def f(\n    a: int,\n    **kw: int,  # <-\n) -> None:\n    pass\n", "'kw'", "**kwargs"),
    ("def f(\n    a: int,  # <-\n    /,\n    b: int,\n) -> None:\n    pass\n", "'a'", "positional-only"),
    ("def f(\n    a: int,\n    b,  # <-\n) -> None:\n    pass\n", "'b'", "no type annotation"),
    ("def f(\n    a: Callable[[int], int],  # <-\n) -> None:\n    pass\n", "'a'", "no JSON Schema"),
    ("def f(\n    a: socket.socket,  # <-\n) -> None:\n    pass\n", "'a'", "no JSON Schema (socket)"),
    ("def f(\n    a: OldSpan,  # <-\n) -> None:\n    pass\n", "'a'", "typing_extensions.TypedDict"),
    ("def f(\n    a: int,\n    b: Undefined,  # <-\n) -> None:\n    pass\n", "'b'", "cannot be resolved: NameError"),
    ("def f(\n    a: int = Field(3),  # <-\n) -> None:\n    pass\n", "'a'", "Annotated[T, Field(...)]"),
    ("def f(\n    größe: int,  # <-\n) -> None:\n    pass\n", "'größe'", "not a valid tool argument name"),
    ("def f() -> Iterator[int]:  # <-\n    yield 1\n", "", "generator functions"),
    ("def f() -> socket.socket:  # <-\n    raise NotImplementedError\n", "", "return type socket"),
]


@pytest.mark.parametrize(("source", "parameter", "why"), SKIP_CASES, ids=[c[2] for c in SKIP_CASES])
def test_unsupported_functions_are_skipped_with_a_located_warning(
    tmp_path: Path, source: str, parameter: str, why: str
) -> None:
    path = write_module(tmp_path, source + "\n\ndef ok(a: int) -> int:\n    return a\n")
    project, diagnostics = parse(path)
    assert [t.name for t in project.tools] == ["ok"]
    [warning] = [d for d in diagnostics.items if d.level is Level.WARNING]
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if "# <-" in text)
    assert (warning.file, warning.line) == (str(path), line)
    assert "function 'f' skipped" in warning.message
    assert parameter in warning.message and why in warning.message
    assert f"{path} (line {line}): function 'f' skipped" in str(warning)


# --- which functions ------------------------------------------------------------------


def test_public_functions_defined_in_the_module_in_source_order(tmp_path: Path) -> None:
    body = """
        from os.path import basename  # imported: not a tool

        def zeta(a: int) -> int:
            return a

        def _helper(a: int) -> int:
            return a

        async def alpha(a: int) -> int:
            return a

        lam = lambda a: a
        """
    project, _ = parse(write_module(tmp_path, body))
    assert [t.name for t in project.tools] == ["zeta", "alpha"]
    assert tool(project, "alpha").call.is_async and not tool(project, "zeta").call.is_async


def test_dunder_all_lists_exactly_the_tools(tmp_path: Path) -> None:
    body = """
        __all__ = ["Point", "b", "_hidden", "missing", "a2"]

        def a(x: int) -> int:
            return x

        def b(x: int) -> int:
            return x

        def _hidden(x: int) -> int:
            return x

        a2 = a  # an alias is its own tool, named after the alias
        """
    path = write_module(tmp_path, body)
    project, diagnostics = parse(path)
    assert [t.name for t in project.tools] == ["a2", "b", "hidden"]  # source order, then name
    assert tool(project, "a2").call == PythonCall(module=".source.mod", function="a2", is_async=False)
    assert tool(project, "hidden").call.function == "_hidden"
    assert any("'missing'" in m for m in messages(diagnostics, Level.WARNING))
    assert any("'_hidden' is served as tool 'hidden'" in m for m in messages(diagnostics, Level.INFO))


@pytest.mark.parametrize(
    ("include", "exclude", "expected"),
    [
        ([], [], ["get_item", "get_items", "put_item", "delete_item"]),
        (["get_*"], [], ["get_item", "get_items"]),
        (["get_*", "put_*"], ["*s"], ["get_item", "put_item"]),
        ([], ["*_item"], ["get_items"]),
    ],
)
def test_include_and_exclude_globs(tmp_path: Path, include: list[str], exclude: list[str], expected: list[str]) -> None:
    body = "".join(
        f"def {n}(a: int) -> None:\n    pass\n\n" for n in ["get_item", "get_items", "put_item", "delete_item"]
    )
    project, diagnostics = parse(write_module(tmp_path, body), include=include, exclude=exclude)
    assert [t.name for t in project.tools] == expected
    assert not messages(diagnostics, Level.WARNING)


def test_include_that_matches_nothing_warns(tmp_path: Path) -> None:
    _, diagnostics = parse(write_module(tmp_path, "def f() -> None:\n    pass\n"), include=["nope*"])
    assert any("--include 'nope*'" in m for m in messages(diagnostics, Level.WARNING))


def test_long_names_are_shortened_with_a_diagnostic(tmp_path: Path) -> None:
    name = "a_really_long_function_name_for_a_tool"
    project, diagnostics = parse(write_module(tmp_path, f"def {name}() -> None:\n    pass\n"), max_name_length=20)
    [t] = project.tools
    assert len(t.name) <= 20 and t.call.function == name
    assert any("longer than 20" in m for m in messages(diagnostics, Level.INFO))


# --- project fields -------------------------------------------------------------------


def test_file_target_project(tmp_path: Path) -> None:
    path = write_module(tmp_path, "def f(a: int) -> int:\n    return a\n", stem="My-Tools")
    project, _ = parse(path)
    assert (project.name, project.package, project.env_prefix) == ("my-tools", "my_tools_mcp", "MY_TOOLS")
    assert (project.title, project.description, project.version) == ("Test module.", "", "0.1.0")
    assert project.source_kind == "python" and project.source_file == path.name
    assert project.base_url is None and project.security_schemes == () and project.env_vars == ()
    assert [p for p, _ in project.copied_files] == ["source/__init__.py", "source/my_tools.py"]
    assert project.copied_files[1][1] == path.read_text()
    assert project.extra_dependencies == ("pydantic", "typing_extensions")
    [t] = project.tools
    assert t.call == PythonCall(module=".source.my_tools", function="f", is_async=False)
    assert (t.origin.file, t.python_name) == (str(path), "f")
    assert t.annotations == Annotations(read_only=False, destructive=True, idempotent=False, open_world=True)


OWN_PACKAGE_BODY = """\
def set_note(text: str) -> str:
    from notes_mcp.extensions import resource_updated  # the generated package, imported at run time
    import not_installed_anywhere

    resource_updated("notes://current")
    return not_installed_anywhere.saved(text)
"""


@pytest.mark.parametrize("name", ["notes", None])
def test_own_generated_package_is_not_a_dependency(tmp_path: Path, name: str | None) -> None:
    """A function importing the server's own package (`<pkg>_mcp.extensions`) gets no "cannot tell"
    note for it, whether the package comes from --name or from the file's name; other unknown
    imports still do."""
    path = write_module(tmp_path, OWN_PACKAGE_BODY, stem="notes")
    project, diagnostics = parse(path, name=name)
    assert project.package == "notes_mcp"
    infos = messages(diagnostics, Level.INFO)
    assert not [m for m in infos if "notes_mcp" in m], infos
    assert any("cannot tell which distribution provides 'not_installed_anywhere'" in m for m in infos), infos
    assert project.extra_dependencies == ("pydantic", "typing_extensions")


def test_own_generated_package_installed_is_not_a_dependency(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the generated package pip-installed where mcpgen runs, it is known, yet still not listed:
    a server depending on its own distribution."""
    installed = {**importlib.metadata.packages_distributions(), "notes_mcp": ["notes-mcp"]}
    monkeypatch.setattr(importlib.metadata, "packages_distributions", lambda: installed)
    project, _ = parse(write_module(tmp_path, OWN_PACKAGE_BODY, stem="notes"), name="notes")
    assert "notes-mcp" not in project.extra_dependencies


def test_name_option_is_slugged(tmp_path: Path) -> None:
    project, diagnostics = parse(write_module(tmp_path, ""), name="Inventory Tools")
    assert (project.name, project.package) == ("inventory-tools", "inventory_tools_mcp")
    assert any("became 'inventory-tools'" in m for m in messages(diagnostics, Level.INFO))


def test_module_target(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "shop_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text('"""Shop."""\n')
    (pkg / "helpers.py").write_text("def helper(x: int) -> int:\n    return x\n")
    (pkg / "tools.py").write_text(
        '"""Shop tools.\n\nSell things."""\n'
        "from shop_pkg.helpers import helper\n\n"
        "def own(x: int) -> int:\n    return x\n"
    )
    (pkg / "exported.py").write_text(
        "from shop_pkg.helpers import helper\n\n__all__ = ['own', 'helper']\n\n"
        "def own(x: int) -> int:\n    return x\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    path_before = list(sys.path)

    project, diagnostics = parse("shop_pkg.tools")
    assert [t.name for t in project.tools] == ["own"]  # the imported helper is not a tool
    assert tool(project, "own").call == PythonCall(module="shop_pkg.tools", function="own", is_async=False)
    assert (project.name, project.title, project.description) == ("shop-tools", "Shop tools.", "Sell things.")
    assert project.copied_files == () and project.extra_dependencies == ()
    assert any("cannot tell which installed distribution" in m for m in messages(diagnostics, Level.INFO))
    assert tool(project, "own").origin.file == str(pkg / "tools.py")

    project, _ = parse("shop_pkg.exported")  # __all__ may name an imported function
    assert [(t.name, t.call.module) for t in project.tools] == [
        ("own", "shop_pkg.exported"),
        ("helper", "shop_pkg.exported"),
    ]
    assert not any(m == "shop_pkg" or m.startswith("shop_pkg.") for m in sys.modules)
    assert sys.path == path_before


def test_stdlib_module_target_declares_no_dependency() -> None:
    assert "json" in sys.modules
    project, diagnostics = parse("json")
    assert project.extra_dependencies == ()
    assert not any("distribution" in m for m in messages(diagnostics, Level.INFO))
    assert "json" in sys.modules  # what was imported before stays


def test_distribution_of_an_installed_module() -> None:
    mapping = importlib.metadata.packages_distributions()
    assert python_source._distribution("docstring_parser", None, mapping) == "docstring_parser"
    assert python_source._distribution("no_such_module_here", None, mapping) is None


# --- import failures ------------------------------------------------------------------


def _import_error(target: str) -> Any:
    diagnostics = Diagnostics(file=target)
    modules, path = set(sys.modules), list(sys.path)
    with pytest.raises(GenerationError) as info:
        parse_python(target, name=None, include=[], exclude=[], max_name_length=64, diagnostics=diagnostics)
    assert not {m for m in set(sys.modules) - modules if m.startswith("_mcpgen_source_")}
    assert sys.path == path
    [error] = [d for d in info.value.diagnostics if d.level is Level.ERROR]
    return error


def test_import_raising_is_an_error_at_the_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.py"
    path.write_text("import os\n\nraise RuntimeError('no database')\n")
    error = _import_error(str(path))
    assert error.message == f"cannot import {path}: RuntimeError: no database"
    assert (error.file, error.line) == (str(path), 3)


def test_syntax_error_is_an_error_at_the_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.py"
    path.write_text("x = 1\ndef f(:\n")
    error = _import_error(str(path))
    assert "SyntaxError" in error.message and error.line == 2


def test_file_target_sibling_import_has_a_hint(tmp_path: Path) -> None:
    (tmp_path / "sibling.py").write_text("X = 1\n")
    path = tmp_path / "main.py"
    path.write_text("import sibling\n")
    error = _import_error(str(path))
    assert "ModuleNotFoundError: No module named 'sibling'" in error.message
    assert "module name" in error.hint


def test_missing_module_and_missing_file(tmp_path: Path) -> None:
    error = _import_error("no_such_pkg_xyz.tools")
    assert "ModuleNotFoundError" in error.message and "installed" in error.hint
    assert "no such file" in _import_error(str(tmp_path / "absent.py")).message
    assert "is a directory" in _import_error(str(tmp_path) + "/").message


# --- determinism ----------------------------------------------------------------------


_DUMP = """
import dataclasses, json, sys
from mcpgen.diagnostics import Diagnostics
from mcpgen.sources.python import parse_python
for target in sys.argv[1:]:
    d = Diagnostics()
    p = parse_python(target, name=None, include=[], exclude=[], max_name_length=64, diagnostics=d)
    print(json.dumps(dataclasses.asdict(p)), [str(x) for x in d.items])
"""


def test_output_is_deterministic_across_hash_seeds(tmp_path: Path) -> None:
    path = write_module(tmp_path, "def f(tags: set[str] = {'x', 'y', 'z', 'w', 'v'}, n: int = 1) -> None:\n    pass\n")
    outputs = set()
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        run = subprocess.run(
            [sys.executable, "-c", _DUMP, str(path), str(SAMPLE)],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
            check=True,
        )
        outputs.add(run.stdout)
    assert len(outputs) == 1


def test_sample_module(tmp_path: Path) -> None:
    project, diagnostics = parse(SAMPLE)
    assert [t.name for t in project.tools] == [
        "add_item",
        "find_items",
        "adjust_stock",
        "move_item",
        "low_stock",
        "tag_items",
        "place_order",
        "remove_item",
        "export_items",
    ]
    assert [(d.level, d.line) for d in diagnostics.items] == [
        (Level.WARNING, _line_of(SAMPLE, "def restock")),
        (Level.INFO, None),
    ]
    assert "'skus' is *args" in diagnostics.items[0].message
    assert project.name == "inventory" and "'tools' says little" in diagnostics.items[1].message
    for t in project.tools:
        assert_strict_schema(t.input_schema)
        if t.output_schema is not None:
            assert_strict_schema(t.output_schema)
    assert tool(project, "place_order").call.is_async
    assert tool(project, "remove_item").output_schema is None
    assert tool(project, "find_items").wraps_result and not tool(project, "add_item").wraps_result


def _line_of(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


# --- the generated functions.py -------------------------------------------------------

KIT = '''\
"""Kit."""
from __future__ import annotations

import asyncio
import dataclasses
import enum
import threading
from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, Field


class Mode(enum.Enum):
    FAST = "fast"
    SLOW = "slow"


@dataclasses.dataclass
class Box:
    width: float
    label: str = ""


class Point(BaseModel):
    x: int
    y: int = 0


def describe(box: Box, mode: Mode = Mode.FAST, tags: tuple[str, ...] = ()) -> dict[str, object]:
    return {"box": type(box).__name__, "width": box.width, "mode": mode is Mode.SLOW, "tags": list(tags)}


def shift(p: Point, dx: Annotated[int, Field(ge=0, le=10)] = 1) -> Point:
    return Point(x=p.x + dx, y=p.y)


def where() -> str:
    return threading.current_thread().name


async def where_async(delay: float = 0) -> bool:
    await asyncio.sleep(delay)
    return threading.current_thread() is threading.main_thread()


def stamp(when: datetime):
    return {"when": when, "mode": Mode.SLOW}


def echo(limit: int = 7) -> int:
    return limit


def fail(message: str) -> None:
    raise ValueError(message)
'''


@dataclasses.dataclass
class Generated:
    project: Project
    root: Path
    functions: Any


@pytest.fixture
def generated(tmp_path: Path) -> Iterator[Generated]:
    """The copied module as an importable package, served by the runtime at source."""
    source = tmp_path / "kit.py"
    source.write_text(KIT)
    project, _ = parse(source, name=f"kit {tmp_path.name}")  # a package name unique to this test
    root = tmp_path / "out"
    package = root / project.package
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    for relative, text in project.copied_files:
        (package / relative).parent.mkdir(exist_ok=True)
        (package / relative).write_text(text)
    sys.path.insert(0, str(root))
    calls = {t.name: (t.call.module, t.call.function, t.call.is_async) for t in project.tools if t.call}
    runtime_project.install(
        RuntimeProject(package=project.package, name="kit", title="Kit", version="1", command="kit-mcp",
                       env_prefix="KIT", source="python", functions=calls)
    )
    try:
        yield Generated(project, package, runtime_functions)
    finally:
        runtime_project._installed.clear()
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m == project.package or m.startswith(project.package + ".")]:
            del sys.modules[name]


def call(generated: Generated, name: str, arguments: Any) -> Any:
    async def run() -> Any:
        return await generated.functions.invoke(name, arguments)

    return anyio.run(run)


def test_invoke_converts_into_declared_types(generated: Generated) -> None:
    result = call(generated, "describe", {"box": {"width": 2}, "mode": "slow", "tags": ["a", "b"]})
    assert result == {"box": "Box", "width": 2.0, "mode": True, "tags": ["a", "b"]}


def test_invoke_serialises_models_and_uses_function_defaults(generated: Generated) -> None:
    assert call(generated, "shift", {"p": {"x": 1}}) == {"x": 2, "y": 0}
    assert call(generated, "echo", {}) == 7
    # No return annotation: pydantic_core's generic conversion (datetimes, enums).
    assert call(generated, "stamp", {"when": "2024-05-01T12:00:00Z"}) == {
        "when": "2024-05-01T12:00:00Z",
        "mode": "slow",
    }


def test_invoke_runs_sync_functions_in_a_worker_thread_and_awaits_async_ones(generated: Generated) -> None:
    assert call(generated, "where", {}) != "MainThread"
    assert call(generated, "where_async", {"delay": 0}) is True


def test_invoke_rejects_bad_arguments_naming_each_field(generated: Generated) -> None:
    with pytest.raises(generated.functions.InvalidArguments) as info:
        call(generated, "shift", {"p": {"x": "one"}, "dx": 11, "extra": 1})
    errors = info.value.errors
    assert errors[0].startswith("p.x: Input should be a valid integer")
    assert errors[1] == "dx: Input should be less than or equal to 10"
    assert errors[2] == "extra: Extra inputs are not permitted"
    with pytest.raises(generated.functions.InvalidArguments) as info:
        call(generated, "describe", {"mode": "medium"})
    assert info.value.errors == ["box: Field required", "mode: Input should be 'fast' or 'slow'"]


def test_function_errors_propagate_and_unknown_tools_raise_keyerror(generated: Generated) -> None:
    with pytest.raises(ValueError, match="out of stock"):
        call(generated, "fail", {"message": "out of stock"})
    with pytest.raises(KeyError):
        call(generated, "nope", {})
