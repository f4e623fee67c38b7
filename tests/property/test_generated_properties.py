"""Property-based: random valid OpenAPI specs and random Python signatures always give a
server that compiles, imports, lists tools with compliant unique names and valid JSON
Schema 2020-12 schemas, and regenerates byte-identically.

Generation and listing run in-process (the SDK's in-memory transport). The default run is
bounded; `HYPOTHESIS_PROFILE=long` runs many more examples.
"""

from __future__ import annotations

import json
import keyword
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from mcpgen import api
from mcpgen.diagnostics import Diagnostic
from mcpgen.ir import Project
from mcpgen.options import Options
from mcpgen.rendering.render import render_project
from tests.hostile.inprocess import check_tools, list_tools

# Settings on each test, not a loaded profile: a profile is global, and loading one here
# changed every other module's property tests (20 examples instead of hypothesis' 100).
_HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture]
# Shrinking a failure costs minutes here (each example generates a package): only the long run shrinks.
_NO_SHRINK = [Phase.explicit, Phase.reuse, Phase.generate]
_PROFILES = {
    "default": settings(max_examples=20, deadline=None, suppress_health_check=_HEALTH, phases=_NO_SHRINK),
    "long": settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck)),
    "search": settings(max_examples=300, deadline=None, suppress_health_check=_HEALTH, phases=_NO_SHRINK),  # find
}
_PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "default")
if _PROFILE not in _PROFILES:
    raise ValueError(f"HYPOTHESIS_PROFILE={_PROFILE!r}: expected one of {', '.join(_PROFILES)}")
_SETTINGS = _PROFILES[_PROFILE]


# -- text: mostly plain, sometimes hostile -----------------------------------------

_HOSTILE = ['"""', "'''", "\\", "{{ x }}", "{% if %}", "\n", "\u2028", "\x85", "\x0c", "#", "`", "é", "日本"]
words = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12)
text = st.one_of(words, st.lists(st.sampled_from(_HOSTILE) | words, max_size=4).map("".join))
names = st.one_of(
    st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,10}", fullmatch=True),
    st.sampled_from([*keyword.kwlist[:10], "os", "json", "self", "types", "httpx2", "__init__", "print", "id"]),
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]), min_size=1, max_size=10),
)

# -- OpenAPI -------------------------------------------------------------------------

_SCALARS = [
    ({"type": "string"}, st.text(max_size=5)),
    ({"type": "integer"}, st.integers(-1000, 1000)),
    ({"type": "number"}, st.floats(-1e6, 1e6, allow_nan=False)),
    ({"type": "boolean"}, st.booleans()),
]


@st.composite
def scalar_schema(draw: st.DrawFn) -> dict[str, Any]:
    schema, values = draw(st.sampled_from(_SCALARS))
    schema = dict(schema)
    if draw(st.booleans()):
        schema["description"] = draw(text)
    if draw(st.integers(0, 3)) == 0 and schema["type"] != "boolean":
        schema["enum"] = draw(st.lists(values, min_size=1, max_size=4, unique_by=json.dumps))
    if draw(st.integers(0, 3)) == 0:
        schema["default"] = draw(st.sampled_from(schema["enum"])) if "enum" in schema else draw(values)
    if schema["type"] == "string" and draw(st.integers(0, 4)) == 0:
        schema["format"] = draw(st.sampled_from(["date-time", "uuid", "email", "binary", "byte"]))
    return schema


def schemas(refs: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    base = scalar_schema() | (st.sampled_from(refs).map(lambda r: {"$ref": f"#/components/schemas/{r}"})
                              if refs else scalar_schema())

    def extend(children: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
        objects = st.builds(
            lambda props, req: {"type": "object", "properties": props,
                                **({"required": sorted(props)[:req]} if props and req else {})},
            st.dictionaries(names, children, max_size=4), st.integers(0, 2),
        )
        arrays = children.map(lambda c: {"type": "array", "items": c})
        combos = st.builds(lambda k, cs: {k: cs}, st.sampled_from(["anyOf", "oneOf", "allOf"]),
                           st.lists(children, min_size=1, max_size=3))
        return objects | arrays | combos

    return st.recursive(base, extend, max_leaves=8)


@st.composite
def openapi_specs(draw: st.DrawFn) -> dict[str, Any]:
    component_names = draw(st.lists(st.from_regex(r"[A-Z][A-Za-z0-9]{0,8}", fullmatch=True), max_size=3, unique=True))
    components: dict[str, Any] = {}
    for i, name in enumerate(component_names):  # refs only to earlier ones, plus a self-reference
        components[name] = draw(schemas(component_names[: i + 1]))
    all_refs = component_names
    paths: dict[str, Any] = {}
    for _ in range(draw(st.integers(1, 4))):
        segments = draw(st.lists(st.from_regex(r"[a-z0-9_-]{1,8}", fullmatch=True), min_size=1, max_size=3))
        path_params = draw(st.lists(st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,6}", fullmatch=True), max_size=2, unique=True))
        path = "/" + "/".join(segments + [f"{{{p}}}" for p in path_params])
        item = paths.setdefault(path, {})
        for method in draw(st.lists(st.sampled_from(["get", "post", "put", "delete", "patch"]), min_size=1,
                                    max_size=2, unique=True)):
            params = [{"name": p, "in": "path", "required": True, "schema": draw(scalar_schema())} for p in path_params]
            for location in draw(st.lists(st.sampled_from(["query", "header", "cookie"]), max_size=3)):
                params.append({"name": draw(names), "in": location, "required": draw(st.booleans()),
                               "description": draw(text), "schema": draw(schemas(all_refs))})
            operation: dict[str, Any] = {"parameters": params, "responses": {}}
            if draw(st.booleans()):
                operation["operationId"] = draw(names)
            if draw(st.booleans()):
                operation["summary"] = draw(text)
            if method != "get" and draw(st.booleans()):
                operation["requestBody"] = {"required": draw(st.booleans()), "content": {
                    "application/json": {"schema": draw(schemas(all_refs))}}}
            status = draw(st.sampled_from(["200", "201", "204", "default"]))
            response: dict[str, Any] = {"description": draw(text) or "ok"}
            if status != "204" and draw(st.booleans()):
                response["content"] = {"application/json": {"schema": draw(schemas(all_refs))}}
            operation["responses"][status] = response
            item[method] = operation
    spec: dict[str, Any] = {
        "openapi": draw(st.sampled_from(["3.0.3", "3.1.0"])),
        "info": {"title": draw(text) or "t", "version": "1.0", "description": draw(text)},
        "servers": [{"url": "http://127.0.0.1:9/api"}],
        "paths": paths,
    }
    if components:
        spec["components"] = {"schemas": components}
    return spec


# -- checks shared by both sources ------------------------------------------------------


def _generate(build: Callable[[], tuple[Project, list[Diagnostic]]], output: Path) -> list[dict[str, Any]]:
    """Build twice (the rendering must be identical: black is deterministic, so the files
    are too), write once, then compile, import and list."""
    project, diagnostics = build()
    again, _ = build()
    assert render_project(project) == render_project(again), "regeneration is not byte-identical"
    result = api.emit(project, diagnostics, Options(output=output))
    for path, content in result.files.items():
        if path.endswith(".py"):
            compile(content, path, "exec")
    tools = list_tools(output / "src")
    assert len(tools) == len(result.project.tools)
    check_tools(tools)
    return tools


@_SETTINGS
@given(spec=openapi_specs())
def test_random_openapi_specs(spec: dict[str, Any], tmp_path_factory: Any) -> None:
    root = tmp_path_factory.mktemp("openapi")
    (root / "spec.json").write_text(json.dumps(spec))
    tools = _generate(lambda: api.build_openapi(root / "spec.json", Options(name="prop")), root / "out")
    assert len(tools) == sum(len(item) for item in spec["paths"].values())  # valid operations are never skipped


# -- Python signatures -------------------------------------------------------------------

_TYPES = {
    "int": st.integers(-5, 5),
    "str": st.text(max_size=4),
    "float": st.floats(-10, 10, allow_nan=False),
    "bool": st.booleans(),
    "list[int]": st.lists(st.integers(0, 3), max_size=2),
    "dict[str, int]": st.dictionaries(st.text(max_size=3), st.integers(0, 3), max_size=2),
    "str | None": st.none() | st.text(max_size=3),
    "Point": st.nothing(),
    "Shape": st.nothing(),
    "Colour": st.nothing(),
    "list[Point]": st.just([]),
}
_RETURNS = ["int", "str", "None", "Point", "list[Point]", "dict[str, int]", "Shape", "Colour", "bool | None"]
# Names the module's annotations use stay unshadowed (a function named `list` would break
# `list[int]` for the module itself); every other builtin or import name is fair game.
_ANNOTATION_NAMES = {"int", "str", "float", "bool", "list", "dict", "enum", "Literal", "BaseModel", "TypedDict", "None"}
identifiers = st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True).filter(
    lambda s: not keyword.iskeyword(s) and s not in _ANNOTATION_NAMES
)
shadowing = st.sampled_from(["os", "json", "types", "self", "httpx2", "print", "id", "sys", "typing", "cls", "type"])


@st.composite
def python_modules(draw: st.DrawFn) -> str:
    lines = [
        repr(draw(text)),  # the module docstring
        "from __future__ import annotations",
        "import enum",
        "from typing import Literal",
        "from pydantic import BaseModel",
        "from typing_extensions import TypedDict",
        "class Point(BaseModel):",
        f"    x: int = {draw(st.integers(-3, 3))}",
        f"    label: str = {draw(text)!r}",
        "class Shape(TypedDict, total=False):",
        "    points: list[Point]",
        "class Colour(enum.Enum):",
        *[f"    V{i} = {value!r}" for i, value in enumerate(draw(st.lists(text, min_size=1, max_size=3, unique=True)))],
    ]
    functions = draw(st.lists(identifiers | shadowing, min_size=1, max_size=4, unique=True))
    for function in functions:
        params = draw(st.lists(identifiers | shadowing, max_size=4, unique=True))
        required, optional = [], []
        for param in params:
            kind = draw(st.sampled_from([*_TYPES, "literal"]))
            annotation, defaults = kind, _TYPES.get(kind, st.nothing())
            if kind == "literal":
                values = draw(st.lists(text, min_size=1, max_size=3, unique=True))
                annotation = "Literal[" + ", ".join(repr(v) for v in values) + "]"
                defaults = st.sampled_from(values)
            default = draw(st.none() | defaults.map(lambda v: [v])) if kind not in ("Point", "Shape", "Colour") else None
            if default is None:
                required.append(f"{param}: {annotation}")
            else:
                optional.append(f"{param}: {annotation} = {default[0]!r}")
        rendered = (["*"] if draw(st.booleans()) and params else []) + required + optional
        returns = draw(st.sampled_from(_RETURNS))
        prefix = "async def" if draw(st.booleans()) else "def"
        doc = draw(text)
        lines += [f"{prefix} {function}({', '.join(rendered)}) -> {returns}:", f"    {doc!r}", "    raise NotImplementedError"]
    return "\n".join(lines) + "\n"


@_SETTINGS
@given(source=python_modules())
def test_random_python_signatures(source: str, tmp_path_factory: Any) -> None:
    root = tmp_path_factory.mktemp("python")
    module = root / "tools.py"
    module.write_text(source)
    tools = _generate(lambda: api.build_python(str(module), Options(name="prop")), root / "out")
    assert len(tools) == source.count("def ")  # every well-typed function is a tool
