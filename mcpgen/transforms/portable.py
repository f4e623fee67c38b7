"""Every tool's inputSchema respelt for agent frameworks' converters (see schema/portable_input.py).

A pass over the IR, first of all: what tools/list serves, what a client profile simplifies
and what the server validates calls against are then the same portable schema (each rewrite
accepts exactly the instances the source's schema accepts).
"""

from __future__ import annotations

from dataclasses import replace

from mcpgen.diagnostics import Diagnostic, Diagnostics, Level
from mcpgen.ir import Project
from mcpgen.schema.portable_input import Changes, portable_input_schema

_NAMES_SHOWN = 5


def apply_portable_inputs(project: Project, notes: Diagnostics) -> Project:
    """`project` with each tool's input schema portable; one note names the tools whose
    schemas still hold a `$ref` (recursive definitions: strict converters refuse them)."""
    tools = []
    left: list[str] = []
    for tool in project.tools:
        changes = Changes()
        schema = portable_input_schema(tool.input_schema, changes)
        if changes.bare_refs:
            left.append(tool.name)
        tools.append(replace(tool, input_schema=schema) if schema != tool.input_schema else tool)
    if left:
        shown = ", ".join(left[:_NAMES_SHOWN]) + (f" and {len(left) - _NAMES_SHOWN} more" if len(left) > _NAMES_SHOWN else "")
        notes.items.append(Diagnostic(
            Level.INFO,
            f"{len(left)} tool input schema{'s' if len(left) != 1 else ''} keep a $ref to a recursive definition "
            f"({shown}): strict converters (openai-agents) fall back to non-strict for them",
            project.source_file,
        ))
    return replace(project, tools=tuple(tools))
