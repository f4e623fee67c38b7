# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""Every `PREFIX_*` setting of a generated server, read and checked in one place.

`check_environment` runs before the server serves: a malformed value stops it (exit 2)
with one line per problem, naming the variable and the form it expects, instead of being
ignored. During serving, `current()` returns the parsed settings; it parses again only
when the environment the settings come from has changed (tests set variables per case).
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import fnmatch
import functools
import ipaddress
import json
import os
import re
import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Literal, TypeVar

from .declared import declared
from .paging import ONE_PAGE_BYTES
from .project import Project, on_install
from .project import current as current_project

AuditMode = Literal["full", "minimal", "off"]
RedisFailure = Literal["open", "closed"]
AuthMode = Literal["token", "oauth"]
HttpResponse = Literal["sse", "json"]
TelemetryMode = Literal["on", "propagate", "off"]
MetricsEndpoint = Literal["off", "prometheus"]
T = TypeVar("T")
ToolNames = Iterable[str] | Callable[[], Iterable[str]]  # the served tool names, or how to get them

DEFAULT_TIMEOUT = 30.0
DEFAULT_CONNECT_TIMEOUT = 10.0
DEFAULT_RETRIES = 2
CALL_TIMEOUT_FACTOR = 2  # unset PREFIX_CALL_TIMEOUT: this many times PREFIX_TIMEOUT
DEFAULT_MAX_CONNECTIONS = 100  # upstream connections open at once (httpx's default)
DEFAULT_MAX_RESPONSE_BYTES = 20_000_000  # an upstream body, counted after decompression
DEFAULT_MAX_UPLOAD_BYTES = 50_000_000  # one file part or binary body sent upstream
DEFAULT_STREAM_MAX_ITEMS = 1_000  # items of one sequential (streamed) response read
DEFAULT_STREAM_MAX_BYTES = 1_000_000  # bytes of one sequential response read, counted decoded
MIN_BYTES = 1_000
DEFAULT_REDIS_TIMEOUT = 0.25  # one shared rate-limit check (see `shared`), connecting included
DEFAULT_PROGRESS_INTERVAL = 5.0  # seconds between heartbeats while an upstream call runs
DEFAULT_HTTP_KEEP_ALIVE = 120  # uvicorn's 5 s closes the socket a TS client reuses after listing
MIN_RESPONSE_CHARS = 1_000
DEFAULT_OAUTH_ALGORITHMS = ("RS256", "PS256", "ES256", "ES384", "EdDSA")
# Asymmetric signatures only: never none or HS*.
OAUTH_ALGORITHMS: tuple[str, ...] = (
    "RS256",
    "RS384",
    "RS512",
    "PS256",
    "PS384",
    "PS512",
    "ES256",
    "ES384",
)
OAUTH_ALGORITHMS += ("ES512", "EdDSA")
MIN_TOKEN_CHARS = 16  # PREFIX_MCP_TOKEN: shorter ones are guessable (and too short to redact)
MIN_STATE_KEY_CHARS = 32  # PREFIX_REQUEST_STATE_KEY: the SDK's AES-GCM codec wants 32 bytes
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("", "0", "false", "no", "off")
_RATE = re.compile(
    r"^(\d+(?:\.\d+)?)\s*/\s*(s|sec|second|m|min|minute|h|hr|hour)(?:\s+burst\s+(\d+))?$",
    re.IGNORECASE,
)
_SECRET_NAME = re.compile(
    r"(?i)(pass(word|wd|phrase)?|secret|token|api[-_]?key|credential|private[-_]?key)"
)
_SECONDS = {"s": 1, "sec": 1, "second": 1, "m": 60, "min": 60, "minute": 60}
_SECONDS.update({"h": 3600, "hr": 3600, "hour": 3600})
_BYTES = re.compile(r"^(\d+)\s*(b|kb|mb|gb|kib|mib|gib)?$", re.IGNORECASE)
_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9}
_UNITS.update({"kib": 2**10, "mib": 2**20, "gib": 2**30})


class SettingsError(Exception):
    """A malformed or inconsistent setting; the message names the variable and the fix."""


@dataclass(frozen=True, slots=True)
class Rate:
    per_second: float
    burst: float
    text: str  # as configured, for messages


@dataclass(frozen=True, slots=True)
class Settings:
    prefix: str
    base_url: str | None = None
    timeout: float = DEFAULT_TIMEOUT  # the wait for each read or write
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT  # a connection, or a free one from the pool
    call_timeout: float = DEFAULT_TIMEOUT * CALL_TIMEOUT_FACTOR  # the whole call, retries included
    retries: int = DEFAULT_RETRIES
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    max_upload_bytes: int = DEFAULT_MAX_UPLOAD_BYTES
    stream_max_items: int = DEFAULT_STREAM_MAX_ITEMS
    stream_max_bytes: int = DEFAULT_STREAM_MAX_BYTES
    ca_bundle: str | None = None
    upload_dir: str | None = None
    page_size: int = 25
    one_page_bytes: int = ONE_PAGE_BYTES  # a tools/list this small is one page
    max_response_chars: int = 100_000
    http_keep_alive: int = DEFAULT_HTTP_KEEP_ALIVE
    # SSE responses carry a call's progress and log notifications; JSON ones cannot.
    http_response: HttpResponse = "sse"
    http_sessions: bool = False  # Mcp-Session-Id: requests to a 2025-11-25 client over HTTP
    request_state_keys: tuple[str, ...] = ()  # seal 2026-07-28 requestState; empty: per process
    progress_interval: float = DEFAULT_PROGRESS_INTERVAL  # 0: no heartbeat progress
    code_timeout: float = 10.0  # code mode: sandboxed seconds per execute
    code_max_memory: int = 64_000_000  # code mode: sandbox heap bytes per execute
    code_max_output: int = 20_000  # code mode: characters sent back per execute
    code_max_calls: int = 50  # code mode: operation calls per execute
    read_only: bool = False
    tools_allow: tuple[str, ...] = ()
    tools_deny: tuple[str, ...] = ()
    toolsets: tuple[str, ...] = ()  # toolsets served from the start; ("all",): every one
    toolsets_dynamic: bool = False  # serve `enable_toolsets` (see `toolsets`)
    rate_limit: Rate | None = None
    tool_rate_limits: dict[str, Rate] = field(default_factory=dict)
    mcp_token: str | None = None
    auth: AuthMode = "token"  # PREFIX_MCP_AUTH: the static token (or none), or OAuth (see `oauth`)
    oauth_issuer: str | None = None
    oauth_resource: str | None = None  # this server's URL, the tokens' audience (RFC 8707)
    oauth_jwks_url: str | None = None  # None: from the issuer's metadata
    oauth_algorithms: tuple[str, ...] = DEFAULT_OAUTH_ALGORITHMS
    oauth_introspection_url: str | None = None
    oauth_client_id: str | None = None
    oauth_client_secret: str | None = None
    allowed_hosts: tuple[str, ...] = ()
    redis_url: str | None = None  # rate limits shared by replicas (`shared`)
    redis_failure: RedisFailure = "open"
    redis_timeout: float = DEFAULT_REDIS_TIMEOUT
    redis_password: str | None = None  # from PREFIX_REDIS_PASSWORD_FILE (e.g. a compose secret)
    # The header (e.g. Idempotency-Key) carrying a key derived from the balancer's request id
    # on non-idempotent upstream requests, so a retried call is not run twice (`replay`).
    idempotency_key: str | None = None
    audit_log: AuditMode = "full"
    telemetry: TelemetryMode = "on"  # OpenTelemetry spans and metrics (`telemetry`)
    metrics: MetricsEndpoint = "off"  # prometheus: GET /metrics on the HTTP transport
    redact: tuple[str, ...] = ()  # further env vars whose values are never shown
    # The values of the variables credentials are read from (empty ones left out).
    credentials: dict[str, str] = field(default_factory=dict)
    # Values never shown (see `secret_variables`), by variable.
    secrets: dict[str, str] = field(default_factory=dict)
    # A spec declaring no security scheme (`Project.generic_credentials`): what every request
    # carries, from PREFIX_BEARER_TOKEN and PREFIX_HEADERS (see `parse_headers`).
    bearer_token: str | None = None
    headers: tuple[tuple[str, str], ...] = ()

    def variable(self, name: str) -> str:
        return f"{self.prefix}_{name}"

    def credential(self, variable: str) -> str | None:
        return self.credentials.get(variable)


def parse_rate(variable: str, raw: str) -> Rate | None:
    """`10/s`, `600/min`, `10/s burst 20`, or a bare number (per minute); None: no limit."""
    text = " ".join(raw.split())
    if text.lower() in ("", "0", "off", "none"):
        return None
    if text.isdigit():
        return Rate(int(text) / 60, int(text), f"{text}/min")
    match = _RATE.match(text)
    count = float(match.group(1)) if match else 0.0
    if match is None or count <= 0 or (match.group(3) is not None and int(match.group(3)) < 1):
        raise SettingsError(
            f"{variable}={raw!r}: expected a rate like '10/s', '600/min' or '10/s burst 20' "
            "(a bare number means calls per minute; empty or 0 means no limit)"
        )
    burst = float(match.group(3)) if match.group(3) else max(1.0, count)
    return Rate(count / _SECONDS[match.group(2).lower()], burst, text)


def tool_variable(prefix: str, setting: str, tool: str) -> str:
    """`PETSTORE` + `RATE_LIMIT` + tool `getPetById` -> `PETSTORE_RATE_LIMIT_GETPETBYID`."""
    return f"{prefix}_{setting}_" + re.sub(r"[^A-Za-z0-9]", "_", tool).upper()


def credential_variables(project: Project) -> tuple[str, ...]:
    """Every variable a credential may be read from: the schemes' and the declared secrets."""
    names = [v for scheme in project.security_schemes.values() for v in scheme["env"]]
    return tuple(dict.fromkeys([*names, *project.secret_env_vars]))


def secret_variables(
    project: Project, environ: Mapping[str, str], redact: Iterable[str]
) -> list[str]:
    """The credentials' variables, this server's token and Redis URL (it may hold a password),
    any `PREFIX_*` variable named like a secret, and those `PREFIX_REDACT` lists; `*_USERNAME`
    ones are not secret."""
    prefix = project.env_prefix
    names = [*project.secret_env_vars, f"{prefix}_MCP_TOKEN", f"{prefix}_REDIS_URL"]
    names.append(f"{prefix}_REQUEST_STATE_KEY")
    names += [
        name
        for name in sorted(environ)
        if name.startswith(prefix + "_") and _SECRET_NAME.search(name[len(prefix) + 1 :])
    ]
    names += redact
    return list(dict.fromkeys(n for n in names if not n.endswith("_USERNAME")))


def load(
    project: Project,
    environ: Mapping[str, str],
    tools: ToolNames = (),
    base_url: str | None = None,
) -> Settings:
    """Parse every setting; raises SettingsError naming every malformed variable at once.

    `tools`: the names this server serves (patterns and per-tool limits must name one), or
    a function giving them, called only when a setting names tools (a big catalogue is
    read when the first tools/list needs it, not before `initialize` is answered);
    `base_url`: the `--base-url` flag, which wins over the environment."""
    p = project.env_prefix
    problems: list[str] = []
    known: list[list[str]] = []

    def names() -> list[str]:
        if not known:
            known.append(list(tools() if callable(tools) else tools))
        return known[0]

    def read(setting: str, parse: Callable[[str, str], T], default: T) -> T:
        variable = f"{p}_{declared(setting)}"
        raw = environ.get(variable, "").strip()
        if not raw:
            return default
        try:
            return parse(variable, raw)
        except SettingsError as exc:
            problems.append(str(exc))
            return default

    url = base_url or read("BASE_URL", _url, None) or project.base_url
    timeout = read("TIMEOUT", _seconds, DEFAULT_TIMEOUT)
    settings = Settings(
        prefix=p,
        base_url=url.rstrip("/") if url else None,
        timeout=timeout,
        connect_timeout=read("CONNECT_TIMEOUT", _seconds, DEFAULT_CONNECT_TIMEOUT),
        call_timeout=read("CALL_TIMEOUT", _seconds, timeout * CALL_TIMEOUT_FACTOR),
        retries=read("RETRIES", _whole(0), DEFAULT_RETRIES),
        max_connections=read("MAX_CONNECTIONS", _whole(1), DEFAULT_MAX_CONNECTIONS),
        max_response_bytes=read("MAX_RESPONSE_BYTES", _bytes, DEFAULT_MAX_RESPONSE_BYTES),
        max_upload_bytes=read("MAX_UPLOAD_BYTES", _bytes, DEFAULT_MAX_UPLOAD_BYTES),
        stream_max_items=read("STREAM_MAX_ITEMS", _whole(1), DEFAULT_STREAM_MAX_ITEMS),
        stream_max_bytes=read("STREAM_MAX_BYTES", _bytes, DEFAULT_STREAM_MAX_BYTES),
        ca_bundle=read("CA_BUNDLE", _existing_path, None),
        upload_dir=read("UPLOAD_DIR", _directory, None),
        page_size=read("PAGE_SIZE", _whole(1), project.page_size),
        one_page_bytes=read("ONE_PAGE_BYTES", _bytes_or_zero, ONE_PAGE_BYTES),
        max_response_chars=read(
            "MAX_RESPONSE_CHARS", _whole(MIN_RESPONSE_CHARS), project.max_response_chars
        ),
        http_keep_alive=read("HTTP_KEEP_ALIVE", _whole(1), DEFAULT_HTTP_KEEP_ALIVE),
        http_response=read("HTTP_RESPONSE", _http_response, "sse"),
        http_sessions=read("HTTP_SESSIONS", _flag, False),
        request_state_keys=read("REQUEST_STATE_KEY", _state_keys, ()),
        progress_interval=read("PROGRESS_INTERVAL", _interval, DEFAULT_PROGRESS_INTERVAL),
        code_timeout=read("CODE_TIMEOUT", _seconds, 10.0),
        code_max_memory=read("CODE_MAX_MEMORY", _bytes, 64_000_000),
        code_max_output=read("CODE_MAX_OUTPUT", _whole(100), 20_000),
        code_max_calls=read("CODE_MAX_CALLS", _whole(1), 50),
        read_only=read("READ_ONLY", _flag, False),
        tools_allow=read("TOOLS_ALLOW", _patterns(names), ()),
        tools_deny=read("TOOLS_DENY", _patterns(names), ()),
        toolsets=read("TOOLSETS", _toolsets(project), ()),
        toolsets_dynamic=read("TOOLSETS_DYNAMIC", _flag, False),
        rate_limit=read("RATE_LIMIT", parse_rate, None),
        tool_rate_limits=_tool_rates(p, environ, names, problems),
        mcp_token=_mcp_token(f"{p}_{declared('MCP_TOKEN')}", environ, problems),
        auth=read("MCP_AUTH", _auth_mode, "token"),
        oauth_issuer=read("MCP_OAUTH_ISSUER", _url, None),
        oauth_resource=read("MCP_OAUTH_RESOURCE", _url, None),
        oauth_jwks_url=read("MCP_OAUTH_JWKS_URL", _url, None),
        oauth_algorithms=read("MCP_OAUTH_ALGORITHMS", _algorithms, DEFAULT_OAUTH_ALGORITHMS),
        oauth_introspection_url=read("MCP_OAUTH_INTROSPECTION_URL", _url, None),
        oauth_client_id=read("MCP_OAUTH_CLIENT_ID", lambda _, raw: raw, None),
        oauth_client_secret=read("MCP_OAUTH_CLIENT_SECRET", lambda _, raw: raw, None),
        allowed_hosts=read("ALLOWED_HOSTS", _list, ()),
        redis_url=read("REDIS_URL", _redis_url, None),
        redis_failure=read("REDIS_FAILURE", _redis_failure, "open"),
        redis_timeout=read("REDIS_TIMEOUT", _seconds, DEFAULT_REDIS_TIMEOUT),
        redis_password=read("REDIS_PASSWORD_FILE", _secret_file, None),
        idempotency_key=read("IDEMPOTENCY_KEY", _header_name, None),
        audit_log=read("AUDIT_LOG", _audit_mode, "full"),
        telemetry=read("TELEMETRY", _telemetry_mode, "on"),
        metrics=read("METRICS", _metrics_endpoint, "off"),
        redact=read("REDACT", _list, ()),
        credentials={v: environ[v] for v in credential_variables(project) if environ.get(v)},
    )
    problems += _oauth_problems(settings)
    listed = secret_variables(project, environ, settings.redact)
    secrets = {v: environ[v] for v in listed if environ.get(v)}
    # Redis's password, from its file or the URL, is never shown on its own either.
    url_password = urllib.parse.urlsplit(settings.redis_url or "").password
    if url_password:
        secrets[f"{p}_REDIS_URL password"] = urllib.parse.unquote(url_password)
    if settings.redis_password:
        secrets[f"{p}_REDIS_PASSWORD_FILE contents"] = settings.redis_password
    if project.generic_credentials:
        bearer = read("BEARER_TOKEN", _bearer, None)
        none: tuple[tuple[str, str], ...] = ()
        headers = read("HEADERS", parse_headers, none)
        if bearer and any(name.lower() == "authorization" for name, _ in headers):
            problems.append(
                f"{p}_HEADERS sets Authorization and {p}_BEARER_TOKEN is set too: keep one of them"
            )
        # Each header's value is a secret on its own (the variable's whole text is one already).
        secrets.update({f"{p}_HEADERS {name}": value for name, value in headers if value})
        if environ.get(f"{p}_HEADERS"):
            secrets[f"{p}_HEADERS"] = environ[f"{p}_HEADERS"]
        settings = dataclasses.replace(settings, bearer_token=bearer, headers=headers)
    settings = dataclasses.replace(settings, secrets=secrets)
    if problems:
        raise SettingsError("\n".join(problems))
    return settings


def _oauth_problems(settings: Settings) -> list[str]:
    """What `PREFIX_MCP_AUTH=oauth` needs, and what only it may use."""
    v = settings.variable
    if settings.auth == "token":
        given = {
            "MCP_OAUTH_ISSUER": settings.oauth_issuer,
            "MCP_OAUTH_JWKS_URL": settings.oauth_jwks_url,
            "MCP_OAUTH_INTROSPECTION_URL": settings.oauth_introspection_url,
        }
        return [f"{v(n)} is set but {v('MCP_AUTH')} is not 'oauth'" for n, x in given.items() if x]
    problems = []
    if not settings.oauth_issuer:
        problems.append(
            f"{v('MCP_AUTH')}=oauth needs {v('MCP_OAUTH_ISSUER')}: the authorization server's URL"
        )
    if settings.mcp_token:
        problems.append(f"{v('MCP_AUTH')}=oauth and {v('MCP_TOKEN')} are exclusive: unset one")
    client = (settings.oauth_client_id, settings.oauth_client_secret)
    if settings.oauth_introspection_url and not all(client):
        problems.append(
            f"{v('MCP_OAUTH_INTROSPECTION_URL')} needs {v('MCP_OAUTH_CLIENT_ID')} and "
            f"{v('MCP_OAUTH_CLIENT_SECRET')}: this server's credentials at the introspection endpoint"
        )
    return problems


def _mcp_token(variable: str, environ: Mapping[str, str], problems: list[str]) -> str | None:
    """This server's bearer token: set means at least `MIN_TOKEN_CHARS` characters, none a
    space (a header cannot carry one at its ends). Its value is never put in a message."""
    raw = environ.get(variable)
    if not raw:
        return None
    if len(raw) < MIN_TOKEN_CHARS or any(c.isspace() for c in raw):
        spaces = " and spaces" if any(c.isspace() for c in raw) else ""
        problems.append(
            f"{variable}: expected a long random string of at least {MIN_TOKEN_CHARS} characters "
            f"without spaces (it has {len(raw)} characters{spaces}), e.g. from "
            "python -c 'import secrets; print(secrets.token_urlsafe(32))'"
        )
        return None
    return raw


def check_environment(
    project: Project,
    environ: Mapping[str, str],
    tools: ToolNames,
    http_host: str | None = None,
    base_url: str | None = None,
) -> Settings:
    """`load`, plus what serving needs: binding beyond loopback requires a token (or OAuth,
    with the public URL tokens are issued for)."""
    problems: list[str] = []
    p = project.env_prefix
    try:
        settings = load(project, environ, tools, base_url)
    except SettingsError as exc:
        problems.append(str(exc))
        oauth = environ.get(f"{p}_MCP_AUTH", "").strip().lower() == "oauth"
        settings = Settings(
            prefix=p, mcp_token=environ.get(f"{p}_MCP_TOKEN"), auth="oauth" if oauth else "token"
        )
    wide = http_host is not None and not is_loopback(http_host)
    if wide and not (settings.mcp_token or settings.auth == "oauth"):
        problems.append(
            f"--host {http_host} accepts connections from other machines: set "
            f"{p}_MCP_TOKEN to a long random string (clients send it as "
            "'Authorization: Bearer <token>'), or bind to 127.0.0.1."
        )
    if wide and settings.auth == "oauth" and not environ.get(f"{p}_MCP_OAUTH_RESOURCE", "").strip():
        problems.append(
            f"--host {http_host} with {p}_MCP_AUTH=oauth: set {p}_MCP_OAUTH_RESOURCE to the URL clients "
            "reach this server at (e.g. https://mcp.example.com/mcp), the audience of its tokens."
        )
    if problems:
        raise SettingsError("\n".join(problems))
    return settings


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


# -- the running server's settings ------------------------------------------------

_base_url_flag: list[str] = []
_parsed: dict[tuple[str, tuple[tuple[str, str], ...]], Settings] = {}
_tool_names: list[Callable[[], Iterable[str]]] = []


def set_base_url(url: str) -> None:
    """The `--base-url` flag: wins over the environment from now on."""
    _base_url_flag[:] = [url]
    _parsed.clear()


def served_tools(names: Callable[[], Iterable[str]]) -> None:
    """Where `current()` finds the tool names that patterns and per-tool limits must match."""
    _tool_names[:] = [names]
    _parsed.clear()


on_install(_parsed.clear)


def per_settings(function: Callable[[], T]) -> Callable[[], T]:
    """A no-argument function's value, worked out again only when the settings change."""
    memo: list[tuple[Settings, T]] = []

    @functools.wraps(function)
    def wrapper() -> T:
        now = current()
        if not memo or memo[0][0] is not now:
            memo[:] = [(now, function())]
        return memo[0][1]

    return wrapper


_pinned: contextvars.ContextVar[Settings | None] = contextvars.ContextVar(
    "mcpgen_settings", default=None
)


@contextlib.contextmanager
def pinned() -> Iterator[Settings]:
    """One request's settings, read once at its start: `current()` inside it is a lookup, not
    a look at the environment (a tool call asks for its settings some twenty times)."""
    token = _pinned.set(current())
    try:
        yield _pinned.get() or current()
    finally:
        _pinned.reset(token)


def current() -> Settings:
    """The settings of the environment as it is now (parsed once per distinct environment;
    within `pinned`, those of the request's start); raises SettingsError if it holds a
    malformed value."""
    held = _pinned.get()
    if held is not None:
        return held
    project = current_project()
    key = (project.env_prefix, _relevant(project, os.environ))
    found = _parsed.get(key)
    if found is None:
        names = _tool_names[0] if _tool_names else ()
        flag = _base_url_flag[0] if _base_url_flag else None
        found = load(project, os.environ, names, flag)
        _parsed.clear()  # one environment at a time
        _parsed[key] = found
    return found


def _relevant(project: Project, environ: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """The part of the environment settings come from: `PREFIX_*`, credentials, and the
    variables `PREFIX_REDACT` names."""
    head = project.env_prefix + "_"
    named = {*credential_variables(project), *_list("", environ.get(head + "REDACT", ""))}
    return tuple((k, v) for k, v in environ.items() if k.startswith(head) or k in named)


# -- value parsers: (variable, raw text) -> value, or SettingsError saying what is expected


def _url(variable: str, raw: str) -> str:
    if not re.match(r"^https?://[^\s/]+", raw):
        raise SettingsError(f"{variable}={raw!r}: expected an http:// or https:// URL")
    return raw


_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")  # RFC 9110 field name
# Headers the HTTP client itself writes from the request: configuring them would corrupt it.
_OWN_HEADERS = frozenset(
    {"host", "content-length", "transfer-encoding", "connection", "upgrade", "te", "trailer"}
    | {"keep-alive", "proxy-connection", "content-type", "cookie"}
)


def _bearer(variable: str, raw: str) -> str:
    """A bearer token: one word of printable ASCII (RFC 6750 b64token and more). Its value is
    never put in a message."""
    if not re.fullmatch(r"[\x21-\x7e]+", raw):
        raise SettingsError(
            f"{variable}: expected the token alone (printable ASCII, no spaces; without "
            "'Bearer ' in front)"
        )
    return raw


def parse_headers(variable: str, raw: str) -> tuple[tuple[str, str], ...]:
    """Headers every upstream request carries: `Name: value` lines, or a JSON object
    (`{"X-Api-Key": "..."}`). Names are checked, values must fit on one line; no value is
    ever put in a message (they are secrets), only the line or name at fault."""
    pairs: list[tuple[str, str, str]] = []  # (where, name, value)
    if raw.startswith("{"):
        try:
            value = json.loads(raw)
        except ValueError:
            value = None
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            raise SettingsError(
                f"{variable}: expected a JSON object of header names to string values, "
                "or `Name: value` lines"
            )
        pairs = [(f"key {n}", name, text) for n, (name, text) in enumerate(value.items(), 1)]
    else:
        for number, line in enumerate(raw.splitlines(), 1):
            if not line.strip():
                continue
            name, colon, text = line.partition(":")
            if not colon:
                raise SettingsError(f"{variable} line {number}: expected `Name: value`")
            pairs.append((f"line {number}", name.strip(), text.strip()))
    seen: set[str] = set()
    out: list[tuple[str, str]] = []
    for where, name, text in pairs:
        if not _TOKEN.match(name):  # not shown: a mistyped line may hold the secret there
            raise SettingsError(
                f"{variable} {where}: not a header name (letters, digits and !#$%&'*+-.^_`|~ only)"
            )
        if name.lower() in _OWN_HEADERS:
            raise SettingsError(
                f"{variable} {where}: {name} is written by the HTTP client itself; "
                "it cannot be configured"
            )
        if name.lower() in seen:
            raise SettingsError(f"{variable} {where}: {name} is given twice")
        if re.search(r"[\x00-\x08\x0a-\x1f\x7f]", text):
            raise SettingsError(f"{variable} {where}: the value of {name} has a control character")
        seen.add(name.lower())
        out.append((name, text))
    return tuple(out)


def _seconds(variable: str, raw: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not 0.001 <= value < float("inf"):
        raise SettingsError(f"{variable}={raw!r}: expected a number of seconds >= 0.001")
    return value


def _interval(variable: str, raw: str) -> float:
    return 0.0 if raw.lower() in ("0", "off") else _seconds(variable, raw)


def _whole(minimum: int) -> Callable[[str, str], int]:
    def parse(variable: str, raw: str) -> int:
        if not re.fullmatch(r"\d+", raw) or int(raw) < minimum:
            raise SettingsError(f"{variable}={raw!r}: expected a whole number >= {minimum:,}")
        return int(raw)

    return parse


def _bytes(variable: str, raw: str) -> int:
    """`20000000`, `20MB`, `512 KiB`, `1GB` (kB/MB/GB: powers of 1000; KiB/MiB/GiB: of 1024)."""
    match = _BYTES.match(raw)
    value = int(match.group(1)) * _UNITS[(match.group(2) or "").lower()] if match else 0
    if value < MIN_BYTES:
        raise SettingsError(
            f"{variable}={raw!r}: expected a size of at least {MIN_BYTES:,} bytes, "
            "in bytes or with a unit (e.g. 20MB, 512KiB, 1GB)"
        )
    return value


def _bytes_or_zero(variable: str, raw: str) -> int:
    """A size as `_bytes`, or 0 (off)."""
    return 0 if raw.strip() == "0" else _bytes(variable, raw)


def _flag(variable: str, raw: str) -> bool:
    if raw.lower() in _TRUE:
        return True
    if raw.lower() in _FALSE:
        return False
    raise SettingsError(f"{variable}={raw!r}: expected 1/true/yes/on or 0/false/no/off")


def _list(variable: str, raw: str) -> tuple[str, ...]:
    return tuple(item.strip() for item in raw.split(",") if item.strip())


def _patterns(tools: Callable[[], list[str]]) -> Callable[[str, str], tuple[str, ...]]:
    def parse(variable: str, raw: str) -> tuple[str, ...]:
        patterns = tuple(p for p in re.split(r"[,\s]+", raw) if p)
        for pattern in patterns:  # a pattern that matches nothing is a typo, not a policy
            if not any(fnmatch.fnmatchcase(name, pattern) for name in tools()):
                raise SettingsError(
                    f"{variable}: pattern {pattern!r} matches no tool, resource or prompt of this server"
                )
        return patterns

    return parse


def _toolsets(project: Project) -> Callable[[str, str], tuple[str, ...]]:
    def parse(variable: str, raw: str) -> tuple[str, ...]:
        names = tuple(dict.fromkeys(n for n in re.split(r"[,\s]+", raw) if n))
        unknown = [n for n in names if n != "all" and n not in project.toolsets]
        if unknown:
            known = ", ".join(sorted(project.toolsets)) or "none: this server has no toolsets"
            raise SettingsError(
                f"{variable}: no toolset {', '.join(map(repr, unknown))} (known: {known}; or `all`)"
            )
        return ("all",) if "all" in names else names

    return parse


def _redis_url(variable: str, raw: str) -> str:
    if not re.match(r"^(rediss?://[^\s/]*|unix:///\S+)", raw):
        raise SettingsError(
            f"{variable}: expected a redis://HOST:PORT/DB, rediss:// or unix:///PATH URL"
        )
    return raw


def _header_name(variable: str, raw: str) -> str | None:
    if raw.lower() in ("0", "off", "none"):
        return None
    if not re.fullmatch(r"[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}", raw):
        raise SettingsError(
            f"{variable}={raw!r}: expected an HTTP header name like Idempotency-Key"
        )
    return raw


def _choice(modes: dict[str, T], expected: str) -> Callable[[str, str], T]:
    """A parser of one of `modes` (any case); `expected` says what each means."""

    def parse(variable: str, raw: str) -> T:
        if raw.lower() in modes:
            return modes[raw.lower()]
        raise SettingsError(f"{variable}={raw!r}: expected {expected}")

    return parse


_redis_failure: Callable[[str, str], RedisFailure] = _choice(
    {"open": "open", "closed": "closed"},
    "open (apply the limits per replica while Redis is unreachable) or closed (refuse calls)",
)
_audit_mode: Callable[[str, str], AuditMode] = _choice(
    {"full": "full", "minimal": "minimal", "off": "off"}, "full, minimal or off"
)


def _auth_mode(variable: str, raw: str) -> AuthMode:
    token = variable.removesuffix("MCP_AUTH") + "MCP_TOKEN"
    modes: dict[str, AuthMode] = {"token": "token", "oauth": "oauth"}
    expected = f"token (the static {token}, or none) or oauth (OAuth 2.1 access tokens)"
    return _choice(modes, expected)(variable, raw)


def _algorithms(variable: str, raw: str) -> tuple[str, ...]:
    names = _list(variable, raw)
    for name in names:
        if name not in OAUTH_ALGORITHMS:
            raise SettingsError(
                f"{variable}: {name!r} is not accepted; expected some of {', '.join(OAUTH_ALGORITHMS)} "
                "(asymmetric signatures only: never none or HS*)"
            )
    return names


_telemetry_mode: Callable[[str, str], TelemetryMode] = _choice(
    {"on": "on", "propagate": "propagate", "off": "off"},
    "on (OpenTelemetry spans and metrics), propagate (trace context passed on to the API only) "
    "or off",
)
_metrics_endpoint: Callable[[str, str], MetricsEndpoint] = _choice(
    {"off": "off", "prometheus": "prometheus"},
    "off or prometheus (GET /metrics on the HTTP transport, behind the same gates as /mcp)",
)
_http_response: Callable[[str, str], HttpResponse] = _choice(
    {"sse": "sse", "json": "json"},
    "sse (progress and log notifications reach the client) "
    "or json (one JSON body per request, no notifications)",
)


def _state_keys(variable: str, raw: str) -> tuple[str, ...]:
    """A key ring: the first seals, every one unseals (rotation: `new,old`, later `new`)."""
    keys = _list(variable, raw)
    if any(len(key) < MIN_STATE_KEY_CHARS for key in keys):
        raise SettingsError(
            f"{variable}: expected comma-separated keys of at least {MIN_STATE_KEY_CHARS} "
            "characters each (the same on every replica), e.g. from "
            "python -c 'import secrets; print(secrets.token_hex(32))'"
        )
    return keys


def _existing_path(variable: str, raw: str) -> str:
    if not os.path.exists(raw):
        raise SettingsError(f"{variable}={raw!r}: no such file or directory")
    return raw


def _secret_file(variable: str, raw: str) -> str:
    """The first line of a secret's file (a compose or Kubernetes secret), never shown."""
    try:
        with open(raw, encoding="utf-8") as handle:
            text = handle.readline().strip()
    except (OSError, UnicodeError) as exc:
        raise SettingsError(f"{variable}={raw!r}: cannot read it ({type(exc).__name__})") from None
    if not text:
        raise SettingsError(f"{variable}={raw!r}: the file is empty")
    return text


def _directory(variable: str, raw: str) -> str:
    if not os.path.isdir(raw):
        raise SettingsError(f"{variable}={raw!r}: expected an existing directory")
    return raw


def _tool_rates(
    prefix: str, environ: Mapping[str, str], tools: Callable[[], list[str]], problems: list[str]
) -> dict[str, Rate]:
    """`PREFIX_RATE_LIMIT_<TOOL>` for every tool that has one."""
    base = f"{prefix}_RATE_LIMIT"
    if not any(name.startswith(base + "_") for name in environ):
        return {}
    known: dict[str, list[str]] = {}  # two tool names may map to one variable: both get its limit
    for tool in tools():
        known.setdefault(tool_variable(prefix, "RATE_LIMIT", tool), []).append(tool)
    rates: dict[str, Rate] = {}
    for name in sorted(environ):
        if not name.startswith(base + "_"):
            continue
        if name not in known:
            problems.append(
                f"{name}: names no tool, resource or prompt of this server (per-entry limits are {base}_<NAME>)"
            )
            continue
        try:
            rate = parse_rate(name, environ[name])
        except SettingsError as exc:
            problems.append(str(exc))
            continue
        if rate is not None:
            rates.update(dict.fromkeys(known[name], rate))
    return rates
