"""Toolset assignment: names, the 3.2 tag hierarchy folded, path prefixes, [toolsets.<name>] globs,
mcpgen.toml round trip, and lint's per-toolset counts against each client's limit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from mcpgen import naming
from mcpgen.api import build_openapi, group_toolsets
from mcpgen.clients import lint
from mcpgen.diagnostics import Diagnostics, GenerationError, Level
from mcpgen.options import Options, problems
from mcpgen.project.project_file import ProjectFile, read_project_file, render_project_file
from mcpgen.transforms.toolsets import path_toolset, tag_toolsets, top_tag
from tests.unit.spec_helpers import ok, spec


@pytest.mark.parametrize(("text", "name"), [
    ("issues", "issues"),
    ("Code Scanning", "code-scanning"),
    ("secret_scanning", "secret_scanning"),
    ("Ünïcode tag!", "unicode-tag"),
    ("---", naming.UNGROUPED_TOOLSET),
    ("x" * 80, "x" * naming.MAX_TOOLSET_NAME),
])
def test_toolset_names(text: str, name: str) -> None:
    assert naming.toolset_name(text) == name


def test_nested_tags_fold_into_their_top_level_ancestor() -> None:
    parents = {"pulls": "repos", "reviews": "pulls", "a": "b", "b": "a"}
    assert top_tag("reviews", parents) == "repos"
    assert top_tag("repos", parents) == "repos"
    assert top_tag("a", parents) in ("a", "b")  # a cycle stops where it repeats
    assert tag_toolsets(("reviews", "pulls", "Gists"), parents) == ("repos", "gists")
    assert tag_toolsets(()) == (naming.UNGROUPED_TOOLSET,)


@pytest.mark.parametrize(("path", "name"), [
    ("/repos/{owner}/{repo}", "repos"),
    ("/{tenant}/users", "users"),
    ("/{id}", naming.UNGROUPED_TOOLSET),
    ("/", naming.UNGROUPED_TOOLSET),
])
def test_path_toolsets(path: str, name: str) -> None:
    assert path_toolset(path) == name


def op(operation_id: str, *tags: str) -> dict[str, Any]:
    return {"operationId": operation_id, "tags": list(tags), "responses": ok()}


DOCUMENT = spec(
    {
        "/repos/{owner}": {"get": op("getRepo", "repos"), "parameters": [
            {"name": "owner", "in": "path", "required": True, "schema": {"type": "string"}}]},
        "/repos/{owner}/pulls": {"get": op("listPulls", "pulls"), "parameters": [
            {"name": "owner", "in": "path", "required": True, "schema": {"type": "string"}}]},
        "/gists": {"get": op("listGists", "gists"), "post": op("createGist", "gists")},
        "/meta": {"get": op("getMeta")},
    },
    # 3.2: tag `parent` is a 3.2 field (a 3.1 document's is ignored with a warning).
    version="3.2.0",
    tags=[{"name": "repos"}, {"name": "pulls", "parent": "repos", "kind": "nav"}, {"name": "gists"}],
)


def grouped(tmp_path: Path, **options: Any) -> tuple[dict[str, tuple[str, ...]], dict[str, str], Diagnostics]:
    path = tmp_path / "spec.json"
    import json

    path.write_text(json.dumps(DOCUMENT))
    chosen = Options.model_validate(options)
    project, diagnostics = build_openapi(path, chosen)
    assert not [d for d in diagnostics if d.level is Level.ERROR]
    notes = Diagnostics()
    project = group_toolsets(project, chosen, notes)
    memberships = {t.operation_id or t.name: t.toolsets for t in project.tools}
    return memberships, {t.name: t.description for t in project.toolsets}, notes


def test_toolsets_from_tags_fold_the_3_2_hierarchy(tmp_path: Path) -> None:
    memberships, toolsets, _ = grouped(tmp_path, toolsets_from="tags")
    assert memberships == {
        "getRepo": ("repos",), "listPulls": ("repos",), "listGists": ("gists",), "createGist": ("gists",),
        "getMeta": ("other",),
    }
    assert list(toolsets) == ["gists", "other", "repos"]
    assert toolsets["other"] == "Tools in no other toolset."


def test_toolsets_from_paths(tmp_path: Path) -> None:
    memberships, _, _ = grouped(tmp_path, toolsets_from="paths")
    assert memberships["listPulls"] == ("repos",) and memberships["getMeta"] == ("meta",)


def test_declared_toolsets_add_to_the_derived_ones(tmp_path: Path) -> None:
    declared = [
        {"name": "writes", "description": "Everything that writes", "operations": ["create*"]},
        {"name": "pull-requests", "paths": ["/repos/*/pulls"]},
        {"name": "empty", "tags": ["nothing*"]},
    ]
    memberships, toolsets, notes = grouped(tmp_path, toolsets_from="tags", toolsets=declared)
    assert memberships["createGist"] == ("gists", "writes")
    assert memberships["listPulls"] == ("repos", "pull-requests")
    assert toolsets["writes"] == "Everything that writes"
    assert [d.message for d in notes.items if d.level is Level.WARNING] == ["toolsets.empty: matches no tool"]


def test_only_declared_toolsets_leave_the_rest_always_served(tmp_path: Path) -> None:
    memberships, toolsets, _ = grouped(tmp_path, toolsets=[{"name": "gists", "tags": ["gists"]}])
    assert memberships["listGists"] == ("gists",) and memberships["getRepo"] == ()
    assert list(toolsets) == ["gists"]


def test_no_toolsets_changes_nothing(tmp_path: Path) -> None:
    memberships, toolsets, _ = grouped(tmp_path)
    assert toolsets == {} and set(memberships.values()) == {()}


@pytest.mark.parametrize(("given", "message"), [
    ({"toolsets": [{"name": "Bad Name", "tags": ["x"]}]}, "1-64 characters"),
    ({"toolsets": [{"name": "x"}]}, "needs `tags`, `paths`, `operations` or `tools`"),
    ({"toolsets": [{"name": "x", "tags": ["a"]}, {"name": "x", "tools": ["b"]}]}, "defined twice"),
    ({"toolsets_from": "folders"}, '"tags" or "paths"'),
])
def test_bad_toolset_options(given: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError) as raised:
        Options.model_validate(given)
    assert any(message in f"{p.message} {p.hint}" for p in problems(raised.value)), problems(raised.value)


def test_mcpgen_toml_round_trip(tmp_path: Path) -> None:
    options = Options.model_validate({
        "toolsets_from": "tags",
        "toolsets": [{"name": "writes", "description": "Writes", "operations": ["create*", "update*"]},
                     {"name": "pr", "paths": "/repos/*/pulls"}],
    })
    text = render_project_file(ProjectFile("openapi", "spec.json", options=options), "getRepo")
    assert 'toolsets_from = "tags"' in text and '[toolsets."writes"]' in text
    (tmp_path / "mcpgen.toml").write_text(text)
    read, _ = read_project_file(tmp_path)
    assert read.options.toolsets_from == "tags"
    assert {t.name: t for t in read.options.toolsets} == {t.name: t for t in options.toolsets}


def test_mcpgen_toml_errors_point_at_the_toolset(tmp_path: Path) -> None:
    (tmp_path / "mcpgen.toml").write_text('[source]\nopenapi = "spec.json"\n\n[toolsets.writes]\nglobs = ["x"]\n')
    with pytest.raises(GenerationError) as raised:
        read_project_file(tmp_path)
    messages = [d.message for d in raised.value.diagnostics]
    assert any(m.startswith("toolsets.writes.globs: unknown key") for m in messages), messages


def test_lint_counts_each_toolset_against_each_client() -> None:
    memberships = {f"t{i}": ("big",) for i in range(130)} | {"x": ("small", "big")}
    sizes = lint.toolset_sizes(memberships)
    assert sizes == {"big": 131, "small": 1}
    report = lint.toolset_report(sizes, ["claude", "cursor", "openai"])
    assert report[0] == {"toolset": "big", "tools": 131, "limits": {"cursor": 40, "openai": 128},
                         "over": ["cursor", "openai"]}
    findings = lint.toolset_findings(report)
    assert [(f.client, f.rule, f.level) for f in findings] == [
        ("cursor", "toolset-tool-count", "warning"), ("openai", "toolset-tool-count", "warning")]
    table = lint.toolset_table(report).splitlines()
    assert table[0].split() == ["TOOLSET", "TOOLS", "CURSOR<=40", "OPENAI<=128"]
    assert table[1].split() == ["big", "131", "over", "over"] and table[2].split() == ["small", "1", "ok", "ok"]
