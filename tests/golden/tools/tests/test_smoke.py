"""Smoke tests: every tool's validation, and calls of the tools that are safe to call.

Functions may have side effects, so a tool is called with arguments synthesised from
its inputSchema only when it is marked read-only, or when `TOOLS_SMOKE_CALLS=all`
is set; every tool is checked to reject arguments its schema forbids (the function is
not reached: arguments are validated first).
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from mcp import Client

from tools_mcp.catalog import tool_table

from .conftest import ENV_PREFIX, TOOL_CASES, case_id, text_of

pytestmark = pytest.mark.anyio

CALL_ALL = os.environ.get(f"{ENV_PREFIX}_SMOKE_CALLS") == "all"
CALLABLE = [
    c for c in TOOL_CASES.values() if c["arguments"] is not None and (c["readOnly"] or CALL_ALL)
]
REJECTED = [c for c in TOOL_CASES.values() if c["invalidArguments"] is not None]
SERVER_ERRORS = ("Invalid arguments", "Internal error", "The result does not match")


@pytest.mark.parametrize("case", REJECTED, ids=case_id)
async def test_invalid_arguments_are_a_tool_error(case: dict[str, Any], client: Client) -> None:
    result = await client.call_tool(case["name"], case["invalidArguments"])
    assert result.is_error
    assert "Invalid arguments" in text_of(result)


@pytest.mark.parametrize("case", CALLABLE, ids=case_id)
async def test_call_gives_a_well_formed_result(case: dict[str, Any], client: Client) -> None:
    # The client itself checks structuredContent against the tool's outputSchema.
    result = await client.call_tool(case["name"], case["arguments"])
    if result.is_error:
        # Only the function's own exception may fail the call: the synthesised arguments
        # are valid, and the result must fit the declared output.
        assert not text_of(result).startswith(SERVER_ERRORS), text_of(result)
    elif "outputSchema" in tool_table()[case["name"]]["tool"]:
        assert result.structured_content is not None
