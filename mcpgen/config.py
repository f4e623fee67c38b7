"""Options: what the CLI flags, `mcpgen.toml` (or a library caller) ask of one generation."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from mcpgen.naming import DEFAULT_MAX_TOOL_NAME

# 25 keeps every tools/list page of GitHub's API (1,223 tools, the largest 55 KB) under 500 KB.
DEFAULT_PAGE_SIZE = 25
TOOL_MODES = ("static", "dynamic")


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
class RouteRule:
    """A `[[routes]]` entry: operations matching every given criterion are served as `action`."""

    action: str  # "tool" | "resource" | "resource_template" | "exclude"
    methods: tuple[str, ...] = ()
    path: str | None = None  # a regular expression searched in the path template
    tags: tuple[str, ...] = ()  # globs; one matching tag suffices
    operations: tuple[str, ...] = ()  # operationId globs


@dataclass(frozen=True, slots=True)
class ResourceSpec:
    """A `[[resources]]` entry of a Python project: a function read at a URI or URI template."""

    function: str
    uri: str
    name: str | None = None
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None


@dataclass(frozen=True, slots=True)
class PromptArgumentSpec:
    name: str
    description: str = ""
    required: bool = False
    values: tuple[str, ...] = ()  # offered by completion/complete


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
    routes: tuple[RouteRule, ...] = ()
    resource_functions: tuple[ResourceSpec, ...] = ()
    tool_mode: str = "static"  # "static": one tool per operation; "dynamic": search/describe/call meta-tools
    page_size: int = DEFAULT_PAGE_SIZE  # tools per tools/list page (the server's env var overrides it)
    max_response_chars: int = 100_000  # default cap of one tool result (the server's env var overrides it)
    client_profile: str | None = None  # advertise schemas every tool of this client accepts (mcpgen.clients.lint)
    resources: bool = False  # GETs without required non-path arguments also become resources/templates
    allow_remote_refs: bool = False  # fetch http(s) `$ref`s at generation time
