"""`auth`: what OAuth2 client credentials leave behind for redaction: every fetched token, the
client's Basic value in each form, and nothing of them in a token endpoint's error."""

from __future__ import annotations

import base64
import dataclasses
import json
from collections.abc import Callable

import anyio
import httpx2
import pytest

from mcpgen.runtime import auth, redact, settings
from mcpgen.runtime import project as runtime_project
from mcpgen.runtime.project import Project
from mcpgen.runtime.state import state

ENV = ["PETSTORE_OAUTH_TOKEN", "PETSTORE_OAUTH_CLIENT_ID", "PETSTORE_OAUTH_CLIENT_SECRET",
       "PETSTORE_OAUTH_TOKEN_URL", "PETSTORE_OAUTH_SCOPES"]
CLIENT_ID, CLIENT_SECRET = "client-1", "s3cr:et/+value"
FORM_BASIC = base64.b64encode(b"client-1:s3cr%3Aet%2F%2Bvalue").decode()  # RFC 6749 2.3.1, as sent
RAW_BASIC = base64.b64encode(f"{CLIENT_ID}:{CLIENT_SECRET}".encode()).decode()


@pytest.fixture(autouse=True)
def oauth(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    scheme = {"kind": "oauth2", "in": "header", "name": "Authorization", "env": ENV, "tokenUrl": "/oauth/token"}
    runtime_project.install(dataclasses.replace(
        project, secret_env_vars=(*project.secret_env_vars, ENV[0], ENV[2]), security_schemes={"oauth": scheme}
    ))
    state().learned_secrets.clear()
    monkeypatch.setattr(redact, "_known", {})
    settings._parsed.clear()
    monkeypatch.setenv("PETSTORE_BASE_URL", "https://api.example.com/v1")
    monkeypatch.setenv(ENV[1], CLIENT_ID)
    monkeypatch.setenv(ENV[2], CLIENT_SECRET)


def fetch(answer: Callable[[httpx2.Request], httpx2.Response]) -> str:
    async def run() -> str:
        async with httpx2.AsyncClient(transport=httpx2.MockTransport(answer)) as http:
            headers: dict[str, str] = {}
            await auth.apply([["oauth"]], http, headers, [], {})
            return headers["Authorization"]

    return anyio.run(run)


def test_fetched_tokens_are_secrets_from_then_on() -> None:
    def answer(request: httpx2.Request) -> httpx2.Response:
        assert request.headers["authorization"] == f"Basic {FORM_BASIC}"
        body = {"access_token": "at/0123+xyz", "refresh_token": "rt-98765", "expires_in": 60}
        return httpx2.Response(200, json=body)

    assert redact.redact_text("at/0123+xyz") == "at/0123+xyz"
    assert fetch(answer) == "Bearer at/0123+xyz"
    echoed = json.dumps({"you sent": "Bearer at/0123+xyz", "refresh": "rt-98765"})  # escapes "/" as is
    assert redact.redact_text(echoed) == '{"you sent": "Bearer [redacted]", "refresh": "[redacted]"}'
    assert redact.redact_text('{"t": "at\\/0123+xyz"}') == '{"t": "[redacted]"}'
    for form in (FORM_BASIC, RAW_BASIC, "s3cr%3Aet%2F%2Bvalue", CLIENT_SECRET):
        assert redact.redact_text(f"got {form}.") == "got [redacted].", form


def test_a_token_endpoint_error_echoing_the_client_credentials() -> None:
    def answer(request: httpx2.Request) -> httpx2.Response:
        echo = {"error": "invalid_client", "received": request.headers["authorization"], "raw": RAW_BASIC}
        return httpx2.Response(401, json=echo)

    with pytest.raises(auth.MissingCredential) as caught:
        fetch(answer)
    message = redact.clean_text(str(caught.value))
    assert "HTTP 401" in message and "invalid_client" in message and "PETSTORE_OAUTH_CLIENT_ID" in message
    assert FORM_BASIC not in message and RAW_BASIC not in message and "[redacted]" in message
    assert FORM_BASIC not in str(caught.value)  # redacted where it was made, before the cut


def test_a_long_error_is_redacted_before_it_is_cut() -> None:
    def answer(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(400, text="x" * 290 + FORM_BASIC)  # the cut at 300 falls inside it

    with pytest.raises(auth.MissingCredential) as caught:
        fetch(answer)
    assert FORM_BASIC[:10] not in str(caught.value) and "[redacted]" in str(caught.value)


def test_the_token_url_is_shown_without_userinfo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV[3], "https://svc:url-pass-1@login.example.com/token")

    def answer(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(500, text="down")

    with pytest.raises(auth.MissingCredential) as caught:
        fetch(answer)
    assert "https://login.example.com/token answered HTTP 500" in str(caught.value)
    assert redact.redact_text("url-pass-1") == "[redacted]"
