"""A spec declaring no security scheme: PREFIX_BEARER_TOKEN and PREFIX_HEADERS reach every
request, their values are secrets, malformed ones stop the server naming the variable but
never echoing a value; a project whose spec has schemes ignores them."""

from __future__ import annotations

import dataclasses

import anyio
import httpx2
import pytest

from mcpgen.runtime import auth, redact, settings
from mcpgen.runtime import project as runtime_project
from mcpgen.runtime.project import Project

TOKEN = "ghp_0123456789abcdefXYZ"
KEY = "k3y-value/with+chars"


@pytest.fixture
def generic(project: Project, monkeypatch: pytest.MonkeyPatch) -> Project:
    changed = dataclasses.replace(
        project, secret_env_vars=("PETSTORE_BEARER_TOKEN",), credential_names=(), security_schemes={},
        generic_credentials=True,
    )
    runtime_project.install(changed)
    monkeypatch.setattr(redact, "_known", {})
    settings._parsed.clear()
    return changed


def applied(requirements: list[list[str]] | None = None, headers: dict[str, str] | None = None) -> dict[str, str]:
    async def run() -> dict[str, str]:
        sent = dict(headers or {})
        async with httpx2.AsyncClient() as http:
            await auth.apply(requirements or [], http, sent, [], {})
        return sent

    return anyio.run(run)


def test_bearer_token_and_header_lines_are_sent(generic: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_BEARER_TOKEN", TOKEN)
    monkeypatch.setenv("PETSTORE_HEADERS", f"X-Api-Key: {KEY}\n\nX-GitHub-Api-Version: 2022-11-28\n")
    sent = applied(headers={"x-api-key": "from-an-argument", "Accept": "application/json"})
    assert sent == {
        "Accept": "application/json",
        "X-Api-Key": KEY,  # the configured credential wins over a tool argument's header
        "X-GitHub-Api-Version": "2022-11-28",
        "Authorization": f"Bearer {TOKEN}",
    }


def test_headers_as_json(generic: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_HEADERS", '{"Authorization": "token abc123456789", "X-Trace": "1"}')
    assert applied() == {"Authorization": "token abc123456789", "X-Trace": "1"}


def test_nothing_configured_sends_nothing(generic: Project) -> None:
    assert applied(headers={"Accept": "*/*"}) == {"Accept": "*/*"}


def test_values_are_redacted(generic: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_BEARER_TOKEN", TOKEN)
    monkeypatch.setenv("PETSTORE_HEADERS", f"X-Api-Key: {KEY}\nX-Public: visible-value")
    text = f"echo {TOKEN} and {KEY} and visible-value, {KEY.replace('/', '%2F')}"
    cleaned = redact.clean_text(text)
    assert TOKEN not in cleaned and KEY not in cleaned and "%2F" not in cleaned, cleaned
    assert cleaned.count("[redacted]") >= 3
    assert "PETSTORE_BEARER_TOKEN" in settings.secret_variables(generic, {"PETSTORE_BEARER_TOKEN": TOKEN}, ())


@pytest.mark.parametrize(
    ("variable", "raw", "expected"),
    [
        ("PETSTORE_HEADERS", "X-Api-Key " + KEY, "PETSTORE_HEADERS line 1: expected `Name: value`"),
        ("PETSTORE_HEADERS", f"Bad Name: {KEY}", "PETSTORE_HEADERS line 1: not a header name"),
        ("PETSTORE_HEADERS", f"Authorization Bearer {KEY}: x", "PETSTORE_HEADERS line 1: not a header name"),
        ("PETSTORE_HEADERS", f'{{"ok": "1", "{KEY} x": "y"}}', "PETSTORE_HEADERS key 2: not a header name"),
        ("PETSTORE_HEADERS", f"Host: {KEY}", "PETSTORE_HEADERS line 1: Host is written by the HTTP client itself"),
        ("PETSTORE_HEADERS", f"A: 1\na: {KEY}", "PETSTORE_HEADERS line 2: a is given twice"),
        ("PETSTORE_HEADERS", '{"X-Api-Key": 5}', "PETSTORE_HEADERS: expected a JSON object of header names"),
        ("PETSTORE_HEADERS", '{"X": "a\\r\\nInjected: 1' + KEY + '"}', "the value of X has a control character"),
        ("PETSTORE_BEARER_TOKEN", f"Bearer {KEY}", "PETSTORE_BEARER_TOKEN: expected the token alone"),
    ],
)
def test_malformed_values_name_the_variable_not_the_value(
    generic: Project, monkeypatch: pytest.MonkeyPatch, variable: str, raw: str, expected: str
) -> None:
    monkeypatch.setenv(variable, raw)
    with pytest.raises(settings.SettingsError) as caught:
        settings.current()
    assert expected in str(caught.value)
    assert KEY not in str(caught.value)


def test_bearer_and_authorization_header_together_are_refused(
    generic: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PETSTORE_BEARER_TOKEN", TOKEN)
    monkeypatch.setenv("PETSTORE_HEADERS", "Authorization: Basic abcdefgh12345678")
    with pytest.raises(settings.SettingsError, match="keep one of them") as caught:
        settings.current()
    assert TOKEN not in str(caught.value) and "abcdefgh12345678" not in str(caught.value)


def test_a_spec_with_schemes_ignores_them(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its operations name their schemes; PREFIX_BEARER_TOKEN is no way around them."""
    settings._parsed.clear()
    monkeypatch.setenv("PETSTORE_BEARER_TOKEN", TOKEN)
    monkeypatch.setenv("PETSTORE_HEADERS", "X-Other: 1")
    assert settings.current().bearer_token is None and settings.current().headers == ()
    assert applied() == {}
    monkeypatch.setenv("PETSTORE_API_KEY", "the-api-key-0001")
    assert applied([["api_key"]]) == {"api_key": "the-api-key-0001"}
