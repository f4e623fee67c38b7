# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""The HTTP server as an OAuth 2.1 resource server (`PREFIX_MCP_AUTH=oauth`, MCP authorization spec
2025-06-18 / 2025-11-25).

- RFC 9728 metadata at `/.well-known/oauth-protected-resource/mcp` and
  `/.well-known/oauth-protected-resource`: this resource (`PREFIX_MCP_OAUTH_RESOURCE`), its
  authorization server (`PREFIX_MCP_OAUTH_ISSUER`) and every scope a tool asks for.
- No token: 401 with `WWW-Authenticate: Bearer resource_metadata="...", scope="..."`; a bad
  one: the same with `error="invalid_token"`; a tools/call of a tool the token's scopes do not
  allow: 403 with `error="insufficient_scope", scope="<what the tool needs>"`.
- JWT access tokens are checked against the issuer's JWKS (`PREFIX_MCP_OAUTH_JWKS_URL`, else the
  `jwks_uri` of the issuer's RFC 8414 / OIDC metadata): signature with an allow-listed
  asymmetric algorithm (`PREFIX_MCP_OAUTH_ALGORITHMS`; never `none` or HS*), `iss`, `aud` (this
  resource's URL, RFC 8707), `exp` and `nbf` (30 s leeway). Keys are fetched with a size cap
  and a deadline, cached, and fetched again for an unknown `kid` at most every 30 s.
- Opaque tokens: with `PREFIX_MCP_OAUTH_INTROSPECTION_URL` every token is sent to that RFC 7662
  endpoint (authenticated with `PREFIX_MCP_OAUTH_CLIENT_ID` / `PREFIX_MCP_OAUTH_CLIENT_SECRET`);
  an answer must be `active`, name this resource in `aud` and the issuer in `iss` (a missing
  one is refused too), else 401. Answers are cached by the token's hash: accepted ones until
  the token expires (5 min at most), refused ones for 30 s. A token not in the cache costs one
  introspection request from its source's bucket (10 at once, one more every 2 s per client
  address): past it, 429 with `Retry-After`, and the issuer is not asked.
- The issuer cannot be asked (its JWKS, metadata or introspection endpoint fails) and no key in
  hand verifies the token: 503 with `Retry-After`, not a 401, so clients keep good tokens.
- Scopes per tool come from the OpenAPI operation's oauth2/openIdConnect requirements (or
  `mcpgen.toml`); a tool they do not allow is neither listed nor callable (`guard.refusal`).
- The caller (`principal()`) reaches `hooks.py` and the audit line. The inbound token is never
  sent upstream: upstream credentials come from the server's own settings.

Built on the SDK's resource-server parts: `TokenVerifier` (`OAuthVerifier.verify_token`),
`AccessToken` / `AuthenticatedUser` in the ASGI scope and `auth_context_var` (so the SDK's
session ownership and request-state binding see the caller), `ProtectedResourceMetadata` and
`build_resource_metadata_url`.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any, TypeVar
from urllib.parse import urlsplit

import anyio
import httpx2
import jwt
from mcp.server.auth.middleware.auth_context import auth_context_var
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.routes import build_resource_metadata_url
from mcp.shared.auth import ProtectedResourceMetadata
from pydantic import AnyHttpUrl
from starlette.authentication import AuthCredentials
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from . import policy, settings
from .asgi import respond, respond_json
from .principal import Principal
from .principal import caller as _principal
from .project import current as current_project
from .registry import registry, requested

T = TypeVar("T")

LEEWAY = 30  # seconds of clock skew allowed on exp / nbf / iat
FETCH_TIMEOUT = 10.0  # seconds for one JWKS, metadata or introspection exchange
MAX_DOCUMENT_BYTES = 512_000  # a JWKS, metadata or introspection answer
MIN_REFRESH = 30.0  # seconds between two fetches of the JWKS for an unknown kid
MAX_KEYS_AGE = 3600.0  # the JWKS is fetched again after this long anyway
MAX_CACHE_SECONDS = 300.0  # an introspection answer is reused this long at most
MAX_CACHED = 10_000  # introspection answers kept (accepted ones; as many refused ones)
REFUSED_SECONDS = 30.0  # a refused token is refused again without asking, this long
BURST = 10  # introspection requests one client address may cause at once
REFILL = 0.5  # ... and one more each 1 / REFILL seconds
MAX_SOURCES = 10_000  # client addresses whose buckets are kept
RETRY_AFTER = 5  # seconds a 503 for an unreachable introspection endpoint asks clients to wait
MAX_BODY = 4_000_000  # bytes of a POST the gate reads to see which tool it calls
_FAMILIES = {"RS": "RSA", "PS": "RSA", "ES": "EC", "Ed": "OKP"}


class Refused(Exception):
    """The token is not valid for this resource; the message says why (sent to the client)."""


class Unavailable(Exception):
    """The authorization server could not be asked (its keys, metadata or introspection)."""

    def __init__(self, message: str, retry_after: int = RETRY_AFTER) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class Throttled(Exception):
    """This client address asked for more introspections than its bucket holds."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"too many new tokens from this address; retry in {retry_after} s")
        self.retry_after = retry_after


class Buckets:
    """A token bucket per client address (`BURST`, refilled at `REFILL` per second), the
    least recently used dropped past `MAX_SOURCES`."""

    def __init__(self) -> None:
        self.held: OrderedDict[str, tuple[float, float]] = OrderedDict()  # source -> (tokens, at)

    def take(self, source: str) -> int:
        """0 when `source` may make one more request (taken), else the seconds to wait."""
        now = time.monotonic()
        tokens, at = self.held.pop(source, (float(BURST), now))
        tokens = min(float(BURST), tokens + (now - at) * REFILL)
        if tokens >= 1.0:
            tokens -= 1.0
            wait = 0
        else:
            wait = max(1, math.ceil((1.0 - tokens) / REFILL))
        self.held[source] = (tokens, now)
        while len(self.held) > MAX_SOURCES:
            self.held.popitem(last=False)
        return wait


# -- bounded fetches ------------------------------------------------------------


async def _fetch_json(
    method: str, url: str, data: dict[str, str] | None = None, auth: Any = None
) -> Any:
    """A JSON document from `url`, at most `MAX_DOCUMENT_BYTES`, within `FETCH_TIMEOUT`."""
    from .transport import tls_context

    try:
        with anyio.fail_after(FETCH_TIMEOUT):
            async with (
                httpx2.AsyncClient(
                    timeout=FETCH_TIMEOUT, verify=tls_context(), follow_redirects=False
                ) as client,
                client.stream(
                    method, url, data=data, auth=auth, headers={"accept": "application/json"}
                ) as response,
            ):
                body = b""
                async for chunk in response.aiter_bytes():
                    body += chunk
                    if len(body) > MAX_DOCUMENT_BYTES:
                        raise Unavailable(f"{url}: answer over {MAX_DOCUMENT_BYTES:,} bytes")
                if response.status_code != 200:
                    raise Unavailable(f"{url}: HTTP {response.status_code}")
    except TimeoutError:
        raise Unavailable(f"{url}: no answer within {FETCH_TIMEOUT:g} s") from None
    except httpx2.HTTPError as exc:
        raise Unavailable(f"{url}: {type(exc).__name__}") from None
    try:
        return json.loads(body)
    except ValueError:
        raise Unavailable(f"{url}: not JSON") from None


def metadata_urls(issuer: str) -> list[str]:
    """Where an issuer's metadata may be (RFC 8414 §3.1, then OpenID Connect Discovery)."""
    parts = urlsplit(issuer)
    origin, path = f"{parts.scheme}://{parts.netloc}", parts.path.rstrip("/")
    urls = [f"{origin}/.well-known/oauth-authorization-server{path}"]
    urls += [f"{origin}/.well-known/openid-configuration{path}"]
    urls += [f"{origin}{path}/.well-known/openid-configuration"]
    return list(dict.fromkeys(urls))


# -- verification ---------------------------------------------------------------


class OAuthVerifier:
    """Checks access tokens for this resource; an SDK `TokenVerifier` too (`verify_token`)."""

    def __init__(self, config: settings.Settings, resource: str) -> None:
        self.issuer = config.oauth_issuer or ""
        self.resource = resource
        self.algorithms = config.oauth_algorithms
        self.jwks_url = config.oauth_jwks_url
        self.introspection_url = config.oauth_introspection_url
        self.client = (config.oauth_client_id or "", config.oauth_client_secret or "")
        self.keys: list[tuple[dict[str, Any], jwt.PyJWK]] = []
        self.fetched = float("-inf")
        self.lock = anyio.Lock()
        self.cache: OrderedDict[str, tuple[float, Principal]] = OrderedDict()
        self.refused: OrderedDict[str, tuple[float, str]] = OrderedDict()  # digest -> (until, why)
        self.buckets = Buckets()
        self.fetches = 0  # JWKS fetches, for tests of the refresh limit
        self.failure: str | None = None  # why the last JWKS fetch failed

    @property
    def audiences(self) -> list[str]:
        bare = self.resource.rstrip("/")
        return list(dict.fromkeys([self.resource, bare, bare + "/"]))

    async def verify_token(self, token: str) -> AccessToken | None:
        """The SDK's protocol, which can only say yes or no (its middleware answers 401 for
        both): the server's own gate calls `check`, which tells a refusal (401) from an issuer
        it could not ask (503) and a client over its introspection bucket (429)."""
        try:
            caller = await self.check(token)
        except (Refused, Unavailable, Throttled):
            return None
        return access_token(token, caller, self.resource)

    async def check(self, token: str, source: str | None = None) -> Principal:
        """The caller `token` stands for; `source` (the client's address) pays for each
        introspection request. Raises Refused, Unavailable or Throttled."""
        if self.introspection_url:
            return await self._introspect(token, source)
        return await self._check_jwt(token)

    # JWTs

    async def _check_jwt(self, token: str) -> Principal:
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise Refused("the token is not a JWT") from None
        alg = header.get("alg")
        if not isinstance(alg, str) or alg not in self.algorithms:
            raise Refused(f"signing algorithm {str(alg)[:20]!r} is not accepted")
        kid = header.get("kid")
        key = await self._key(kid if isinstance(kid, str) else None, alg)
        try:
            claims = jwt.decode(
                token,
                key=key.key,
                algorithms=[alg],
                audience=self.audiences,
                issuer=self.issuer,
                leeway=LEEWAY,
                options={"require": ["exp", "iss", "aud"]},
            )
        except jwt.ExpiredSignatureError:
            raise Refused("the token has expired") from None
        except jwt.ImmatureSignatureError:
            raise Refused("the token is not valid yet") from None
        except jwt.InvalidAudienceError:
            raise Refused(f"the token is not for this resource ({self.resource})") from None
        except jwt.InvalidIssuerError:
            raise Refused("the token is from another issuer") from None
        except jwt.InvalidSignatureError:
            raise Refused("the token's signature does not verify") from None
        except jwt.PyJWTError as exc:
            raise Refused(f"invalid token: {type(exc).__name__}") from None
        return principal_of(claims)

    async def _key(self, kid: str | None, alg: str) -> jwt.PyJWK:
        found = self._match(kid, alg)
        if found is None:
            if time.monotonic() - self.fetched >= MIN_REFRESH:
                async with self.lock:
                    if time.monotonic() - self.fetched >= MIN_REFRESH:
                        await self._load_keys()
                found = self._match(kid, alg)
            if found is None and self.failure is not None:  # the last fetch failed (maybe
                raise Unavailable(self.failure, self._retry_after())  # a concurrent one's)
        elif time.monotonic() - self.fetched > MAX_KEYS_AGE:
            try:
                async with self.lock:
                    await self._load_keys()
            except Unavailable:  # the keys in hand stay good until the issuer answers again
                return found
            found = self._match(kid, alg)
        if found is None:
            raise Refused("no key of the issuer matches the token's kid")
        return found

    def _retry_after(self) -> int:
        """Seconds until the keys may be fetched again."""
        return max(1, math.ceil(MIN_REFRESH - (time.monotonic() - self.fetched)))

    def _match(self, kid: str | None, alg: str) -> jwt.PyJWK | None:
        family = _FAMILIES.get(alg[:2])
        for data, key in self.keys:
            if kid is not None and data.get("kid") != kid:
                continue
            if data.get("kty") != family or data.get("alg", alg) != alg:
                continue
            if data.get("use", "sig") != "sig":
                continue
            return key
        return None

    async def _load_keys(self) -> None:
        self.fetched = time.monotonic()  # failures count too: the limit protects the issuer
        self.fetches += 1
        try:
            await self._fetch_keys()
        except Unavailable as exc:
            self.failure = str(exc)
            raise Unavailable(self.failure, self._retry_after()) from None
        self.failure = None

    async def _fetch_keys(self) -> None:
        url = self.jwks_url or await self._discover_jwks()
        document = await _fetch_json("GET", url)
        raw = document.get("keys") if isinstance(document, dict) else None
        if not isinstance(raw, list):
            raise Unavailable(f"{url}: no 'keys' list")
        keys = []
        for item in raw:
            if not isinstance(item, dict) or item.get("kty") not in ("RSA", "EC", "OKP"):
                continue  # symmetric ("oct") keys are never used
            try:
                keys.append((item, jwt.PyJWK(item)))
            except jwt.PyJWTError:
                continue
        self.keys = keys

    async def _discover_jwks(self) -> str:
        problems = []
        for url in metadata_urls(self.issuer):
            try:
                document = await _fetch_json("GET", url)
            except Unavailable as exc:
                problems.append(str(exc))
                continue
            if isinstance(document, dict) and isinstance(document.get("jwks_uri"), str):
                if document.get("issuer") != self.issuer:  # RFC 8414 §3.3
                    raise Unavailable(f"{url}: its issuer is not {self.issuer}")
                self.jwks_url = document["jwks_uri"]
                return self.jwks_url
            problems.append(f"{url}: no jwks_uri")
        raise Unavailable("; ".join(problems))

    # introspection

    async def _introspect(self, token: str, source: str | None) -> Principal:
        digest = hashlib.sha256(token.encode()).hexdigest()
        now = time.time()
        cached = self.cache.get(digest)
        if cached is not None and cached[0] > now:
            return cached[1]
        refused = self.refused.get(digest)
        if refused is not None and refused[0] > now:
            raise Refused(refused[1])
        if source is not None:
            wait = self.buckets.take(source)
            if wait:
                raise Throttled(wait)
        answer = await _fetch_json(
            "POST",
            self.introspection_url or "",
            data={"token": token, "token_type_hint": "access_token"},
            auth=httpx2.BasicAuth(*self.client),
        )
        if not isinstance(answer, dict):
            raise Unavailable("introspection: the answer is not a JSON object")
        try:
            caller = self._accepted(answer, now)
        except Refused as exc:
            _remember(self.refused, digest, (now + REFUSED_SECONDS, str(exc)))
            raise
        until = now + MAX_CACHE_SECONDS
        exp = answer.get("exp")
        if isinstance(exp, (int, float)):
            until = min(until, float(exp))
        _remember(self.cache, digest, (until, caller))
        return caller

    def _accepted(self, answer: dict[str, Any], now: float) -> Principal:
        """The caller an introspection answer describes, if it is active, current, from the
        issuer (`iss`) and for this resource (`aud`, RFC 8707); else Refused."""
        if answer.get("active") is not True:
            raise Refused("the token is not active")
        exp = answer.get("exp")
        if isinstance(exp, (int, float)) and exp + LEEWAY < now:
            raise Refused("the token has expired")
        nbf = answer.get("nbf")
        if isinstance(nbf, (int, float)) and nbf - LEEWAY > now:
            raise Refused("the token is not valid yet")
        if answer.get("iss") != self.issuer:
            raise Refused("the token is not from the issuer (iss)")
        raw = answer.get("aud")
        audiences = raw if isinstance(raw, list) else [raw]
        if not set(self.audiences) & {a for a in audiences if isinstance(a, str)}:
            raise Refused(f"the token is not for this resource ({self.resource}) (aud)")
        return principal_of(answer)


def _remember(cache: OrderedDict[str, T], key: str, value: T) -> None:
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > MAX_CACHED:
        cache.popitem(last=False)


def principal_of(claims: Mapping[str, Any]) -> Principal:
    """The caller a JWT's claims or an introspection answer describe."""
    raw = claims.get("scope", claims.get("scp", ""))
    scopes = raw.split() if isinstance(raw, str) else [s for s in raw if isinstance(s, str)]
    client = next((claims[k] for k in ("client_id", "azp", "cid") if k in claims), None)
    exp = claims.get("exp")
    return Principal(
        subject=str(claims["sub"]) if "sub" in claims else None,
        client_id=str(client) if client is not None else None,
        scopes=frozenset(scopes),
        issuer=str(claims["iss"]) if "iss" in claims else None,
        expires_at=int(exp) if isinstance(exp, (int, float)) else None,
        claims=dict(claims),
    )


def access_token(token: str, caller: Principal, resource: str) -> AccessToken:
    return AccessToken(
        token=token,
        client_id=caller.client_id or "",
        scopes=sorted(caller.scopes),
        expires_at=caller.expires_at,
        resource=resource,
        subject=caller.subject,
        claims={"iss": caller.issuer} if caller.issuer else None,
    )


# -- HTTP ---------------------------------------------------------------------


def metadata_document(resource: str, issuer: str) -> bytes:
    # Validated from text: the model keeps an issuer's empty path as it is (exact comparison).
    document = ProtectedResourceMetadata.model_validate(
        {
            "resource": resource,
            "authorization_servers": [issuer],
            "scopes_supported": registry().all_scopes() or None,
            "resource_name": current_project().title,
        }
    )
    return document.model_dump_json(exclude_none=True).encode()


class OAuthGate:
    """ASGI wrapper: the metadata documents, then a valid token on every other HTTP request,
    and the scopes a tools/call's tool needs."""

    def __init__(self, app: ASGIApp, verifier: OAuthVerifier) -> None:
        self.app = app
        self.verifier = verifier
        self.metadata_url = str(build_resource_metadata_url(AnyHttpUrl(verifier.resource)))
        path = urlsplit(self.metadata_url).path
        self.metadata_paths = {path, "/.well-known/oauth-protected-resource"}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["path"] in self.metadata_paths:
            await self._metadata(scope, send)
            return
        token = _bearer(scope)
        if token is None:
            await self._challenge(send, 401, None, "a bearer token is required")
            return
        client = scope.get("client")
        source = str(client[0]) if client else "unknown"  # the peer as uvicorn reports it
        try:
            caller = await self.verifier.check(token, source)
        except Refused as exc:
            await self._challenge(send, 401, "invalid_token", str(exc))
            return
        except (Unavailable, Throttled) as exc:
            status = 503 if isinstance(exc, Unavailable) else 429
            error = "temporarily_unavailable" if status == 503 else "too_many_requests"
            retry = ((b"retry-after", str(exc.retry_after).encode()),)
            await respond_json(send, status, {"error": error, "message": str(exc)}, retry)
            return
        held = _principal.set(caller)
        user = AuthenticatedUser(access_token(token, caller, self.verifier.resource))
        sdk_held = auth_context_var.set(user)
        try:
            receive, refusal = await self._peek(scope, receive)
            if refusal is not None:
                await self._challenge(send, 403, "insufficient_scope", refusal[1], refusal[0])
                return
            scope = {**scope, "user": user, "auth": AuthCredentials(sorted(caller.scopes))}
            await self.app(scope, receive, send)
        finally:
            auth_context_var.reset(sdk_held)
            _principal.reset(held)

    async def _peek(self, scope: Scope, receive: Receive) -> tuple[Receive, tuple[str, str] | None]:
        """Read a POST's body (up to `MAX_BODY`) to see whether it calls a tool the caller may
        not use; the app then receives the same body."""
        if scope.get("method") != "POST":
            return receive, None
        messages: list[Message] = []
        size = 0
        while True:
            message = await receive()
            messages.append(message)
            size += len(message.get("body", b""))
            if message["type"] != "http.request" or not message.get("more_body") or size > MAX_BODY:
                break
        replay = iter(messages)

        async def replayed() -> Message:
            return next(replay, None) or await receive()

        if size > MAX_BODY:
            return replayed, None
        body = b"".join(m.get("body", b"") for m in messages)
        return replayed, _scope_refusal(body)

    async def _metadata(self, scope: Scope, send: Send) -> None:
        if scope.get("method") == "OPTIONS":
            await respond(send, 204, b"", _CORS)
            return
        if scope.get("method") not in ("GET", "HEAD"):
            await respond_json(send, 405, {"error": "method not allowed"})
            return
        body = metadata_document(self.verifier.resource, self.verifier.issuer)
        headers = [(b"content-type", b"application/json"), *_CORS]
        await respond(send, 200, body, headers, scope["method"] == "HEAD")

    async def _challenge(
        self, send: Send, status: int, error: str | None, description: str, scope: str | None = None
    ) -> None:
        parts = [f'resource_metadata="{self.metadata_url}"']
        if error is not None:
            parts += [f'error="{error}"', f'error_description="{_quoted(description)}"']
        wanted = scope if scope is not None else " ".join(current_project().default_scopes)
        if wanted:
            parts.append(f'scope="{_quoted(wanted)}"')
        header = ("Bearer " + ", ".join(parts)).encode()
        body = {"error": error or "unauthorized", "error_description": description}
        await respond_json(send, status, body, ((b"www-authenticate", header),))


def _scope_refusal(body: bytes) -> tuple[str, str] | None:
    """(the scopes needed, why) for the first entry a request in `body` names that the
    caller's scopes do not allow (the policy's decision, asked before the handler's)."""
    try:
        parsed = json.loads(body)
    except ValueError:
        return None
    for message in parsed if isinstance(parsed, list) else [parsed]:
        if not isinstance(message, dict) or not isinstance(message.get("method"), str):
            continue
        for entry in requested(message["method"], message.get("params")):
            why = policy.scope_refusal(entry)
            if why is not None:
                return " ".join(entry.scopes[0]), why
    return None


_CORS = [
    (b"access-control-allow-origin", b"*"),
    (b"access-control-allow-methods", b"GET, OPTIONS"),
    (b"access-control-allow-headers", b"mcp-protocol-version"),
]


def _bearer(scope: Scope) -> str | None:
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            scheme, _, given = bytes(value).decode("latin-1").partition(" ")
            if scheme.lower() == "bearer" and given.strip():
                return given.strip()
    return None


def _quoted(text: str) -> str:
    """Text fit for a quoted-string of a header: printable ASCII, no quote or backslash."""
    return "".join(c if 32 <= ord(c) < 127 and c not in '"\\' else "?" for c in text)[:300]
