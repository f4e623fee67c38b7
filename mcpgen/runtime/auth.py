# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""Credentials for upstream requests: API keys, HTTP basic/bearer, OAuth2 access tokens.

A route lists the operation's security alternatives (OpenAPI `security`); the first whose
credentials are all configured is used, and an empty alternative (`{}`) lets the call go
out without credentials when none is configured. OAuth2 client-credentials tokens are
fetched from the token URL, cached until shortly before they expire, and fetched anew
once when the API answers 401 (see `upstream.send`). A spec declaring no scheme at all gets
`PREFIX_BEARER_TOKEN` and `PREFIX_HEADERS` instead, sent with every request when set.
"""

from __future__ import annotations

import asyncio
import base64
import time
from typing import Any
from urllib.parse import quote_plus

import httpx2

from . import redact, settings
from .project import current
from .state import state

EXPIRY_MARGIN = 30.0  # seconds before `expires_in` runs out that a cached token is dropped


def _scheme(name: str) -> dict[str, Any]:
    """{"kind", "in", "name", "env": [vars], "tokenUrl"?} of one of the project's schemes."""
    return current().security_schemes[name]


def _env(variable: str) -> str | None:
    return settings.current().credential(variable)


class MissingCredential(Exception):
    """No credential set for any of the operation's security requirements, or none obtainable."""


def _configured(name: str) -> bool:
    scheme = _scheme(name)
    env = scheme["env"]
    if scheme["kind"] == "oauth2":
        return bool(_env(env[0]) or (_env(env[1]) and _env(env[2]) and _token_url(scheme)))
    return all(_env(v) for v in env)


async def apply(
    requirements: list[list[str]],
    http: httpx2.AsyncClient,
    headers: dict[str, str],
    query: list[tuple[str, str]],
    cookies: dict[str, str],
) -> list[str]:
    """Add the first usable alternative's credentials; return the schemes whose token was
    fetched here (a 401 may mean it was revoked early: `forget` them and retry once)."""
    if not requirements:
        _apply_generic(headers)
        return []
    for requirement in requirements:
        if requirement and all(_configured(s) for s in requirement):
            fetched = []
            for name in requirement:
                if await _apply(name, http, headers, query, cookies):
                    fetched.append(name)
            return fetched
    if [] in requirements:
        return []  # credentials are optional for this operation
    options = [" and ".join(_needed(s) for s in req) for req in requirements]
    raise MissingCredential(
        "This tool needs credentials that are not configured: set "
        + " or ".join(options)
        + " in the server's environment."
    )


def _apply_generic(headers: dict[str, str]) -> None:
    """A spec declaring no security scheme: the configured headers and bearer token, on every
    request (requests only ever go to the base URL; redirects only within its origin)."""
    if not current().generic_credentials:
        return
    now = settings.current()
    for name, value in now.headers:
        for existing in [k for k in headers if k.lower() == name.lower()]:
            del headers[existing]  # configured credentials win over a tool argument's header
        headers[name] = value
    if now.bearer_token:
        for existing in [k for k in headers if k.lower() == "authorization"]:
            del headers[existing]
        headers["Authorization"] = f"Bearer {now.bearer_token}"


def _needed(name: str) -> str:
    scheme = _scheme(name)
    env = scheme["env"]
    if scheme["kind"] == "oauth2":
        return f"({env[0]} or {env[1]} and {env[2]})"
    return " and ".join(env)


def forget(names: list[str]) -> None:
    for name in names:
        state().upstream_tokens.pop(name, None)


async def _apply(
    name: str,
    http: httpx2.AsyncClient,
    headers: dict[str, str],
    query: list[tuple[str, str]],
    cookies: dict[str, str],
) -> bool:
    scheme = _scheme(name)
    kind = scheme["kind"]
    values = [_env(v) or "" for v in scheme["env"]]
    if kind == "basic":
        token = base64.b64encode(f"{values[0]}:{values[1]}".encode()).decode("ascii")
        headers["Authorization"] = f"Basic {token}"
    elif kind == "bearer":
        headers["Authorization"] = f"Bearer {values[0]}"
    elif kind == "oauth2":
        if values[0]:  # a token obtained elsewhere wins
            headers["Authorization"] = f"Bearer {values[0]}"
            return False
        headers["Authorization"] = f"Bearer {await _client_credentials_token(name, http)}"
        return True
    elif scheme["in"] == "header":
        headers[scheme["name"]] = values[0]
    elif scheme["in"] == "query":
        query.append((scheme["name"], values[0]))
    else:
        cookies[scheme["name"]] = values[0]
    return False


def _token_url(scheme: dict[str, Any]) -> str | None:
    """The token endpoint: the env override, else the spec's (relative: against the base URL)."""
    url = _env(scheme["env"][3]) or scheme.get("tokenUrl")
    if not url:
        return None
    base = settings.current().base_url
    if httpx2.URL(url).is_relative_url:
        return str(httpx2.URL(base + "/").join(url)) if base else None
    return str(url)


async def _client_credentials_token(name: str, http: httpx2.AsyncClient) -> str:
    tokens = state().upstream_tokens
    cached = tokens.get(name)
    if cached is not None and time.monotonic() < cached[1]:
        return cached[0]
    lock: asyncio.Lock = state().token_locks.setdefault(name, asyncio.Lock())
    async with lock:  # concurrent calls share one token request
        cached = tokens.get(name)
        if cached is not None and time.monotonic() < cached[1]:
            return cached[0]
        token, lifetime = await _fetch_token(_scheme(name), http)
        tokens[name] = (token, time.monotonic() + max(0.0, lifetime - EXPIRY_MARGIN))
        return token


async def _fetch_token(scheme: dict[str, Any], http: httpx2.AsyncClient) -> tuple[str, float]:
    """RFC 6749 §4.4: client id and secret as HTTP basic credentials, form-encoded grant."""
    env = scheme["env"]
    url = _token_url(scheme)
    if url is None:
        raise MissingCredential(
            f"No OAuth2 token URL: set {env[3]} or {settings.current().variable('BASE_URL')}."
        )
    client_id, secret = _env(env[1]) or "", _env(env[2]) or ""
    form = {"grant_type": "client_credentials"}
    scopes = _env(env[4])
    if scopes:
        form["scope"] = scopes
    basic = base64.b64encode(f"{_form_escape(client_id)}:{_form_escape(secret)}".encode()).decode(
        "ascii"
    )
    _remember_client(client_id, secret, basic)
    shown = redact.shown_url(url)
    try:
        response = await http.post(
            url,
            data=form,
            headers={"Authorization": f"Basic {basic}", "Accept": "application/json"},
            follow_redirects=False,
        )
    except httpx2.HTTPError as exc:
        raise MissingCredential(
            f"OAuth2 token request to {shown} failed: {type(exc).__name__}: {exc}"
        ) from None
    if response.status_code != 200:
        raise MissingCredential(
            f"OAuth2 token request to {shown} answered HTTP {response.status_code}: "
            + redact.clean_text(response.text)[:300]  # redacted before it is cut: no half secret
            + f" (check {env[1]} and {env[2]})"
        )
    try:
        answer = response.json()
        token = answer["access_token"]
    except (ValueError, KeyError, TypeError):
        raise MissingCredential(f"OAuth2 token endpoint {shown} sent no access_token.") from None
    for field in ("access_token", "refresh_token", "id_token"):  # never shown from now on
        if isinstance(answer.get(field), str):
            redact.remember_secret(answer[field])
    if not isinstance(token, str) or not token:
        raise MissingCredential(f"OAuth2 token endpoint {shown} sent no access_token.")
    expires_in = answer.get("expires_in")
    lifetime = (
        float(expires_in)
        if isinstance(expires_in, (int, float)) and not isinstance(expires_in, bool)
        else 3600.0
    )
    return token, lifetime


def _remember_client(client_id: str, secret: str, basic: str) -> None:
    """The client secret in every form the token request may be echoed in: the Basic value
    sent (form-escaped parts), the unescaped pair's, and the form-escaped secret alone."""
    redact.remember_secret(basic)
    raw = base64.b64encode(f"{client_id}:{secret}".encode()).decode("ascii")
    for value in (raw, secret, _form_escape(secret), f"{client_id}:{secret}"):
        redact.remember_secret(value)


def _form_escape(value: str) -> str:
    """RFC 6749 §2.3.1: client id and secret are form-urlencoded before Basic encoding."""
    return quote_plus(value)
