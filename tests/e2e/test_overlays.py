"""Overlays end to end: a messy spec fixed by an Overlay file, generated, edited by its user,
then a new release of the spec regenerated with the same overlay; the fixes hold, the user's
code stays, the action the new release made stale is reported, and a real client calls the
fixed tool against a real upstream."""

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
HUGE = "Counts of pets by status. " * 2000

FIXES = """\
overlay: 1.0.0
info:
  title: Fixes the Shop spec needs
  version: 1.0.0
actions:
  - target: $.paths['/pet/{petId}'].get
    description: the operation has no operationId
    update:
      operationId: fetchPet
  - target: $.paths['/pet/{petId}'].get.parameters[?@.name == 'petId'].schema
    description: the API takes an integer id
    update:
      type: integer
  - target: $.paths['/store/inventory'].get
    update:
      description: Pet counts by status.
  - target: $.paths['/pet/{petId}'].delete
    description: not for agents
    remove: true
"""

CUSTOM_TOOL = '''

@tool(title="Shout", read_only=True)
def shout(text: str) -> str:
    """Upper-case TEXT."""
    return text.upper()
'''


def release_1() -> dict[str, Any]:
    pet = {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}}
    ok = {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}}}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Shop", "version": "1.0.0"},
        "servers": [{"url": "http://127.0.0.1:9/api/v3"}],
        "paths": {
            "/pet/{petId}": {
                "get": {
                    "parameters": [{"name": "petId", "in": "path", "required": True, "schema": {"type": "boolean"}}],
                    "responses": {"200": ok},
                },
                "delete": {
                    "operationId": "deletePet",
                    "parameters": [{"name": "petId", "in": "path", "required": True, "schema": {"type": "integer"}}],
                    "responses": {"204": {"description": "gone"}},
                },
            },
            "/store/inventory": {
                "get": {
                    "operationId": "getInventory",
                    "description": HUGE,
                    "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}},
                }
            },
        },
        "components": {"schemas": {"Pet": pet}},
    }


def release_2() -> dict[str, Any]:
    """The next release: deletePet is gone (so the overlay's last action matches nothing) and
    placeOrder is new; the mistakes the first three actions fix are still there."""
    spec = release_1()
    spec["info"]["version"] = "2.0.0"
    del spec["paths"]["/pet/{petId}"]["delete"]
    spec["paths"]["/store/order"] = {
        "post": {
            "operationId": "placeOrder",
            "requestBody": {"content": {"application/json": {"schema": {"type": "object", "properties": {"petId": {"type": "integer"}}}}}},
            "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}},
        }
    }
    return spec


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def catalog(project: Path) -> dict[str, dict[str, Any]]:
    entries = json.loads((project / "src" / PACKAGE / "tools.json").read_text())
    return {entry["tool"]["name"]: entry["tool"] for entry in entries}


def test_overlay_fixes_hold_across_two_releases(tmp_path: Path, upstream: Upstream) -> None:
    spec, fixes, project = tmp_path / "spec.yaml", tmp_path / "fixes.yaml", tmp_path / "shop-mcp"
    spec.write_text(yaml.safe_dump(release_1()))
    fixes.write_text(FIXES)
    code, out, err = run("from-openapi", str(spec), "--overlay", str(fixes), "-o", str(project))
    assert code == 0, err
    assert 'overlays = ["../fixes.yaml"]' in (project / "mcpgen.toml").read_text()
    assert "overlay applied: 4 actions" in err
    tools = catalog(project)
    assert set(tools) == {"fetchPet", "getInventory"}  # named by the overlay; deletePet removed
    assert tools["fetchPet"]["inputSchema"]["properties"]["petId"]["type"] == "integer"
    assert tools["getInventory"]["description"].startswith("Pet counts by status.\n")

    custom = project / "src" / PACKAGE / "custom_tools.py"
    custom.write_text(custom.read_text() + CUSTOM_TOOL)
    users = custom.read_bytes()
    spec.write_text(yaml.safe_dump(release_2()))

    code, out, err = run("regenerate", str(project), "--check", "--report", "json")
    assert code == 1, err
    (stale,) = json.loads(out)["stale_overlay_actions"]
    assert (stale["file"], stale["pointer"], stale["line"]) == (str(fixes), "/actions/3/target", 17)

    code, out, err = run("regenerate", str(project))
    assert code == 0, err
    assert f"warning: {fixes}#/actions/3/target (line 17): overlay target" in err
    assert "Overlay actions that match nothing (1; the spec changed under them):" in out
    assert "+ placeOrder: new tool" in out
    tools = catalog(project)
    assert set(tools) == {"fetchPet", "getInventory", "placeOrder"}
    assert tools["fetchPet"]["inputSchema"]["properties"]["petId"]["type"] == "integer"
    assert tools["getInventory"]["description"].startswith("Pet counts by status.\n")
    assert custom.read_bytes() == users

    env = dict(get_default_environment())
    env.update(PYTHONPATH=str(project / "src"), PYTHONUNBUFFERED="1", SHOP_BASE_URL=upstream.base_url)
    params = StdioServerParameters(command=sys.executable, args=["-m", PACKAGE], env=env)

    async def call() -> None:
        async with Client(stdio_client(params), cache=None, read_timeout_seconds=60) as client:
            listed = {t.name for t in (await client.list_tools()).tools}
            assert {"fetchPet", "getInventory", "placeOrder", "shout"} <= listed and "deletePet" not in listed
            result = await client.call_tool("fetchPet", {"petId": 1})
            assert not result.is_error, result.content
            assert result.structured_content is not None and result.structured_content["id"] == 1

    import anyio

    anyio.run(call)
    (request,) = upstream.take()
    assert request.path.endswith("/pet/1")


def test_a_bad_overlay_is_located_and_nothing_is_written(tmp_path: Path) -> None:
    spec, fixes, project = tmp_path / "spec.yaml", tmp_path / "fixes.yaml", tmp_path / "out"
    spec.write_text(yaml.safe_dump(release_1()))
    fixes.write_text(FIXES.replace("remove: true", "remove: yes please"))
    code, _, err = run("from-openapi", str(spec), "--overlay", str(fixes), "-o", str(project))
    assert code == 1
    assert f"error: {fixes}#/actions/3/remove (line 19): `remove` is true or false" in err
    assert "nothing was written" in err and not project.exists()


def test_a_missing_overlay_stops_regenerate(tmp_path: Path) -> None:
    spec, fixes, project = tmp_path / "spec.yaml", tmp_path / "fixes.yaml", tmp_path / "out"
    spec.write_text(yaml.safe_dump(release_1()))
    fixes.write_text(FIXES)
    assert run("from-openapi", str(spec), "--overlay", str(fixes), "-o", str(project))[0] == 0
    fixes.unlink()
    before = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
    code, _, err = run("regenerate", str(project))
    assert code == 1
    assert "source.overlays: no such file" in err and "mcpgen.toml" in err and "(line" in err
    assert {p: p.read_bytes() for p in project.rglob("*") if p.is_file()} == before


def test_overlays_are_refused_for_a_python_source(tmp_path: Path) -> None:
    project = tmp_path / "out"
    module = tmp_path / "sample_tools.py"
    module.write_text('def double(x: int) -> int:\n    """Double X."""\n    return 2 * x\n')
    assert run("from-python", str(module), "-o", str(project))[0] == 0
    config = project / "mcpgen.toml"
    config.write_text(config.read_text().replace("[source]\n", '[source]\noverlays = ["fixes.yaml"]\n'))
    code, _, err = run("regenerate", str(project))
    assert code == 1 and "source.overlays: overlays patch OpenAPI documents" in err
