"""Toolsets: named groups of tools that a server enables at run time (PREFIX_TOOLSETS).

A tool's toolsets come from `[options] toolsets_from` (each of its OpenAPI tags, or the first
literal segment of its path) and from every `[toolsets.<name>]` table whose globs match it
(tags, paths, operationIds, tool names). Tags nested under a parent tag (OpenAPI 3.2 `parent`)
fold into their top-level ancestor, so a toolset is one of the API's top-level areas. A tool
in no toolset is always served, as custom tools are.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from dataclasses import replace

from mcpgen import naming
from mcpgen.diagnostics import Diagnostics
from mcpgen.ir import Project, Tool, Toolset
from mcpgen.options import Options, ToolsetsFrom, ToolsetSpec

MAX_PARENT_DEPTH = 32  # a `parent` chain longer than this is taken for a cycle


def top_tag(tag: str, parents: Mapping[str, str]) -> str:
    """The top-level ancestor of `tag` (itself when it has no parent); a cycle stops where it repeats."""
    seen = {tag}
    while tag in parents and len(seen) <= MAX_PARENT_DEPTH:
        parent = parents[tag]
        if parent in seen:
            break
        seen.add(parent)
        tag = parent
    return tag


def tag_toolsets(tags: tuple[str, ...], parents: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The toolsets of a tool tagged `tags`: one per top-level tag, in the tags' order."""
    if not tags:
        return (naming.UNGROUPED_TOOLSET,)
    folded = (naming.toolset_name(top_tag(tag, parents or {})) for tag in tags)
    return tuple(dict.fromkeys(folded))


def path_toolset(path: str) -> str:
    """The first literal segment of a path template: `/repos/{owner}/{repo}` -> `repos`."""
    for segment in path.split("/"):
        if segment and "{" not in segment:
            return naming.toolset_name(segment)
    return naming.UNGROUPED_TOOLSET


def derived(tool: Tool, source: ToolsetsFrom, parents: Mapping[str, str] | None = None) -> tuple[str, ...]:
    if source == "tags":
        return tag_toolsets(tool.tags, parents)
    return (path_toolset(tool.route.path),) if tool.route is not None else (naming.UNGROUPED_TOOLSET,)


def matches(spec: ToolsetSpec, tool: Tool) -> bool:
    def any_glob(values: tuple[str, ...], globs: tuple[str, ...]) -> bool:
        return any(fnmatch.fnmatchcase(value, glob) for value in values for glob in globs)

    path = (tool.route.path,) if tool.route is not None else ()
    operation = (tool.operation_id,) if tool.operation_id else ()
    return (
        any_glob(tool.tags, spec.tags)
        or any_glob(path, spec.paths)
        or any_glob(operation, spec.operations)
        or any_glob((tool.name,), spec.tools)
    )


def assign(
    project: Project, options: Options, notes: Diagnostics, parents: Mapping[str, str] | None = None
) -> Project:
    """Each tool's toolsets, and the project's list of them (sorted by name)."""
    if options.toolsets_from is None and not options.toolsets:
        return project
    descriptions: dict[str, str] = {}
    tools = []
    for tool in project.tools:
        names = list(derived(tool, options.toolsets_from, parents)) if options.toolsets_from else []
        names += [spec.name for spec in options.toolsets if matches(spec, tool)]
        tools.append(replace(tool, toolsets=tuple(dict.fromkeys(names))))
    for spec in options.toolsets:
        descriptions[spec.name] = spec.description or f"Tools of the {spec.name} toolset."
        if not any(spec.name in tool.toolsets for tool in tools):
            notes.warning(f"toolsets.{spec.name}: matches no tool", f"toolsets.{spec.name}",
                          "check its tags, paths, operations and tools globs")
    counts: dict[str, int] = {}
    for tool in tools:
        for name in tool.toolsets:
            counts[name] = counts.get(name, 0) + 1
    for name in counts:
        descriptions.setdefault(name, _derived_description(name, options.toolsets_from))
    toolsets = tuple(Toolset(name, descriptions[name]) for name in sorted(descriptions))
    return replace(project, tools=tuple(tools), toolsets=toolsets)


def _derived_description(name: str, source: ToolsetsFrom | None) -> str:
    if name == naming.UNGROUPED_TOOLSET:
        return "Tools in no other toolset."
    if source == "paths":
        return f"Tools under /{name}."
    return f"Tools tagged {name}."
