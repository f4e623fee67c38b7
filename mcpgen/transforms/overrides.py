"""Per-tool overrides from `mcpgen.toml`, applied to the IR after a source is parsed.

A tool is addressed by the name mcpgen gives it by default, so an override survives a
rename it makes itself. Overrides naming no tool, and renames that collide, are errors
located in mcpgen.toml: a stale override must not silently stop applying.
"""

from __future__ import annotations

from dataclasses import replace

from mcpgen.diagnostics import Diagnostics
from mcpgen.ir import Annotations, Project, Tool
from mcpgen.naming import DEFAULT_MAX_TOOL_NAME
from mcpgen.options import ToolOverride

_HINTS = ("read_only", "destructive", "idempotent", "open_world")


def apply_overrides(project: Project, overrides: tuple[ToolOverride, ...], diagnostics: Diagnostics) -> Project:
    """`project` with overrides applied; problems are added to `diagnostics` (the project file's)."""
    if not overrides:
        return project
    by_key = {o.key: o for o in overrides}
    known = {t.name for t in project.tools}
    for key in sorted(set(by_key) - known):
        diagnostics.error(
            f"tools.{key}: no tool of that name",
            f"tools.{key}",
            "key overrides by the name mcpgen gives the tool by default (see the generated README); "
            "remove the table if the operation is gone",
        )
    tools: list[Tool] = []
    holders: dict[str, str] = {}  # final name -> default name of the tool holding it
    for tool in project.tools:
        override = by_key.get(tool.name)
        if override is not None and override.hidden:
            continue
        final = tool if override is None else _overridden(tool, override, diagnostics)
        if final.name in holders:
            # Default names are unique, so one of the two was renamed by mcpgen.toml.
            culprit = tool.name if final.name != tool.name else holders[final.name]
            diagnostics.error(
                f"tools.{culprit}.name: {final.name!r} is already the name of another tool",
                f"tools.{culprit}.name",
                "tool names must be unique",
            )
        holders[final.name] = tool.name
        tools.append(final)
    return replace(project, tools=tuple(tools))


def _overridden(tool: Tool, override: ToolOverride, diagnostics: Diagnostics) -> Tool:
    changes: dict[str, object] = {}
    if override.name is not None and override.name != tool.name:
        changes["name"] = override.name
        diagnostics.info(f"tool {tool.name!r} renamed to {override.name!r} by mcpgen.toml", f"tools.{tool.name}.name")
        if len(override.name) > DEFAULT_MAX_TOOL_NAME or "." in override.name:
            diagnostics.warning(
                f"tool name {override.name!r} is valid MCP but some clients reject names over "
                f"{DEFAULT_MAX_TOOL_NAME} characters or with dots",
                f"tools.{tool.name}.name",
            )
    if override.title is not None:
        changes["title"] = override.title or None
    if override.description is not None:
        changes["description"] = override.description
    if override.scopes is not None:
        changes["scopes"] = (tuple(sorted(set(override.scopes))),)
    hints = {h: getattr(override, h) for h in _HINTS if getattr(override, h) is not None}
    if hints:
        changes["annotations"] = replace(tool.annotations, **hints) if tool.annotations else Annotations(**hints)
    return replace(tool, **changes)  # type: ignore[arg-type]
