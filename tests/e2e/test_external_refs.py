"""A spec split over several files (one with a space in its name) and a relative server URL,
generated through the CLI and served over stdio against the upstream on 127.0.0.1."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.stdio import get_default_environment

from .upstream import PET_1, Upstream

pytestmark = pytest.mark.anyio

ROOT = """\
openapi: 3.0.3
info: {title: Split Pets, version: "1"}
servers: [{url: /api/v3}]
paths:
  /pet/{petId}:
    $ref: "paths/pet by id.yaml"
"""
PATH_ITEM = """\
parameters:
  - $ref: "../common.json#/parameters/petId"
get:
  operationId: getPet
  responses:
    "200":
      description: the pet
      content:
        application/json:
          schema: {$ref: "../common.json#/schemas/Pet"}
"""
COMMON = {
    "parameters": {"petId": {"name": "petId", "in": "path", "required": True, "schema": {"type": "integer"}}},
    "schemas": {"Pet": {"type": "object", "required": ["id", "name"], "properties": {
        "id": {"type": "integer"}, "name": {"type": "string"},
        "category": {"$ref": "#/schemas/Category"}}},
        "Category": {"type": "object", "properties": {"id": {"type": "string"},
                                                      "subcategories": {"type": "array", "items": {"$ref": "#/schemas/Category"}}}}},
}


@pytest.fixture(scope="module")
def split_server(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("split spec")
    (folder / "paths").mkdir()
    (folder / "paths" / "pet by id.yaml").write_text(PATH_ITEM)
    (folder / "common.json").write_text(json.dumps(COMMON))
    spec = folder / "split pets.yaml"
    spec.write_text(ROOT)
    out = folder / "out"
    done = subprocess.run([sys.executable, "-m", "mcpgen", "from-openapi", str(spec), "-o", str(out)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert "server URL '/api/v3' is relative" in done.stderr
    assert "external $ref: read common.json" in done.stderr
    return out / "src"


async def _call(src: Path, env: dict[str, str]) -> tuple[list[str], object]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "split_pets_mcp"],
                                   env={**get_default_environment(), "PYTHONPATH": str(src), **env})
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = [t.name for t in (await session.list_tools()).tools]
        return tools, await session.call_tool("getPet", {"petId": 1})


async def test_without_a_base_url_a_call_says_which_variable_to_set(split_server: Path) -> None:
    tools, result = await _call(split_server, {})
    assert tools == ["getPet"]
    assert result.is_error is True  # type: ignore[attr-defined]
    assert "SPLIT_PETS_BASE_URL" in result.content[0].text  # type: ignore[attr-defined]


async def test_with_a_base_url_the_bundled_spec_works_end_to_end(split_server: Path, upstream: Upstream) -> None:
    _, result = await _call(split_server, {"SPLIT_PETS_BASE_URL": upstream.base_url})
    assert result.is_error is not True, result  # type: ignore[attr-defined]
    assert result.structured_content["name"] == PET_1["name"]  # type: ignore[attr-defined]
    (request,) = upstream.take()
    assert (request.method, request.path) == ("GET", "/api/v3/pet/1")
