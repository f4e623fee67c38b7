"""Import a generated package in this process and list its tools with a real MCP client
over the SDK's in-memory transport; check what strict clients require of the listing."""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path
from typing import Any

import anyio
import jsonschema
from mcp import Client

TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
PROPERTY_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


def _forget(package: str) -> None:
    for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
        del sys.modules[name]


def list_tools(src: Path) -> list[dict[str, Any]]:
    """Import every module of the one package under `src` (models included), then tools/list."""
    (package,) = [p.name for p in src.iterdir() if p.is_dir()]
    _forget(package)
    sys.path.insert(0, str(src))
    importlib.invalidate_caches()
    try:
        root = src / package
        for path in sorted(root.rglob("*.py")):
            if path.name != "__main__.py":
                parts = path.relative_to(src).with_suffix("").parts
                importlib.import_module(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
        server = importlib.import_module(f"{package}.server").server

        async def listing() -> list[dict[str, Any]]:
            tools = []
            async with Client(server, mode="legacy", cache=None) as client:
                cursor: str | None = None
                while True:  # every page of the paginated tools/list
                    result = await client.list_tools(cursor=cursor)
                    tools += [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in result.tools]
                    cursor = result.next_cursor
                    if not cursor:
                        return tools

        return anyio.run(listing)
    finally:
        sys.path.remove(str(src))
        _forget(package)


def check_tools(tools: list[dict[str, Any]]) -> None:
    names = [t["name"] for t in tools]
    assert all(TOOL_NAME.match(n) for n in names), names
    assert len(set(names)) == len(names), names
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(20_000)  # the meta-schema check recurses a few frames per nesting level
    try:
        for tool in tools:
            assert tool["inputSchema"].get("type") == "object"
            assert all(PROPERTY_NAME.match(k) for k in tool["inputSchema"].get("properties", {}))
            jsonschema.Draft202012Validator.check_schema(tool["inputSchema"])
            if "outputSchema" in tool:
                assert tool["outputSchema"].get("type") == "object"
                jsonschema.Draft202012Validator.check_schema(tool["outputSchema"])
    finally:
        sys.setrecursionlimit(limit)
