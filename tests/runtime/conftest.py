"""The runtime at source (`mcpgen/runtime/`), tested without generating a project.

`project` installs a small project whose package is a folder under tmp_path: its
`tools.json`, `hooks.py` and `custom_tools.py` are what a generated package holds.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcpgen.runtime import project as runtime_project
from mcpgen.runtime.project import Project

HOOKS = '''
from typing import Any


async def on_request(tool: str | None, request: Any) -> None:
    return None


async def on_response(tool: str | None, response: Any) -> None:
    return None


def on_call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return arguments


def on_result(tool: str, value: Any) -> Any:
    return value
'''


def wire_tool(name: str, read_only: bool = False, output: dict[str, Any] | None = None) -> dict[str, Any]:
    tool: dict[str, Any] = {"name": name, "description": name, "inputSchema": {"type": "object"}}
    if output is not None:
        tool["outputSchema"] = output
    tool["annotations"] = {"readOnlyHint": read_only}
    return tool


def make_package(root: Path, name: str, tools: list[dict[str, Any]]) -> None:
    package = root / name
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "hooks.py").write_text(HOOKS)
    (package / "custom_tools.py").write_text("")
    entries = [{"tool": tool, "wrapsResult": False} for tool in tools]
    (package / "tools.json").write_text(json.dumps(entries))


DEFAULT_TOOLS = [wire_tool("getPet", read_only=True), wire_tool("addPet"), wire_tool("deletePet")]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Project]:
    """A Petstore-like project installed for the test, with a clean PETSTORE_* environment."""
    name = f"pkg_{tmp_path.name.replace('-', '_').lower()}"
    make_package(tmp_path, name, DEFAULT_TOOLS)
    monkeypatch.syspath_prepend(str(tmp_path))
    for variable in [v for v in list(__import__("os").environ) if v.startswith("PETSTORE_")]:
        monkeypatch.delenv(variable)
    installed = Project(
        package=name, name="petstore", title="Petstore", version="1", command="petstore-mcp", env_prefix="PETSTORE",
        secret_env_vars=("PETSTORE_API_KEY", "PETSTORE_ADMIN_AUTH_USERNAME", "PETSTORE_ADMIN_AUTH_PASSWORD"),
        credential_names=("api_key",),
        security_schemes={
            "api_key": {"kind": "apiKey", "in": "header", "name": "api_key", "env": ["PETSTORE_API_KEY"]},
            "adminAuth": {"kind": "basic", "in": "header", "name": "Authorization",
                          "env": ["PETSTORE_ADMIN_AUTH_USERNAME", "PETSTORE_ADMIN_AUTH_PASSWORD"]},
        },
    )
    runtime_project.install(installed)
    yield installed
    runtime_project._installed.clear()
    for module in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
        del sys.modules[module]
