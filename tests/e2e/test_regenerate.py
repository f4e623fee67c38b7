"""Regeneration end to end: generate, edit the user's files and a generated one, change the
spec, regenerate; then run the regenerated server through a real MCP client.

The spec's operations are a subset of the recording upstream's petstore routes, so the
regenerated server can be called for real.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from mcp import Client, StdioServerParameters, stdio_client
from mcp.client.stdio import get_default_environment
from typer.testing import CliRunner

from mcpgen.cli import app

from .upstream import Upstream

pytestmark = pytest.mark.anyio

PACKAGE = "shop_mcp"


def spec_v1() -> dict[str, Any]:
    pet = {
        "type": "object",
        "required": ["name"],
        "properties": {"id": {"type": "integer"}, "name": {"type": "string"}, "status": {"type": "string"}},
    }
    return {
        "openapi": "3.0.3",
        "info": {"title": "Shop", "version": "1.0.0"},
        "servers": [{"url": "http://127.0.0.1:9/api/v3"}],
        "paths": {
            "/pet/{petId}": {
                "parameters": [{"name": "petId", "in": "path", "required": True, "schema": {"type": "integer"}}],
                "get": {
                    "operationId": "getPetById",
                    "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}}}},
                },
                # the only user of Legacy: models are generated for the schemas operations use
                "delete": {
                    "operationId": "deletePet",
                    "responses": {"200": {"description": "gone", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Legacy"}}}}},
                },
            },
            "/store/inventory": {
                "get": {
                    "operationId": "getInventory",
                    "parameters": [{"name": "warehouse", "in": "query", "schema": {"type": "string"}}],
                    "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Inventory"}}}}},
                }
            },
        },
        "components": {
            "schemas": {
                "Pet": pet,
                "Inventory": {"type": "object", "additionalProperties": {"type": "integer"}},
                "Legacy": {"type": "object", "properties": {"old": {"type": "string"}}},
            }
        },
    }


def spec_v2() -> dict[str, Any]:
    """Adds placeOrder, removes deletePet, renames getPetById (same operation), makes
    `warehouse` required and an integer, drops the Legacy schema."""
    spec = spec_v1()
    item = spec["paths"]["/pet/{petId}"]
    del item["delete"]
    item["get"]["operationId"] = "fetchPet"
    inventory = spec["paths"]["/store/inventory"]["get"]
    inventory["parameters"] = [{"name": "warehouse", "in": "query", "required": True, "schema": {"type": "integer"}}]
    spec["paths"]["/store/order"] = {
        "post": {
            "operationId": "placeOrder",
            "requestBody": {"content": {"application/json": {"schema": {"type": "object", "properties": {"petId": {"type": "integer"}}}}}},
            "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}},
        }
    }
    del spec["components"]["schemas"]["Legacy"]
    return spec


HOOKS_EDIT = '''

async def on_request(tool: str, request: httpx2.Request) -> None:  # noqa: F811 - the user's version
    request.headers["X-Hooked-Tool"] = tool or "none"
'''

CUSTOM_TOOL = '''

@tool(title="Shout", read_only=True)
def shout(text: str, times: int = 1) -> str:
    """Upper-case TEXT."""
    return " ".join([text.upper()] * times)
'''


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("regen")
    (root / "spec.yaml").write_text(yaml.safe_dump(spec_v1()))
    code, _, err = run("from-openapi", str(root / "spec.yaml"), "-o", str(root / "shop-mcp"))
    assert code == 0, err
    return root / "shop-mcp"


def test_first_generation_writes_project_file_manifest_and_user_files(project: Path) -> None:
    config = (project / "mcpgen.toml").read_text()
    assert 'openapi = "../spec.yaml"' in config
    manifest = json.loads((project / "mcpgen.manifest.json").read_text())
    pkg = f"src/{PACKAGE}"
    assert f"{pkg}/server.py" in manifest["files"] and f"{pkg}/models/legacy.py" in manifest["files"]
    assert sorted(manifest["user_files"]) == [f"{pkg}/custom_tools.py", f"{pkg}/hooks.py"]
    assert manifest["tools"]["getPetById"] == "operation getPetById"  # its identity: the route may move
    assert (project / pkg / "server.py").read_text().startswith("# Generated by mcpgen")
    assert "Generated by mcpgen" not in (project / pkg / "hooks.py").read_text()
    code, _, err = run("regenerate", str(project), "--check")
    assert code == 0, err
    assert "Up to date" in err


def test_regeneration_keeps_user_code_and_reports_changes(project: Path, upstream: Upstream) -> None:
    pkg = project / "src" / PACKAGE
    with (pkg / "hooks.py").open("a") as f:
        f.write(HOOKS_EDIT)
    with (pkg / "custom_tools.py").open("a") as f:
        f.write(CUSTOM_TOOL)
    config = pkg / "runtime" / "guard.py"  # the runtime copy is covered by the manifest too
    config.write_text(config.read_text() + "\n# my local tweak\n")
    (project.parent / "spec.yaml").write_text(yaml.safe_dump(spec_v2()))
    user_files = {p: (pkg / p).read_bytes() for p in ("hooks.py", "custom_tools.py")}

    # An edited generated file stops the run; nothing changes.
    before = snapshot(project)
    code, out, err = run("regenerate", str(project))
    assert code == 1
    assert "runtime/guard.py: edited since it was generated" in err
    assert snapshot(project) == before

    # --check: exit 1, says what would change, writes nothing.
    code, out, err = run("regenerate", str(project), "--check", "--report", "json")
    assert code == 1
    assert f"update src/{PACKAGE}/server.py" not in err  # the templates did not change
    assert f"delete src/{PACKAGE}/models/legacy.py" in err and f"conflict src/{PACKAGE}/runtime/guard.py" in err
    assert snapshot(project) == before
    report = json.loads(out)
    found = {(c["tool"], c["change"]): c for c in report["changes"]}
    assert found[("placeOrder", "added")]["breaking"] is False
    assert found[("deletePet", "removed")]["breaking"] is True
    assert found[("fetchPet", "renamed")]["detail"] == "renamed from 'getPetById'"
    assert found[("getInventory", "input_required")]["breaking"] is True
    assert "integer" in found[("getInventory", "input_type")]["detail"]
    assert report["summary"] == {"added": 1, "removed": 1, "renamed": 1, "moved": 0, "changed": 1, "breaking": 4}

    # --force: the edited file is kept as .orig and replaced; user files untouched.
    code, out, err = run("regenerate", str(project), "--force")
    assert code == 0, err
    assert f"update src/{PACKAGE}/tools.json" in err and f"delete src/{PACKAGE}/models/legacy.py" in err
    assert "Up to date" not in err
    assert "# my local tweak" in (pkg / "runtime" / "guard.py.orig").read_text()
    assert "# my local tweak" not in config.read_text()
    assert not (pkg / "models" / "legacy.py").exists()  # untouched and no longer generated
    assert {p: (pkg / p).read_bytes() for p in user_files} == user_files
    assert "placeOrder" in out and "BREAKING" in out

    # A second regeneration is a no-op, and --check agrees.
    after = snapshot(project)
    code, _, err = run("regenerate", str(project))
    assert code == 0 and "Up to date" in err
    assert snapshot(project) == after
    assert run("regenerate", str(project), "--check")[0] == 0


async def test_regenerated_server_serves_custom_tools_and_runs_hooks(project: Path, upstream: Upstream) -> None:
    if not (project / "src" / PACKAGE / "runtime" / "guard.py.orig").exists():
        pytest.skip("runs after the regeneration test")  # pytest keeps file order; never skipped in a full run
    env = dict(get_default_environment())
    env.update(PYTHONPATH=str(project / "src"), PYTHONUNBUFFERED="1", SHOP_BASE_URL=upstream.base_url)
    params = StdioServerParameters(command=sys.executable, args=["-m", PACKAGE], env=env)
    async with Client(stdio_client(params), cache=None, read_timeout_seconds=60) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert {"fetchPet", "getInventory", "placeOrder", "shout"} <= set(tools)
        assert "deletePet" not in tools and "getPetById" not in tools
        shout = tools["shout"]
        assert shout.input_schema["required"] == ["text"] and shout.annotations and shout.annotations.read_only_hint
        result = await client.call_tool("shout", {"text": "hi", "times": 2})
        assert not result.is_error and result.structured_content is None  # -> str: the text is the result
        assert [c.text for c in result.content if c.type == "text"] == ["HI HI"]
        bad = await client.call_tool("shout", {"text": 5})
        assert bad.is_error and "text" in bad.content[0].text  # type: ignore[union-attr]
        upstream.clear()
        pet = await client.call_tool("fetchPet", {"petId": 1})
        assert not pet.is_error, pet.content
        (request,) = upstream.take()
        assert request.headers["x-hooked-tool"] == "fetchPet"


def test_overrides_and_filters_from_project_file(project: Path) -> None:
    config = project / "mcpgen.toml"
    text = config.read_text()
    config.write_text(
        text.replace('exclude_tags = []', 'exclude_tags = []\n# hide nothing by tag')
        + '\n[tools.placeOrder]\nname = "order_pet"\ntitle = "Order a pet"\n'
        + 'annotations = { destructive = false }\n\n[tools.getInventory]\nhidden = true\n'
    )
    code, out, err = run("regenerate", str(project), "--report", "json")
    assert code == 0, err
    catalog = json.loads((project / "src" / PACKAGE / "tools.json").read_text())
    names = {entry["tool"]["name"]: entry["tool"] for entry in catalog}
    assert set(names) == {"fetchPet", "order_pet"}
    assert names["order_pet"]["title"] == "Order a pet"
    assert names["order_pet"]["annotations"]["destructiveHint"] is False
    changes = {(c["tool"], c["change"]) for c in json.loads(out)["changes"]}
    assert ("order_pet", "renamed") in changes and ("getInventory", "removed") in changes


@pytest.mark.parametrize(
    ("addition", "message", "line_offset"),
    [
        ("\n[tools.noSuchTool]\ntitle = \"x\"\n", "tools.noSuchTool: no tool of that name", 2),
        ("\n[tools.fetchPet]\nhidden = \"yes\"\n", "tools.fetchPet.hidden: expected true or false", 3),
        ("\n[tools.fetchPet]\ncolour = \"red\"\n", "tools.fetchPet.colour: unknown key", 3),
        ("\n[tools.fetchPet]\nname = \"bad name!\"\n", "tools.fetchPet.name: expected 1-128 characters", 3),
        ("\n[tools.fetchPet]\nname = \"order_pet\"\n", "'order_pet' is already the name of another tool", 0),
        ("\n[surprise]\nx = 1\n", "surprise: unknown key", 2),
        ("\n[tools.fetchPet\n", "not valid TOML", 0),
    ],
)
def test_project_file_errors_are_located(project: Path, addition: str, message: str, line_offset: int) -> None:
    config = project / "mcpgen.toml"
    original = config.read_text()
    before = snapshot(project)
    try:
        config.write_text(original + addition)
        code, _, err = run("regenerate", str(project))
        assert code == 1
        assert message in err
        assert "mcpgen.toml" in err
        if line_offset:
            assert f"(line {len(original.splitlines()) + line_offset})" in err, err
        assert "nothing was written" in err
    finally:
        config.write_text(original)
    assert snapshot(project) == before


def test_missing_source_is_located(project: Path, tmp_path: Path) -> None:
    moved = tmp_path / "elsewhere"
    project_copy = moved / "shop-mcp"
    import shutil

    shutil.copytree(project, project_copy)
    code, _, err = run("regenerate", str(project_copy))
    assert code == 1
    assert "source.openapi: no such file" in err and "(line 6)" in err


def test_python_module_project_regenerates_from_any_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    module = work / "regen_sample_tools.py"
    module.write_text('def double(x: int) -> int:\n    """Double X."""\n    return 2 * x\n')
    monkeypatch.chdir(work)
    code, _, err = run("from-python", "regen_sample_tools", "-o", str(tmp_path / "out"))
    assert code == 0, err
    module.write_text(module.read_text() + '\n\ndef triple(x: int) -> int:\n    """Triple X."""\n    return 3 * x\n')
    monkeypatch.chdir(tmp_path)  # the module is found through mcpgen.toml's workdir, not the cwd
    code, out, err = run("regenerate", "out")
    assert code == 0, err
    assert "+ triple: new tool [compatible]" in out
    catalog = json.loads((tmp_path / "out/src/regen_sample_tools_mcp/tools.json").read_text())
    assert [entry["tool"]["name"] for entry in catalog] == ["double", "triple"]


def test_generating_again_into_a_project_keeps_user_files_and_edits(tmp_path: Path) -> None:
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump(spec_v1()))
    out = tmp_path / "out"
    assert run("from-openapi", str(tmp_path / "spec.yaml"), "-o", str(out))[0] == 0
    hooks = out / "src" / PACKAGE / "hooks.py"
    hooks.write_text(hooks.read_text() + "\n# mine\n")
    readme = out / "README.md"
    readme.write_text(readme.read_text() + "\nmy notes\n")
    code, _, err = run("from-openapi", str(tmp_path / "spec.yaml"), "-o", str(out))
    assert code == 1 and "pass --force" in err
    code, _, err = run("from-openapi", str(tmp_path / "spec.yaml"), "-o", str(out), "--tag", "none", "--force")
    assert code == 0, err
    assert hooks.read_text().endswith("# mine\n")
    assert (out / "README.md.orig").read_text().endswith("my notes\n")
    assert 'include_tags = ["none"]' in (out / "mcpgen.toml").read_text()
    assert json.loads((out / "src" / PACKAGE / "tools.json").read_text()) == []


def moved_spec(path: str, parameters: list[str]) -> dict[str, Any]:
    """One operation whose route (and so its path parameters) changes between releases."""
    return {
        "openapi": "3.0.3", "info": {"title": "Moves", "version": "1"}, "servers": [{"url": "http://127.0.0.1:9"}],
        "paths": {path: {"post": {
            "operationId": "actions/create-environment-variable",
            "parameters": [{"name": p, "in": "path", "required": True,
                            "schema": {"type": "integer" if p == "repository_id" else "string"}} for p in parameters],
            "responses": {"201": {"description": "created"}},
        }}},
    }


@pytest.mark.parametrize(("rename", "legacy"), [(False, False), (True, False), (False, True)])
def test_a_moved_route_is_reported_as_a_route_change_with_its_arguments(tmp_path: Path, rename: bool, legacy: bool) -> None:
    """GitHub's move from /repositories/{repository_id}/... to /repos/{owner}/{repo}/...: the
    same tool (same operationId), also when mcpgen.toml renames it at the same time, and for
    a project whose manifest predates operation identities (it recorded routes only)."""
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(moved_spec(
        "/repositories/{repository_id}/environments/{environment_name}/variables", ["repository_id", "environment_name"])))
    out = tmp_path / "moves-mcp"
    assert run("from-openapi", str(spec), "-o", str(out))[0] == 0
    tool = "actions_create-environment-variable"
    if legacy:
        manifest = json.loads((out / "mcpgen.manifest.json").read_text())
        manifest["tools"] = {tool: "POST /repositories/{repository_id}/environments/{environment_name}/variables"}
        (out / "mcpgen.manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    if rename:
        with (out / "mcpgen.toml").open("a") as project_file:
            project_file.write(f'\n[tools."{tool}"]\nname = "create_env_variable"\n')
        tool = "create_env_variable"
    spec.write_text(yaml.safe_dump(moved_spec(
        "/repos/{owner}/{repo}/environments/{environment_name}/variables", ["owner", "repo", "environment_name"])))

    code, text, _ = run("regenerate", str(out), "--check")  # the text report, nothing written
    assert code == 1 and "1 moved to another route" in text and "route changed: POST /repositories/" in text
    assert "argument `repository_id` removed [BREAKING]" in text
    code, out_json, err = run("regenerate", str(out), "--report", "json")
    assert code == 0, err
    report = json.loads(out_json)
    found = {(c["tool"], c["change"], c["detail"]): c["breaking"] for c in report["changes"]}
    moved = ("route changed: POST /repositories/{repository_id}/environments/{environment_name}/variables"
             " -> POST /repos/{owner}/{repo}/environments/{environment_name}/variables")
    assert found[(tool, "route", moved)] is False
    assert found[(tool, "input_removed", "argument `repository_id` removed")] is True
    assert found[(tool, "input_added", "argument `owner` added (required)")] is True
    assert found[(tool, "input_added", "argument `repo` added (required)")] is True
    assert not any(kind in ("added", "removed") for _, kind, _ in found)  # never "removed [BREAKING]" + "new"
    assert report["summary"]["moved"] == 1 and report["summary"]["renamed"] == (1 if rename else 0)
    assert "no changes" in run("regenerate", str(out))[1]  # applied: nothing changes now


def test_regenerate_keeps_the_name_a_project_was_given(tmp_path: Path) -> None:
    """A project whose mcpgen.toml names no server keeps the name it was generated with, even
    when the default-name rule has changed since (packages and variables would move otherwise)."""
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump({
        "openapi": "3.0.3", "info": {"title": "Swagger Petstore", "version": "1"},
        "paths": {"/p": {"get": {"operationId": "p", "responses": {"204": {"description": "ok"}}}}},
    }))
    out = tmp_path / "out"
    code, _, err = run("from-openapi", str(spec), "-o", str(out), "--name", "swagger-petstore")
    assert code == 0, err
    toml = out / "mcpgen.toml"
    toml.write_text("\n".join(line for line in toml.read_text().splitlines() if not line.startswith("name = ")) + "\n")
    code, _, err = run("regenerate", str(out))
    assert code == 0, err
    assert "Up to date" in err and (out / "src" / "swagger_petstore_mcp" / "project.py").is_file()
    fresh = tmp_path / "fresh"
    code, _, err = run("from-openapi", str(spec), "-o", str(fresh))
    assert code == 0 and "server name 'petstore' (settings PETSTORE_*), shortened from the title" in err, err
