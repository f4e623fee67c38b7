"""The intermediate model every source produces and every template reads.

Frozen dataclasses, tuples and plain-dict JSON Schemas: no OpenAPI or Python-source
object passes a parser. Derived facts are computed by the parser, not in templates.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

JsonSchema = dict[str, Any]
# `querystring` (OpenAPI 3.2): the whole query string, one value serialized by its `content_type`.
ParamLocation = Literal["path", "query", "querystring", "header", "cookie"]
ResponseKind = Literal["json", "text", "binary", "empty"]
# A sequential response (OpenAPI 3.2 `itemSchema`): JSON Lines, JSON Text Sequences (RFC 7464)
# or server-sent events, read item by item.
StreamFormat = Literal["jsonl", "json-seq", "sse"]


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a node came from: a file and a JSON pointer (or a line for Python sources)."""

    file: str
    pointer: str = ""
    line: int | None = None

    def __str__(self) -> str:
        text = self.file + (f"#{self.pointer}" if self.pointer else "")
        return text + (f":{self.line}" if self.line is not None and not self.pointer else "")


@dataclass(frozen=True, slots=True)
class Annotations:
    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None


@dataclass(frozen=True, slots=True)
class Icon:
    """An MCP icon (2025-11-25): `src` an https: URL or a data: URI of an image, checked."""

    src: str
    mime_type: str | None = None
    sizes: tuple[str, ...] = ()
    theme: Literal["light", "dark"] | None = None


@dataclass(frozen=True, slots=True)
class HttpParam:
    """One request parameter: its wire name, where it goes and its tool argument."""

    name: str
    argument: str
    location: ParamLocation
    required: bool
    style: str
    explode: bool
    python_name: str
    python_type: str
    content_type: str | None = None  # a `querystring` parameter's media type (how it is serialized)


@dataclass(frozen=True, slots=True)
class BodyField:
    """A top-level property of an object request body, exposed as its own argument."""

    name: str
    argument: str
    required: bool
    python_name: str
    python_type: str
    file: bool = False  # multipart file part (or a list of them): argument is a file object
    style: str | None = None  # `encoding` of a form/multipart property, when the spec sets one
    explode: bool | None = None
    content_type: str | None = None


@dataclass(frozen=True, slots=True)
class HttpBody:
    """The request body. `fields` set: properties flattened into arguments; else the
    whole body is the single argument `argument`."""

    content_type: str
    required: bool
    fields: tuple[BodyField, ...]
    argument: str | None
    python_name: str | None
    python_type: str


@dataclass(frozen=True, slots=True)
class HttpRoute:
    method: str
    path: str
    params: tuple[HttpParam, ...]
    body: HttpBody | None
    security: tuple[tuple[str, ...], ...]  # alternatives; each a set of scheme names
    response_kind: ResponseKind
    response_type: str  # Python annotation of the typed function's return value
    response_model: str | None  # model class to parse JSON into, when there is one
    response_model_module: str | None
    # The component schema the success response names (`$ref`, or an array's `items`), set by
    # the source; the models stage types the route with its class, when one is generated.
    response_component: str | None = None
    response_is_list: bool = False
    # A sequential success response: read item by item within the stream limits, each item a
    # progress notification, the result `{"items": [...], "complete": ..., "note": ...}`.
    response_stream: StreamFormat | None = None


@dataclass(frozen=True, slots=True)
class PythonCall:
    """A function of the user's module that a tool calls."""

    module: str
    function: str
    is_async: bool
    context: str | None = None  # the parameter that takes the request's Context (not an argument)


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    title: str | None
    description: str
    input_schema: JsonSchema
    output_schema: JsonSchema | None
    wraps_result: bool  # structuredContent is {"result": value}
    annotations: Annotations
    origin: Origin
    python_name: str  # identifier of the typed function for this tool
    route: HttpRoute | None = None
    call: PythonCall | None = None
    tags: tuple[str, ...] = ()  # OpenAPI tags; dynamic mode's search ranks them
    operation_id: str | None = None  # OpenAPI operationId, for mcpgen.toml route rules
    # The full input schema the server validates against, when a client profile
    # advertises a simpler `input_schema` (None: the advertised one is the full one).
    input_validation: JsonSchema | None = None
    icons: tuple[Icon, ...] = ()
    # OAuth scopes a caller needs (PREFIX_MCP_AUTH=oauth): alternatives, each a set all of whose
    # scopes are needed; None: not stated, the project's `default_scopes` apply.
    scopes: tuple[tuple[str, ...], ...] | None = None
    # Ask the user (elicitation) before the upstream request: `[tools.X] confirm`, else
    # `[options] confirm` (mcpgen.transforms.overrides.apply_confirm); None: not stated.
    confirm: bool | None = None
    # The toolsets it belongs to (`mcpgen.transforms.toolsets`); (): none, always served.
    toolsets: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Toolset:
    """A named group of tools a server enables at run time (PREFIX_TOOLSETS)."""

    name: str
    description: str


@dataclass(frozen=True, slots=True)
class Resource:
    """A GET operation read through resources/read: a fixed `uri`, or a `uri_template`
    (RFC 6570) whose variables fill the operation's path parameters."""

    name: str
    title: str | None
    description: str
    uri: str | None
    uri_template: str | None
    uri_pattern: str | None  # regex (for fullmatch) of the template's URIs, one group per variable
    mime_type: str | None
    variables: tuple[tuple[str, str], ...]  # (template variable, tool argument it fills)
    completions: tuple[tuple[str, tuple[str, ...]], ...]  # (template variable, its enum values)
    route: HttpRoute | None  # None: a Python function (`call`) answers reads
    origin: Origin
    call: PythonCall | None = None
    # (template variable, the JSON Schema its value must match): reads are validated against
    # the parameter schema before anything is sent; a variable without one takes any string.
    schemas: tuple[tuple[str, JsonSchema], ...] = ()
    read_only: bool = True  # the operation's readOnlyHint: PREFIX_READ_ONLY=1 hides it when False
    # OAuth scopes a reader needs, as `Tool.scopes`: the operation's (so reading a resource needs
    # what calling its tool needs) or `[[resources]] scopes`; None: `default_scopes` apply.
    scopes: tuple[tuple[str, ...], ...] | None = None


@dataclass(frozen=True, slots=True)
class SecurityScheme:
    """How one credential reaches the upstream, and the env vars that hold it."""

    name: str
    kind: Literal["apiKey", "bearer", "basic", "oauth2"]
    location: Literal["header", "query", "cookie"]
    parameter: str  # header/query/cookie name (Authorization for bearer/basic)
    # one; (USERNAME, PASSWORD) for basic; for oauth2: (TOKEN, CLIENT_ID, CLIENT_SECRET, TOKEN_URL, SCOPES)
    env_vars: tuple[str, ...]
    description: str
    token_url: str | None = None  # oauth2 client-credentials flow's tokenUrl, as the spec writes it
    deprecated: bool = False  # the spec marks the scheme deprecated (OpenAPI 3.2); still used
    # OAuth2 (OpenAPI 3.2): the device authorization flow's endpoint (the server does not run that
    # flow: a token obtained with it is set in the environment) and the RFC 8414 metadata URL.
    device_authorization_url: str | None = None
    metadata_url: str | None = None


@dataclass(frozen=True, slots=True)
class Tag:
    """A tag the spec declares, with OpenAPI 3.2's metadata: `parent` names the tag it nests
    under (checked: declared, no cycle), `root` the top-level tag it is folded into (itself when
    it has no parent), `kind` its category as written (`nav`, `badge`, `audience`...)."""

    name: str
    summary: str
    description: str
    parent: str | None
    root: str
    kind: str | None
    origin: Origin


@dataclass(frozen=True, slots=True)
class EnvVar:
    name: str
    description: str
    default: str | None = None
    secret: bool = False


@dataclass(frozen=True, slots=True)
class ModelSchemas:
    """What the models stage generates typed models from: an OpenAPI-shaped document (plain
    JSON) whose `components.schemas` are the ones the selected operations use."""

    document: dict[str, Any]
    names: tuple[str, ...]
    file: str  # the source file the schemas' pointers are in, as diagnostics name it


@dataclass(frozen=True, slots=True)
class ModelModule:
    """One generated module of pydantic models (relative path under models/)."""

    path: str
    source: str


@dataclass(frozen=True, slots=True)
class PromptArgument:
    name: str
    description: str
    required: bool
    values: tuple[str, ...] = ()  # offered by completion/complete


@dataclass(frozen=True, slots=True)
class PromptMessage:
    """Text with `{argument}` placeholders (filled by plain substitution), or an embedded
    text resource (`resource_uri` set, `text` its content)."""

    role: Literal["user", "assistant"]
    text: str
    resource_uri: str | None = None
    resource_mime_type: str | None = None


@dataclass(frozen=True, slots=True)
class Prompt:
    """An MCP prompt: declared messages, or a function of the Python source (`call`)."""

    name: str
    title: str | None
    description: str
    arguments: tuple[PromptArgument, ...]
    messages: tuple[PromptMessage, ...] = ()
    call: PythonCall | None = None


@dataclass(frozen=True, slots=True)
class Project:
    """Everything needed to render one generated server package."""

    name: str  # slug, also the console script
    package: str  # Python package name
    env_prefix: str
    title: str
    description: str
    version: str
    source_kind: Literal["openapi", "python"]
    source_file: str
    tools: tuple[Tool, ...]
    base_url: str | None
    security_schemes: tuple[SecurityScheme, ...]
    env_vars: tuple[EnvVar, ...]
    model_schemas: ModelSchemas | None = None  # the source's input for the models stage
    models: tuple[ModelModule, ...] = ()  # the models stage's output
    extra_dependencies: tuple[str, ...] = ()
    copied_files: tuple[tuple[str, str], ...] = ()  # (relative path in package, text)
    prompts: tuple[Prompt, ...] = ()
    tool_mode: Literal["static", "dynamic", "code"] = "static"  # set from Options at emit time
    page_size: int = 25  # default tools/list page size, set from Options at emit time
    client_profile: str | None = None
    resources: tuple[Resource, ...] = ()
    max_response_chars: int = 100_000  # default cap of one tool result, in characters
    # The spec declares no (usable) security scheme: PREFIX_BEARER_TOKEN / PREFIX_HEADERS instead
    generic_credentials: bool = False
    icons: tuple[Icon, ...] = ()  # serverInfo.icons
    default_scopes: tuple[str, ...] = ()  # OAuth scopes of tools that state none (Options)
    files_read: tuple[str, ...] = ()  # every file (or URL) the source was read from, as diagnostics name them
    toolsets: tuple[Toolset, ...] = ()  # sorted by name; each tool names its own (`Tool.toolsets`)
    tag_parents: tuple[tuple[str, str], ...] = ()  # OpenAPI 3.2 tag `parent`s: (tag, parent), sorted
    tags: tuple[Tag, ...] = ()  # the spec's declared tags, in its order (tools name them in `Tool.tags`)
