# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""Who may talk to the streamable HTTP endpoint.

- A bearer token (`PREFIX_MCP_TOKEN`) is required on every request when it is set, and the
  server refuses to bind to a non-loopback address without one (`settings.check_environment`).
  Tokens are compared in constant time.
- DNS-rebinding protection (the SDK's Host/Origin check) stays on for every bind address:
  loopback names always, the bind address itself, and the names in `PREFIX_ALLOWED_HOSTS`
  (comma-separated, e.g. `mcp.example.com`) for clients that reach the server by name.
- `GET /healthz` answers 200 with `{"status": "ok", "server": ..., "version": ...}` and, when
  rate limits are shared on Redis, `"redis": "ok"` or `"unreachable"`: no token, no Host
  check, for load balancers' and orchestrators' health checks. It says nothing a client
  could not learn from `initialize`.
"""

from __future__ import annotations

import hmac
import socket

from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp, Receive, Scope, Send

from . import settings, shared, telemetry
from .asgi import respond, respond_json
from .oauth import OAuthGate, OAuthVerifier
from .project import current
from .settings import is_loopback

_LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
_WILDCARD = ("0.0.0.0", "::", "")


def allowed_hosts(bind_host: str) -> list[str]:
    """Host names clients may use to reach this server, without ports."""
    names = list(_LOOPBACK)
    if bind_host in _WILDCARD:
        names += [socket.gethostname(), socket.getfqdn()]
    elif not is_loopback(bind_host):
        names.append(bind_host)
    names += settings.current().allowed_hosts
    bracketed = [f"[{n}]" if ":" in n and not n.startswith("[") else n for n in names]
    return list(dict.fromkeys(bracketed))


def transport_security(bind_host: str) -> TransportSecuritySettings:
    hosts = allowed_hosts(bind_host)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[pattern for h in hosts for pattern in (h, f"{h}:*")],
        allowed_origins=[
            f"{scheme}://{h}{port}"
            for h in hosts
            for scheme in ("http", "https")
            for port in ("", ":*")
        ],
    )


class BearerGate:
    """ASGI wrapper: HTTP requests without `Authorization: Bearer <token>` get 401."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = b""
            for name, value in scope.get("headers", []):
                if name == b"authorization":
                    scheme, _, given = value.partition(b" ")
                    given = given.strip() if scheme.lower() == b"bearer" else b""
            if not hmac.compare_digest(given, self.expected):
                await _unauthorized(send)
                return
        await self.app(scope, receive, send)


async def _unauthorized(send: Send) -> None:
    body = {"error": "unauthorized", "message": "send 'Authorization: Bearer <token>'"}
    await respond_json(send, 401, body, ((b"www-authenticate", b'Bearer realm="mcp"'),))


class Greeter:
    """ASGI wrapper: a GET that does not accept an event stream (a browser, a bare `curl`) is
    answered at once with what this endpoint is, instead of an idle stream that never ends.
    MCP clients send `Accept: text/event-stream` on GET and are passed through."""

    def __init__(self, app: ASGIApp, name: str) -> None:
        self.app = app
        self.name = name

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        metrics = (
            scope.get("path") == telemetry.METRICS_PATH and settings.current().metrics != "off"
        )
        if scope["type"] == "http" and scope.get("method") in ("GET", "HEAD") and not metrics:
            accept = b",".join(v for k, v in scope.get("headers", []) if k == b"accept")
            if b"text/event-stream" not in accept:
                await _plain(send, 406, _greeting(self.name), scope.get("method") == "HEAD")
                return
        await self.app(scope, receive, send)


def _greeting(name: str) -> str:
    return (
        f"{name}: an MCP server (streamable HTTP). Point an MCP client at this URL; requests are "
        "JSON-RPC POSTs with 'Accept: application/json, text/event-stream'.\n"
    )


async def _plain(send: Send, status: int, text: str, head_only: bool = False) -> None:
    headers = [(b"content-type", b"text/plain; charset=utf-8")]
    await respond(send, status, text.encode(), headers, head_only)


HEALTH_PATH = "/healthz"


class Health:
    """ASGI wrapper: `GET /healthz` (and HEAD) answered before any other check."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] == "http"
            and scope.get("path") == HEALTH_PATH
            and scope.get("method") in ("GET", "HEAD")
        ):
            no_store = ((b"cache-control", b"no-store"),)
            await respond_json(send, 200, await health(), no_store, scope["method"] == "HEAD")
            return
        await self.app(scope, receive, send)


async def health() -> dict[str, str]:
    project = current()
    report = {"status": "ok", "server": project.name, "version": project.version}
    if settings.current().redis_url:
        report["redis"] = "ok" if await shared.reachable() else "unreachable"
    return report


def resource_url(host: str, port: int) -> str:
    """This server's URL as tokens name it (`PREFIX_MCP_OAUTH_RESOURCE`; default: the bind
    address, which is right only where clients reach it so)."""
    configured = settings.current().oauth_resource
    if configured:
        return configured
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/mcp"


def auth_mode(resource: str = "") -> str:
    """How HTTP clients are let in, for the start-up line."""
    current = settings.current()
    if current.auth == "oauth":
        how = "introspection" if current.oauth_introspection_url else "JWT"
        return f"OAuth ({how} tokens from {current.oauth_issuer} for {resource})"
    if current.mcp_token:
        return f"bearer token required ({settings.current().variable('MCP_TOKEN')})"
    return "no authentication (loopback only)"


class Metrics:
    """ASGI wrapper: `GET /metrics` (PREFIX_METRICS=prometheus) answered with the Prometheus
    text, behind the gates like /mcp and for the same Host names only (DNS rebinding)."""

    def __init__(self, app: ASGIApp, hosts: list[str]) -> None:
        self.app = app
        self.hosts = {h.lower() for h in hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope.get("path") != telemetry.METRICS_PATH
            or settings.current().metrics == "off"
        ):
            await self.app(scope, receive, send)
            return
        host = next((v for k, v in scope.get("headers", []) if k == b"host"), b"").decode("latin-1")
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        if name.lower() not in self.hosts:
            await _plain(send, 421, f"Host {host[:100]!r} is not one of this server's names.\n")
            return
        if scope.get("method") not in ("GET", "HEAD"):
            await _plain(send, 405, "GET /metrics only.\n")
            return
        body, content_type = telemetry.exposition()
        headers = [(b"content-type", content_type.encode()), (b"cache-control", b"no-store")]
        await respond(send, 200, body, headers, scope["method"] == "HEAD")


def protect(app: ASGIApp, resource: str = "", bind_host: str = "127.0.0.1") -> ASGIApp:
    """`app` behind the token check when `PREFIX_MCP_TOKEN` is set, and the greeting for
    plain GETs in front of both; with `PREFIX_MCP_AUTH=oauth`, behind the OAuth gate (which
    serves the metadata documents first) instead. The health route is in front of everything."""
    app = Metrics(app, allowed_hosts(bind_host))
    if settings.current().auth == "oauth":
        verifier = OAuthVerifier(settings.current(), resource)
        return Health(OAuthGate(Greeter(app, current().name), verifier))
    token = settings.current().mcp_token
    gated = BearerGate(app, token) if token else app
    return Health(Greeter(gated, current().name))
