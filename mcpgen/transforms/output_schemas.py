"""`--output-schemas`: what each tool's advertised outputSchema says of its result.

The TypeScript SDK 1.x client (Claude Code, Claude Desktop, Cursor) compiles every distinct
output schema on each tools/list. "shaped" keeps each result's bounded shape (schema/output.py)
and notes servers where that compile costs more than the listing; "object" serves one
`{"type": "object"}` for every tool, compiled once, `structuredContent` unchanged.
"""

from __future__ import annotations

from dataclasses import replace

from mcpgen.diagnostics import Diagnostic, Diagnostics, Level
from mcpgen.ir import Project
from mcpgen.schema.output import count_subschemas, with_content_id

# Past this many subschemas in a server's distinct output schemas, compiling them takes a TS 1.x
# client longer than listing (GitHub's 11,426: list + first call 7x the time without them,
# benchmarks/bench_clients.py).
COSTLY_SUBSCHEMAS = 2_000


def apply_output_schemas(project: Project, kind: str, notes: Diagnostics) -> Project:
    if kind == "object":
        plain = with_content_id({"type": "object"})
        return replace(project, tools=tuple(
            replace(tool, output_schema=plain) if tool.output_schema is not None else tool for tool in project.tools
        ))
    # Every output schema carries an `$id` of its content: one per distinct shape, as the client compiles them.
    shapes = {tool.output_schema.get("$id"): tool.output_schema for tool in project.tools if tool.output_schema}
    subschemas = sum(count_subschemas(shape) for shape in shapes.values())
    if subschemas > COSTLY_SUBSCHEMAS:
        notes.items.append(Diagnostic(
            Level.INFO,
            f"{len(shapes)} distinct output schemas of {subschemas:,} subschemas: TypeScript SDK 1.x clients "
            "(Claude Code, Claude Desktop, Cursor) compile them on every tools/list",
            project.source_file,
            hint='--output-schemas object (or output_schemas = "object" in mcpgen.toml) serves '
            '{"type": "object"} for every tool, compiled once',
        ))
    return project
