"""`shared`: rate limits, the upstream's back-off and used confirmations on Redis, against a real `redis-server`.

A "replica" here is the runtime's in-process state (`guard`'s buckets and block, `shared`'s
connection): forgetting it between calls is what a second process sees; the e2e tests
(tests/e2e/test_scale_out.py) run two real server processes behind haproxy."""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from mcpgen.runtime import confirm, guard, settings, shared, state
from mcpgen.runtime.project import Project
from tests.scale_parts import RedisServer, free_port

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path_factory.mktemp("redis")).start()
    yield server
    server.stop()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def on_redis(project: Project, redis: RedisServer, monkeypatch: pytest.MonkeyPatch) -> RedisServer:
    """The project's limits on the test's Redis, emptied; a fresh replica."""
    if redis.proc is None:
        redis.start()
    assert redis.command("FLUSHALL").startswith("+OK")
    monkeypatch.setenv("PETSTORE_REDIS_URL", redis.url)
    monkeypatch.setattr(shared, "RETRY_EVERY", 0.0)  # an outage's next call tries Redis again
    fresh_replica()
    yield redis
    fresh_replica()


def fresh_replica() -> None:
    """What another process would hold: nothing in process."""
    state._state[:] = [state.ServerState()]
    shared.reset()
    settings._parsed.clear()


async def test_the_server_wide_limit_is_shared(on_redis: RedisServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_RATE_LIMIT", "3/min")
    assert [await guard.take("getPet") for _ in range(2)] == [None, None]
    fresh_replica()  # the third call reaches another replica: one token is left, not three
    assert await guard.take("addPet") is None
    fresh_replica()
    refused = await guard.take("getPet")
    assert refused is not None and refused.startswith("Rate limit reached (3/min set by PETSTORE_RATE_LIMIT); retry in ")
    assert 19.0 <= float(refused.split("retry in ")[1].split(" s")[0]) <= 20.1  # a token every 20 s
    assert 'rate:server:0.05/3' in on_redis.command("KEYS", "*")


async def test_a_per_tool_limit_is_shared_and_named(on_redis: RedisServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_RATE_LIMIT_ADDPET", "1/min")
    assert await guard.take("addPet") is None
    fresh_replica()
    assert await guard.take("addPet") == "Rate limit reached (1/min set by PETSTORE_RATE_LIMIT_ADDPET); retry in 60 s."
    assert await guard.take("getPet") is None  # another tool, no limit
    assert await guard.take("addPet", server=False) is not None  # dynamic mode's call_tool path


async def test_concurrent_calls_take_exactly_the_burst(on_redis: RedisServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """Check-then-take is one script: 40 calls at once from two connections get 10 tokens."""
    monkeypatch.setenv("PETSTORE_RATE_LIMIT", "1/min burst 10")
    outcomes: list[str | None] = []

    async def call() -> None:
        outcomes.append(await guard.take("getPet"))

    async with anyio.create_task_group() as group:
        for _ in range(40):
            group.start_soon(call)
    assert outcomes.count(None) == 10, outcomes


async def test_an_upstream_429_holds_off_other_replicas(on_redis: RedisServer) -> None:
    message = await guard.shared_upstream_limited(429, "30")
    assert message == "HTTP 429: the upstream API is rate limiting; retry in 30 s."
    fresh_replica()
    held = await guard.take("getPet")
    assert held is not None and held.startswith("Rate limit reached (the upstream API answered 429 Too Many Requests)")
    # A shorter Retry-After later does not shorten the block.
    await guard.shared_upstream_limited(429, "1")
    fresh_replica()
    held = await guard.take("getPet")
    assert held is not None and float(held.split("retry in ")[1].split(" s")[0]) > 25


async def test_a_429_seen_during_an_outage_still_holds_this_replica_off(on_redis: RedisServer) -> None:
    on_redis.stop()
    assert await guard.shared_upstream_limited(429, "30") == "HTTP 429: the upstream API is rate limiting; retry in 30 s."
    on_redis.start()  # back, and empty: only this replica knows of the 429
    held = await guard.take("getPet")
    assert held is not None and held.startswith("Rate limit reached (the upstream API answered 429 Too Many Requests)")


async def test_redis_down_fails_open_to_local_limits_and_says_so_once(
    on_redis: RedisServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("PETSTORE_RATE_LIMIT", "3/min")
    assert await guard.take("getPet") is None  # one shared token taken
    on_redis.stop()
    caplog.set_level(logging.WARNING, logger=shared.log.name)
    outcomes = [await guard.take("getPet") for _ in range(5)]
    # In process: this replica's own bucket of 3, full when the outage starts.
    assert outcomes[:3] == [None, None, None]
    assert outcomes[3] is not None and "set by PETSTORE_RATE_LIMIT" in outcomes[3]
    warnings = [r.getMessage() for r in caplog.records]
    assert warnings == [
        (f"Redis at 127.0.0.1:{on_redis.port}/0 is unreachable (ConnectionError): rate limits apply per replica "
        "until it is back (PETSTORE_REDIS_FAILURE=open)")
    ]
    on_redis.start()  # empty again: nothing persisted
    assert await guard.take("getPet") is None
    assert caplog.records[-1].getMessage().startswith(f"Redis at 127.0.0.1:{on_redis.port}/0 is reachable again after ")
    assert len(caplog.records) == 2


async def test_redis_down_fails_closed_when_configured(
    on_redis: RedisServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("PETSTORE_REDIS_FAILURE", "closed")
    assert await guard.take("getPet") is None
    on_redis.stop()
    caplog.set_level(logging.WARNING, logger=shared.log.name)
    refused = [await guard.take("getPet") for _ in range(3)]
    assert refused == [
        ("Rate limits are shared on Redis (PETSTORE_REDIS_URL), which is unreachable, and "
        "PETSTORE_REDIS_FAILURE=closed refuses calls until it is back; retry in a few seconds.")
    ] * 3
    assert [r.getMessage().split(": ", 1)[1] for r in caplog.records] == [
        "calls are refused until it is back (PETSTORE_REDIS_FAILURE=closed)"
    ]
    assert not await shared.reachable()
    on_redis.start()
    assert await shared.reachable()
    assert await guard.take("getPet") is None


async def test_an_outage_is_not_retried_on_every_call(on_redis: RedisServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """Within RETRY_EVERY of a failure calls go straight to the local limit, without a connection attempt."""
    monkeypatch.setattr(shared, "RETRY_EVERY", 3600.0)
    on_redis.stop()
    assert await guard.take("getPet") is None
    on_redis.start()
    with pytest.raises(shared.Unavailable, match="still unreachable"):
        await shared.admit([])
    assert on_redis.command("DBSIZE").strip() == ":0"


@pytest.fixture
def silent_redis() -> Iterator[int]:
    """A port that accepts connections and never answers: a hung Redis."""
    listener = socket.create_server(("127.0.0.1", free_port()))
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    listener.close()


async def test_a_hung_redis_costs_one_deadline(
    project: Project, silent_redis: int, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("PETSTORE_REDIS_URL", f"redis://127.0.0.1:{silent_redis}/0")
    monkeypatch.setenv("PETSTORE_REDIS_TIMEOUT", "0.2")
    monkeypatch.setenv("PETSTORE_RATE_LIMIT", "2/min")
    fresh_replica()
    caplog.set_level(logging.WARNING, logger=shared.log.name)
    with anyio.fail_after(30):  # a guard against a hang, far above the 0.2 s deadline
        started = anyio.current_time()
        assert await guard.take("getPet") is None  # fail-open: the local bucket
        elapsed = anyio.current_time() - started
    assert "is unreachable (TimeoutError)" in caplog.records[0].getMessage()
    print(f"a hung Redis answered the call through the local limit after {elapsed:.2f} s (deadline 0.2 s)")
    fresh_replica()


def test_settings_are_checked(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_REDIS_URL", "http://redis:6379")
    monkeypatch.setenv("PETSTORE_REDIS_FAILURE", "maybe")
    monkeypatch.setenv("PETSTORE_REDIS_TIMEOUT", "0")
    with pytest.raises(settings.SettingsError) as error:
        settings.load(project, dict(__import__("os").environ))
    assert str(error.value).splitlines() == [
        "PETSTORE_REDIS_URL: expected a redis://HOST:PORT/DB, rediss:// or unix:///PATH URL",
        ("PETSTORE_REDIS_FAILURE='maybe': expected open (apply the limits per replica while Redis is unreachable) "
        "or closed (refuse calls)"),
        "PETSTORE_REDIS_TIMEOUT='0': expected a number of seconds >= 0.001",
    ]
    for good in ("redis://:pw@redis:6379/0", "rediss://cache.example:6380", "unix:///run/redis.sock"):
        loaded = settings.load(project, {"PETSTORE_REDIS_URL": good})
        assert loaded.redis_url == good and loaded.redis_failure == "open"
        assert loaded.secrets["PETSTORE_REDIS_URL"] == good  # it may hold a password: never shown
    assert shared.where("redis://:pw@redis:6379/2") == "redis:6379/2"


def test_a_missing_library_stops_the_server_saying_which_extra(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded = settings.load(project, {"PETSTORE_REDIS_URL": "redis://redis:6379/0"})
    shared.check_library(loaded)  # installed here
    monkeypatch.setattr(shared.importlib.util, "find_spec", lambda name: None)  # as where it is not
    with pytest.raises(settings.SettingsError, match=r"pip install 'petstore-mcp\[redis\]'"):
        shared.check_library(loaded)
    shared.check_library(settings.load(project, {}))  # no URL, no need


async def test_the_health_check(on_redis: RedisServer) -> None:
    from mcpgen.runtime.http_guard import health

    assert await health() == {"status": "ok", "server": "petstore", "version": "1", "redis": "ok"}
    on_redis.stop()
    assert (await health())["redis"] == "unreachable"
    on_redis.start()
    assert (await health())["redis"] == "ok"


def test_without_redis_nothing_changes(project: Project, tmp_path: Path) -> None:
    assert shared.describe() == "rate limits in process"


async def test_a_used_confirmation_is_used_for_every_replica(on_redis: RedisServer) -> None:
    """confirm's 2026-07-28 nonce: recorded on Redis (SET NX, expiring with it), so a second
    replica refuses the confirmation the first one used."""
    expires = time.time() + 60
    assert await confirm._use("nonce-1", expires) is None
    fresh_replica()
    assert "already used" in (await confirm._use("nonce-1", expires) or "")
    assert state.state().used_confirmations == {}  # on Redis, not in process
    assert "once:confirm:nonce-1" in on_redis.command("KEYS", "*")
    assert 0 < int(on_redis.command("PTTL", "mcpgen:{petstore}:once:confirm:nonce-1").strip(":\r\n")) <= 60_000
    assert await confirm._use("nonce-2", expires) is None


@pytest.mark.parametrize("failure", ["open", "closed"])
async def test_redis_down_confirmations_follow_the_failure_mode(
    on_redis: RedisServer, monkeypatch: pytest.MonkeyPatch, failure: str
) -> None:
    monkeypatch.setenv("PETSTORE_REDIS_FAILURE", failure)
    on_redis.stop()
    expires = time.time() + 60
    first, second = await confirm._use("nonce-3", expires), await confirm._use("nonce-3", expires)
    if failure == "open":  # this replica's own record
        assert first is None and second is not None and "already used" in second
    else:
        assert first == second == (
            "Redis, which records used confirmations for every replica, is unreachable "
            "(PETSTORE_REDIS_FAILURE=closed)"
        )
