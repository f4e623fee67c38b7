"""Shared by the generated tests: the tool cases (`tool_cases.json`, written by mcpgen
beside this file) and an in-process client of the server."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import TextContent

from petstore_mcp.server import server

DATA: dict[str, Any] = json.loads((Path(__file__).parent / "tool_cases.json").read_text("utf-8"))
ENV_PREFIX: str = DATA["envPrefix"]
TOOL_CASES: dict[str, dict[str, Any]] = {case["name"]: case for case in DATA["tools"]}


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
async def client() -> AsyncIterator[Client]:
    """The server in this process, over the 2025-11-25 handshake most clients speak.

    Session-scoped, so every test runs in one event loop: the server's HTTP client
    keeps its connection pool for the life of the process, as it does when serving."""
    async with Client(server, mode="legacy", cache=None) as connected:
        yield connected


def case_id(case: dict[str, Any]) -> str:
    return str(case["name"])


def text_of(result: Any) -> str:
    """The text content of a tool result, joined."""
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))
