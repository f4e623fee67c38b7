"""Options: what the CLI flags (or a library caller) ask of one generation."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mcpgen.naming import DEFAULT_MAX_TOOL_NAME

# 25 keeps every tools/list page of GitHub's API (1,223 tools, the largest 55 KB) under 500 KB.
DEFAULT_PAGE_SIZE = 25
TOOL_MODES = ("static", "dynamic")


@dataclass(frozen=True, slots=True)
class Options:
    output: Path | None = None  # default: ./<name>-mcp
    name: str | None = None
    force: bool = False
    max_name_length: int = DEFAULT_MAX_TOOL_NAME
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    models: bool = True  # typed pydantic models for OpenAPI component schemas
    tool_mode: str = "static"  # "static": one tool per operation; "dynamic": search/describe/call meta-tools
    page_size: int = DEFAULT_PAGE_SIZE  # tools per tools/list page (the server's env var overrides it)
    client_profile: str | None = None  # advertise schemas every tool of this client accepts (mcpgen.lint)
    resources: bool = False  # GETs without required non-path arguments also become resources/templates
