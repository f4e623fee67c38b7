"""The pieces of regeneration, each on its own: mcpgen.toml round trip and errors, the
sync plan against a directory, and the change report's classification."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpgen.diagnostics import GenerationError
from mcpgen.options import OperationFilter, Options, ToolOverride
from mcpgen.project.changes import Served, compare, pair_tools
from mcpgen.project.manifest import Manifest, digest, with_header
from mcpgen.project.project_file import ProjectFile, read_project_file, render_project_file, toml_line_resolver
from mcpgen.project.sync import apply, plan

# -- mcpgen.toml ---------------------------------------------------------------------


def test_project_file_round_trips(tmp_path: Path) -> None:
    original = ProjectFile(
        source_kind="openapi",
        source='specs/my "api".yaml',
        options=Options(
            name="shop",
            max_name_length=48,
            models=False,
            filters=OperationFilter(include_tags=("pets", "st*"), methods=("GET",), include_deprecated=True),
            overrides=(
                ToolOverride(key="a.b", name="renamed", title='Say "hi"\nthere', hidden=False, read_only=True),
                ToolOverride(key="gone", hidden=True),
            ),
        ),
    )
    (tmp_path / "mcpgen.toml").write_text(render_project_file(original, "listPets"))
    read, diagnostics = read_project_file(tmp_path)
    assert read == original
    assert not diagnostics.items


def test_python_module_project_file_keeps_workdir(tmp_path: Path) -> None:
    original = ProjectFile(source_kind="python", source="pkg.tools", workdir="..", options=Options(include=("get_*",)))
    (tmp_path / "mcpgen.toml").write_text(render_project_file(original, "get_x"))
    assert read_project_file(tmp_path)[0] == original


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        ('[source]\nopenapi = "a.yaml"\npython = "m"\n', "source: give exactly one of", 1),
        ('[source]\nopenapi = "a.yaml"\n[options]\nmax_name_length = 0\n', "options.max_name_length: expected an integer", 4),
        ('[source]\nopenapi = "a.yaml"\n[options]\ninclude = ["x"]\n', "options.include: unknown key", 4),
        ('[source]\nopenapi = "a.yaml"\n[filters]\nmethods = ["FETCH"]\n', "unknown HTTP method 'FETCH'", 4),
        ('[source]\nopenapi = "a.yaml"\n[filters]\ninclude_tags = "pets"\n', "expected a list of strings", 4),
        ('[source]\npython = "m"\n[filters]\ninclude_tags = []\n', "filters: operation filters apply to OpenAPI", 3),
        ('[source]\nopenapi = "a.yaml"\n\n[tools."x"]\nannotations = { readonly = true }\n',
         "tools.x.annotations.readonly: unknown key", 5),
        ('[source]\nopenapi = "a.yaml"\n[tools.x]\ndescription = ""\n', "expected a non-empty string", 4),
    ],
)
def test_project_file_errors_name_key_and_line(tmp_path: Path, text: str, message: str, line: int) -> None:
    (tmp_path / "mcpgen.toml").write_text(text)
    with pytest.raises(GenerationError) as caught:
        read_project_file(tmp_path)
    found = [d for d in caught.value.diagnostics if message in d.message]
    assert found, [str(d) for d in caught.value.diagnostics]
    assert found[0].line == line
    assert found[0].file.endswith("mcpgen.toml")


def test_line_resolver_falls_back_to_enclosing_table() -> None:
    resolve = toml_line_resolver('# c\n[a]\nx = 1\n\n[tools."odd.name"]\nname = "n"\n')
    assert resolve("a.x") == 3
    assert resolve("a.y") == 2
    assert resolve('tools."odd.name".name') == 6
    assert resolve("nowhere") is None


# -- sync plan -------------------------------------------------------------------------


def _project(tmp_path: Path, files: dict[str, str]) -> Manifest:
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    return Manifest("0", {p: digest(t) for p, t in files.items()}, ("hooks.py",))


def test_plan_classifies_every_file(tmp_path: Path) -> None:
    manifest = _project(
        tmp_path, {"same.py": "a\n", "old.py": "a\n", "edited.py": "a\n", "gone.py": "x\n", "gone_edited.py": "x\n"}
    )
    (tmp_path / "edited.py").write_text("a\nmine\n")
    (tmp_path / "gone_edited.py").write_text("mine\n")
    (tmp_path / "hooks.py").write_text("user code\n")
    generated = {"same.py": "a\n", "old.py": "b\n", "edited.py": "b\n", "new.py": "n\n"}
    the_plan = plan(tmp_path, generated, {"hooks.py": "template\n", "custom.py": "template\n"}, manifest)
    assert the_plan.create == ["new.py", "custom.py"]
    assert the_plan.update == ["old.py"]
    assert the_plan.delete == ["gone.py"]
    assert the_plan.kept == ["gone_edited.py"]
    assert [(c.path, c.added, c.removed) for c in the_plan.blocking] == [("edited.py", 1, 2)]


def test_apply_with_force_keeps_orig_and_never_touches_user_files(tmp_path: Path) -> None:
    manifest = _project(tmp_path, {"pkg/a.py": "a\n", "pkg/sub/gone.py": "g\n"})
    (tmp_path / "pkg/a.py").write_text("a\nmine\n")
    (tmp_path / "pkg/hooks.py").write_text("user code\n")
    generated = {"pkg/a.py": "b\n"}
    user = {"pkg/hooks.py": "template\n"}
    the_plan = plan(tmp_path, generated, user, manifest)
    with pytest.raises(ValueError, match="conflicts present"):
        apply(tmp_path, the_plan, generated, user, manifest, force=False)
    new_manifest = Manifest("0", {"pkg/a.py": digest("b\n")}, ("pkg/hooks.py",))
    backups = apply(tmp_path, the_plan, generated, user, new_manifest, force=True)
    assert backups == ["pkg/a.py.orig"]
    assert (tmp_path / "pkg/a.py.orig").read_text() == "a\nmine\n"
    assert (tmp_path / "pkg/a.py").read_text() == "b\n"
    assert (tmp_path / "pkg/hooks.py").read_text() == "user code\n"
    assert not (tmp_path / "pkg/sub").exists()  # emptied by the deletion, removed
    assert not list(tmp_path.glob(".mcpgen-staging-*"))


def test_headers_only_where_the_format_allows() -> None:
    assert with_header("a/x.py", "x = 1\n").startswith("# Generated by mcpgen")
    assert with_header("README.md", "# T\n").startswith("<!-- Generated by mcpgen")
    assert with_header("tools.json", "[]\n") == "[]\n"
    assert with_header("py.typed", "") == ""


# -- change report ---------------------------------------------------------------------


def _tool(name: str, props: dict[str, object], required: list[str], output: dict[str, object] | None = None) -> dict:
    tool: dict[str, object] = {
        "name": name,
        "description": "d",
        "inputSchema": {"type": "object", "properties": props, "required": required},
    }
    if output is not None:
        tool["outputSchema"] = output
    return tool


def test_change_classification() -> None:
    old = {
        "get": _tool("get", {"id": {"type": "integer"}, "q": {"type": "string"}, "x": {}}, ["id"],
                     {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}}),
        "opt": _tool("opt", {"mode": {"type": "string", "enum": ["a", "b"]}, "r": {"type": "string"}}, ["r"]),
        "gone": _tool("gone", {}, []),
    }
    new = {
        "fetch": _tool("fetch", {"id": {"type": "string"}, "q": {"type": "string"}, "new": {"type": "string"}},
                       ["id", "q", "new"], {"type": "object", "properties": {"a": {"type": "string"}, "c": {}}}),
        "opt": _tool("opt", {"mode": {"type": "string", "enum": ["a", "b", "c"]}, "r": {"type": "string"}}, []),
        "added": _tool("added", {}, []),
    }
    old_ids = {"get": Served("GET /x", "GET /x"), "opt": Served("GET /o", "GET /o"), "gone": Served("DELETE /g", "DELETE /g")}
    new_ids = {"fetch": Served("GET /x", "GET /x"), "opt": Served("GET /o", "GET /o"), "added": Served("POST /a", "POST /a")}
    found = {(c.tool, c.change, c.detail): c.breaking for c in compare(old, old_ids, new, new_ids)}
    assert found == {
        ("added", "added", "new tool"): False,
        ("gone", "removed", "tool removed"): True,
        ("fetch", "renamed", "renamed from 'get'"): True,
        ("fetch", "input_added", "argument `new` added (required)"): True,
        ("fetch", "input_removed", "argument `x` removed"): True,
        ("fetch", "input_required", "argument `q` is now required"): True,
        ("fetch", "input_type", "argument `id`: type integer -> string"): True,
        ("fetch", "output_added_field", "result field `c` added"): False,
        ("fetch", "output_removed_field", "result field `b` removed"): True,
        ("opt", "input_optional", "argument `r` is now optional"): False,
        ("opt", "input_type", "argument `mode`: new values allowed"): False,
    }


def test_unchanged_catalog_reports_nothing() -> None:
    tools = {"a": _tool("a", {"x": {"type": "string"}}, ["x"])}
    assert compare(tools, {"a": Served("GET /a", "GET /a")}, tools, {"a": Served("GET /a", "GET /a")}) == []


def test_a_moved_route_is_the_same_tool_with_its_argument_changes() -> None:
    """GitHub's actions_create-environment-variable moved from /repositories/{repository_id}/...
    to /repos/{owner}/{repo}/... keeping its operationId: one tool, a route change, the
    arguments that changed with it."""
    old_route = "POST /repositories/{repository_id}/environments/{environment_name}/variables"
    new_route = "POST /repos/{owner}/{repo}/environments/{environment_name}/variables"
    name = "actions_create-environment-variable"
    old = {name: _tool(name, {"repository_id": {"type": "integer"}, "environment_name": {"type": "string"}},
                       ["repository_id", "environment_name"])}
    new = {name: _tool(name, {"owner": {"type": "string"}, "repo": {"type": "string"},
                              "environment_name": {"type": "string"}}, ["owner", "repo", "environment_name"])}
    operation = "operation actions/create-environment-variable"
    found = {(c.change, c.detail): c.breaking
             for c in compare(old, {name: Served(operation, old_route)}, new, {name: Served(operation, new_route)})}
    assert found == {
        ("route", f"route changed: {old_route} -> {new_route}"): False,
        ("input_removed", "argument `repository_id` removed"): True,
        ("input_added", "argument `owner` added (required)"): True,
        ("input_added", "argument `repo` added (required)"): True,
    }


def test_pairing_by_operation_then_route_then_name() -> None:
    old = {"a": Served("operation op1", "GET /a"), "b": Served("GET /b", "GET /b"), "c": Served("GET /c", "GET /c"),
           "d": Served("operation dup", "GET /d1"), "e": Served("operation dup", "GET /e")}
    new = {"renamed_a": Served("operation op1", "GET /a2"),  # an override renamed it as its route moved
           "b2": Served("operation b", "GET /b"),  # an old manifest's route identity: paired by route
           "c": Served("operation c", "GET /c-moved"),  # old manifest, route moved: paired by name
           "d": Served("operation dup", "GET /d1"), "x": Served("operation dup", "GET /x")}
    assert pair_tools(old, new) == {"a": "renamed_a", "b": "b2", "c": "c", "d": "d"}  # duplicate ids pair by route
