# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""The `enable_toolsets` meta tool: lists the server's toolsets and enables more of them.

Served with `PREFIX_TOOLSETS_DYNAMIC=1` where enabling is kept (see `toolsets`), as a
registry entry like any other: `PREFIX_TOOLS_ALLOW`/`_DENY`, the project's default scopes,
rate limits and the audit line apply to it. Called without `enable`, it lists; with names,
it enables them for the connection and tells the client its tool list changed: on the
session (`notifications/tools/list_changed`, handshake era), or on 2026-07-28
`subscriptions/listen` streams (`toolsListChanged`). A toolset's tool count is of the tools
the caller may use once it is enabled (settings and scopes applied).
"""

from __future__ import annotations

import json
import logging
from functools import cache
from typing import Any

from mcp import types
from mcp.types.version import MODERN_PROTOCOL_VERSIONS

from . import messages, patterns, policy, subscriptions, toolsets
from .project import current, resets
from .registry import ENABLE_TOOLSETS, registry

log = logging.getLogger(__name__)


@resets
@cache
def tool_dict() -> dict[str, Any]:
    """The meta tool as listed."""
    names = sorted(current().toolsets)
    return {
        "name": ENABLE_TOOLSETS,
        "title": "List and enable toolsets",
        "description": (
            f"This server groups its tools in {len(names)} toolsets; only the enabled ones are listed. "
            "Call with no arguments to list every toolset (description, tool count, enabled or not); "
            "call with `enable` to add toolsets: their tools are then listed (the tool list changes)."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "enable": {
                    "type": "array",
                    "items": {"type": "string", "enum": names},
                    "description": "Toolsets to enable, by name",
                }
            },
        },
        "outputSchema": {
            "type": "object",
            "properties": {
                "toolsets": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "name": {"type": "string"},
                            "description": {"type": "string"},
                            "tools": {"type": "integer"},
                            "enabled": {"type": "boolean"},
                        },
                        "required": ["name", "description", "tools", "enabled"],
                    },
                },
                "enabled": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "The toolsets this call enabled",
                },
            },
            "required": ["toolsets", "enabled"],
        },
        "annotations": {
            "title": "List and enable toolsets",
            "readOnlyHint": True,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": False,
        },
    }


@resets
@cache
def _validator() -> Any:
    return patterns.validator({**tool_dict()["inputSchema"], "additionalProperties": False})


def _counts() -> dict[str, int]:
    """Toolset -> the tools in it the caller may use once it is enabled."""
    counts = dict.fromkeys(current().toolsets, 0)
    for entry in registry().of_kind("tool"):
        if (
            entry.toolsets
            and not policy.settings_refusal(entry)
            and not policy.scope_refusal(entry)
        ):
            for name in entry.toolsets:
                counts[name] = counts.get(name, 0) + 1
    return counts


def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=message)], is_error=True
    )


async def call(ctx: Any, arguments: dict[str, Any]) -> types.CallToolResult:
    """List the toolsets, enabling those `enable` names first (and telling the client)."""
    problems = messages.problems(_validator(), arguments)
    if problems:
        return _error("Invalid arguments:\n" + "\n".join(problems))
    new = toolsets.enable(frozenset(arguments.get("enable") or ()))
    if new and ctx is not None:
        await _tell(ctx)
    on = toolsets.enabled() or frozenset()
    counts = _counts()
    value = {
        "toolsets": [
            {"name": name, "description": text, "tools": counts[name], "enabled": name in on}
            for name, text in sorted(current().toolsets.items())
        ],
        "enabled": sorted(new),
    }
    text = json.dumps(value, ensure_ascii=False)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], structured_content=value
    )


async def _tell(ctx: Any) -> None:
    """The client's tool list changed: on its session, or on 2026-07-28 listen streams."""
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        await subscriptions.tools_list_changed()
        return
    try:
        await ctx.session.send_tool_list_changed()
    except Exception:  # a session that has gone: it lists again when it comes back
        log.debug("tools/list_changed not delivered", exc_info=True)
