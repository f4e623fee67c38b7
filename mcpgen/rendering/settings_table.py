"""The runtime settings table of the generated README: every setting a generated server reads,
with its meaning and default."""

from __future__ import annotations

from typing import Any

from mcpgen.ir import Project
from mcpgen.rendering.views import sends_bytes as _sends_bytes


def _runtime_env_vars(project: Project) -> list[dict[str, Any]]:
    """Settings every generated server reads (guard, audit, redact, http_guard, transport)."""
    p = project.env_prefix
    extra = [
        (
            f"{p}_RATE_LIMIT",
            "Tool calls allowed, e.g. `10/s`, `600/min`, `10/s burst 20` (a bare number: per minute); 0 = unlimited",
            "0",
        ),
        (
            f"{p}_RATE_LIMIT_<TOOL>",
            "Same, for one tool: its name upper-cased, non-alphanumerics as `_`",
            None,
        ),
        (
            f"{p}_ONE_PAGE_BYTES",
            (
                "A tools/list whose JSON is at most this size is one page (clients that read only "
                "the first page see every tool); 0 = always paged"
            ),
            "8MB",
        ),
        (f"{p}_PAGE_SIZE", "Tools per tools/list page, past that budget", str(project.page_size)),
        (f"{p}_READ_ONLY", "1 = list and run only tools annotated readOnlyHint", "0"),
        (
            f"{p}_TOOLS_ALLOW",
            "Comma-separated glob patterns over the names of tools, resources and prompts: only matching ones are listed and served",
            None,
        ),
        (
            f"{p}_TOOLS_DENY",
            "Comma-separated glob patterns over the same names: matching ones are hidden and refused",
            None,
        ),
        (
            f"{p}_MCP_TOKEN",
            "Bearer token HTTP clients must send; required to bind to a non-loopback --host",
            None,
        ),
        (f"{p}_MCP_AUTH", "HTTP clients: token (the static MCP_TOKEN, or none) or oauth (OAuth 2.1 access tokens)", "token"),
        (f"{p}_MCP_OAUTH_ISSUER", "With MCP_AUTH=oauth: the authorization server (issuer) whose tokens are accepted", None),
        (
            f"{p}_MCP_OAUTH_RESOURCE",
            "With MCP_AUTH=oauth: this server's public URL (ending /mcp), the tokens' audience",
            "http://HOST:PORT/mcp",
        ),
        (f"{p}_MCP_OAUTH_JWKS_URL", "With MCP_AUTH=oauth: the issuer's JWKS", "from the issuer's metadata"),
        (f"{p}_MCP_OAUTH_ALGORITHMS", "With MCP_AUTH=oauth: accepted JWT signature algorithms", "RS256,PS256,ES256,ES384,EdDSA"),
        (
            f"{p}_MCP_OAUTH_INTROSPECTION_URL",
            "With MCP_AUTH=oauth: an RFC 7662 endpoint to check (opaque) tokens at, instead of the JWKS",
            None,
        ),
        (f"{p}_MCP_OAUTH_CLIENT_ID", "This server's client id at the introspection endpoint", None),
        (f"{p}_MCP_OAUTH_CLIENT_SECRET", "This server's client secret at the introspection endpoint", None),
        (
            f"{p}_ALLOWED_HOSTS",
            "Extra host names HTTP clients may use (DNS-rebinding protection)",
            None,
        ),
        (
            f"{p}_HTTP_KEEP_ALIVE",
            "Seconds an idle HTTP connection stays open (TS clients pause after listing)",
            "120",
        ),
        (
            f"{p}_REDIS_URL",
            "Share rate limits and upstream 429 back-off with other replicas on Redis (needs the `redis` extra)",
            None,
        ),
        (
            f"{p}_REDIS_FAILURE",
            "Redis unreachable: `open` applies limits per replica, `closed` refuses calls",
            "open",
        ),
        (f"{p}_REDIS_TIMEOUT", "Deadline of one Redis check, connecting included, seconds", "0.25"),
        (f"{p}_REDIS_PASSWORD_FILE", "A file holding Redis's password (compose's secret), never shown", None),
        (
            f"{p}_IDEMPOTENCY_KEY",
            "Header (e.g. `Idempotency-Key`) on POST/PATCH upstream requests, keyed on haproxy's `X-Request-Id`",
            None,
        ),
        (
            f"{p}_HTTP_RESPONSE",
            "sse: a call's progress and log notifications reach HTTP clients; json: one JSON body, none",
            "sse",
        ),
        (
            f"{p}_HTTP_SESSIONS",
            (
                "1 = HTTP sessions (Mcp-Session-Id), for elicitation and sampling with 2025-11-25 "
                "clients; one replica, or sticky routing"
            ),
            "0",
        ),
        (
            f"{p}_REQUEST_STATE_KEY",
            (
                "Keys (32+ characters, comma-separated, first one seals) for 2026-07-28 elicitation "
                "state; the same on every replica"
            ),
            "one per process",
        ),
        (
            f"{p}_AUDIT_LOG",
            "One JSON line per tool call on stderr: full (arguments redacted), minimal, off",
            "full",
        ),
        (
            f"{p}_TELEMETRY",
            "OpenTelemetry spans and metrics: on (exported when OTEL_EXPORTER_OTLP_ENDPOINT is set), propagate (trace context passed on only), off",
            "on",
        ),
        (
            f"{p}_METRICS",
            "prometheus: GET /metrics on the HTTP transport, behind the same gates as /mcp; off",
            "off",
        ),
        (
            f"{p}_REDACT",
            "Comma-separated names of further env vars whose values are never shown",
            None,
        ),
    ]
    if project.source_kind == "openapi":
        extra += [
            (f"{p}_TIMEOUT", "Upstream wait for each read or write, seconds", "30"),
            (f"{p}_CONNECT_TIMEOUT", "Upstream connect timeout, and the wait for a free pooled connection, seconds", "10"),
            (
                f"{p}_CALL_TIMEOUT",
                "Deadline for a whole tool call: connecting, sending, every read, retries and their waits; seconds",
                f"twice {p}_TIMEOUT",
            ),
            (f"{p}_RETRIES", "Retries of idempotent requests after connection errors and 502/503/504", "2"),
            (
                f"{p}_PROGRESS_INTERVAL",
                (
                    "Seconds between progress notifications while an upstream call runs, to a "
                    "client that sent a progressToken; 0 = none"
                ),
                "5",
            ),
            (f"{p}_MAX_CONNECTIONS", "Upstream connections open at once; a call finding all busy says so", "100"),
            (
                f"{p}_MAX_RESPONSE_BYTES",
                "Larger upstream bodies (counted decompressed) are refused, not read: bytes, or e.g. 20MB, 512KiB",
                "20MB",
            ),
            (f"{p}_CA_BUNDLE", "PEM file or directory of CA certificates to trust (TLS is always verified)", None),
        ]
        if any(f.file for t in project.tools if t.route and t.route.body for f in t.route.body.fields):
            extra.append((f"{p}_UPLOAD_DIR", "Directory whose files tools may upload by path; unset = no local file access", None))
        if _sends_bytes(project):
            extra.append((f"{p}_MAX_UPLOAD_BYTES", "Larger files and binary bodies are refused, files before they are read", "50MB"))
    else:  # Python tools' images, audio and blobs (runtime/content.py)
        binary = "Binary content (images, audio, blobs) a tool returns, in all; a block past it becomes a note"
        extra.append((f"{p}_MAX_RESPONSE_BYTES", binary, "20MB"))
    extra.append((f"{p}_MAX_RESPONSE_CHARS", "Longer results are truncated, with a note", str(project.max_response_chars)))
    return [{"name": name, "description": text, "default": default} for name, text, default in extra]
