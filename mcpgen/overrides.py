"""Per-tool overrides from `mcpgen.toml`, applied to the IR after a source is parsed.

A tool is addressed by the name mcpgen gives it by default, so an override survives a
rename it makes itself. Overrides naming no tool, and renames that collide, are errors
located in mcpgen.toml: a stale override must not silently stop applying.
"""

from __future__ import annotations

from dataclasses import replace

from mcpgen.config import ToolOverride
from mcpgen.diagnostics import Diagnostics
from mcpgen.ir import Annotations, Project, Tool
from mcpgen.naming import DEFAULT_MAX_TOOL_NAME

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
    for tool in project.tools:
        override = by_key.get(tool.name)
        if override is None:
            tools.append(tool)
        elif not override.hidden:
            tools.append(_overridden(tool, override, diagnostics))
    _check_unique(tools, by_key, diagnostics)
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
    hints = {h: getattr(override, h) for h in _HINTS if getattr(override, h) is not None}
    if hints:
        changes["annotations"] = replace(tool.annotations, **hints) if tool.annotations else Annotations(**hints)
    return replace(tool, **changes)  # type: ignore[arg-type]


def _check_unique(tools: list[Tool], by_key: dict[str, ToolOverride], diagnostics: Diagnostics) -> None:
    owners: dict[str, str] = {}
    renamed = {o.name: key for key, o in by_key.items() if o.name is not None}
    for tool in tools:
        if tool.name in owners:
            key = renamed.get(tool.name, owners[tool.name])
            diagnostics.error(
                f"tools.{key}.name: {tool.name!r} is already the name of another tool",
                f"tools.{key}.name",
                "tool names must be unique",
            )
        owners[tool.name] = tool.name
