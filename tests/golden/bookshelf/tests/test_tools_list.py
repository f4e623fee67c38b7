"""tools/list sends exactly the tool table (`tools.json`), in both protocol eras."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from bookshelf_mcp.catalog import tool_table
from bookshelf_mcp.server import server

from .conftest import TOOL_CASES

pytestmark = pytest.mark.anyio


async def _all_tools(client: Client) -> dict[str, dict[str, Any]]:
    """Every listed tool as wire JSON, following pagination cursors."""
    tools: dict[str, dict[str, Any]] = {}
    cursor: str | None = None
    while True:
        page = await client.list_tools(cursor=cursor)
        for tool in page.tools:
            tools[tool.name] = tool.model_dump(mode="json", by_alias=True, exclude_none=True)
        cursor = page.next_cursor
        if not cursor:
            return tools


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_tools_list_is_the_tool_table(mode: str) -> None:
    async with Client(server, mode=mode, cache=None) as client:
        listed = await _all_tools(client)
    assert listed == {name: entry["tool"] for name, entry in tool_table().items()}
    assert sorted(listed) == sorted(TOOL_CASES)
