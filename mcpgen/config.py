"""Options: what the CLI flags (or a library caller) ask of one generation."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mcpgen.naming import DEFAULT_MAX_TOOL_NAME


@dataclass(frozen=True, slots=True)
class Options:
    output: Path | None = None  # default: ./<name>-mcp
    name: str | None = None
    force: bool = False
    max_name_length: int = DEFAULT_MAX_TOOL_NAME
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    models: bool = True  # typed pydantic models for OpenAPI component schemas
    allow_remote_refs: bool = False  # fetch http(s) `$ref`s at generation time
