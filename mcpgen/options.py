"""The one options model: what the CLI flags, `mcpgen.toml` or a library caller ask of a generation.

Every default is written here once, as a named constant. Models are frozen, strict
(`models = "yes"` is not `true`) and forbid unknown keys. Each field that can be given a
wrong value carries the plain words of what it expects (`expected`), which
`problems()` uses to turn a `ValidationError` into messages a user can act on.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, get_args, get_origin

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic.fields import FieldInfo

from mcpgen.formatting import DEFAULT_FORMATTER, FORMATTERS, Formatter
from mcpgen.naming import DEFAULT_MAX_TOOL_NAME, MCP_MAX_TOOL_NAME

# 25 keeps every tools/list page of GitHub's API (1,223 tools, the largest 55 KB) under 500 KB.
DEFAULT_PAGE_SIZE = 25
DEFAULT_MAX_RESPONSE_CHARS = 100_000  # default cap of one tool result (the server's env var overrides it)
MIN_MAX_RESPONSE_CHARS = 1_000
DEFAULT_MIME_TYPE = "text/plain"  # of a prompt's embedded resource

ToolMode = Literal["static", "dynamic", "code"]
DEFAULT_TOOL_MODE: ToolMode = "static"
ClientProfile = Literal["claude", "openai", "gemini", "cursor", "vscode"]  # = mcpgen.clients.lint.CLIENTS
# "shaped": each tool's result shape (bounded, see schema/output.py); "object": `{"type": "object"}`
# for every tool, which the TypeScript SDK 1.x compiles once instead of once per shape on each list.
OutputSchemas = Literal["shaped", "object"]
DEFAULT_OUTPUT_SCHEMAS: OutputSchemas = "shaped"
HttpMethod = Literal["GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"]
RouteAction = Literal["tool", "resource", "resource_template", "exclude"]
# Where toolsets come from besides `[toolsets.<name>]`: each tool's OpenAPI tags (nested tags folded
# into their top-level parent), or the first literal segment of its path (`/repos/{owner}` -> repos).
ToolsetsFrom = Literal["tags", "paths"]
Role = Literal["user", "assistant"]
SourceKind = Literal["openapi", "python"]

TOOL_MODES: tuple[str, ...] = get_args(ToolMode)
OUTPUT_SCHEMAS: tuple[str, ...] = get_args(OutputSchemas)
CLIENT_PROFILES: tuple[str, ...] = get_args(ClientProfile)
HTTP_METHODS: tuple[str, ...] = get_args(HttpMethod)
TOOLSETS_FROM: tuple[str, ...] = get_args(ToolsetsFrom)
ROUTE_ACTIONS: tuple[str, ...] = get_args(RouteAction)

# Options that mean something for one kind of source only.
OPENAPI_ONLY = frozenset(
    {"models", "resources", "allow_remote_refs", "allow_refs_outside", "filters", "routes", "tag_icons", "confirm", "toolsets_from"}
)
PYTHON_ONLY = frozenset({"include", "exclude", "resource_functions"})

_TOOL_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")
_ARGUMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")
# scheme ":" then anything but whitespace; `{var}` template expressions allowed
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+$")


def _as_tuple(value: object) -> object:
    """TOML and callers give lists; the frozen models keep tuples."""
    return tuple(value) if isinstance(value, list) else value


def _upper(value: object) -> object:
    value = _as_tuple(value)
    return tuple(v.upper() if isinstance(v, str) else v for v in value) if isinstance(value, tuple) else value


def _one_or_many(value: object) -> object:
    """A glob or a list of globs."""
    return (value,) if isinstance(value, str) else _as_tuple(value)


def _expect(words: str, **constraints: Any) -> Any:
    """A field's constraints and the words naming what it expects (for messages)."""
    return Field(json_schema_extra={"expected": words}, **constraints)


Strings = Annotated[tuple[str, ...], BeforeValidator(_as_tuple), _expect("a list of strings")]
# Which OpenAPI tools ask the user before their upstream request: HTTP methods, or
# "destructive" (every tool whose destructiveHint is true); `[tools.X] confirm` wins.
ConfirmRule = Literal["GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE", "destructive"]


def _confirm_rules(value: object) -> object:
    value = _one_or_many(value)
    if not isinstance(value, tuple):
        return value
    return tuple(v if not isinstance(v, str) or v.lower() == "destructive" else v.upper() for v in value)


ConfirmRules = Annotated[
    tuple[ConfirmRule, ...],
    BeforeValidator(_confirm_rules),
    _expect('"destructive" or a list of HTTP methods such as ["DELETE", "PUT"]'),
]
Methods = Annotated[tuple[HttpMethod, ...], BeforeValidator(_upper), _expect("a list of HTTP methods")]
Flag = Annotated[bool, _expect("true or false")]
Hint = Annotated[bool | None, _expect("true or false")]
Text = Annotated[str | None, _expect("a string")]
_TOOL_NAME_WORDS = "1-128 characters of A-Z a-z 0-9 _ - ."
ToolName = Annotated[str, _expect(_TOOL_NAME_WORDS, pattern=_TOOL_NAME.pattern)]
MaybeToolName = Annotated[str | None, _expect(_TOOL_NAME_WORDS, pattern=_TOOL_NAME.pattern)]


def _identifier(value: str | None) -> str | None:
    if value is not None and not value.isidentifier():
        raise ValueError(f"expected a function name, got {value!r}")
    return value


FunctionName = Annotated[str, AfterValidator(_identifier), _expect("a function name")]
MaybeFunctionName = Annotated[str | None, AfterValidator(_identifier), _expect("a function name")]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class OperationFilter(_Model):
    """Which OpenAPI operations become tools. Globs use fnmatch syntax; empty = no constraint."""

    include_tags: Strings = ()
    exclude_tags: Strings = ()
    include_operations: Strings = ()  # operationId globs
    exclude_operations: Strings = ()
    include_paths: Strings = ()  # path template globs, e.g. "/pets/*"
    exclude_paths: Strings = ()
    methods: Methods = ()  # upper-case HTTP methods
    include_deprecated: Flag = False


IconTheme = Literal["light", "dark"]


class IconSpec(_Model):
    """One icon (MCP 2025-11-25 `Icon`): `src` is an https: URL or a data: URI of an image;
    any other is refused with a warning when the icons are applied (mcpgen.transforms.icons)."""

    src: Annotated[str, _expect("an https: URL or a data:image/... URI", min_length=1)]
    mime_type: Annotated[str | None, _expect("an image media type such as image/png")] = None
    sizes: Strings = ()  # "48x48", "any"
    theme: Annotated[IconTheme | None, _expect('"light" or "dark"')] = None


def _icons(value: object) -> object:
    """One icon table or a list of them."""
    return (value,) if isinstance(value, dict) else _as_tuple(value)


Icons = Annotated[tuple[IconSpec, ...], BeforeValidator(_icons), _expect("a list of { src = \"https://...\" } tables")]


class ToolOverride(_Model):
    """Per-tool changes (`[tools.<key>]` of mcpgen.toml), keyed by the name mcpgen gives the tool by default."""

    key: str
    name: MaybeToolName = None
    title: Text = None
    description: Annotated[str | None, _expect("a non-empty string", pattern=r"\S")] = None
    hidden: Flag = False
    read_only: Hint = None
    destructive: Hint = None
    idempotent: Hint = None
    open_world: Hint = None
    icons: Icons = ()
    # OAuth scopes a caller needs for this tool (all of them), instead of the spec's; [] = none
    scopes: Annotated[tuple[str, ...] | None, BeforeValidator(_as_tuple), _expect("a list of strings")] = None
    # ask the user (elicitation) before the upstream request; None: as `[options] confirm` says
    confirm: Hint = None


ANNOTATION_HINTS = ("read_only", "destructive", "idempotent", "open_world")


class RouteRule(_Model):
    """A `[[routes]]` entry: operations matching every given criterion are served as `action`."""

    action: Annotated[RouteAction, _expect(" or ".join(map(repr, ROUTE_ACTIONS)))]
    methods: Annotated[tuple[HttpMethod, ...], BeforeValidator(_upper), BeforeValidator(_one_or_many)] = ()
    path: Annotated[str | None, _expect("a regular expression")] = None  # searched in the path template
    tags: Annotated[Strings, BeforeValidator(_one_or_many)] = ()  # globs; one matching tag suffices
    operations: Annotated[Strings, BeforeValidator(_one_or_many)] = ()  # operationId globs

    @field_validator("path")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"expected a regular expression, got {value!r} ({exc})") from None
        return value

    @model_validator(mode="after")
    def _matches_something(self) -> RouteRule:
        if not (self.methods or self.path is not None or self.tags or self.operations):
            raise ValueError("a route rule needs `match = { method, path, tag, operation }` (at least one)")
        return self


_TOOLSET_NAME = r"^[a-z0-9][a-z0-9_-]{0,63}$"


class ToolsetSpec(_Model):
    """A `[toolsets.<name>]` table: the tools matching any of its globs form the toolset `name`
    (PREFIX_TOOLSETS enables toolsets by name at run time)."""

    name: Annotated[str, _expect("1-64 characters of a-z 0-9 _ -, starting with a letter or digit", pattern=_TOOLSET_NAME)]
    description: Text = None
    tags: Annotated[Strings, BeforeValidator(_one_or_many)] = ()  # OpenAPI tag globs
    paths: Annotated[Strings, BeforeValidator(_one_or_many)] = ()  # path template globs, e.g. "/repos/*"
    operations: Annotated[Strings, BeforeValidator(_one_or_many)] = ()  # operationId globs
    tools: Annotated[Strings, BeforeValidator(_one_or_many)] = ()  # tool-name globs (any source)

    @model_validator(mode="after")
    def _matches_something(self) -> ToolsetSpec:
        if not (self.tags or self.paths or self.operations or self.tools):
            raise ValueError("a toolset needs `tags`, `paths`, `operations` or `tools` globs (at least one)")
        return self


class ResourceSpec(_Model):
    """A `[[resources]]` entry of a Python project: a function read at a URI or URI template."""

    function: FunctionName
    uri: Annotated[str, _expect("a URI such as config://app or items://{sku}", pattern=_URI.pattern)]
    name: Annotated[str | None, _expect("a non-empty string", min_length=1)] = None
    title: Text = None
    description: Text = None
    mime_type: Annotated[str | None, _expect("a media type", pattern="/")] = None
    # OAuth scopes a reader needs (all of them, PREFIX_MCP_AUTH=oauth); unset: `default_scopes`
    scopes: Annotated[tuple[str, ...] | None, BeforeValidator(_as_tuple), _expect("a list of strings")] = None


class PromptArgumentSpec(_Model):
    name: Annotated[
        str, _expect("a name of letters, digits, _ and - (used as {name} in messages)", pattern=_ARGUMENT.pattern)
    ]
    description: Annotated[str, _expect("a string")] = ""
    required: Flag = False
    values: Strings = ()  # offered by completion/complete


class PromptMessageSpec(_Model):
    """One message of a declared prompt: text with `{argument}` placeholders, or an
    embedded text resource (`resource_uri`; `text` is then its content)."""

    role: Annotated[Role, _expect('"user" or "assistant"')] = "user"
    text: Text = None
    resource_uri: Annotated[str | None, _expect("a URI", pattern=":")] = None
    resource_mime_type: Annotated[str, _expect("a string")] = DEFAULT_MIME_TYPE

    @model_validator(mode="after")
    def _has_content(self) -> PromptMessageSpec:
        if self.text is None:
            raise ValueError("a message has either `text` or an embedded `resource = { uri, text }`")
        return self


class PromptSpec(_Model):
    """A `[[prompts]]` entry: declared messages, or a Python source's function."""

    name: ToolName
    title: Text = None
    description: Text = None
    arguments: tuple[PromptArgumentSpec, ...] = Field(default=(), json_schema_extra={"expected": "a list of tables"})
    messages: tuple[PromptMessageSpec, ...] = Field(default=(), json_schema_extra={"expected": "a list of tables"})
    function: MaybeFunctionName = None

    @field_validator("arguments", "messages", mode="before")
    @classmethod
    def _listed(cls, value: object) -> object:
        return _as_tuple(value)

    @model_validator(mode="after")
    def _messages_or_function(self) -> PromptSpec:
        if self.function is None and not self.messages:
            raise ValueError("a prompt needs `messages` (or, for Python sources, a `function`)")
        if self.function is not None and self.messages:
            raise ValueError("give `messages` or `function`, not both")
        return self


class Options(_Model):
    """Everything one generation is asked; the CLI, mcpgen.toml and the library API all build this."""

    output: Annotated[Path | None, Field(strict=False)] = None  # default: ./<name>-mcp (a str is taken too)
    name: Annotated[str | None, _expect("a string")] = None
    force: bool = False
    max_name_length: Annotated[
        int, _expect(f"an integer from 1 to {MCP_MAX_TOOL_NAME}", ge=1, le=MCP_MAX_TOOL_NAME)
    ] = DEFAULT_MAX_TOOL_NAME
    include: Strings = ()  # Python sources: function-name globs
    exclude: Strings = ()
    models: Flag = True  # typed pydantic models for OpenAPI component schemas
    filters: OperationFilter = OperationFilter()
    overrides: tuple[ToolOverride, ...] = ()
    prompts: tuple[PromptSpec, ...] = ()
    routes: tuple[RouteRule, ...] = ()
    resource_functions: tuple[ResourceSpec, ...] = ()
    # "static": one tool per operation; "dynamic": search/describe/call meta-tools
    tool_mode: Annotated[ToolMode, _expect('"static", "dynamic" or "code"')] = DEFAULT_TOOL_MODE
    # tools per tools/list page (the server's env var overrides it)
    page_size: Annotated[int, _expect("a positive integer", ge=1)] = DEFAULT_PAGE_SIZE
    default_scopes: Strings = ()  # OAuth scopes of tools whose operation states none (PREFIX_MCP_AUTH=oauth)
    max_response_chars: Annotated[
        int, _expect(f"an integer of at least {MIN_MAX_RESPONSE_CHARS}", ge=MIN_MAX_RESPONSE_CHARS)
    ] = DEFAULT_MAX_RESPONSE_CHARS
    output_schemas: Annotated[OutputSchemas, _expect('"shaped" or "object"')] = DEFAULT_OUTPUT_SCHEMAS
    # advertise schemas every tool of this client accepts (mcpgen.clients.lint); "" means none
    client_profile: Annotated[
        ClientProfile | None, _expect(" or ".join(f'"{c}"' for c in CLIENT_PROFILES))
    ] = None
    resources: Flag = False  # GETs without required non-path arguments also become resources/templates
    allow_remote_refs: Flag = False  # fetch http(s) `$ref`s at generation time
    allow_refs_outside: Flag = False  # read `$ref`ed files outside the spec's own folder tree
    icons: Icons = ()  # the server's (serverInfo.icons); OpenAPI's `info.x-logo` when not given
    # OpenAPI tag -> icons of its operations' tools (a tool's own `[tools.<name>] icons` win)
    tag_icons: Annotated[dict[str, Icons], Field(strict=False), _expect("a table of tag = [{ src = ... }]")] = {}
    confirm: ConfirmRules = ()  # OpenAPI tools that ask the user before calling (see ConfirmRule)
    # toolsets derived for every tool (PREFIX_TOOLSETS picks them at run time); None: only `toolsets`
    toolsets_from: Annotated[ToolsetsFrom | None, _expect(" or ".join(f'"{t}"' for t in TOOLSETS_FROM))] = None
    toolsets: tuple[ToolsetSpec, ...] = ()  # `[toolsets.<name>]` tables
    # lays out the generated Python: ruff format (black's style) or black itself
    formatter: Annotated[Formatter, _expect(" or ".join(f'"{f}"' for f in FORMATTERS))] = DEFAULT_FORMATTER

    @field_validator("name", "client_profile", "toolsets_from", mode="before")
    @classmethod
    def _empty_is_none(cls, value: object) -> object:
        return None if value == "" else value

    @field_validator("overrides", "prompts", "routes", "resource_functions", "toolsets", mode="before")
    @classmethod
    def _listed(cls, value: object) -> object:
        return _as_tuple(value)

    @field_validator("prompts")
    @classmethod
    def _unique_prompts(cls, prompts: tuple[PromptSpec, ...]) -> tuple[PromptSpec, ...]:
        seen: set[str] = set()
        for prompt in prompts:
            if prompt.name in seen:
                raise ValueError(f"prompt {prompt.name!r} is defined twice")
            seen.add(prompt.name)
        return prompts

    @field_validator("toolsets")
    @classmethod
    def _unique_toolsets(cls, toolsets: tuple[ToolsetSpec, ...]) -> tuple[ToolsetSpec, ...]:
        names = [t.name for t in toolsets]
        for name in names:
            if names.count(name) > 1:
                raise ValueError(f"toolset {name!r} is defined twice")
        return toolsets

    @field_validator("overrides")
    @classmethod
    def _unique_overrides(cls, overrides: tuple[ToolOverride, ...]) -> tuple[ToolOverride, ...]:
        keys = [o.key for o in overrides]
        for key in keys:
            if keys.count(key) > 1:
                raise ValueError(f"tool {key!r} is overridden twice")
        return overrides

    def recorded(self) -> Options:
        """These options as mcpgen.toml records them: without where to write and `force`."""
        return self.model_copy(update={"output": None, "force": False})


WRONG_SOURCE = {
    "filters": "operation filters apply to OpenAPI sources; use options.include/exclude",
    "routes": "route rules apply to OpenAPI sources; bind functions with [[resources]]",
    "resource_functions": "[[resources]] binds Python functions; for OpenAPI use [[routes]] or --resources",
    "function": "only Python sources can bind a function as a prompt",
}


def source_problems(options: Options, kind: SourceKind) -> list[Problem]:
    """Every option given that `kind` of source cannot use."""
    found: list[Problem] = []
    if kind == "python" and options.filters != OperationFilter():
        found.append(Problem(("filters",), WRONG_SOURCE["filters"]))
    if kind == "python" and options.routes:
        found.append(Problem(("routes",), WRONG_SOURCE["routes"]))
    if kind == "openapi" and options.resource_functions:
        found.append(Problem(("resource_functions",), WRONG_SOURCE["resource_functions"]))
    for index, prompt in enumerate(options.prompts):
        if prompt.function is not None and kind != "python":
            found.append(Problem(("prompts", index, "function"), WRONG_SOURCE["function"]))
    return found


# -- validation errors as plain messages -------------------------------------------------


@dataclass(frozen=True, slots=True)
class Problem:
    """One validation error: where (the model's field path), what is wrong, what to do."""

    loc: tuple[str | int, ...]
    message: str
    hint: str = ""


def problems(error: ValidationError, model: type[BaseModel] = Options) -> list[Problem]:
    """Each error of `error` (raised validating `model`) in the words of the field's `expected`."""
    out: list[Problem] = []
    for item in error.errors(include_url=False):
        loc = tuple(item["loc"])
        kind = item["type"]
        field = _field(model, loc)
        if kind == "extra_forbidden":
            parent = _field_model(model, loc[:-1])
            known = ", ".join(parent.model_fields) if parent is not None else ""
            out.append(Problem(loc, "unknown key", f"known keys: {known}" if known else ""))
        elif kind == "missing":
            out.append(Problem(loc, "required, but not given"))
        elif kind == "value_error":
            cause = item.get("ctx", {}).get("error")
            out.append(Problem(_trim_validator_loc(loc), str(cause) if cause is not None else item["msg"]))
        else:
            # A list item's error is reported on the list, in the list's words.
            while loc and isinstance(loc[-1], int) and field is None:
                loc = loc[:-1]
                field = _field(model, loc)
            loc = _trim_validator_loc(loc)
            field = field or _field(model, loc)
            expected = _expected(field)
            value = item.get("input")
            if expected and not (kind == "literal_error" and loc[-1:] == ("methods",)):
                out.append(Problem(loc, f"expected {expected}, got {value!r}"))
            elif kind == "literal_error":
                out.append(Problem(loc, f"unknown HTTP method {value!r}", f"one of {', '.join(HTTP_METHODS)}"))
            else:
                out.append(Problem(loc, item["msg"]))
    return out


def _trim_validator_loc(loc: tuple[str | int, ...]) -> tuple[str | int, ...]:
    """Pydantic adds the union member or function name (`function-after[...]`, `str`) to some locs."""
    return tuple(p for p in loc if not (isinstance(p, str) and ("[" in p or p in ("str", "int", "bool", "none"))))


def _expected(field: FieldInfo | None) -> str:
    extra = field.json_schema_extra if field is not None else None
    if isinstance(extra, dict):
        words = extra.get("expected")
        if isinstance(words, str):
            return words
    return ""


def _walk(model: type[BaseModel], loc: tuple[str | int, ...]) -> Iterator[tuple[type[BaseModel] | None, FieldInfo | None]]:
    """(model, field) at each step of `loc` (None once the path leaves the models)."""
    current: type[BaseModel] | None = model
    field: FieldInfo | None = None
    for part in _trim_validator_loc(loc):
        if isinstance(part, int):
            field = None
            yield current, field
            continue
        if current is None or part not in current.model_fields:
            yield None, None
            return
        field = current.model_fields[part]
        current = _inner_model(field.annotation)
        yield current, field


def _inner_model(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if get_origin(annotation) is not None:
        for arg in get_args(annotation):
            found = _inner_model(arg)
            if found is not None:
                return found
    return None


def _field(model: type[BaseModel], loc: tuple[str | int, ...]) -> FieldInfo | None:
    steps = list(_walk(model, loc))
    return steps[-1][1] if steps else None


def _field_model(model: type[BaseModel], loc: tuple[str | int, ...]) -> type[BaseModel] | None:
    steps = list(_walk(model, loc))
    return steps[-1][0] if steps else model


__all__ = [
    "CLIENT_PROFILES",
    "DEFAULT_MAX_RESPONSE_CHARS",
    "DEFAULT_OUTPUT_SCHEMAS",
    "DEFAULT_PAGE_SIZE",
    "DEFAULT_TOOL_MODE",
    "HTTP_METHODS",
    "MIN_MAX_RESPONSE_CHARS",
    "OUTPUT_SCHEMAS",
    "TOOLSETS_FROM",
    "ClientProfile",
    "IconSpec",
    "OperationFilter",
    "Options",
    "OutputSchemas",
    "Problem",
    "PromptArgumentSpec",
    "PromptMessageSpec",
    "PromptSpec",
    "ResourceSpec",
    "RouteRule",
    "ToolMode",
    "ToolOverride",
    "ToolsetSpec",
    "ToolsetsFrom",
    "problems",
    "source_problems",
]
