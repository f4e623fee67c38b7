"""`guard`: how often an entry may be used (token buckets, upstream 429s); who may use it is `policy`'s (test_policy).

The clock is `time.monotonic`, replaced by a hand-moved one so every wait is exact."""

from __future__ import annotations

import pytest

from mcpgen.runtime import guard, policy, settings, state
from mcpgen.runtime.project import Project


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(project: Project, monkeypatch: pytest.MonkeyPatch) -> Clock:
    """Fresh buckets, no upstream block, and a clock that moves only when told."""
    monkeypatch.setattr(state, "_state", [state.ServerState()])
    monkeypatch.setattr(settings, "_base_url_flag", [])
    monkeypatch.setattr(settings, "_tool_names", [policy.names_addressed])  # as the server sets them
    settings._parsed.clear()
    clock = Clock()
    monkeypatch.setattr(guard.time, "monotonic", clock)
    return clock


# -- rate limits ----------------------------------------------------------------


def test_server_wide_bucket_allows_a_burst_then_refills(clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_RATE_LIMIT", "2/s burst 3")
    assert [guard.admit("getPet") for _ in range(3)] == [None, None, None]
    assert guard.admit("getPet") == "Rate limit reached (2/s burst 3 set by PETSTORE_RATE_LIMIT); retry in 0.5 s."
    clock.now += 0.25
    assert guard.admit("addPet") == "Rate limit reached (2/s burst 3 set by PETSTORE_RATE_LIMIT); retry in 0.3 s."
    clock.now += 0.25  # one token back
    assert guard.admit("addPet") is None
    assert guard.admit("getPet") is not None  # shared by every tool
    clock.now += 60  # refilled to the burst, not beyond
    assert [guard.admit("deletePet") for _ in range(3)] == [None, None, None]
    assert guard.admit("deletePet") is not None


def test_a_refused_call_takes_no_token(clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_RATE_LIMIT", "1/s")
    assert guard.admit("getPet") is None
    for _ in range(5):
        assert guard.admit("getPet") is not None
    clock.now += 1
    assert guard.admit("getPet") is None


def test_per_tool_bucket(clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_RATE_LIMIT_ADDPET", "2/min")
    assert guard.admit("addPet") is None and guard.admit("addPet") is None
    assert guard.admit("addPet") == "Rate limit reached (2/min set by PETSTORE_RATE_LIMIT_ADDPET); retry in 30 s."
    assert all(guard.admit("getPet") is None for _ in range(100))  # other tools have no limit
    clock.now += 29.9
    assert guard.admit("addPet") == "Rate limit reached (2/min set by PETSTORE_RATE_LIMIT_ADDPET); retry in 0.1 s."
    clock.now += 0.1
    assert guard.admit("addPet") is None


def test_a_tool_refused_by_its_own_limit_spends_nothing_of_the_server_limit(
    clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PETSTORE_RATE_LIMIT", "2/s burst 2")
    monkeypatch.setenv("PETSTORE_RATE_LIMIT_ADDPET", "1/min")
    assert guard.admit("addPet") is None  # server: 1 left; addPet: 0
    assert "PETSTORE_RATE_LIMIT_ADDPET" in (guard.admit("addPet") or "")
    assert guard.admit("getPet") is None  # the server's last token is still there
    assert guard.admit("getPet") == "Rate limit reached (2/s burst 2 set by PETSTORE_RATE_LIMIT); retry in 0.5 s."


def test_the_longest_wait_is_named(clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_RATE_LIMIT", "1/s")
    monkeypatch.setenv("PETSTORE_RATE_LIMIT_GETPET", "1/h")
    assert guard.admit("getPet") is None
    assert guard.admit("getPet") == "Rate limit reached (1/h set by PETSTORE_RATE_LIMIT_GETPET); retry in 3600 s."
    clock.now += 3599.95
    assert guard.admit("getPet") == "Rate limit reached (1/h set by PETSTORE_RATE_LIMIT_GETPET); retry in 0.1 s."


def test_waits_are_rounded_up_to_a_tenth(clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_RATE_LIMIT", "3/s burst 1")
    assert guard.admit("getPet") is None
    assert (guard.admit("getPet") or "").endswith("retry in 0.4 s.")  # 1/3 s, never announced shorter
    clock.now += 0.34
    assert guard.admit("getPet") is None


def test_no_limit_configured_admits_everything(clock: Clock) -> None:
    assert all(guard.admit("addPet") is None for _ in range(1000))


def test_a_changed_limit_takes_effect(clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    """Settings are parsed again when the environment changes; the buckets follow them."""
    monkeypatch.setenv("PETSTORE_RATE_LIMIT", "1/min")
    assert guard.admit("getPet") is None
    assert (guard.admit("getPet") or "").startswith("Rate limit reached (1/min set by")
    monkeypatch.setenv("PETSTORE_RATE_LIMIT", "100/s")
    assert guard.admit("getPet") is None


# -- the upstream's own limit -----------------------------------------------------


def test_upstream_429_with_retry_after_blocks_later_calls(clock: Clock) -> None:
    message, seconds = guard.upstream_limited(429, "5")
    assert (message, seconds) == ("HTTP 429: the upstream API is rate limiting; retry in 5 s.", 5.0)
    for name in ("getPet", "addPet"):
        assert guard.admit(name) == (
            "Rate limit reached (the upstream API answered 429 Too Many Requests); retry in 5 s."
        )
    clock.now += 4.5
    assert (guard.admit("getPet") or "").endswith("retry in 0.5 s.")
    clock.now += 0.5
    assert guard.admit("getPet") is None


def test_a_shorter_retry_after_does_not_shorten_the_block(clock: Clock) -> None:
    guard.upstream_limited(429, "10")
    guard.upstream_limited(429, "1")
    clock.now += 2
    assert (guard.admit("getPet") or "").endswith("retry in 8 s.")


def test_upstream_429_without_retry_after_blocks_nothing(clock: Clock) -> None:
    assert guard.upstream_limited(429, None) == ("HTTP 429: the upstream API is rate limiting; retry later.", None)
    assert guard.upstream_limited(503, "soon") == ("HTTP 503: the upstream API is rate limiting; retry later.", None)
    assert guard.admit("getPet") is None


def test_an_absurd_retry_after_is_capped(clock: Clock) -> None:
    assert guard.upstream_limited(429, "999999")[1] == guard.MAX_RETRY_AFTER
    clock.now += guard.MAX_RETRY_AFTER
    assert guard.admit("getPet") is None


def test_upstream_block_and_own_limit_name_the_longer(clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_RATE_LIMIT", "1/min")
    assert guard.admit("getPet") is None
    guard.upstream_limited(429, "120")
    assert guard.admit("getPet") == (
        "Rate limit reached (the upstream API answered 429 Too Many Requests); retry in 120 s."
    )


def test_tool_variable() -> None:
    assert guard.tool_variable("PETSTORE", "get-pet.by_id") == "PETSTORE_RATE_LIMIT_GET_PET_BY_ID"
