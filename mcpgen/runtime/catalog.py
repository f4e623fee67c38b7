# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""The tool table, read once from the package's `tools.json`."""

from __future__ import annotations

from functools import cache
from typing import Any

from .project import current, resets


@resets
@cache
def tool_table() -> dict[str, dict[str, Any]]:
    """Tool name -> {"tool": MCP Tool as sent on the wire, "wrapsResult": bool, "http": route or None}."""
    entries: list[dict[str, Any]] = current().read_json("tools.json")
    return {entry["tool"]["name"]: entry for entry in entries}
