"""The generated server as an OAuth 2.1 resource server (`PREFIX_MCP_AUTH=oauth`), end to end.

A real authorization server on 127.0.0.1 (`oauth_server.AuthServer`: RFC 8414 metadata, a
JWKS of RSA and EC keys, RFC 7662 introspection) signs real JWTs; the generated server
(tests/e2e/specs/oauth_pets.yaml: listPets needs pets:read, addPet pets:write or
pets:admin, health none) runs over streamable HTTP against a real upstream that records
every header, and is driven by the `mcp` client in both eras and by raw HTTP.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, MCPError
from mcp.client.auth.utils import extract_resource_metadata_from_www_auth, extract_scope_from_www_auth
from mcp.client.streamable_http import streamable_http_client

from mcpgen.api import generate_openapi
from mcpgen.options import Options

from ..local_http import Handler, Recorded, RecordingServer
from .conftest import free_port, http_process, server_env
from .oauth_server import CLIENT_ID, CLIENT_SECRET, AuthServer, hs256_with_public_key, unsigned

SPEC = Path(__file__).parent / "specs" / "oauth_pets.yaml"
PACKAGE = "scoped_pets_mcp"
UPSTREAM_TOKEN = "upstream-credential-0123456789"
ERAS = ("legacy", "auto")
pytestmark = pytest.mark.anyio

HOOKS = '''
from __future__ import annotations

from typing import Any

import httpx2

from .runtime.public import principal


async def on_request(tool: str, request: httpx2.Request) -> None:
    caller = principal()
    request.headers["X-Caller"] = caller.subject if caller else "nobody"
    request.headers["X-Caller-Scopes"] = " ".join(sorted(caller.scopes)) if caller else ""


async def on_response(tool: str, response: httpx2.Response) -> None:
    pass


def on_result(tool: str, result: Any) -> Any:
    return result


def complete(ref: str, argument: str, value: str, context: dict[str, str]) -> list[str] | None:
    return None
'''


class Upstream(RecordingServer[Recorded]):
    handler = Handler

    def respond(self, handler: Handler, request: Recorded) -> None:
        self._record(request)
        body = json.dumps({"pets": ["rex"]}).encode()
        status = 201 if request.method == "POST" else 200
        handler.send(status, {"Content-Type": "application/json", "Content-Length": str(len(body))}, body)


def _generate(out: Path, **options: Any) -> Path:
    generate_openapi(SPEC, Options(output=out, force=True, **options))
    (out / "src" / PACKAGE / "hooks.py").write_text(HOOKS)
    return out


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _generate(tmp_path_factory.mktemp("oauth") / "scoped-pets-mcp")


@pytest.fixture(scope="module")
def auth_server() -> Iterator[AuthServer]:
    server = AuthServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def upstream() -> Iterator[Upstream]:
    server = Upstream().start()
    yield server
    server.stop()


@contextlib.contextmanager
def serving(project: Path, log: Path, **env: str) -> Iterator[str]:
    """The server over HTTP on 127.0.0.1; yields its /mcp URL (also the tokens' audience)."""
    with http_process(PACKAGE, server_env(project, **env), log) as (port, _):
        yield f"http://127.0.0.1:{port}/mcp"


def oauth_env(auth_server: AuthServer, upstream: Upstream, **more: str) -> dict[str, str]:
    return {
        "SCOPED_PETS_BASE_URL": upstream.origin,
        "SCOPED_PETS_PETS_AUTH": UPSTREAM_TOKEN,
        "SCOPED_PETS_MCP_AUTH": "oauth",
        "SCOPED_PETS_MCP_OAUTH_ISSUER": auth_server.issuer,  # the JWKS from its RFC 8414 metadata
        **more,
    }


@pytest.fixture(scope="module")
def jwt_server(project: Path, auth_server: AuthServer, upstream: Upstream, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    log = tmp_path_factory.mktemp("logs") / "oauth-jwt.log"
    with serving(project, log, **oauth_env(auth_server, upstream)) as url:
        yield url, log


@contextlib.asynccontextmanager
async def client(url: str, token: str, mode: str) -> AsyncIterator[Client]:
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode, cache=None) as connected,  # type: ignore[arg-type]
    ):
        yield connected


def raw_post(url: str, token: str | None, body: dict[str, Any], version: str = "2025-11-25") -> tuple[int, dict[str, str], Any]:
    """One JSON-RPC POST; (status, lower-cased headers, parsed body)."""
    parts = httpx2.URL(url)
    connection = http.client.HTTPConnection("127.0.0.1", parts.port, timeout=30)
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": version,
    }
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    connection.request("POST", parts.path, body=json.dumps(body), headers=headers)
    response = connection.getresponse()
    data = response.read()
    found = {k.lower(): v for k, v in response.getheaders()}
    connection.close()
    if found.get("content-type", "").startswith("text/event-stream"):  # SSE responses: the default
        events = [line[5:].rstrip("\r") for line in data.decode().split("\n") if line.startswith("data:")]
        return response.status, found, json.loads(events[-1]) if events else None
    return response.status, found, json.loads(data) if data else None


def raw_get(url: str, path: str) -> tuple[int, dict[str, str], bytes]:
    parts = httpx2.URL(url)
    connection = http.client.HTTPConnection("127.0.0.1", parts.port, timeout=30)
    connection.request("GET", path)
    response = connection.getresponse()
    data = response.read()
    found = {k.lower(): v for k, v in response.getheaders()}
    connection.close()
    return response.status, found, data


LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}


def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": name, "arguments": arguments}}


def metadata_url(url: str) -> str:
    origin = url.removesuffix("/mcp")
    return f"{origin}/.well-known/oauth-protected-resource/mcp"


# -- metadata and challenges ---------------------------------------------------


def test_protected_resource_metadata_is_rfc_9728(jwt_server: tuple[str, Path], auth_server: AuthServer) -> None:
    url, _ = jwt_server
    for path in ("/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"):
        status, headers, body = raw_get(url, path)
        assert status == 200, body
        assert headers["content-type"] == "application/json"
        assert headers["access-control-allow-origin"] == "*"
        document = json.loads(body)
        assert document["resource"] == url
        assert document["authorization_servers"] == [auth_server.issuer]
        assert document["scopes_supported"] == ["pets:admin", "pets:read", "pets:write"]
        assert document["bearer_methods_supported"] == ["header"]
        assert document["resource_name"] == "Scoped Pets"


def test_no_token_is_a_401_challenge_naming_the_metadata(jwt_server: tuple[str, Path]) -> None:
    url, _ = jwt_server
    status, headers, body = raw_post(url, None, LIST)
    assert status == 401
    challenge = headers["www-authenticate"]
    assert challenge.startswith("Bearer ")
    assert f'resource_metadata="{metadata_url(url)}"' in challenge
    assert "error=" not in challenge  # RFC 6750 §3.1: no error code when no credentials were sent
    assert body["error"] == "unauthorized"
    # The SDK's OAuth client reads the challenge as the spec has it.
    response = httpx2.Response(401, headers={"WWW-Authenticate": challenge})
    assert extract_resource_metadata_from_www_auth(response) == metadata_url(url)


def _bad_tokens(auth: AuthServer, audience: str) -> dict[str, str]:
    now = int(time.time())
    good = auth.token(audience, "pets:read")
    head, payload, signature = good.split(".")
    flipped = signature[:-4] + ("AAAA" if signature[-4:] != "AAAA" else "BBBB")
    claims = {"iss": auth.issuer, "sub": "mallory", "aud": audience, "exp": now + 300, "scope": "pets:read pets:write"}
    return {
        "expired": auth.token(audience, "pets:read", lifetime=-120),
        "not yet valid": auth.token(audience, "pets:read", not_before=now + 600),
        "wrong audience": auth.token("http://127.0.0.1:1/mcp", "pets:read"),
        "wrong issuer": auth.token(audience, "pets:read", issuer="https://evil.example"),
        "alg none": unsigned(claims),
        "HS256 keyed with the public key": hs256_with_public_key(claims, auth.rsa),
        "tampered signature": f"{head}.{payload}.{flipped}",
        "tampered claims": f"{head}.{unsigned({**claims, 'sub': 'root'}).split('.')[1]}.{signature}",
        "unknown kid": auth.token(audience, "pets:read", headers={"kid": "nobody-knows"}),
        "not a JWT": "garbage-token-value",
        "no exp": auth.token(audience, "pets:read", exp=None),
    }


@pytest.mark.parametrize(
    "case",
    [
        "expired", "not yet valid", "wrong audience", "wrong issuer", "alg none", "HS256 keyed with the public key",
        "tampered signature", "tampered claims", "unknown kid", "not a JWT", "no exp",
    ],
)
def test_invalid_tokens_are_refused_with_invalid_token(jwt_server: tuple[str, Path], auth_server: AuthServer, case: str) -> None:
    url, _ = jwt_server
    token = _bad_tokens(auth_server, url)[case]
    status, headers, body = raw_post(url, token, LIST)
    assert status == 401, (case, body)
    challenge = headers["www-authenticate"]
    assert 'error="invalid_token"' in challenge
    assert f'resource_metadata="{metadata_url(url)}"' in challenge
    assert body["error"] == "invalid_token"


def test_a_small_clock_skew_is_allowed(jwt_server: tuple[str, Path], auth_server: AuthServer) -> None:
    url, _ = jwt_server
    token = auth_server.token(url, "pets:read", lifetime=-5, not_before=int(time.time()) + 5)
    status, _, body = raw_post(url, token, LIST)
    assert status == 200, body


# -- valid tokens, both eras ------------------------------------------------------


@pytest.mark.parametrize("mode", ERAS)
async def test_scopes_decide_which_tools_are_listed_and_callable(
    jwt_server: tuple[str, Path], auth_server: AuthServer, mode: str
) -> None:
    url, _ = jwt_server
    reader = auth_server.token(url, "pets:read", key=auth_server.rsa)
    async with client(url, reader, mode) as connected:
        names = sorted(t.name for t in (await connected.list_tools()).tools)
        assert names == ["health", "listPets"]
        result = await connected.call_tool("listPets", {})
        assert not result.is_error and result.structured_content == {"pets": ["rex"]}
        with pytest.raises(MCPError):  # a 403 at HTTP level (see the raw test), which the client reports
            await connected.call_tool("addPet", {"name": "Tom"})
        assert sorted(t.name for t in (await connected.list_tools()).tools) == names  # still connected
    writer = auth_server.token(url, "pets:read pets:write", key=auth_server.ec)  # an EC key this time
    async with client(url, writer, mode) as connected:
        names = sorted(t.name for t in (await connected.list_tools()).tools)
        assert names == ["addPet", "health", "listPets"]
        result = await connected.call_tool("addPet", {"name": "Tom"})
        assert not result.is_error, result
    admin = auth_server.token(url, "pets:admin")  # the other alternative of addPet
    async with client(url, admin, mode) as connected:
        names = sorted(t.name for t in (await connected.list_tools()).tools)
        assert names == ["addPet", "health"]


def test_a_tool_outside_the_scopes_is_a_403_naming_the_scope(jwt_server: tuple[str, Path], auth_server: AuthServer) -> None:
    url, _ = jwt_server
    reader = auth_server.token(url, "pets:read")
    for version in ("2025-11-25", "2025-06-18"):
        status, headers, body = raw_post(url, reader, call("addPet", {"name": "Tom"}), version)
        assert status == 403, body
        challenge = headers["www-authenticate"]
        assert 'error="insufficient_scope"' in challenge
        assert 'scope="pets:write"' in challenge
        assert f'resource_metadata="{metadata_url(url)}"' in challenge
        response = httpx2.Response(403, headers={"WWW-Authenticate": challenge})
        assert extract_scope_from_www_auth(response) == "pets:write"
    nothing = auth_server.token(url, "")
    status, headers, _ = raw_post(url, nothing, call("listPets", {}))
    assert status == 403 and 'scope="pets:read"' in headers["www-authenticate"]
    status, _, body = raw_post(url, nothing, call("health", {}))  # needs no scope
    assert status == 200, body


@pytest.mark.parametrize("mode", ERAS)
async def test_the_inbound_token_never_reaches_the_upstream_and_hooks_see_the_caller(
    jwt_server: tuple[str, Path], auth_server: AuthServer, upstream: Upstream, mode: str
) -> None:
    url, _ = jwt_server
    upstream.clear()
    token = auth_server.token(url, "pets:read pets:write", subject="bob")
    async with client(url, token, mode) as connected:
        assert not (await connected.call_tool("listPets", {})).is_error
        assert not (await connected.call_tool("addPet", {"name": "Tom"})).is_error
        assert not (await connected.call_tool("health", {})).is_error
    sent = upstream.take()
    assert len(sent) == 3
    for request in sent:
        everything = json.dumps(request.headers) + request.path + request.query + request.body.decode()
        assert token not in everything
        assert token.split(".")[2] not in everything  # not even its signature
        # The upstream's own credential (none for health, whose operation needs none).
        expected = None if request.path.endswith("/health") else f"Bearer {UPSTREAM_TOKEN}"
        assert request.headers.get("authorization") == expected
        assert request.headers["x-caller"] == "bob"
        assert request.headers["x-caller-scopes"] == "pets:read pets:write"


async def test_the_audit_line_names_the_principal(jwt_server: tuple[str, Path], auth_server: AuthServer) -> None:
    url, log = jwt_server
    token = auth_server.token(url, "pets:read", subject="carol", client_id="carol-app")
    async with client(url, token, "legacy") as connected:
        await connected.call_tool("listPets", {})
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        lines = [json.loads(x) for x in log.read_text().splitlines() if x.startswith("{") and '"carol"' in x]
        if lines:
            break
        await anyio.sleep(0.05)
    assert lines, log.read_text()[-2000:]
    assert lines[-1]["principal"] == {"sub": "carol", "client_id": "carol-app", "scopes": ["pets:read"]}
    assert lines[-1]["tool"] == "listPets" and lines[-1]["outcome"] == "ok"
    assert token not in log.read_text()


def test_the_startup_line_names_the_auth_mode(jwt_server: tuple[str, Path], auth_server: AuthServer) -> None:
    url, log = jwt_server
    assert f"OAuth (JWT tokens from {auth_server.issuer} for {url})" in log.read_text()


# -- introspection -------------------------------------------------------------


def test_opaque_tokens_are_introspected_and_cached(
    project: Path, auth_server: AuthServer, upstream: Upstream, tmp_path: Path
) -> None:
    env = oauth_env(
        auth_server,
        upstream,
        SCOPED_PETS_MCP_OAUTH_INTROSPECTION_URL=f"{auth_server.origin}/introspect",
        SCOPED_PETS_MCP_OAUTH_CLIENT_ID=CLIENT_ID,
        SCOPED_PETS_MCP_OAUTH_CLIENT_SECRET=CLIENT_SECRET,
    )
    with serving(project, tmp_path / "introspect.log", **env) as url:
        now = int(time.time())
        active = auth_server.opaque(
            {"active": True, "scope": "pets:read", "sub": "dave", "client_id": "d", "exp": now + 300, "aud": url, "iss": auth_server.issuer}
        )
        inactive = auth_server.opaque({"active": False})
        other = auth_server.opaque({"active": True, "scope": "pets:read", "exp": now + 300, "aud": "https://other.example/mcp"})
        before = auth_server.fetches("/introspect")
        for _ in range(3):
            status, _, body = raw_post(url, active, LIST)
            assert status == 200, body
            assert sorted(t["name"] for t in body["result"]["tools"]) == ["health", "listPets"]
        assert auth_server.fetches("/introspect") == before + 1  # cached by the token's hash
        for token in (inactive, other, "never-issued"):
            status, headers, _ = raw_post(url, token, LIST)
            assert status == 401 and 'error="invalid_token"' in headers["www-authenticate"]
        status, headers, _ = raw_post(url, active, call("addPet", {"name": "x"}))
        assert status == 403 and 'scope="pets:write"' in headers["www-authenticate"]
        assert "OAuth (introspection tokens" in (tmp_path / "introspect.log").read_text()
        for answer in ({"active": True, "iss": auth_server.issuer}, {"active": True, "aud": url}):  # no aud, no iss
            status, headers, _ = raw_post(url, auth_server.opaque(answer), LIST)
            assert status == 401 and 'error="invalid_token"' in headers["www-authenticate"]
        # 50 garbage tokens from one client: its bucket (10, then one per 2 s; 6 were spent
        # above) bounds the introspection requests; the rest are 429 with Retry-After.
        before, started = auth_server.fetches("/introspect"), time.monotonic()
        statuses = [raw_post(url, f"garbage-{i}", LIST)[0] for i in range(50)]
        asked = auth_server.fetches("/introspect") - before
        assert asked <= 10 + int((time.monotonic() - started) / 2) + 1
        assert statuses.count(401) == asked and statuses.count(429) == 50 - asked
        assert raw_post(url, inactive, LIST)[0] == 401  # refused before: cached, not asked again
        assert auth_server.fetches("/introspect") == before + asked


def test_an_issuer_that_cannot_be_reached_is_a_503_not_a_401(
    project: Path, upstream: Upstream, tmp_path: Path
) -> None:
    """The JWKS cannot be fetched: clients are told to retry (503, Retry-After) and keep their
    tokens, instead of a 401 that makes them throw good ones away."""
    down = AuthServer().start()  # its keys sign the token; then nothing listens on its port
    down.stop()
    with serving(project, tmp_path / "down.log", **oauth_env(down, upstream)) as url:
        token = down.token(url)
        for _ in range(3):
            status, headers, body = raw_post(url, token, LIST)
            assert status == 503, body
            assert 1 <= int(headers["retry-after"]) <= 30 and "www-authenticate" not in headers
            assert body["error"] == "temporarily_unavailable"


# -- dynamic mode --------------------------------------------------------------


def test_dynamic_mode_meta_tools_follow_the_scopes(
    auth_server: AuthServer, upstream: Upstream, tmp_path: Path
) -> None:
    project = _generate(tmp_path / "dynamic", tool_mode="dynamic")
    with serving(project, tmp_path / "dynamic.log", **oauth_env(auth_server, upstream)) as url:
        reader = auth_server.token(url, "pets:read")
        search = call("search_tools", {"query": "pet"})
        status, _, body = raw_post(url, reader, search)
        assert status == 200, body
        found = json.loads(body["result"]["content"][0]["text"])["tools"]
        assert [t["name"] for t in found] == ["listPets"]
        status, headers, _ = raw_post(url, reader, call("call_tool", {"name": "addPet", "arguments": {"name": "x"}}))
        assert status == 403 and 'scope="pets:write"' in headers["www-authenticate"]
        status, _, body = raw_post(url, reader, call("describe_tool", {"name": "addPet"}))
        assert status == 200 and body["result"]["isError"] is True  # hidden: described as unknown
        status, _, body = raw_post(url, reader, call("call_tool", {"name": "listPets", "arguments": {}}))
        assert status == 200 and not body["result"].get("isError"), body


# -- settings ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"SCOPED_PETS_MCP_AUTH": "jwt"}, "SCOPED_PETS_MCP_AUTH"),
        ({"SCOPED_PETS_MCP_AUTH": "oauth"}, "SCOPED_PETS_MCP_OAUTH_ISSUER"),
        ({"SCOPED_PETS_MCP_AUTH": "oauth", "SCOPED_PETS_MCP_OAUTH_ISSUER": "auth.example"}, "SCOPED_PETS_MCP_OAUTH_ISSUER"),
        (
            {"SCOPED_PETS_MCP_AUTH": "oauth", "SCOPED_PETS_MCP_OAUTH_ISSUER": "https://a.example", "SCOPED_PETS_MCP_OAUTH_ALGORITHMS": "RS256,HS256"},
            "SCOPED_PETS_MCP_OAUTH_ALGORITHMS",
        ),
        (
            {"SCOPED_PETS_MCP_AUTH": "oauth", "SCOPED_PETS_MCP_OAUTH_ISSUER": "https://a.example", "SCOPED_PETS_MCP_OAUTH_ALGORITHMS": "none"},
            "SCOPED_PETS_MCP_OAUTH_ALGORITHMS",
        ),
        (
            {"SCOPED_PETS_MCP_AUTH": "oauth", "SCOPED_PETS_MCP_OAUTH_ISSUER": "https://a.example", "SCOPED_PETS_MCP_OAUTH_INTROSPECTION_URL": "https://a.example/i"},
            "SCOPED_PETS_MCP_OAUTH_CLIENT_ID",
        ),
        ({"SCOPED_PETS_MCP_OAUTH_ISSUER": "https://a.example"}, "SCOPED_PETS_MCP_AUTH"),
    ],
)
def test_malformed_oauth_settings_exit_2_naming_the_variable(project: Path, env: dict[str, str], named: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", PACKAGE, "--transport", "http", "--port", str(free_port())],
        env=server_env(project, **env), capture_output=True, text=True, timeout=60, check=False,
    )
    assert done.returncode == 2, done.stderr
    assert named in done.stderr


def test_oauth_allows_binding_beyond_loopback(project: Path, auth_server: AuthServer, upstream: Upstream, tmp_path: Path) -> None:
    env = oauth_env(auth_server, upstream, SCOPED_PETS_MCP_OAUTH_RESOURCE="https://mcp.example.com/mcp")
    with http_process(PACKAGE, server_env(project, **env), tmp_path / "wide.log", host="0.0.0.0") as (port, _):
        status, headers, body = raw_get(f"http://127.0.0.1:{port}/mcp", "/.well-known/oauth-protected-resource/mcp")
        assert status == 200 and json.loads(body)["resource"] == "https://mcp.example.com/mcp"
        status, headers, _ = raw_post(f"http://127.0.0.1:{port}/mcp", None, LIST)
        expected = 'resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"'
        assert status == 401 and expected in headers["www-authenticate"]


# -- the SDK's own OAuth client: discovery from the challenge, then step-up --------


class MemoryStorage:
    """The SDK's `TokenStorage`, in memory."""

    def __init__(self) -> None:
        self.tokens: Any = None
        self.client: Any = None

    async def get_tokens(self) -> Any:
        return self.tokens

    async def set_tokens(self, tokens: Any) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> Any:
        return self.client

    async def set_client_info(self, client_info: Any) -> None:
        self.client = client_info


@pytest.mark.parametrize("mode", ERAS)
async def test_the_sdk_oauth_client_discovers_the_issuer_and_steps_up_on_403(
    jwt_server: tuple[str, Path], auth_server: AuthServer, mode: str
) -> None:
    """`OAuthClientProvider` meets the 401, reads our RFC 9728 document, registers at the
    issuer, authorizes with PKCE and `resource`, and after a 403 insufficient_scope authorizes
    again for the union of scopes: what the spec's clients do, against the generated server."""
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata

    url, _ = jwt_server
    redirects: list[str] = []

    async def redirect_handler(authorization_url: str) -> None:  # the browser: follow to the callback
        async with httpx2.AsyncClient() as browser:
            answer = await browser.get(authorization_url)
        assert answer.status_code == 302
        redirects.append(answer.headers["location"])

    async def callback_handler() -> AuthorizationCodeResult:
        query = httpx2.URL(redirects[-1]).params
        return AuthorizationCodeResult(code=query["code"], state=query["state"])

    provider = OAuthClientProvider(
        server_url=url,
        client_metadata=OAuthClientMetadata(
            client_name="test", redirect_uris=["http://127.0.0.1:9/callback"], token_endpoint_auth_method="none"
        ),
        storage=MemoryStorage(),
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )
    auth_server.grantable = {"pets:read"}  # the user consents to reading only
    auth_server.issued.clear()
    async with (
        httpx2.AsyncClient(auth=provider, timeout=30) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode, cache=None) as connected,  # type: ignore[arg-type]
    ):
        names = sorted(t.name for t in (await connected.list_tools()).tools)
        assert names == ["health", "listPets"]
        first = auth_server.issued[-1]
        assert first["aud"] == url  # RFC 8707: the client asked for this resource
        assert first["scope"] == "pets:read"
        auth_server.grantable = {"pets:read", "pets:write"}  # the user now allows writing
        result = await connected.call_tool("addPet", {"name": "Tom"})  # 403, step-up, retried
        assert not result.is_error, result
        assert auth_server.issued[-1]["scope"] == "pets:read pets:write"
        names = sorted(t.name for t in (await connected.list_tools()).tools)
        assert names == ["addPet", "health", "listPets"]
    assert len(auth_server.issued) == 2
