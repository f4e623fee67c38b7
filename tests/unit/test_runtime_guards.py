"""Tables for the generated runtime's parsers: rate syntax, Retry-After, redaction, backoff.

They import the committed golden petstore package (what the generator emits for
samples/petstore.yaml); the end-to-end tests cover the same code through real clients.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

import pytest

GOLDEN_SRC = Path(__file__).resolve().parents[1] / "golden" / "petstore" / "src"


@pytest.fixture
def runtime(monkeypatch: pytest.MonkeyPatch) -> dict[str, ModuleType]:
    monkeypatch.syspath_prepend(str(GOLDEN_SRC))
    for name in list(__import__("sys").modules):
        if name == "petstore_mcp" or name.startswith("petstore_mcp."):
            monkeypatch.delitem(__import__("sys").modules, name)
    return {name: importlib.import_module(f"petstore_mcp.{name}") for name in ("guard", "redact", "transport")}


@pytest.mark.parametrize(
    ("raw", "per_second", "burst"),
    [
        ("10/s", 10, 10),
        ("10/s burst 20", 10, 20),
        ("600/min", 10, 600),
        ("  3 / minute  burst 1 ", 0.05, 1),
        ("36/h", 0.01, 36),
        ("0.5/s", 0.5, 1),
        ("60", 1, 60),  # a bare number: calls per minute
    ],
)
def test_rate_syntax(runtime: dict[str, ModuleType], raw: str, per_second: float, burst: float) -> None:
    rate = runtime["guard"].parse_rate("X", raw)
    assert rate.per_second == pytest.approx(per_second) and rate.burst == burst


@pytest.mark.parametrize("raw", ["", "0", "off", "none"])
def test_no_rate(runtime: dict[str, ModuleType], raw: str) -> None:
    assert runtime["guard"].parse_rate("X", raw) is None


@pytest.mark.parametrize("raw", ["ten", "10/week", "10/s burst 0", "-1/s", "0/s", "10 per second", "10/s burst"])
def test_bad_rate(runtime: dict[str, ModuleType], raw: str) -> None:
    with pytest.raises(runtime["guard"].SettingsError, match="X="):
        runtime["guard"].parse_rate("X", raw)


def test_retry_after(runtime: dict[str, ModuleType]) -> None:
    parse = runtime["guard"].parse_retry_after
    assert parse("120") == 120
    assert parse("99999999") == runtime["guard"].MAX_RETRY_AFTER
    assert parse(None) is None and parse("soon") is None
    assert parse("Wed, 21 Oct 2015 07:28:00 GMT") == 0  # a date in the past: retry now


def test_redaction(runtime: dict[str, ModuleType], monkeypatch: pytest.MonkeyPatch) -> None:
    redact = runtime["redact"]
    monkeypatch.setenv("PETSTORE_API_KEY", "abc/def+ghi")
    monkeypatch.setenv("PETSTORE_ADMIN_AUTH_USERNAME", "admin")
    monkeypatch.setenv("PETSTORE_ADMIN_AUTH_PASSWORD", "p@ss:word")
    monkeypatch.setenv("PETSTORE_SERVICE_TOKEN", "tok-123456")
    redact._configured_values.cache_clear()
    text = redact.redact_text(
        "key abc/def+ghi, encoded abc%2Fdef%2Bghi, admin p@ss:word, Basic YWRtaW46cEBzczp3b3Jk, tok-123456"
    )
    assert text == "key [redacted], encoded [redacted], admin [redacted], Basic [redacted], [redacted]"
    headers = redact.redact_text('{"Authorization": "Bearer xyz", "api_key": "other", "X-Api-Key": "q"} api_key=z&b=1')
    assert headers == '{"Authorization": "[redacted]", "api_key": "[redacted]", "X-Api-Key": "[redacted]"} api_key=[redacted]&b=1'
    assert redact.redact_text("set PETSTORE_API_KEY in the environment") == "set PETSTORE_API_KEY in the environment"
    redact.remember_secret("fetched-at-run-time")
    assert redact.redact_text("token fetched-at-run-time") == "token [redacted]"
    assert redact.strip_controls("a\x00b\x1b[1mc\r\nd\te\x85f\u202eg\u2066h") == "ab[1mc\nd\tefgh"


def test_backoff_grows_with_jitter_and_cap(runtime: dict[str, ModuleType]) -> None:
    transport = runtime["transport"]
    for attempt, ceiling in ((0, 0.25), (1, 0.5), (2, 1.0), (10, transport.BACKOFF_CAP)):
        waits = {transport.backoff(attempt) for _ in range(50)}
        assert all(ceiling / 2 <= w <= ceiling for w in waits)
        assert len(waits) > 1  # jittered
