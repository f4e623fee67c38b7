# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""The tool table, read once from the package's `tools.json`."""

from __future__ import annotations

import gc
from functools import cache
from typing import Any

from .project import current, resets
from .state import state


@resets
@cache
def tool_table() -> dict[str, dict[str, Any]]:
    """Tool name -> {"tool": MCP Tool as sent on the wire, "wrapsResult": bool, "http": route or None}.

    Parsed with the cyclic garbage collector paused: parsed JSON holds no cycles, and the
    collector's passes over a heap that grows by half a million objects cost more than the
    parse (GitHub's 3.9 MB: some 80 ms, 30 ms without them). A server that owns its process
    then freezes what is alive (`gc.freeze`), the catalogue with it, which lives as long as the
    process: no later collection walks it again. Reference counting still frees all of it."""
    paused = gc.isenabled()
    gc.disable()
    try:
        entries: list[dict[str, Any]] = current().read_json("tools.json")
    finally:
        if state().owns_process:  # set by the entry points (`app.serve_stdio`, `app.serve_http`)
            gc.freeze()
        if paused:
            gc.enable()
    return {entry["tool"]["name"]: entry for entry in entries}
