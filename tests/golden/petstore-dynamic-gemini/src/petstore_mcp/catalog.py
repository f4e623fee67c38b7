"""The tool table, read once from `tools.json` (shipped beside this module)."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any


@cache
def tool_table() -> dict[str, dict[str, Any]]:
    """Tool name -> {"tool": MCP Tool as sent on the wire, "wrapsResult": bool, "http": route or None}."""
    text = resources.files(__package__).joinpath("tools.json").read_text("utf-8")
    entries: list[dict[str, Any]] = json.loads(text)
    return {entry["tool"]["name"]: entry for entry in entries}
