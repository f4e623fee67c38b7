"""`redact`: which variables hold secrets, how their values are hidden in text, JSON data and
tool results, and which characters never reach the model."""

from __future__ import annotations

import base64

import pytest
from mcp import types

from mcpgen.runtime import redact, settings
from mcpgen.runtime.project import Project
from mcpgen.runtime.state import state


@pytest.fixture(autouse=True)
def fresh(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """No secrets learned by other tests, no cached secret list, no --base-url flag."""
    state().learned_secrets.clear()
    monkeypatch.setattr(redact, "_known", {})
    monkeypatch.setattr(settings, "_base_url_flag", [])
    settings._parsed.clear()
    for variable in ("OTHER_SERVICE_KEY", "MY_VAR"):
        monkeypatch.delenv(variable, raising=False)


def test_secret_variables(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {
        "PETSTORE_DB_PASSWORD": "pw-1", "PETSTORE_GITHUB_TOKEN": "t-1", "PETSTORE_CLIENT_SECRET": "s-1",
        "PETSTORE_PRIVATE_KEY": "p-1", "PETSTORE_STRIPE_API_KEY": "k-1", "PETSTORE_PAGE_SIZE": "5",
        "PETSTORE_BASE_URL": "https://api.example.com", "PETSTORE_SERVICE_USERNAME": "u",
        "OTHER_TOKEN": "not ours", "PETSTORE_REDACT": "MY_VAR, OTHER_SERVICE_KEY",
    }.items():
        monkeypatch.setenv(name, value)
    import os

    current = settings.current()
    names = settings.secret_variables(project, os.environ, current.redact)
    assert names[:6] == [  # the project's own first, usernames left out
        "PETSTORE_API_KEY", "PETSTORE_ADMIN_AUTH_PASSWORD", "PETSTORE_MCP_TOKEN", "PETSTORE_REDIS_URL",
        "PETSTORE_REQUEST_STATE_KEY", "PETSTORE_CLIENT_SECRET",
    ]
    assert set(names) == {
        "PETSTORE_API_KEY", "PETSTORE_ADMIN_AUTH_PASSWORD", "PETSTORE_MCP_TOKEN", "PETSTORE_CLIENT_SECRET",
        "PETSTORE_REDIS_URL", "PETSTORE_REQUEST_STATE_KEY",
        "PETSTORE_DB_PASSWORD", "PETSTORE_GITHUB_TOKEN", "PETSTORE_PRIVATE_KEY", "PETSTORE_STRIPE_API_KEY",
        "MY_VAR", "OTHER_SERVICE_KEY",
    }
    assert len(names) == len(set(names))


def test_values_of_secret_variables_are_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_DB_PASSWORD", "hunter2-db")
    monkeypatch.setenv("PETSTORE_MCP_TOKEN", "mcp-token-1234567890")
    monkeypatch.setenv("PETSTORE_PAGE_SIZE", "5000")
    monkeypatch.setenv("PETSTORE_BASE_URL", "https://api.example.com")
    text = redact.redact_text("db hunter2-db, token mcp-token-1234567890, size 5000 at https://api.example.com")
    assert text == "db [redacted], token [redacted], size 5000 at https://api.example.com"


def test_variables_listed_in_redact(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_VAR", "plain-looking-value")
    monkeypatch.setenv("OTHER_SERVICE_KEY", "x y/z")
    assert redact.redact_text("plain-looking-value x y/z") == "plain-looking-value x y/z"
    monkeypatch.setenv("PETSTORE_REDACT", "MY_VAR,OTHER_SERVICE_KEY")
    assert redact.redact_text("plain-looking-value; x y/z; x%20y%2Fz; x%20y/z") == (
        "[redacted]; [redacted]; [redacted]; [redacted]"  # raw and both percent-encoded forms
    )


def test_short_values_are_not_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_API_KEY", "abc")  # would redact ordinary words
    assert redact.redact_text("abc abcd") == "abc abcd"
    redact.remember_secret("xyz")
    assert "xyz" not in redact.secret_values()


def test_basic_credentials_are_redacted_in_their_encoded_form(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_ADMIN_AUTH_USERNAME", "admin")
    monkeypatch.setenv("PETSTORE_ADMIN_AUTH_PASSWORD", "pw")  # too short alone, but the pair is not
    encoded = base64.b64encode(b"admin:pw").decode()
    assert redact.redact_text(f"sent {encoded} as admin") == "sent [redacted] as admin"


def test_a_changed_environment_changes_the_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_API_KEY", "first-key")
    assert redact.redact_text("first-key second-key") == "[redacted] second-key"
    monkeypatch.setenv("PETSTORE_API_KEY", "second-key")
    assert redact.redact_text("first-key second-key") == "first-key [redacted]"
    monkeypatch.setenv("PETSTORE_NEW_SECRET", "new-secret")  # a new secret-named variable
    assert redact.redact_text("new-secret") == "[redacted]"


def test_a_changed_value_of_a_variable_listed_in_redact(monkeypatch: pytest.MonkeyPatch) -> None:
    """The listed variable is outside this server's prefix; its new value is a secret too."""
    monkeypatch.setenv("PETSTORE_REDACT", "OTHER_SERVICE_KEY")
    monkeypatch.setenv("OTHER_SERVICE_KEY", "old-value")
    assert redact.redact_text("old-value") == "[redacted]"
    monkeypatch.setenv("OTHER_SERVICE_KEY", "new-value")
    assert redact.redact_text("old-value new-value") == "old-value [redacted]"


def test_remembered_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_API_KEY", "env-key")
    assert redact.redact_text("env-key run-time-token") == "[redacted] run-time-token"
    redact.remember_secret("run-time-token")
    assert redact.redact_text("env-key run-time-token") == "[redacted] [redacted]"


def test_longer_secrets_are_replaced_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_API_KEY", "abcd")
    monkeypatch.setenv("PETSTORE_OTHER_TOKEN", "abcd-efgh")
    assert redact.redact_text("abcd-efgh") == "[redacted]"  # not "[redacted]-efgh"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Authorization: Bearer abc.def", "Authorization: [redacted]"),
        ("authorization=Basic dXNlcjpwdw==", "authorization=[redacted]"),
        ("Proxy-Authorization: Digest x1", "Proxy-Authorization: [redacted]"),
        ('{"X-API-Key": "q", "keep": "v"}', '{"X-API-Key": "[redacted]", "keep": "v"}'),
        ("?apikey=1&api-key=2&page=3", "?apikey=[redacted]&api-key=[redacted]&page=3"),
        ("access_token=tok; path=/", "access_token=[redacted]; path=/"),
        ("'api_key': 'zzz'", "'api_key': '[redacted]'"),  # the project's own credential name
        ("my_api_key=1 not_authorization: x", "my_api_key=1 not_authorization: x"),  # part of another name
        ("the authorization header", "the authorization header"),  # no value
    ],
)
def test_credential_fields(text: str, expected: str) -> None:
    assert redact.redact_text(text) == expected


def test_credential_names_of_the_project(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    from mcpgen.runtime import project as runtime_project

    assert redact.redact_text("X-Session-Id: s1") == "X-Session-Id: s1"
    runtime_project.install(dataclasses.replace(project, credential_names=("X-Session-Id",)))
    assert redact.redact_text("X-Session-Id: s1") == "X-Session-Id: [redacted]"


def test_controls_and_lone_surrogates_are_stripped() -> None:
    assert redact.strip_controls("a\x07b\x7fc\x9bd\u202ae\u2069f\ud800g\udfffh\tI\nJ") == "abcdefgh\tI\nJ"
    assert redact.strip_controls("emoji 🐍 and ü stay") == "emoji 🐍 and ü stay"
    assert redact.clean_text("\x1b[31m Authorization: Bearer x") == "[31m Authorization: [redacted]"


def test_a_secret_split_by_control_characters_is_still_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_API_KEY", "secret-key")
    assert redact.clean_text("echo: se\x00cret-\x1bkey") == "echo: [redacted]"
    assert redact.clean_value({"echo": ["secret\u202e-key"]}) == {"echo": ["[redacted]"]}


def test_clean_value_walks_nested_data(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_API_KEY", "secret-key")
    value = {
        "items": [{"note": "key secret-key\x00"}, "a\ud83dz", 3, 2.5, True, None],
        "nested": {"deeper": [["secret-key"]]},
        "k\ud800ey": "v",
        "secret-key\x01": "a key keeps its characters",
        "id": 1,
    }
    assert redact.clean_value(value) == {
        "items": [{"note": "key [redacted]"}, "az", 3, 2.5, True, None],
        "nested": {"deeper": [["[redacted]"]]},
        "key": "v",  # a lone surrogate cannot be sent, even in a key
        "[redacted]\x01": "a key keeps its characters",  # a schema may require them, but no secret
        "id": 1,
    }
    assert value["items"][0] == {"note": "key secret-key\x00"}  # the input is not changed


def test_clean_result(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_API_KEY", "secret-key")
    image = types.ImageContent(type="image", data="c2VjcmV0LWtleQ==", mime_type="image/png")
    result = types.CallToolResult(
        content=[
            types.TextContent(type="text", text="got secret-key\x1b!"),
            types.EmbeddedResource(
                type="resource",
                resource=types.TextResourceContents(uri="file:///a.txt", text="secret-key\u202e", mime_type="text/plain"),
            ),
            image,
        ],
        structured_content={"left": "as built"},
        is_error=True,
    )
    cleaned = redact.clean_result(result)
    assert cleaned.content[0].text == "got [redacted]!"
    assert cleaned.content[1].resource.text == "[redacted]"
    assert cleaned.content[1].resource.uri == result.content[1].resource.uri
    assert cleaned.content[2] == image
    assert cleaned.is_error is True and cleaned.structured_content == {"left": "as built"}
    assert result.content[0].text == "got secret-key\x1b!"  # a copy


def test_log_filter_redacts_messages_and_tracebacks(monkeypatch: pytest.MonkeyPatch) -> None:
    import logging
    import sys

    monkeypatch.setenv("PETSTORE_API_KEY", "secret-key")
    try:
        raise ValueError("failed with secret-key")
    except ValueError:
        record = logging.LogRecord("x", logging.ERROR, __file__, 1, "key %s", ("secret-key",), sys.exc_info())
    assert redact.RedactingFilter().filter(record)
    assert record.getMessage() == "key [redacted]"
    assert record.exc_text and "secret-key" not in record.exc_text and "failed with [redacted]" in record.exc_text


SECRET = "sk/live+AB/cd=="  # a key with the characters JSON and URLs escape


@pytest.mark.parametrize(
    "written",
    [
        'sk\\/live+AB\\/cd==',  # JSON may escape "/"
        '\\u0073k/live+AB/cd==',  # any character as a \u escape
        '\\u0073\\u006b\\u002f\\u006c\\u0069\\u0076\\u0065\\u002b\\u0041\\u0042\\u002f\\u0063\\u0064\\u003d\\u003d',
        '\\x73k/live+AB/cd==',  # Python's repr of bytes
        'sk%2Flive%2BAB%2Fcd%3D%3D',  # percent-encoded
        'sk/live%2BAB/cd==',  # partly percent-encoded
        'sk/live+AB%2fcd%3d=',  # lower-case hex
        's\\u0000k/live+AB\\u001b/cd==',  # escaped control characters inside
        's\x00k/live\u202e+AB/cd==',  # raw control characters inside
        '\\\\u0073k\\\\/live+AB/cd==',  # JSON inside JSON: escaped twice
        base64.b64encode(SECRET.encode()).decode(),
    ],
)
def test_escaped_forms_of_a_secret_are_redacted(written: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_API_KEY", SECRET)
    body = '{"error": "bad key", "echo": "' + written + '", "n": 1}'
    assert redact.redact_text(body) == '{"error": "bad key", "echo": "[redacted]", "n": 1}'
    assert redact.clean_text(body) == '{"error": "bad key", "echo": "[redacted]", "n": 1}'


def test_escapes_of_other_text_are_left_as_they_are(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_API_KEY", SECRET)
    text = '{"path": "a\\/b", "note": "\\u00e9t\\u00e9 100%25", "emoji": "\\ud83d\\ude00", "q": "\\\\n"}'
    assert redact.redact_text(text) == text
    assert redact.redact_text("\\\\u0073 is not s") == "\\\\u0073 is not s"


def test_structured_content_and_error_text_are_cleaned_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    """A JSON document inside a string of a structured result, and an error's text."""
    monkeypatch.setenv("PETSTORE_API_KEY", SECRET)
    value = {"detail": '{"echo": "sk\\/live+AB\\/cd=="}', "raw": "s\x07k/live+AB/cd==", SECRET: "key"}
    assert redact.clean_value(value) == {"detail": '{"echo": "[redacted]"}', "raw": "[redacted]", "[redacted]": "key"}
    error = types.CallToolResult(
        content=[types.TextContent(type="text", text='HTTP 400: {"k": "\\u0073k\\/live+AB\\/cd=="}')], is_error=True
    )
    assert redact.clean_result(error).content[0].text == 'HTTP 400: {"k": "[redacted]"}'


def test_keys_redacted_alike_are_both_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_API_KEY", SECRET)
    assert redact.clean_value({SECRET: 1, "sk\\/live+AB\\/cd==": 2}) == {"[redacted]": 1, "[redacted]'": 2}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Authorization: Bearer secret-key", "Authorization: [redacted]"),
        ('{"api_key": "secret-key"}', '{"api_key": "[redacted]"}'),
        ("access_token=secret-key&x=1", "access_token=[redacted]&x=1"),
        ("api_key=[abc] rest", "api_key=[redacted] rest"),
    ],
)
def test_no_doubled_bracket(text: str, expected: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A value already redacted is taken whole by the credential-field rule: no `[redacted]]`."""
    monkeypatch.setenv("PETSTORE_API_KEY", "secret-key")
    assert redact.redact_text(text) == expected
    assert "]]" not in redact.redact_text(text)


def test_url_userinfo_is_hidden_and_its_password_is_a_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_BASE_URL", "https://svc:pa%24%24word-1@api.example.com/v1")
    text = "GET https://svc:pa%24%24word-1@api.example.com/v1/pets failed (password pa$$word-1)"
    assert redact.redact_text(text) == "GET https://[redacted]@api.example.com/v1/pets failed (password [redacted])"
    basic = base64.b64encode(b"svc:pa$$word-1").decode()  # what an HTTP client makes of the userinfo
    assert redact.redact_text(f"Basic {basic}") == "Basic [redacted]"
    assert redact.shown_url("https://u:p@h.example/x") == "https://h.example/x"
    assert redact.redact_text("mail bob@example.com, see https://example.com/a@b") == (
        "mail bob@example.com, see https://example.com/a@b"
    )


def test_remembered_secrets_get_their_encoded_forms_too() -> None:
    redact.remember_secret("tok/en+1==")
    assert redact.redact_text('{"t": "tok\\/en+1=="} tok%2Fen%2B1%3D%3D') == '{"t": "[redacted]"} [redacted]'


def test_decoding_a_large_escaped_text_is_linear(monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    monkeypatch.setenv("PETSTORE_API_KEY", SECRET)
    body = '{"a": "\\u00e9\\/%41"}' * 20_000 + '"sk\\/live+AB\\/cd=="'
    started = time.perf_counter()
    redacted = redact.redact_text(body)
    assert redacted.endswith('"[redacted]"') and redacted.startswith('{"a": "\\u00e9\\/%41"}')
    assert time.perf_counter() - started < 10  # a guard against quadratic work, not a speed limit
