"""A real OAuth authorization server on 127.0.0.1, for resource-server tests.

It serves RFC 8414 metadata (`/.well-known/oauth-authorization-server`), a JWKS (`/jwks`)
of real RSA and EC public keys, an RFC 7662 introspection endpoint (`/introspect`,
client_secret_basic), and enough of the authorization-code flow for the SDK's
`OAuthClientProvider`: dynamic registration (`/register`), `/authorize` (the "user" consents
at once to the requested scopes that `grantable` holds, redirecting with a code) and
`/token` (PKCE S256 checked; the JWT's `aud` is the RFC 8707 `resource` asked for). Tokens
are signed with PyJWT; every request is recorded, so a test can count fetches and calls.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
import uuid
from typing import Any
from urllib.parse import parse_qs, urlencode

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from ..local_http import Handler, Recorded, RecordingServer

CLIENT_ID, CLIENT_SECRET = "mcp-resource", "introspection-secret-1234"


class SigningKey:
    def __init__(self, kind: str, kid: str) -> None:
        self.kid = kid
        if kind == "RSA":
            self.private: Any = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            self.alg = "RS256"
        else:
            self.private = ec.generate_private_key(ec.SECP256R1())
            self.alg = "ES256"

    def jwk(self) -> dict[str, Any]:
        algorithm = jwt.algorithms.RSAAlgorithm if self.alg == "RS256" else jwt.algorithms.ECAlgorithm
        data: dict[str, Any] = json.loads(algorithm.to_jwk(self.private.public_key()))
        return {**data, "kid": self.kid, "use": "sig", "alg": self.alg}

    def public_pem(self) -> bytes:
        key = self.private.public_key()
        return bytes(key.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))


class AuthServer(RecordingServer[Recorded]):
    handler = Handler
    name = "oauth-as"

    def __init__(self) -> None:
        super().__init__()
        self.issuer = self.origin
        self.rsa = SigningKey("RSA", "rsa-1")
        self.ec = SigningKey("EC", "ec-1")
        self.published = [self.rsa, self.ec]
        self.introspected: dict[str, dict[str, Any]] = {}  # opaque token -> its answer
        self.grantable: set[str] = set()  # the scopes the "user" consents to at /authorize
        self.codes: dict[str, dict[str, str]] = {}  # authorization code -> what it was issued for
        self.issued: list[dict[str, Any]] = []  # the claims of every token /token issued

    def token(
        self,
        audience: str | list[str],
        scopes: str = "",
        *,
        key: SigningKey | None = None,
        subject: str = "alice",
        issuer: str | None = None,
        lifetime: int = 300,
        not_before: int | None = None,
        headers: dict[str, Any] | None = None,
        **claims: Any,
    ) -> str:
        key = key or self.rsa
        now = int(time.time())
        payload = {
            "iss": issuer or self.issuer,
            "sub": subject,
            "aud": audience,
            "iat": now,
            "exp": now + lifetime,
            "scope": scopes,
            "client_id": "test-client",
            "jti": uuid.uuid4().hex,
            **claims,
        }
        if not_before is not None:
            payload["nbf"] = not_before
        payload = {k: v for k, v in payload.items() if v is not None}  # exp=None: a token without one
        return jwt.encode(payload, key.private, algorithm=key.alg, headers={"kid": key.kid, **(headers or {})})

    def opaque(self, answer: dict[str, Any]) -> str:
        token = "opaque-" + uuid.uuid4().hex
        self.introspected[token] = answer
        return token

    def fetches(self, path: str) -> int:
        return sum(1 for r in self.requests if r.path == path)

    def respond(self, handler: Handler, request: Recorded) -> None:
        self._record(request)
        if request.path == "/.well-known/oauth-authorization-server":
            document = {
                "issuer": self.issuer,
                "jwks_uri": f"{self.origin}/jwks",
                "introspection_endpoint": f"{self.origin}/introspect",
                "authorization_endpoint": f"{self.origin}/authorize",
                "token_endpoint": f"{self.origin}/token",
                "registration_endpoint": f"{self.origin}/register",
                "response_types_supported": ["code"],
                "grant_types_supported": ["authorization_code"],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["none"],
            }
            return self._json(handler, 200, document)
        if request.path == "/register" and request.method == "POST":
            registration = {**request.json(), "client_id": "client-" + uuid.uuid4().hex[:8]}
            registration["token_endpoint_auth_method"] = "none"
            return self._json(handler, 201, registration)
        if request.path == "/authorize":
            return self._authorize(handler, {k: v[0] for k, v in parse_qs(request.query).items()})
        if request.path == "/token" and request.method == "POST":
            return self._token(handler, {k: v[0] for k, v in parse_qs(request.body.decode()).items()})
        if request.path == "/jwks":
            return self._json(handler, 200, {"keys": [k.jwk() for k in self.published]})
        if request.path == "/introspect" and request.method == "POST":
            expected = "Basic " + base64.b64encode(f"{CLIENT_ID}:{CLIENT_SECRET}".encode()).decode()
            if request.headers.get("authorization") != expected:
                return self._json(handler, 401, {"error": "invalid_client"})
            token = parse_qs(request.body.decode()).get("token", [""])[0]
            return self._json(handler, 200, self.introspected.get(token, {"active": False}))
        return self._json(handler, 404, {"error": "not found"})

    def _authorize(self, handler: Handler, query: dict[str, str]) -> None:
        granted = sorted(set(query.get("scope", "").split()) & self.grantable)
        code = uuid.uuid4().hex
        self.codes[code] = {**query, "scope": " ".join(granted)}
        location = query["redirect_uri"] + "?" + urlencode({"code": code, "state": query.get("state", "")})
        handler.send(302, {"Location": location, "Content-Length": "0"})

    def _token(self, handler: Handler, form: dict[str, str]) -> None:
        asked = self.codes.pop(form.get("code", ""), None)
        if asked is None or form.get("grant_type") != "authorization_code":
            return self._json(handler, 400, {"error": "invalid_grant"})
        verifier = form.get("code_verifier", "").encode()
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier).digest()).rstrip(b"=").decode()
        if challenge != asked.get("code_challenge") or form.get("client_id") != asked.get("client_id"):
            return self._json(handler, 400, {"error": "invalid_grant", "error_description": "PKCE"})
        resource = form.get("resource") or asked.get("resource") or "no-resource-asked"
        token = self.token(resource, asked["scope"], subject="user-1", client_id=asked["client_id"])
        self.issued.append(jwt.decode(token, options={"verify_signature": False}))
        answer = {"access_token": token, "token_type": "Bearer", "expires_in": 300, "scope": asked["scope"]}
        return self._json(handler, 200, answer)

    @staticmethod
    def _json(handler: Handler, status: int, value: Any) -> None:
        body = json.dumps(value).encode()
        handler.send(status, {"Content-Type": "application/json", "Content-Length": str(len(body))}, body)


def unsigned(payload: dict[str, Any]) -> str:
    """An `alg: none` JWT."""

    def part(value: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    return f"{part({'alg': 'none', 'typ': 'JWT'})}.{part(payload)}."


def hs256_with_public_key(payload: dict[str, Any], key: SigningKey) -> str:
    """The algorithm-confusion attack: HS256 keyed with the issuer's public key (PEM)."""
    import hashlib
    import hmac

    def part(value: Any) -> str:
        raw = value if isinstance(value, bytes) else json.dumps(value).encode()
        return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()

    signing = f"{part({'alg': 'HS256', 'typ': 'JWT', 'kid': key.kid})}.{part(payload)}"
    mac = hmac.new(key.public_pem(), signing.encode(), hashlib.sha256).digest()
    return f"{signing}.{part(mac)}"
