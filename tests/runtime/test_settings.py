"""Every `PREFIX_*` setting read by `mcpgen/runtime/settings.py`: defaults, valid forms, and the
message a malformed value stops the server with (the variable and the form it expects)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from mcpgen.runtime import policy, settings
from mcpgen.runtime.project import Project
from mcpgen.runtime.settings import Rate, SettingsError

TOOLS = ("getPet", "addPet", "deletePet")  # the conftest project's tools.json


def load(project: Project, **environ: str) -> settings.Settings:
    return settings.load(project, {f"PETSTORE_{k}": v for k, v in environ.items()}, TOOLS)


def test_defaults_come_from_the_project(project: Project) -> None:
    own = dataclasses.replace(project, base_url="https://api.example.com/v2/", page_size=7, max_response_chars=4321)
    loaded = settings.load(own, {}, TOOLS)
    assert loaded.base_url == "https://api.example.com/v2"  # the trailing slash dropped
    assert (loaded.page_size, loaded.max_response_chars) == (7, 4321)
    assert (loaded.timeout, loaded.connect_timeout, loaded.retries) == (30.0, 10.0, 2)
    assert (loaded.call_timeout, loaded.max_connections) == (60.0, 100)
    assert (loaded.max_response_bytes, loaded.max_upload_bytes) == (20_000_000, 50_000_000)
    assert (loaded.ca_bundle, loaded.upload_dir, loaded.http_keep_alive) == (None, None, 120)
    assert (loaded.read_only, loaded.tools_allow, loaded.tools_deny) == (False, (), ())
    assert (loaded.rate_limit, loaded.tool_rate_limits, loaded.mcp_token) == (None, {}, None)
    assert (loaded.allowed_hosts, loaded.audit_log, loaded.redact, loaded.credentials) == ((), "full", (), {})
    assert settings.load(project, {}, TOOLS).base_url is None
    assert loaded.variable("TIMEOUT") == "PETSTORE_TIMEOUT"


def test_empty_and_blank_values_mean_the_default(project: Project) -> None:
    loaded = load(project, TIMEOUT="", PAGE_SIZE="   ", READ_ONLY=" ", AUDIT_LOG="")
    assert (loaded.timeout, loaded.page_size, loaded.read_only, loaded.audit_log) == (30.0, 25, False, "full")


@pytest.mark.parametrize(
    ("setting", "raw", "attribute", "expected"),
    [
        ("BASE_URL", "https://api.example.com/v1/", "base_url", "https://api.example.com/v1"),
        ("BASE_URL", "http://127.0.0.1:8080", "base_url", "http://127.0.0.1:8080"),
        ("TIMEOUT", "2.5", "timeout", 2.5),
        ("TIMEOUT", " 7 ", "timeout", 7.0),
        ("TIMEOUT", "0.001", "timeout", 0.001),
        ("CONNECT_TIMEOUT", "1e1", "connect_timeout", 10.0),
        ("CALL_TIMEOUT", "90", "call_timeout", 90.0),
        ("CALL_TIMEOUT", "0.5", "call_timeout", 0.5),
        ("MAX_CONNECTIONS", "1", "max_connections", 1),
        ("MAX_RESPONSE_BYTES", "1000", "max_response_bytes", 1000),
        ("MAX_RESPONSE_BYTES", "20MB", "max_response_bytes", 20_000_000),
        ("MAX_RESPONSE_BYTES", "512 KiB", "max_response_bytes", 524_288),
        ("MAX_RESPONSE_BYTES", "1gb", "max_response_bytes", 10**9),
        ("MAX_UPLOAD_BYTES", "2GiB", "max_upload_bytes", 2**31),
        ("MAX_UPLOAD_BYTES", "5000 b", "max_upload_bytes", 5000),
        ("RETRIES", "0", "retries", 0),
        ("RETRIES", "5", "retries", 5),
        ("PAGE_SIZE", "1", "page_size", 1),
        ("PAGE_SIZE", "500", "page_size", 500),
        ("MAX_RESPONSE_CHARS", "1000", "max_response_chars", 1000),
        ("MAX_RESPONSE_CHARS", "250000", "max_response_chars", 250_000),
        ("HTTP_KEEP_ALIVE", "1", "http_keep_alive", 1),
        ("READ_ONLY", "1", "read_only", True),
        ("READ_ONLY", "TRUE", "read_only", True),
        ("READ_ONLY", "yes", "read_only", True),
        ("READ_ONLY", "On", "read_only", True),
        ("READ_ONLY", "0", "read_only", False),
        ("READ_ONLY", "false", "read_only", False),
        ("READ_ONLY", "no", "read_only", False),
        ("READ_ONLY", "OFF", "read_only", False),
        ("TOOLS_ALLOW", "getPet, add*", "tools_allow", ("getPet", "add*")),
        ("TOOLS_ALLOW", "getPet addPet", "tools_allow", ("getPet", "addPet")),
        ("TOOLS_DENY", "delete*,,", "tools_deny", ("delete*",)),
        ("TOOLS_DENY", "*Pet", "tools_deny", ("*Pet",)),
        ("RATE_LIMIT", "10/s burst 20", "rate_limit", Rate(10, 20, "10/s burst 20")),
        ("RATE_LIMIT", "off", "rate_limit", None),
        ("MCP_TOKEN", "s3cret-token-0123456", "mcp_token", "s3cret-token-0123456"),
        ("ALLOWED_HOSTS", "a.example, b.example:8000,", "allowed_hosts", ("a.example", "b.example:8000")),
        ("AUDIT_LOG", "full", "audit_log", "full"),
        ("AUDIT_LOG", "MINIMAL", "audit_log", "minimal"),
        ("AUDIT_LOG", "off", "audit_log", "off"),
        ("REDACT", "OTHER_SECRET, PETSTORE_EXTRA", "redact", ("OTHER_SECRET", "PETSTORE_EXTRA")),
    ],
)
def test_valid_forms(project: Project, setting: str, raw: str, attribute: str, expected: Any) -> None:
    assert getattr(load(project, **{setting: raw}), attribute) == expected


def test_the_call_deadline_follows_the_read_timeout_unless_set(project: Project) -> None:
    assert load(project, TIMEOUT="3").call_timeout == 6.0  # twice PETSTORE_TIMEOUT
    assert load(project, TIMEOUT="3", CALL_TIMEOUT="20").call_timeout == 20.0


def test_paths_that_exist(project: Project, tmp_path: Path) -> None:
    bundle = tmp_path / "ca.pem"
    bundle.write_text("not parsed here")
    loaded = load(project, CA_BUNDLE=str(bundle), UPLOAD_DIR=str(tmp_path))
    assert (loaded.ca_bundle, loaded.upload_dir) == (str(bundle), str(tmp_path))
    assert load(project, CA_BUNDLE=str(tmp_path)).ca_bundle == str(tmp_path)  # a directory of certificates


def test_credentials_are_read_from_the_schemes_variables(project: Project) -> None:
    environ = {"PETSTORE_API_KEY": "k-1", "PETSTORE_ADMIN_AUTH_USERNAME": "", "UNRELATED": "x"}
    loaded = settings.load(project, environ, TOOLS)
    assert loaded.credentials == {"PETSTORE_API_KEY": "k-1"}  # empty ones left out
    assert loaded.credential("PETSTORE_API_KEY") == "k-1" and loaded.credential("UNRELATED") is None


@pytest.mark.parametrize(
    ("setting", "raw", "expects"),
    [
        ("BASE_URL", "api.example.com", "expected an http:// or https:// URL"),
        ("BASE_URL", "ftp://api.example.com", "expected an http:// or https:// URL"),
        ("TIMEOUT", "-1", "expected a number of seconds >= 0.001"),
        ("TIMEOUT", "abc", "expected a number of seconds >= 0.001"),
        ("TIMEOUT", "0", "expected a number of seconds >= 0.001"),
        ("TIMEOUT", "inf", "expected a number of seconds >= 0.001"),
        ("TIMEOUT", "nan", "expected a number of seconds >= 0.001"),
        ("CONNECT_TIMEOUT", "0.0001", "expected a number of seconds >= 0.001"),
        ("CALL_TIMEOUT", "soon", "expected a number of seconds >= 0.001"),
        ("CALL_TIMEOUT", "0", "expected a number of seconds >= 0.001"),
        ("MAX_CONNECTIONS", "0", "expected a whole number >= 1"),
        ("MAX_RESPONSE_BYTES", "999", "expected a size of at least 1,000 bytes, in bytes or with a unit"),
        ("MAX_RESPONSE_BYTES", "20 XB", "expected a size of at least 1,000 bytes, in bytes or with a unit"),
        ("MAX_RESPONSE_BYTES", "-5MB", "expected a size of at least 1,000 bytes, in bytes or with a unit"),
        ("MAX_UPLOAD_BYTES", "1.5MB", "expected a size of at least 1,000 bytes, in bytes or with a unit"),
        ("RETRIES", "-1", "expected a whole number >= 0"),
        ("RETRIES", "two", "expected a whole number >= 0"),
        ("RETRIES", "1.5", "expected a whole number >= 0"),
        ("PAGE_SIZE", "0", "expected a whole number >= 1"),
        ("PAGE_SIZE", "abc", "expected a whole number >= 1"),
        ("MAX_RESPONSE_CHARS", "999", "expected a whole number >= 1,000"),
        ("MAX_RESPONSE_CHARS", "lots", "expected a whole number >= 1,000"),
        ("HTTP_KEEP_ALIVE", "0", "expected a whole number >= 1"),
        ("READ_ONLY", "maybe", "expected 1/true/yes/on or 0/false/no/off"),
        ("RATE_LIMIT", "fast", "expected a rate like '10/s', '600/min' or '10/s burst 20'"),
        ("AUDIT_LOG", "verbose", "expected full, minimal or off"),
        ("CA_BUNDLE", "/nonexistent/ca.pem", "no such file or directory"),
        ("UPLOAD_DIR", "/nonexistent/uploads", "expected an existing directory"),
    ],
)
def test_malformed_value_names_variable_and_form(project: Project, setting: str, raw: str, expects: str) -> None:
    with pytest.raises(SettingsError) as caught:
        load(project, **{setting: raw})
    assert str(caught.value).startswith(f"PETSTORE_{setting}={raw!r}: {expects}")
    assert "\n" not in str(caught.value)


def test_upload_dir_must_be_a_directory(project: Project, tmp_path: Path) -> None:
    file = tmp_path / "a-file"
    file.write_text("")
    with pytest.raises(SettingsError, match=r"PETSTORE_UPLOAD_DIR=.*expected an existing directory"):
        load(project, UPLOAD_DIR=str(file))


def test_several_malformed_values_are_reported_together(project: Project) -> None:
    with pytest.raises(SettingsError) as caught:
        load(project, PAGE_SIZE="abc", MAX_RESPONSE_CHARS="lots", TIMEOUT="-1", HTTP_KEEP_ALIVE="0", RETRIES="2")
    lines = str(caught.value).splitlines()
    assert sorted(lines) == [
        "PETSTORE_HTTP_KEEP_ALIVE='0': expected a whole number >= 1",
        "PETSTORE_MAX_RESPONSE_CHARS='lots': expected a whole number >= 1,000",
        "PETSTORE_PAGE_SIZE='abc': expected a whole number >= 1",
        "PETSTORE_TIMEOUT='-1': expected a number of seconds >= 0.001",
    ]


@pytest.mark.parametrize("setting", ["TOOLS_ALLOW", "TOOLS_DENY"])
def test_a_pattern_matching_no_tool_is_an_error(project: Project, setting: str) -> None:
    with pytest.raises(SettingsError) as caught:
        load(project, **{setting: "getPet, getpet, nosuch*"})
    # matching is case-sensitive: 'getpet' is the first pattern that names nothing
    assert str(caught.value) == f"PETSTORE_{setting}: pattern 'getpet' matches no tool, resource or prompt of this server"
    assert getattr(load(project, **{setting: "get*"}), setting.lower()) == ("get*",)


def test_patterns_need_the_served_tools(project: Project) -> None:
    with pytest.raises(SettingsError, match="pattern 'getPet' matches no tool"):
        settings.load(project, {"PETSTORE_TOOLS_ALLOW": "getPet"}, ())


def test_tool_names_are_read_only_when_a_setting_names_tools(project: Project) -> None:
    """Given as a function, the names (a big server's tools.json) are read only for the
    settings that must match them, so `initialize` is answered without reading the catalogue."""
    asked: list[int] = []

    def names() -> list[str]:
        asked.append(1)
        return list(TOOLS)

    assert settings.check_environment(project, {"PETSTORE_PAGE_SIZE": "3", "PETSTORE_RATE_LIMIT": "5/s"}, names).page_size == 3
    assert asked == []
    environ = {"PETSTORE_TOOLS_ALLOW": "get*", "PETSTORE_TOOLS_DENY": "deletePet", "PETSTORE_RATE_LIMIT_GETPET": "2/s"}
    loaded = settings.check_environment(project, environ, names)
    assert (loaded.tools_allow, loaded.tools_deny) == (("get*",), ("deletePet",))
    assert loaded.tool_rate_limits == {"getPet": Rate(2, 2, "2/s")}
    assert asked == [1]  # once for every setting that needed them
    with pytest.raises(SettingsError, match="pattern 'nothing\\*' matches no tool"):
        settings.check_environment(project, {"PETSTORE_TOOLS_DENY": "nothing*"}, names)


def test_per_tool_rate_limits(project: Project) -> None:
    loaded = load(project, RATE_LIMIT_GETPET="5/s", RATE_LIMIT_ADDPET="0", RATE_LIMIT="60")
    assert loaded.tool_rate_limits == {"getPet": Rate(5, 5, "5/s")}  # 0: no limit for addPet
    assert loaded.rate_limit == Rate(1, 60, "60/min")


def test_a_per_tool_limit_covers_every_tool_its_variable_names(project: Project) -> None:
    loaded = settings.load(project, {"PETSTORE_RATE_LIMIT_GET_PET": "2/s"}, ["get-pet", "get.pet", "getPet"])
    assert set(loaded.tool_rate_limits) == {"get-pet", "get.pet"}


def test_a_per_tool_limit_naming_no_tool_is_an_error(project: Project) -> None:
    with pytest.raises(SettingsError) as caught:
        load(project, RATE_LIMIT_GETPETS="5/s", RATE_LIMIT_ADDPET="quick")
    assert str(caught.value).splitlines() == [
        (
            "PETSTORE_RATE_LIMIT_ADDPET='quick': expected a rate like '10/s', '600/min' or '10/s burst 20' "
            "(a bare number means calls per minute; empty or 0 means no limit)"
        ),
        "PETSTORE_RATE_LIMIT_GETPETS: names no tool, resource or prompt of this server (per-entry limits are PETSTORE_RATE_LIMIT_<NAME>)",
    ]


def test_other_prefixes_are_not_read(project: Project) -> None:
    loaded = settings.load(project, {"OTHER_PAGE_SIZE": "abc", "PETSTOREX_TIMEOUT": "-1"}, TOOLS)
    assert loaded.page_size == 25 and loaded.timeout == 30.0


def test_base_url_argument_wins_over_the_environment(project: Project) -> None:
    environ = {"PETSTORE_BASE_URL": "https://env.example.com"}
    assert settings.load(project, environ, TOOLS, "https://flag.example.com/").base_url == "https://flag.example.com"
    assert settings.load(project, environ, TOOLS).base_url == "https://env.example.com"


# -- check_environment: what serving needs ---------------------------------------------


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.5", "::", "example.com"])
def test_binding_beyond_loopback_needs_a_token(project: Project, host: str) -> None:
    with pytest.raises(SettingsError) as caught:
        settings.check_environment(project, {}, TOOLS, http_host=host)
    message = str(caught.value)
    assert message.startswith(f"--host {host} accepts connections from other machines")
    assert "set PETSTORE_MCP_TOKEN" in message and "bind to 127.0.0.1" in message
    assert settings.check_environment(project, {"PETSTORE_MCP_TOKEN": "t" * 32}, TOOLS, http_host=host).mcp_token


@pytest.mark.parametrize("host", ["127.0.0.1", "127.8.9.1", "localhost", "::1", "[::1]"])
def test_loopback_needs_no_token(project: Project, host: str) -> None:
    assert settings.check_environment(project, {}, TOOLS, http_host=host).mcp_token is None


def test_stdio_needs_no_token(project: Project) -> None:
    assert settings.check_environment(project, {"PETSTORE_PAGE_SIZE": "3"}, TOOLS).page_size == 3


def test_check_environment_reports_settings_and_host_together(project: Project) -> None:
    with pytest.raises(SettingsError) as caught:
        settings.check_environment(project, {"PETSTORE_PAGE_SIZE": "x"}, TOOLS, http_host="0.0.0.0")
    lines = str(caught.value).splitlines()
    assert len(lines) == 2
    assert lines[0] == "PETSTORE_PAGE_SIZE='x': expected a whole number >= 1"
    assert lines[1].startswith("--host 0.0.0.0 accepts")
    # a token set next to a malformed value still counts
    environ = {"PETSTORE_PAGE_SIZE": "x", "PETSTORE_MCP_TOKEN": "t" * 32}
    with pytest.raises(SettingsError) as caught:
        settings.check_environment(project, environ, TOOLS, http_host="0.0.0.0")
    assert str(caught.value) == "PETSTORE_PAGE_SIZE='x': expected a whole number >= 1"


# -- the running server's settings ----------------------------------------------------


@pytest.fixture
def running(project: Project, monkeypatch: pytest.MonkeyPatch) -> Project:
    """`settings.current()` with no --base-url flag and the guard's tool names (getPet, addPet, deletePet)."""
    monkeypatch.setattr(settings, "_base_url_flag", [])
    monkeypatch.setattr(settings, "_tool_names", [policy.names_addressed])
    settings._parsed.clear()
    return project


def test_current_parses_again_only_when_the_environment_changes(
    running: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = settings.current()
    assert settings.current() is first and first.page_size == 25
    monkeypatch.setenv("UNRELATED_VARIABLE", "1")
    assert settings.current() is first  # not one of this server's variables
    monkeypatch.setenv("PETSTORE_PAGE_SIZE", "9")
    second = settings.current()
    assert second is not first and second.page_size == 9
    assert settings.current() is second
    monkeypatch.setenv("PETSTORE_API_KEY", "key-1")  # a credential variable
    assert settings.current().credential("PETSTORE_API_KEY") == "key-1"
    monkeypatch.setenv("PETSTORE_PAGE_SIZE", "nine")
    with pytest.raises(SettingsError, match="PETSTORE_PAGE_SIZE='nine'"):
        settings.current()
    monkeypatch.setenv("PETSTORE_PAGE_SIZE", "9")
    assert settings.current().page_size == 9


def test_current_checks_patterns_against_the_served_tools(running: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_TOOLS_DENY", "delete*")
    assert settings.current().tools_deny == ("delete*",)
    monkeypatch.setenv("PETSTORE_TOOLS_DENY", "remove*")
    with pytest.raises(SettingsError, match="pattern 'remove\\*' matches no tool"):
        settings.current()


def test_per_settings_recomputes_when_the_settings_change(running: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []

    @settings.per_settings
    def page_size_twice() -> int:
        calls.append(1)
        return settings.current().page_size * 2

    assert page_size_twice() == 50 and page_size_twice() == 50
    assert len(calls) == 1
    monkeypatch.setenv("PETSTORE_PAGE_SIZE", "4")
    assert page_size_twice() == 8 and page_size_twice() == 8
    assert len(calls) == 2
    assert page_size_twice.__name__ == "page_size_twice"


def test_set_base_url_wins_over_the_environment(running: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_BASE_URL", "https://env.example.com/")
    assert settings.current().base_url == "https://env.example.com"
    settings.set_base_url("https://flag.example.com/api/")
    assert settings.current().base_url == "https://flag.example.com/api"
    monkeypatch.setenv("PETSTORE_BASE_URL", "https://other.example.com")
    assert settings.current().base_url == "https://flag.example.com/api"


@pytest.mark.parametrize("token", ["x", "   ", " " * 40, "short-token-15ch", "a token with spaces in it", "\t" + "t" * 20])
def test_a_weak_mcp_token_stops_start_up(project: Project, token: str) -> None:
    token = token[:15] if token == "short-token-15ch" else token
    with pytest.raises(SettingsError) as caught:
        settings.check_environment(project, {"PETSTORE_MCP_TOKEN": token}, TOOLS, http_host="0.0.0.0")
    message = str(caught.value)
    assert message.startswith("PETSTORE_MCP_TOKEN: expected a long random string of at least 16 characters")
    assert token.strip() not in message.split("(", 1)[1] if token.strip() else True  # the value is not shown
    with pytest.raises(SettingsError):  # stdio too: a set token is a token meant to be used
        settings.load(project, {"PETSTORE_MCP_TOKEN": token}, TOOLS)


def test_a_strong_mcp_token_is_accepted_and_secret(project: Project) -> None:
    loaded = settings.load(project, {"PETSTORE_MCP_TOKEN": "0123456789abcdef"}, TOOLS)
    assert loaded.mcp_token == "0123456789abcdef" and loaded.secrets["PETSTORE_MCP_TOKEN"] == "0123456789abcdef"
    assert settings.load(project, {"PETSTORE_MCP_TOKEN": ""}, TOOLS).mcp_token is None  # empty: unset


def test_pinned_settings_are_read_once_per_request(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """Within `pinned` (one request) `current()` is the request's settings, however often it is
    asked; outside it, a changed environment is read again."""
    monkeypatch.setenv("PETSTORE_PAGE_SIZE", "7")
    with settings.pinned() as held:
        monkeypatch.setenv("PETSTORE_PAGE_SIZE", "9")
        assert settings.current() is held and held.page_size == 7
    assert settings.current().page_size == 9
