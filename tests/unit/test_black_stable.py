"""Templates render Python exactly as black writes it.

black formats a module a second time whenever its first pass changes anything; a module
that is already black's output costs one pass, so big specs generate faster. This checks
the pre-format text of every template-rendered module (not `models/`, which
datamodel-code-generator writes: see test_model_selection.py).
"""

from __future__ import annotations

import ast
import difflib
from functools import cache
from pathlib import Path

import black
import pytest

from mcpgen import api
from mcpgen.diagnostics import Diagnostics
from mcpgen.ir import Project
from mcpgen.options import Options, PromptArgumentSpec, PromptMessageSpec, PromptSpec, ResourceSpec
from mcpgen.rendering.render import environment, pyassign, pyentry, render_project, render_user_files
from mcpgen.rendering.scaffold import _FILES, _context, project_names
from mcpgen.transforms.prompts import apply_prompts
from mcpgen.transforms.resources import bind_functions
from mcpgen.writer import _MODE
from tests.golden.cases import CASES, SAMPLES, Case

# Beyond the golden cases, the branches they leave out: resources, prompts and completion
# modules, a dynamic Python server. name -> (case, --resources, declared prompt, bound resource)
EXTRA = {
    "petstore-resources-prompts": (CASES[0], True, True, False),
    "petstore-resources": (CASES[0], True, False, False),
    "tools-prompts": (CASES[2], False, True, False),
    "tools-resources-dynamic": (Case("tools", "tools.py", "python", "dynamic"), False, False, True),
}
PROMPT = PromptSpec(
    name="review",
    title="Review",
    description="Ask for a review.",
    arguments=(
        PromptArgumentSpec(name="subject", description="What to review", required=True, values=("a", "b")),
        PromptArgumentSpec(name="tone"),
    ),
    messages=(PromptMessageSpec(role="user", text="Review {subject} in a {tone} tone."),),
)
RESOURCE = ResourceSpec(function="export_items", uri="inventory://export", mime_type="text/csv")


def _skipped(path: str) -> bool:
    return "/models/" in path


def _project(case: Case, resources: bool = False, prompts: bool = False, bound: bool = False) -> Project:
    options = Options(
        tool_mode=case.tool_mode,
        client_profile=case.client_profile,
        resources=resources,
        resource_functions=(RESOURCE,) if bound else (),
    )
    if case.kind == "openapi":
        project, diagnostics = api.build_openapi(SAMPLES / case.source, options)
    else:
        project, diagnostics = api.build_python(str(SAMPLES / case.source), options)
    notes = Diagnostics(file="mcpgen.toml")
    if bound:
        project = bind_functions(project, (RESOURCE,), notes)
    if prompts:
        project = apply_prompts(project, (PROMPT,), notes)
    assert not notes.has_errors, notes.items
    project, _ = api.shape_surface(project, diagnostics, options)
    return project


@cache
def _rendered(name: str) -> dict[str, str]:
    """Pre-format Python modules of one case, by path."""
    if name == "new":
        env = environment()
        names = project_names("weather-tools")
        files = {path.format(package=names.package): env.get_template(f"new/{t}").render(_context(names))
                 for path, t in _FILES.items()}
    else:
        golden = {case.name: (case, False, False, False) for case in CASES}
        project = _project(*{**golden, **EXTRA}[name])
        copied = {f"src/{project.package}/{relative}" for relative, _ in project.copied_files}  # the user's, kept as is
        files = {path: text for path, text in render_project(project).items() if path not in copied}
        files.update(render_user_files(project))
    return {path: text for path, text in files.items() if path.endswith(".py") and not _skipped(path)}


CASE_NAMES = [case.name for case in CASES] + list(EXTRA) + ["new"]
PARAMS = [pytest.param(name, path, id=f"{name}:{path}") for name in CASE_NAMES for path in _rendered(name)]


@pytest.mark.parametrize(("case", "path"), PARAMS)
def test_rendered_module_is_black_stable(case: str, path: str) -> None:
    text = _rendered(case)[path]
    formatted = black.format_str(text, mode=_MODE)
    if formatted != text:
        diff = difflib.unified_diff(text.splitlines(), formatted.splitlines(), "rendered", "black", lineterm="", n=1)
        pytest.fail(f"{path} ({case}) changes under black:\n" + "\n".join(list(diff)[:60]), pytrace=False)


def test_every_case_renders_modules() -> None:
    assert all(_rendered(name) for name in CASE_NAMES)
    assert any(Path(path).name == "prompts.py" for path in _rendered("petstore-resources-prompts"))
    assert any(Path(path).name == "resources.py" for path in _rendered("tools-resources-dynamic"))


LONG = "x" * 90
LITERALS = [
    ("X", {"a": 1}),
    ("X", LONG),
    ("X", LONG + "y" * 20),
    ("X: str | None", LONG),
    ("X: tuple[str, ...]", ()),
    ("X: tuple[str, ...]", (LONG,)),
    ("X: tuple[str, ...]", ("A_KEY", "A_USERNAME", "A_PASSWORD", LONG[:40])),
    ("SCHEMES: dict[str, dict[str, Any]]", {"k": {"kind": "oauth2", "env": ["A", "B"], "tokenUrl": LONG}, "j": {}}),
    ("X", {LONG: [LONG[:5]], "b": [[LONG], None, True, 1.5]}),
]


@pytest.mark.parametrize(("target", "value"), LITERALS)
def test_literal_layout_is_what_black_writes(target: str, value: object) -> None:
    text = pyassign(value, target) + "\n"
    assert black.format_str(text, mode=_MODE) == text
    assert ast.literal_eval(text.split(" = ", 1)[1]) == value
    entry = "X = {\n    " + pyentry(value, "some_tool") + "\n}\n"
    assert black.format_str(entry, mode=_MODE) == entry
    assert ast.literal_eval(entry[4:]) == {"some_tool": value}
