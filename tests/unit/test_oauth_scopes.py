"""Inbound OAuth scopes per tool: from the operations' oauth2/openIdConnect security
requirements, overridden in mcpgen.toml (`[tools.X] scopes`, `[options] default_scopes`),
written to tools.json and project.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcpgen.api import generate_openapi
from mcpgen.options import Options, ResourceSpec, RouteRule, ToolOverride
from mcpgen.project.project_file import ProjectFile, read_project_file, render_project_file
from tests.unit.spec_helpers import ok, parse, spec

SCHEMES = {
    "securitySchemes": {
        "oauth": {"type": "oauth2", "flows": {"implicit": {"authorizationUrl": "https://a/x", "scopes": {}}}},
        "oidc": {"$ref": "#/components/securitySchemes/oidcReal"},
        "oidcReal": {"type": "openIdConnect", "openIdConnectUrl": "https://a/.well-known/openid-configuration"},
        "key": {"type": "apiKey", "in": "header", "name": "X-Key"},
    }
}


def _document() -> dict[str, Any]:
    op = {"responses": ok()}
    return spec(
        {
            "/a": {"get": {**op, "operationId": "inherited"}},
            "/b": {"get": {**op, "operationId": "alternatives", "security": [
                {"oauth": ["w", "r", "w"]}, {"oidc": ["admin"], "key": []}, {"key": []},
            ]}},
            "/c": {"get": {**op, "operationId": "keyOnly", "security": [{"key": []}]}},
            "/d": {"get": {**op, "operationId": "anonymous", "security": []}},
            "/e": {"get": {**op, "operationId": "noScopes", "security": [{"oauth": []}]}},
        },
        security=[{"oauth": ["r"]}],
        components=SCHEMES,
    )


def test_scopes_come_from_oauth2_and_openid_connect_requirements(tmp_path: Path) -> None:
    project, _ = parse(tmp_path, _document())
    scopes = {tool.name: tool.scopes for tool in project.tools}
    assert scopes == {
        "inherited": (("r",),),  # the document's security
        "alternatives": (("r", "w"), ("admin",)),  # one alternative per requirement naming OAuth
        "keyOnly": None,  # no OAuth requirement: the default scopes apply
        "anonymous": None,
        "noScopes": ((),),  # OAuth without scopes: a valid token is enough
    }


def test_generated_tools_json_and_project_py_carry_the_scopes(tmp_path: Path) -> None:
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(_document()))
    out = tmp_path / "out"
    options = Options(
        output=out,
        force=True,
        models=False,
        default_scopes=("api",),
        overrides=(ToolOverride(key="inherited", scopes=("x", "y")), ToolOverride(key="alternatives", scopes=())),
    )
    generate_openapi(path, options)
    package = next(p for p in (out / "src").iterdir() if p.is_dir())
    entries = {e["tool"]["name"]: e.get("scopes") for e in json.loads((package / "tools.json").read_text())}
    assert entries == {
        "inherited": [["x", "y"]],
        "alternatives": [[]],
        "keyOnly": None,
        "anonymous": None,
        "noScopes": [[]],
    }
    assert "default_scopes=(\"api\",)" in (package / "project.py").read_text()
    text = (out / "mcpgen.toml").read_text()
    assert 'default_scopes = ["api"]' in text and 'scopes = ["x", "y"]' in text and "scopes = []" in text
    assert "SPEC_MCP_OAUTH_ISSUER" in (out / "README.md").read_text() or "_MCP_OAUTH_ISSUER" in (out / "README.md").read_text()


def test_project_file_round_trips_scopes(tmp_path: Path) -> None:
    original = ProjectFile(
        source_kind="openapi",
        source="spec.yaml",
        options=Options(
            default_scopes=("mcp:use",),
            overrides=(ToolOverride(key="a", scopes=("pets:read",)), ToolOverride(key="b", scopes=())),
        ),
    )
    (tmp_path / "mcpgen.toml").write_text(render_project_file(original, "a"))
    read, diagnostics = read_project_file(tmp_path)
    assert read == original
    assert not diagnostics.items


def test_resources_made_from_operations_carry_their_scopes(tmp_path: Path) -> None:
    """An operation served only as a resource (a route rule) or as a tool and a resource
    (`--resources`) needs the same scopes either way: resources.json states them."""
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(_document()))
    out = tmp_path / "out"
    options = Options(
        output=out,
        force=True,
        models=False,
        resources=True,
        routes=(RouteRule(action="resource", operations=("alternatives",)),),
        overrides=(ToolOverride(key="inherited", scopes=("x",)),),
    )
    generate_openapi(path, options)
    package = next(p for p in (out / "src").iterdir() if p.is_dir())
    tools = {e["tool"]["name"] for e in json.loads((package / "tools.json").read_text())}
    assert "alternatives" not in tools  # served as a resource only
    scopes = {e["name"]: e.get("scopes") for e in json.loads((package / "resources.json").read_text())}
    assert scopes == {
        "alternatives": [["r", "w"], ["admin"]],
        "inherited": [["x"]],  # the tool's override reaches its resource
        "keyOnly": None,  # none stated: the runtime applies default_scopes
        "anonymous": None,
        "noScopes": [[]],
    }


def test_project_file_round_trips_resource_scopes(tmp_path: Path) -> None:
    original = ProjectFile(
        source_kind="python",
        source="tools.py",
        options=Options(resource_functions=(
            ResourceSpec(function="a", uri="x://a", scopes=("stock:read",)),
            ResourceSpec(function="b", uri="x://b", scopes=()),
            ResourceSpec(function="c", uri="x://c"),
        )),
    )
    (tmp_path / "mcpgen.toml").write_text(render_project_file(original, "a"))
    read, diagnostics = read_project_file(tmp_path)
    assert read == original
    assert not diagnostics.items
