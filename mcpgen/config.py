"""Options: what the CLI flags, `mcpgen.toml` (or a library caller) ask of one generation."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from mcpgen.naming import DEFAULT_MAX_TOOL_NAME


@dataclass(frozen=True, slots=True)
class OperationFilter:
    """Which OpenAPI operations become tools. Globs use fnmatch syntax; empty = no constraint."""

    include_tags: tuple[str, ...] = ()
    exclude_tags: tuple[str, ...] = ()
    include_operations: tuple[str, ...] = ()  # operationId globs
    exclude_operations: tuple[str, ...] = ()
    include_paths: tuple[str, ...] = ()  # path template globs, e.g. "/pets/*"
    exclude_paths: tuple[str, ...] = ()
    methods: tuple[str, ...] = ()  # upper-case HTTP methods
    include_deprecated: bool = False


@dataclass(frozen=True, slots=True)
class ToolOverride:
    """Per-tool changes from `mcpgen.toml`, keyed by the name mcpgen gives the tool by default."""

    key: str
    name: str | None = None
    title: str | None = None
    description: str | None = None
    hidden: bool = False
    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None


@dataclass(frozen=True, slots=True)
class PromptArgumentSpec:
    name: str
    description: str = ""
    required: bool = False


@dataclass(frozen=True, slots=True)
class PromptMessageSpec:
    """One message of a declared prompt: text with `{argument}` placeholders, or an
    embedded text resource."""

    role: str  # "user" | "assistant"
    text: str | None = None
    resource_uri: str | None = None
    resource_mime_type: str = "text/plain"


@dataclass(frozen=True, slots=True)
class PromptSpec:
    """A `[[prompts]]` entry of mcpgen.toml: declared messages, or a Python source's function."""

    name: str
    title: str | None = None
    description: str | None = None
    arguments: tuple[PromptArgumentSpec, ...] = ()
    messages: tuple[PromptMessageSpec, ...] = ()
    function: str | None = None


@dataclass(frozen=True, slots=True)
class Options:
    output: Path | None = None  # default: ./<name>-mcp
    name: str | None = None
    force: bool = False
    max_name_length: int = DEFAULT_MAX_TOOL_NAME
    include: tuple[str, ...] = ()  # Python sources: function-name globs
    exclude: tuple[str, ...] = ()
    models: bool = True  # typed pydantic models for OpenAPI component schemas
    filters: OperationFilter = field(default_factory=OperationFilter)
    overrides: tuple[ToolOverride, ...] = ()
    prompts: tuple[PromptSpec, ...] = ()
    allow_remote_refs: bool = False  # fetch http(s) `$ref`s at generation time
