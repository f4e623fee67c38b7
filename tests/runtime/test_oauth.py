"""`runtime/oauth.py` at source: the token verifier against a real authorization server on
127.0.0.1 (JWKS discovery, the refresh limit for unknown kids, size caps and deadlines,
introspection), scopes per tool, and the OAuth settings."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

from mcpgen.runtime import oauth, settings
from mcpgen.runtime.project import Project
from tests.e2e.oauth_server import CLIENT_ID, CLIENT_SECRET, AuthServer, SigningKey
from tests.local_http import Handler, Recorded

pytestmark = pytest.mark.anyio
RESOURCE = "https://mcp.example.com/mcp"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class TestAuthServer(AuthServer):
    """The test authorization server, with a JWKS that can be oversized or slow."""

    __test__ = False

    def __init__(self) -> None:
        super().__init__()
        self.padding = 0
        self.delay = 0.0

    def respond(self, handler: Handler, request: Recorded) -> None:
        if request.path == "/jwks" and (self.padding or self.delay):
            self._record(request)
            time.sleep(self.delay)
            keys = {"keys": [k.jwk() for k in self.published], "padding": "x" * self.padding}
            return self._json(handler, 200, keys)
        return super().respond(handler, request)


@pytest.fixture
def auth_server() -> Iterator[TestAuthServer]:
    server = TestAuthServer().start()
    yield server
    server.stop()


def config(project: Project, auth: AuthServer, **env: str) -> settings.Settings:
    environ = {"PETSTORE_MCP_AUTH": "oauth", "PETSTORE_MCP_OAUTH_ISSUER": auth.issuer, **env}
    return settings.load(project, environ)


async def test_a_valid_token_gives_its_principal_and_an_sdk_access_token(project: Project, auth_server: AuthServer) -> None:
    verifier = oauth.OAuthVerifier(config(project, auth_server), RESOURCE)
    token = auth_server.token(RESOURCE, "pets:read pets:write", subject="alice", client_id="app-1")
    caller = await verifier.check(token)
    assert (caller.subject, caller.client_id, caller.scopes) == ("alice", "app-1", frozenset({"pets:read", "pets:write"}))
    assert caller.issuer == auth_server.issuer
    access = await verifier.verify_token(token)  # the SDK's TokenVerifier protocol
    assert access is not None
    assert (access.client_id, access.subject, access.resource) == ("app-1", "alice", RESOURCE)
    assert access.scopes == ["pets:read", "pets:write"]
    assert await verifier.verify_token(auth_server.token("https://other.example/mcp")) is None
    # The JWKS came from the issuer's RFC 8414 metadata, once.
    assert auth_server.fetches("/.well-known/oauth-authorization-server") == 1
    assert auth_server.fetches("/jwks") == 1
    await verifier.check(auth_server.token(RESOURCE, key=auth_server.ec))
    assert auth_server.fetches("/jwks") == 1


async def test_scp_lists_and_azp_are_read_too(project: Project, auth_server: AuthServer) -> None:
    verifier = oauth.OAuthVerifier(config(project, auth_server), RESOURCE)
    token = auth_server.token(RESOURCE, scope=None, scp=["a", "b"], client_id=None, azp="app-2")
    caller = await verifier.check(token)
    assert caller.scopes == frozenset({"a", "b"}) and caller.client_id == "app-2"


async def test_an_unknown_kid_fetches_the_keys_again_at_most_every_30_seconds(project: Project, auth_server: AuthServer) -> None:
    verifier = oauth.OAuthVerifier(config(project, auth_server), RESOURCE)
    await verifier.check(auth_server.token(RESOURCE))
    assert auth_server.fetches("/jwks") == 1
    rotated = SigningKey("RSA", "rsa-2")
    token = auth_server.token(RESOURCE, key=rotated)
    for _ in range(5):  # a burst of tokens with a kid nobody published: one refresh at most
        with pytest.raises(oauth.Refused, match="kid"):
            await verifier.check(token)
    assert auth_server.fetches("/jwks") == 1  # fetched < MIN_REFRESH ago: not again
    auth_server.published.append(rotated)  # the issuer rotates its keys
    verifier.fetched -= oauth.MIN_REFRESH  # as if 30 s had passed
    caller = await verifier.check(token)
    assert caller.subject == "alice"
    assert auth_server.fetches("/jwks") == 2
    for _ in range(3):
        with pytest.raises(oauth.Refused):
            await verifier.check(auth_server.token(RESOURCE, headers={"kid": "other"}))
    assert auth_server.fetches("/jwks") == 2


async def test_the_jwks_fetch_is_capped_in_bytes_and_time(
    project: Project, auth_server: TestAuthServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    verifier = oauth.OAuthVerifier(config(project, auth_server, PETSTORE_MCP_OAUTH_JWKS_URL=f"{auth_server.origin}/jwks"), RESOURCE)
    auth_server.padding = oauth.MAX_DOCUMENT_BYTES + 1
    with pytest.raises(oauth.Unavailable, match="bytes"):
        await verifier.check(auth_server.token(RESOURCE))
    auth_server.padding = 0
    auth_server.delay = 1.0
    monkeypatch.setattr(oauth, "FETCH_TIMEOUT", 0.2)
    verifier.fetched -= oauth.MIN_REFRESH
    with pytest.raises(oauth.Unavailable, match="no answer"):
        await verifier.check(auth_server.token(RESOURCE))
    fetched = auth_server.fetches("/jwks")
    for _ in range(3):  # an issuer that fails is not asked again within MIN_REFRESH: 503s, not fetches
        with pytest.raises(oauth.Unavailable, match="no answer"):
            await verifier.check(auth_server.token(RESOURCE))
    assert auth_server.fetches("/jwks") == fetched
    auth_server.delay = 0.0
    verifier.fetched -= oauth.MIN_REFRESH
    assert (await verifier.check(auth_server.token(RESOURCE))).subject == "alice"  # it recovered
    assert auth_server.fetches("/.well-known/oauth-authorization-server") == 0  # the URL was given


async def test_symmetric_keys_in_the_jwks_are_never_used(project: Project, auth_server: AuthServer) -> None:
    import jwt

    secret = "s" * 32
    auth_server.published.append(_OctKey(secret))  # type: ignore[arg-type]
    verifier = oauth.OAuthVerifier(config(project, auth_server), RESOURCE)
    now = int(time.time())
    claims = {"iss": auth_server.issuer, "aud": RESOURCE, "exp": now + 60, "sub": "x"}
    token = jwt.encode(claims, secret, algorithm="HS256", headers={"kid": "oct-1"})
    with pytest.raises(oauth.Refused, match="algorithm"):
        await verifier.check(token)
    await verifier.check(auth_server.token(RESOURCE))  # the JWKS with an oct key in it still loads
    assert all(data["kty"] != "oct" for data, _ in verifier.keys)


class _OctKey:
    kid = "oct-1"

    def __init__(self, secret: str) -> None:
        self.secret = secret

    def jwk(self) -> dict[str, Any]:
        import base64

        k = base64.urlsafe_b64encode(self.secret.encode()).rstrip(b"=").decode()
        return {"kty": "oct", "kid": self.kid, "k": k, "alg": "HS256"}


async def test_introspection_active_inactive_and_cached(project: Project, auth_server: AuthServer) -> None:
    env = {
        "PETSTORE_MCP_OAUTH_INTROSPECTION_URL": f"{auth_server.origin}/introspect",
        "PETSTORE_MCP_OAUTH_CLIENT_ID": CLIENT_ID,
        "PETSTORE_MCP_OAUTH_CLIENT_SECRET": CLIENT_SECRET,
    }
    verifier = oauth.OAuthVerifier(config(project, auth_server, **env), RESOURCE)
    exp = int(time.time()) + 120
    active = auth_server.opaque({"active": True, "scope": "pets:read", "sub": "eve", "exp": exp, "aud": [RESOURCE], "iss": auth_server.issuer})
    for _ in range(3):
        caller = await verifier.check(active)
    assert caller.subject == "eve" and caller.scopes == frozenset({"pets:read"})
    assert auth_server.fetches("/introspect") == 1
    assert verifier.cache and next(iter(verifier.cache.values()))[0] <= exp  # cached until exp at most
    assert active not in json.dumps([list(verifier.cache)])  # kept by hash only
    ours = {"iss": auth_server.issuer, "aud": RESOURCE}
    for answer, why in [
        ({"active": False}, "not active"),
        ({"active": True, **ours, "exp": int(time.time()) - 600}, "expired"),
        ({"active": True, **ours, "aud": "https://other.example/mcp"}, "not for this resource"),
        ({"active": True, "iss": auth_server.issuer}, "not for this resource"),  # no aud: another API's token (RFC 8707)
        ({"active": True, "aud": [RESOURCE], "iss": "https://evil.example"}, "not from the issuer"),
        ({"active": True, "aud": [RESOURCE]}, "not from the issuer"),  # no iss
    ]:
        with pytest.raises(oauth.Refused, match=why):
            await verifier.check(auth_server.opaque(answer))
    wrong = oauth.OAuthVerifier(config(project, auth_server, **{**env, "PETSTORE_MCP_OAUTH_CLIENT_SECRET": "wrong"}), RESOURCE)
    with pytest.raises(oauth.Unavailable, match="401"):
        await wrong.check(active)


def introspecting(project: Project, auth: AuthServer) -> oauth.OAuthVerifier:
    env = {
        "PETSTORE_MCP_OAUTH_INTROSPECTION_URL": f"{auth.origin}/introspect",
        "PETSTORE_MCP_OAUTH_CLIENT_ID": CLIENT_ID,
        "PETSTORE_MCP_OAUTH_CLIENT_SECRET": CLIENT_SECRET,
    }
    return oauth.OAuthVerifier(config(project, auth, **env), RESOURCE)


async def test_refused_introspection_answers_are_cached_for_30_seconds(project: Project, auth_server: AuthServer) -> None:
    verifier = introspecting(project, auth_server)
    no_aud = auth_server.opaque({"active": True, "iss": auth_server.issuer})
    for token in ("garbage", no_aud):
        for _ in range(5):
            with pytest.raises(oauth.Refused):
                await verifier.check(token, "198.51.100.7")
    assert auth_server.fetches("/introspect") == 2  # once per token
    assert "garbage" not in json.dumps(list(verifier.refused))  # kept by hash only
    for digest, (until, why) in list(verifier.refused.items()):  # as if 30 s had passed
        verifier.refused[digest] = (until - oauth.REFUSED_SECONDS, why)
    with pytest.raises(oauth.Refused, match="not active"):
        await verifier.check("garbage")
    assert auth_server.fetches("/introspect") == 3


async def _app(scope: Any, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"in"})


def gate_client(verifier: oauth.OAuthVerifier, address: str) -> Any:
    import httpx2

    transport = httpx2.ASGITransport(app=oauth.OAuthGate(_app, verifier), client=(address, 40000))
    return httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000")


async def test_50_garbage_tokens_from_one_client_make_at_most_BURST_introspections(project: Project, auth_server: AuthServer) -> None:
    """The bound: BURST (10) requests at once, then one per 1 / REFILL (2) seconds."""
    verifier = introspecting(project, auth_server)
    started = time.monotonic()
    statuses = []
    async with gate_client(verifier, "203.0.113.9") as http:
        for i in range(50):
            response = await http.get("/mcp", headers={"Authorization": f"Bearer garbage-{i}"})
            statuses.append(response.status_code)
            if response.status_code == 429:
                assert int(response.headers["retry-after"]) >= 1
                assert response.json()["error"] == "too_many_requests"
                assert "www-authenticate" not in response.headers  # the token was not judged
    elapsed = time.monotonic() - started
    asked = auth_server.fetches("/introspect")
    assert oauth.BURST <= asked <= oauth.BURST + 1 + int(elapsed * oauth.REFILL)
    assert statuses.count(401) == asked and statuses.count(429) == 50 - asked
    async with gate_client(verifier, "203.0.113.9") as http:  # a refused token, again: cached, 401
        assert (await http.get("/mcp", headers={"Authorization": "Bearer garbage-0"})).status_code == 401
    good = auth_server.opaque({"active": True, "aud": RESOURCE, "iss": auth_server.issuer, "sub": "x"})
    async with gate_client(verifier, "192.0.2.1") as http:  # another address has its own bucket
        assert (await http.get("/mcp", headers={"Authorization": f"Bearer {good}"})).status_code == 200
    assert auth_server.fetches("/introspect") == asked + 1


async def test_an_issuer_that_cannot_be_reached_is_a_503_with_retry_after(project: Project, auth_server: AuthServer) -> None:
    """Concurrent callers while the JWKS fetch fails all get 503 (none a 401 for want of keys),
    and the issuer is asked once."""
    verifier = oauth.OAuthVerifier(config(project, auth_server), RESOURCE)
    token = auth_server.token(RESOURCE)
    auth_server.stop()  # nothing listens on its port any more
    statuses: list[tuple[int, str | None, str | None]] = []

    async def one(http: Any) -> None:
        response = await http.get("/mcp", headers={"Authorization": f"Bearer {token}"})
        statuses.append((response.status_code, response.headers.get("retry-after"), response.headers.get("www-authenticate")))

    import anyio

    async with gate_client(verifier, "127.0.0.1") as http, anyio.create_task_group() as group:
        for _ in range(20):
            group.start_soon(one, http)
    assert {status for status, _, _ in statuses} == {503}
    assert all(retry is not None and 1 <= int(retry) <= oauth.MIN_REFRESH for _, retry, _ in statuses)
    assert all(challenge is None for _, _, challenge in statuses)
    assert verifier.fetches == 1
    assert await verifier.verify_token(token) is None  # the SDK's protocol can only say no


async def test_keys_in_hand_still_verify_while_the_issuer_is_down(project: Project, auth_server: AuthServer) -> None:
    verifier = oauth.OAuthVerifier(config(project, auth_server), RESOURCE)
    await verifier.check(auth_server.token(RESOURCE))
    rotated = auth_server.token(RESOURCE, key=SigningKey("EC", "ec-new"))
    auth_server.stop()
    assert (await verifier.check(auth_server.token(RESOURCE))).subject == "alice"
    verifier.fetched -= oauth.MIN_REFRESH
    with pytest.raises(oauth.Unavailable) as unavailable:  # a kid it must fetch the keys for
        await verifier.check(rotated)
    assert unavailable.value.retry_after == oauth.MIN_REFRESH
    with pytest.raises(oauth.Unavailable):  # and within MIN_REFRESH: 503 again, not 401
        await verifier.check(rotated)


def test_metadata_urls_follow_rfc_8414() -> None:
    assert oauth.metadata_urls("https://as.example/tenant1") == [
        "https://as.example/.well-known/oauth-authorization-server/tenant1",
        "https://as.example/.well-known/openid-configuration/tenant1",
        "https://as.example/tenant1/.well-known/openid-configuration",
    ]
    assert oauth.metadata_urls("https://as.example")[0] == "https://as.example/.well-known/oauth-authorization-server"


# -- settings ----------------------------------------------------------------------


def test_oauth_settings_parse_and_explain(project: Project) -> None:
    loaded = settings.load(
        project,
        {
            "PETSTORE_MCP_AUTH": "OAuth",
            "PETSTORE_MCP_OAUTH_ISSUER": "https://as.example",
            "PETSTORE_MCP_OAUTH_RESOURCE": RESOURCE,
            "PETSTORE_MCP_OAUTH_ALGORITHMS": "ES256, EdDSA",
            "PETSTORE_MCP_OAUTH_CLIENT_SECRET": "hush-hush-hush",
        },
    )
    assert (loaded.auth, loaded.oauth_issuer, loaded.oauth_resource) == ("oauth", "https://as.example", RESOURCE)
    assert loaded.oauth_algorithms == ("ES256", "EdDSA")
    assert loaded.secrets["PETSTORE_MCP_OAUTH_CLIENT_SECRET"] == "hush-hush-hush"  # redacted everywhere
    assert settings.load(project, {}).auth == "token"
    cases = [
        ({"PETSTORE_MCP_AUTH": "bearer"}, "PETSTORE_MCP_AUTH='bearer': expected token (the static PETSTORE_MCP_TOKEN, or none)"),
        ({"PETSTORE_MCP_AUTH": "oauth"}, "PETSTORE_MCP_AUTH=oauth needs PETSTORE_MCP_OAUTH_ISSUER"),
        ({"PETSTORE_MCP_AUTH": "oauth", "PETSTORE_MCP_OAUTH_ISSUER": "as.example"}, "PETSTORE_MCP_OAUTH_ISSUER='as.example'"),
        ({"PETSTORE_MCP_AUTH": "oauth", "PETSTORE_MCP_OAUTH_ISSUER": "https://a", "PETSTORE_MCP_OAUTH_ALGORITHMS": "HS256"}, "never none or HS*"),
        ({"PETSTORE_MCP_AUTH": "oauth", "PETSTORE_MCP_OAUTH_ISSUER": "https://a", "PETSTORE_MCP_TOKEN": "t" * 32}, "exclusive"),
        (
            {"PETSTORE_MCP_AUTH": "oauth", "PETSTORE_MCP_OAUTH_ISSUER": "https://a", "PETSTORE_MCP_OAUTH_INTROSPECTION_URL": "https://a/i"},
            "needs PETSTORE_MCP_OAUTH_CLIENT_ID and PETSTORE_MCP_OAUTH_CLIENT_SECRET",
        ),
        ({"PETSTORE_MCP_OAUTH_JWKS_URL": "https://a/jwks"}, "PETSTORE_MCP_OAUTH_JWKS_URL is set but PETSTORE_MCP_AUTH is not 'oauth'"),
    ]
    for environ, message in cases:
        with pytest.raises(settings.SettingsError, match=re.escape(message)):
            settings.load(project, environ)


def test_oauth_counts_as_protection_beyond_loopback(project: Project) -> None:
    environ = {"PETSTORE_MCP_AUTH": "oauth", "PETSTORE_MCP_OAUTH_ISSUER": "https://as.example"}
    assert settings.check_environment(project, environ, [], http_host="127.0.0.1").auth == "oauth"
    with pytest.raises(settings.SettingsError, match="set PETSTORE_MCP_OAUTH_RESOURCE to the URL") as refused:
        settings.check_environment(project, environ, [], http_host="0.0.0.0")
    assert "MCP_TOKEN" not in str(refused.value)
    environ["PETSTORE_MCP_OAUTH_RESOURCE"] = RESOURCE
    assert settings.check_environment(project, environ, [], http_host="0.0.0.0").auth == "oauth"
    with pytest.raises(settings.SettingsError, match="PETSTORE_MCP_TOKEN"):
        settings.check_environment(project, {}, [], http_host="0.0.0.0")
    with pytest.raises(settings.SettingsError) as refused:  # a malformed OAuth setting: said once
        settings.check_environment(project, {"PETSTORE_MCP_AUTH": "oauth", "PETSTORE_MCP_OAUTH_RESOURCE": RESOURCE}, [], http_host="0.0.0.0")
    assert "PETSTORE_MCP_OAUTH_ISSUER" in str(refused.value) and "MCP_TOKEN" not in str(refused.value)
