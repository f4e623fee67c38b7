"""Redaction that escapes cannot get around, OAuth2 tokens kept secret, and spec patterns
that cannot stall the server: a real MCP client over stdio against a generated server and a
misbehaving upstream on 127.0.0.1.

The upstream echoes credentials the way real APIs do, JSON-escaped (`\\/`, `\\u0073`), in
400 and 401 bodies and in 200 results, and its token endpoint echoes the client's Basic
credentials when it refuses them. One argument has the spec pattern `^(a+)+$|^a*!$`, which
Python's `re` needs longer than a test runs to check against 'aaa…a!'.
"""

from __future__ import annotations

import base64
import contextlib
import json
import re
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters, stdio_client, types

from mcpgen.api import generate_openapi
from mcpgen.options import Options

from ..local_http import Handler, Recorded, RecordingServer
from .conftest import server_env

pytestmark = pytest.mark.anyio

PACKAGE = "leaky_mcp"
API_KEY = "sk/live+AB/cd==0123"  # characters JSON and URLs escape
CLIENT_ID, CLIENT_SECRET = "leaky-client", "cl13nt/s3cret+x"
HOSTILE = "^(a+)+$|^a*!$"
HANG_GUARD = 120.0  # not a speed limit: unanswered this long means the server hung

SPEC = {
    "openapi": "3.0.3",
    "info": {"title": "Leaky", "version": "1.0.0"},
    "servers": [{"url": "http://api.invalid/v1"}],
    "components": {
        "securitySchemes": {
            "apiKey": {"type": "apiKey", "in": "header", "name": "X-Key"},
            "oauth": {
                "type": "oauth2",
                "flows": {"clientCredentials": {"tokenUrl": "/oauth/token", "scopes": {}}},
            },
        }
    },
    "paths": {
        "/keyed": {
            "get": {
                "operationId": "keyed",
                "security": [{"apiKey": []}],
                "responses": {"200": {"description": "ok", "content": {"application/json": {}}}},
            }
        },
        "/tokened": {
            "get": {
                "operationId": "tokened",
                "security": [{"oauth": []}],
                "parameters": [{"name": "fail", "in": "query", "schema": {"type": "boolean"}}],
                "responses": {"200": {"description": "ok", "content": {"application/json": {}}}},
            }
        },
        "/search": {
            "get": {
                "operationId": "search",
                "parameters": [
                    {"name": "q", "in": "query", "required": True, "schema": {"type": "string", "pattern": HOSTILE}}
                ],
                "responses": {"200": {"description": "ok", "content": {"application/json": {}}}},
            }
        },
    },
}


def escaped(value: str) -> str:
    """`value` as JSON string content with every "/" escaped and its first letter as \\u."""
    return f"\\u{ord(value[0]):04x}" + json.dumps(value)[2:-1].replace("/", "\\/")


class LeakyUpstream(RecordingServer[Recorded]):
    name = "leaky-upstream"

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()
        self.refuse_tokens = False

    @property
    def base_url(self) -> str:
        return self.origin + "/v1"

    def respond(self, handler: Handler, request: Recorded) -> None:
        self._record(request)
        authorization = request.headers.get("authorization", "")
        if request.path == "/oauth/token":
            if self.refuse_tokens:  # echoes the client's Basic credentials, raw and escaped
                body = '{"error": "invalid_client", "got": "' + escaped(authorization) + '"}'
                return self._send(handler, 401, body)
            return self._send(handler, 200, json.dumps({"access_token": "at/XYZ+0987654321", "expires_in": 3600}))
        if request.path == "/v1/keyed":  # 400 reflecting the key, escaped
            return self._send(handler, 400, '{"message": "bad key", "echo": "' + escaped(request.headers["x-key"]) + '"}')
        if request.path == "/v1/tokened":
            status = 401 if "fail=true" in request.query else 200
            return self._send(handler, status, '{"you sent": "' + escaped(authorization) + '"}')
        if request.path == "/v1/search":
            self.release.wait(HANG_GUARD)  # held: the call stays in flight until the test says
            return self._send(handler, 200, json.dumps({"hits": 0}))
        return self._send(handler, 404, "{}")

    def _send(self, handler: Handler, status: int, body: str) -> None:
        data = body.encode()
        handler.send(status, {"Content-Type": "application/json", "Content-Length": str(len(data))}, data)


@pytest.fixture(scope="module")
def leaky_generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    spec = tmp_path_factory.mktemp("leaky-spec") / "leaky.json"
    spec.write_text(json.dumps(SPEC))
    out = tmp_path_factory.mktemp("leaky") / "leaky-mcp"
    generate_openapi(spec, Options(output=out, force=True, name="leaky"))
    return out


@pytest.fixture(scope="module")
def leaky() -> Iterator[LeakyUpstream]:
    server = LeakyUpstream().start()
    yield server
    server.release.set()
    server.stop()


@contextlib.asynccontextmanager
async def connect(generated: Path, upstream: LeakyUpstream, log: Path, mode: str = "auto") -> AsyncIterator[Client]:
    """A client of a fresh server process; `mode="legacy"` for the handshake era, which has ping."""
    env = server_env(
        generated,
        LEAKY_BASE_URL=upstream.base_url,
        LEAKY_API_KEY=API_KEY,
        LEAKY_OAUTH_CLIENT_ID=CLIENT_ID,
        LEAKY_OAUTH_CLIENT_SECRET=CLIENT_SECRET,
    )
    params = StdioServerParameters(command=sys.executable, args=["-m", PACKAGE], env=env)
    with log.open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog), mode=mode, cache=None) as client:
            yield client


def everything(result: types.CallToolResult) -> str:
    """The result as the client sees it, every JSON escape decoded: no form of a secret may remain."""
    text = "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))
    decoded = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text).replace("\\/", "/")
    return text + "\n" + decoded + "\n" + json.dumps(result.structured_content)


def assert_no_trace(seen: str, *secrets: str) -> None:
    for secret in secrets:
        for form in (secret, json.dumps(secret)[1:-1], secret.replace("/", "\\/"), secret[1:]):
            assert form not in seen, (form, seen)


async def test_an_escaped_secret_in_a_4xx_body_is_redacted(
    leaky_generated: Path, leaky: LeakyUpstream, log_dir: Path
) -> None:
    log = log_dir / "leaky-4xx.log"
    async with connect(leaky_generated, leaky, log) as client:
        result = await client.call_tool("keyed", {})
    assert result.is_error
    text = everything(result)
    assert "HTTP 400" in text and "bad key" in text and '"echo": "[redacted]"' in text
    assert leaky.take()[0].headers["x-key"] == API_KEY  # it was sent, and echoed escaped
    assert_no_trace(text, API_KEY)
    assert_no_trace(log.read_text(), API_KEY)


async def test_an_oauth_token_echoed_is_redacted(leaky_generated: Path, leaky: LeakyUpstream, log_dir: Path) -> None:
    log = log_dir / "leaky-oauth.log"
    token = "at/XYZ+0987654321"
    async with connect(leaky_generated, leaky, log) as client:
        ok = await client.call_tool("tokened", {})
        refused = await client.call_tool("tokened", {"fail": True})
        leaky.refuse_tokens = True
        try:
            async with connect(leaky_generated, leaky, log_dir / "leaky-oauth-refused.log") as fresh:
                no_token = await fresh.call_tool("tokened", {})
        finally:
            leaky.refuse_tokens = False
    sent = [r.headers.get("authorization") for r in leaky.take() if r.path == "/v1/tokened"]
    # The token was used and echoed; the 401 is retried once with a token fetched anew (the same here).
    assert sent == [f"Bearer {token}"] * 3
    assert not ok.is_error and "[redacted]" in everything(ok)
    assert refused.is_error and "401" in everything(refused)
    assert no_token.is_error and "OAuth2 token request" in everything(no_token) and "HTTP 401" in everything(no_token)
    basic_sent = base64.b64encode(b"leaky-client:cl13nt%2Fs3cret%2Bx").decode()  # RFC 6749 2.3.1
    for result in (ok, refused, no_token):
        assert_no_trace(everything(result), token, basic_sent, CLIENT_SECRET)
    for log_file in (log, log_dir / "leaky-oauth-refused.log"):
        assert_no_trace(log_file.read_text(), token, basic_sent, CLIENT_SECRET)


@pytest.mark.filterwarnings("ignore:ping is removed")  # the handshake era has ping, and servers answer it
async def test_a_catastrophic_pattern_does_not_block_a_ping(
    leaky_generated: Path, leaky: LeakyUpstream, log_dir: Path
) -> None:
    """One call whose argument matches the hostile pattern waits at the upstream; another whose
    argument fails it is refused; a ping sent meanwhile is answered before the first finishes."""
    leaky.release.clear()
    finished: list[str] = []
    results: dict[str, types.CallToolResult] = {}

    async with connect(leaky_generated, leaky, log_dir / "leaky-redos.log", mode="legacy") as client:

        async def call(label: str, q: str) -> None:
            results[label] = await client.call_tool("search", {"q": q})
            finished.append(label)

        with anyio.fail_after(HANG_GUARD):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(call, "matching", "a" * 5_000 + "!")  # checked, sent, held upstream
                tasks.start_soon(call, "failing", "a" * 5_000 + "b")
                # polls the upstream's thread, which has no anyio event to set
                while not any(r.path == "/v1/search" for r in leaky.requests):  # noqa: ASYNC110
                    await anyio.sleep(0.01)
                await client.send_ping()
                finished.append("ping")
                leaky.release.set()
    assert finished.index("ping") < finished.index("matching")  # answered while the call was in flight
    assert not results["matching"].is_error, everything(results["matching"])
    failing = everything(results["failing"])
    assert results["failing"].is_error and "Invalid arguments" in failing and "expected text matching" in failing
    assert len(failing) < 2_000  # the 5 000-character argument is cut in the message
