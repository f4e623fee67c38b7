"""Per-tool overrides from `mcpgen.toml`, applied to the IR after a source is parsed.

A tool is addressed by the name mcpgen gives it by default, so an override survives a
rename it makes itself. Overrides naming no tool, and renames that collide, are errors
located in mcpgen.toml: a stale override must not silently stop applying.
"""

from __future__ import annotations

from dataclasses import replace

from mcpgen.diagnostics import Diagnostics, Topic
from mcpgen.ir import Annotations, Project, Tool
from mcpgen.naming import DEFAULT_MAX_TOOL_NAME
from mcpgen.options import ToolOverride
from mcpgen.transforms.icons import checked

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
        diagnostics.info(
            f"tool {tool.name!r} renamed to {override.name!r} by mcpgen.toml", f"tools.{tool.name}.name",
            topic=Topic.RENAMED, reason="by mcpgen.toml",
        )
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
    if override.icons:
        changes["icons"] = checked(override.icons, f"tools.{tool.name}.icons", diagnostics)
    if override.scopes is not None:
        changes["scopes"] = (tuple(sorted(set(override.scopes))),)
    if override.confirm is not None:
        changes["confirm"] = override.confirm
        if override.confirm and tool.route is None:
            diagnostics.error(
                f"tools.{tool.name}.confirm: only OpenAPI tools are confirmed by mcpgen",
                f"tools.{tool.name}.confirm",
                "a Python tool asks the user itself: take a Context parameter and call ctx.elicit(); "
                "remove `confirm`",
            )
    hints = {h: getattr(override, h) for h in _HINTS if getattr(override, h) is not None}
    if hints:
        changes["annotations"] = _hints(tool, hints, diagnostics)
    return replace(tool, **changes)  # type: ignore[arg-type]


def apply_confirm(project: Project, rules: tuple[str, ...]) -> Project:
    """Each OpenAPI tool's `confirm` decided: a tool's own `[tools.X] confirm` wins, else
    `[options] confirm` (its HTTP method listed, or "destructive" and its destructiveHint)."""
    tools = []
    for tool in project.tools:
        if tool.confirm is None and tool.route is not None:
            wanted = tool.route.method.upper() in rules or (
                "destructive" in rules and tool.annotations.destructive is True
            )
            tool = replace(tool, confirm=wanted)
        tools.append(tool)
    return replace(project, tools=tuple(tools))


def _hints(tool: Tool, given: dict[str, bool], diagnostics: Diagnostics) -> Annotations:
    """The tool's hints with `given` applied. A tool made read-only changes nothing, so its
    derived `destructive` and `idempotent` follow (false, true) unless given too; a read-only
    tool declared destructive is a contradiction, reported on the file's key."""
    hints = dict(given)
    if hints.get("read_only") is True:
        hints.setdefault("destructive", False)
        hints.setdefault("idempotent", True)
        if hints["destructive"]:
            key = f"tools.{tool.name}.annotations"
            diagnostics.error(
                f"{key}: read_only = true and destructive = true contradict each other",
                key,
                "a read-only tool changes nothing: remove `destructive = true` or set read_only = false",
            )
    elif hints.get("read_only") is False and tool.annotations.read_only:
        # A GET declared as changing things: what it changes is not known, so the safe defaults.
        hints.setdefault("destructive", True)
        hints.setdefault("idempotent", False)
    return replace(tool.annotations, **hints)
