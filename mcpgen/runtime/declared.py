# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""The one declaration of every runtime setting: `PREFIX_<name>`, its type, its default as
shown to the operator, its meaning, and which servers read it.

`settings` reads only the names declared here; the generated README's settings table and the
settings reference page are made from this tuple. The `project` ones are listed with the
variables a source declares per project (security schemes' credentials), which are not here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# Which servers read it: every one, OpenAPI or Python ones, or OpenAPI ones that upload files
# (`uploads`), send files or binary bodies (`sends_bytes`) or read streamed responses
# (`streams`: OpenAPI 3.2 sequential media types), or servers whose tools are grouped in
# toolsets (`toolsets`); `project`: listed with the
# project's own variables, by the source that knows when they apply.
Scope = Literal[
    "all", "openapi", "python", "uploads", "sends_bytes", "streams", "project", "code", "toolsets"
]
Kind = Literal["seconds", "bytes", "count", "flag", "choice", "text", "list", "url", "path", "rate"]


@dataclass(frozen=True, slots=True)
class Setting:
    name: str  # after `PREFIX_`
    kind: Kind
    default: str | None  # as shown; `{prefix}`, `{page_size}`, `{max_response_chars}` filled in
    meaning: str
    scope: Scope = "all"


SETTINGS: tuple[Setting, ...] = (
    Setting("BASE_URL", "url", None, "Base URL of the API", "project"),
    Setting(  # only when the spec declares no (usable) security scheme
        "BEARER_TOKEN",
        "text",
        None,
        "Token sent as `Authorization: Bearer <token>` with every request (the spec declares no "
        "security scheme)",
        "project",
    ),
    Setting(
        "HEADERS",
        "text",
        None,
        "Headers sent with every request: `Name: value` lines or a JSON object; values are "
        "redacted like secrets",
        "project",
    ),
    Setting(
        "RATE_LIMIT",
        "rate",
        "0",
        "Tool calls allowed, e.g. `10/s`, `600/min`, `10/s burst 20` (a bare number: per minute); "
        "0 = unlimited",
    ),
    Setting(
        "RATE_LIMIT_<TOOL>",
        "rate",
        None,
        "Same, for one tool: its name upper-cased, non-alphanumerics as `_`",
    ),
    Setting(
        "ONE_PAGE_BYTES",
        "bytes",
        "8MB",
        "A tools/list whose JSON is at most this size is one page (clients that read only "
        "the first page see every tool); 0 = always paged",
    ),
    Setting("PAGE_SIZE", "count", "{page_size}", "Tools per tools/list page, past that budget"),
    Setting("READ_ONLY", "flag", "0", "1 = list and run only tools annotated readOnlyHint"),
    Setting(
        "TOOLS_ALLOW",
        "list",
        None,
        "Comma-separated glob patterns over the names of tools, resources and prompts: "
        "only matching ones are listed and served",
    ),
    Setting(
        "TOOLS_DENY",
        "list",
        None,
        "Comma-separated glob patterns over the same names: matching ones are hidden and refused",
    ),
    Setting(
        "TOOLSETS",
        "list",
        None,
        "Comma-separated toolsets to serve (`all`: every one); the tools of the others are hidden "
        "and refused; unset: every toolset, or none with TOOLSETS_DYNAMIC=1",
        "toolsets",
    ),
    Setting(
        "TOOLSETS_DYNAMIC",
        "flag",
        "0",
        "1 = serve the `enable_toolsets` tool, which lists the toolsets and enables more for the "
        "connection (tools list_changed); stdio, or HTTP sessions with 2025-11-25 clients",
        "toolsets",
    ),
    Setting(
        "MCP_TOKEN",
        "text",
        None,
        "Bearer token HTTP clients must send; required to bind to a non-loopback --host",
    ),
    Setting(
        "MCP_AUTH",
        "choice",
        "token",
        "HTTP clients: token (the static MCP_TOKEN, or none) or oauth (OAuth 2.1 access tokens)",
    ),
    Setting(
        "MCP_OAUTH_ISSUER",
        "url",
        None,
        "With MCP_AUTH=oauth: the authorization server (issuer) whose tokens are accepted",
    ),
    Setting(
        "MCP_OAUTH_RESOURCE",
        "url",
        "http://HOST:PORT/mcp",
        "With MCP_AUTH=oauth: this server's public URL (ending /mcp), the tokens' audience",
    ),
    Setting(
        "MCP_OAUTH_JWKS_URL",
        "url",
        "from the issuer's metadata",
        "With MCP_AUTH=oauth: the issuer's JWKS",
    ),
    Setting(
        "MCP_OAUTH_ALGORITHMS",
        "list",
        "RS256,PS256,ES256,ES384,EdDSA",
        "With MCP_AUTH=oauth: accepted JWT signature algorithms",
    ),
    Setting(
        "MCP_OAUTH_INTROSPECTION_URL",
        "url",
        None,
        "With MCP_AUTH=oauth: an RFC 7662 endpoint to check (opaque) tokens at, instead of the JWKS",
    ),
    Setting(
        "MCP_OAUTH_CLIENT_ID", "text", None, "This server's client id at the introspection endpoint"
    ),
    Setting(
        "MCP_OAUTH_CLIENT_SECRET",
        "text",
        None,
        "This server's client secret at the introspection endpoint",
    ),
    Setting(
        "ALLOWED_HOSTS",
        "list",
        None,
        "Extra host names HTTP clients may use (DNS-rebinding protection)",
    ),
    Setting(
        "HTTP_KEEP_ALIVE",
        "seconds",
        "120",
        "Seconds an idle HTTP connection stays open (TS clients pause after listing)",
    ),
    Setting(
        "REDIS_URL",
        "url",
        None,
        "Share rate limits and upstream 429 back-off with other replicas on Redis "
        "(needs the `redis` extra)",
    ),
    Setting(
        "REDIS_FAILURE",
        "choice",
        "open",
        "Redis unreachable: `open` applies limits per replica, `closed` refuses calls",
    ),
    Setting(
        "REDIS_TIMEOUT",
        "seconds",
        "0.25",
        "Deadline of one Redis check, connecting included, seconds",
    ),
    Setting(
        "REDIS_PASSWORD_FILE",
        "path",
        None,
        "A file holding Redis's password (compose's secret), never shown",
    ),
    Setting(
        "IDEMPOTENCY_KEY",
        "text",
        None,
        "Header (e.g. `Idempotency-Key`) on POST/PATCH upstream requests, keyed on haproxy's `X-Request-Id`",
        "openapi",
    ),
    Setting(
        "HTTP_RESPONSE",
        "choice",
        "sse",
        "sse: a call's progress and log notifications reach HTTP clients; json: one JSON body, none",
    ),
    Setting(
        "HTTP_SESSIONS",
        "flag",
        "0",
        "1 = HTTP sessions (Mcp-Session-Id), for elicitation and sampling with 2025-11-25 "
        "clients; one replica, or sticky routing",
    ),
    Setting(
        "REQUEST_STATE_KEY",
        "list",
        "one per process",
        "Keys (32+ characters, comma-separated, first one seals) for 2026-07-28 elicitation "
        "state; the same on every replica",
    ),
    Setting(
        "AUDIT_LOG",
        "choice",
        "full",
        "One JSON line per tool call on stderr: full (arguments redacted), minimal, off",
    ),
    Setting(
        "TELEMETRY",
        "choice",
        "on",
        "OpenTelemetry spans and metrics: on (exported when OTEL_EXPORTER_OTLP_ENDPOINT is set), "
        "propagate (trace context passed on only), off",
    ),
    Setting(
        "METRICS",
        "choice",
        "off",
        "prometheus: GET /metrics on the HTTP transport, behind the same gates as /mcp; off",
    ),
    Setting(
        "REDACT",
        "list",
        None,
        "Comma-separated names of further env vars whose values are never shown",
    ),
    Setting("TIMEOUT", "seconds", "30", "Upstream wait for each read or write, seconds", "openapi"),
    Setting(
        "CONNECT_TIMEOUT",
        "seconds",
        "10",
        "Upstream connect timeout, and the wait for a free pooled connection, seconds",
        "openapi",
    ),
    Setting(
        "CALL_TIMEOUT",
        "seconds",
        "twice {prefix}_TIMEOUT",
        "Deadline for a whole tool call: connecting, sending, every read, retries and their "
        "waits; seconds",
        "openapi",
    ),
    Setting(
        "RETRIES",
        "count",
        "2",
        "Retries of idempotent requests after connection errors and 502/503/504",
        "openapi",
    ),
    Setting(
        "PROGRESS_INTERVAL",
        "seconds",
        "5",
        "Seconds between progress notifications while an upstream call runs, to a "
        "client that sent a progressToken; 0 = none",
        "openapi",
    ),
    Setting(
        "MAX_CONNECTIONS",
        "count",
        "100",
        "Upstream connections open at once; a call finding all busy says so",
        "openapi",
    ),
    Setting(
        "MAX_RESPONSE_BYTES",
        "bytes",
        "20MB",
        "Larger upstream bodies (counted decompressed) are refused, not read: bytes, or e.g. "
        "20MB, 512KiB",
        "openapi",
    ),
    Setting(
        "STREAM_MAX_ITEMS",
        "count",
        "1000",
        "Items read from a streamed (JSON Lines, JSON Seq, server-sent events) response; past "
        "it the stream is closed and the result says so",
        "streams",
    ),
    Setting(
        "STREAM_MAX_BYTES",
        "bytes",
        "1MB",
        "Bytes read from a streamed response (counted decompressed); past it the stream is "
        "closed and the result says so",
        "streams",
    ),
    Setting(
        "CA_BUNDLE",
        "path",
        None,
        "PEM file or directory of CA certificates to trust (TLS is always verified)",
        "openapi",
    ),
    Setting(
        "UPLOAD_DIR",
        "path",
        None,
        "Directory whose files tools may upload by path; unset = no local file access",
        "uploads",
    ),
    Setting(
        "MAX_UPLOAD_BYTES",
        "bytes",
        "50MB",
        "Larger files and binary bodies are refused, files before they are read",
        "sends_bytes",
    ),
    Setting(  # Python tools' images, audio and blobs (content.py)
        "MAX_RESPONSE_BYTES",
        "bytes",
        "20MB",
        "Binary content (images, audio, blobs) a tool returns, in all; a block past it becomes a note",
        "python",
    ),
    Setting(  # code tool mode's sandbox (code_mode.py)
        "CODE_TIMEOUT",
        "seconds",
        "10",
        "Seconds of sandboxed execution one `execute` may use (time waiting on operations not "
        "counted); past it the code stops with a TimeoutError",
        "code",
    ),
    Setting(
        "CODE_MAX_MEMORY",
        "bytes",
        "64MB",
        "Heap one `execute` may allocate in its sandbox; past it the code stops with a MemoryError",
        "code",
    ),
    Setting(
        "CODE_MAX_OUTPUT",
        "count",
        "20000",
        "Characters of printed output and of the returned value one `execute` sends back; the "
        "rest is cut, with a note",
        "code",
    ),
    Setting(
        "CODE_MAX_CALLS",
        "count",
        "50",
        "Operation calls one `execute` may make; the next raises an error in the code",
        "code",
    ),
    Setting(
        "MAX_RESPONSE_CHARS",
        "count",
        "{max_response_chars}",
        "Longer results are truncated, with a note",
    ),
)

NAMES = frozenset(setting.name for setting in SETTINGS)


def meaning(name: str) -> str:
    """The meaning of the one setting `name` (declared once, whatever its scope)."""
    return next(setting.meaning for setting in SETTINGS if setting.name == name)


def declared(name: str) -> str:
    """`name` itself, if it is declared above; KeyError otherwise (a setting read but not
    documented is a bug of the runtime, caught by its tests)."""
    if name not in NAMES:
        raise KeyError(f"setting {name!r} is not declared in runtime/declared.py")
    return name
