"""`shared`: rate limits, the upstream's back-off and used confirmations on Redis, against a real `redis-server`.

A "replica" here is the runtime's in-process state (`guard`'s buckets and block, `shared`'s
connection): forgetting it between calls is what a second process sees; the e2e tests
(tests/e2e/test_scale_out.py) run two real server processes behind haproxy."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import anyio
import pytest

from mcpgen.runtime import confirm, guard, policy, settings, shared, state
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
    monkeypatch.setattr(settings, "_tool_names", [policy.names_addressed])  # as the server sets them
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
    assert refused is not None and refused.startswith(
        "Rate limit reached (3/min set by PETSTORE_RATE_LIMIT); retry in "
    )
    assert 19.0 <= float(refused.split("retry in ")[1].split(" s")[0]) <= 20.1  # a token every 20 s
    assert "rate:server:0.05/3" in on_redis.command("KEYS", "*")


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
    assert (
        await guard.shared_upstream_limited(429, "30") == "HTTP 429: the upstream API is rate limiting; retry in 30 s."
    )
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
        (
            f"Redis at 127.0.0.1:{on_redis.port}/0 is unreachable (ConnectionError): rate limits apply per replica "
            "until it is back (PETSTORE_REDIS_FAILURE=open)"
        )
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
    assert (
        refused
        == [
            (
                "Rate limits are shared on Redis (PETSTORE_REDIS_URL), which is unreachable, and "
                "PETSTORE_REDIS_FAILURE=closed refuses calls until it is back; retry in a few seconds."
            )
        ]
        * 3
    )
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
        (
            "PETSTORE_REDIS_FAILURE='maybe': expected open (apply the limits per replica while Redis is unreachable) "
            "or closed (refuse calls)"
        ),
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
        assert (
            first
            == second
            == (
                "Redis, which records used confirmations for every replica, is unreachable "
                "(PETSTORE_REDIS_FAILURE=closed)"
            )
        )


# -- a server that answers garbage -------------------------------------------------

HELLO = b"%2\r\n+server\r\n+redis\r\n+proto\r\n:3\r\n"  # what RESP3's handshake needs


class GarbageServer:
    """A tiny asyncio TCP server on 127.0.0.1 (its own loop, in a thread) that reads RESP
    commands and answers each with `reply(command)`; `commands` records them."""

    def __init__(self, reply: Callable[[list[bytes]], bytes]) -> None:
        self.reply = reply
        self.commands: list[list[bytes]] = []
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()

        def run() -> None:
            asyncio.set_event_loop(self.loop)
            self.server = self.loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1", 0))
            self.port = self.server.sockets[0].getsockname()[1]
            ready.set()
            self.loop.run_forever()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        ready.wait()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(Exception):
            while True:
                head = await reader.readline()
                if not head.startswith(b"*"):
                    break
                command = []
                for _ in range(int(head[1:])):
                    size = int((await reader.readline())[1:])
                    command.append((await reader.readexactly(size + 2))[:-2])
                self.commands.append(command)
                writer.write(self.reply(command))
                await writer.drain()
        writer.close()

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.server.close)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


def to_everything(answer: bytes | Callable[[], bytes]) -> Callable[[list[bytes]], bytes]:
    return lambda command: answer() if callable(answer) else answer


def after_hello(answer: bytes) -> Callable[[list[bytes]], bytes]:
    """A server that shakes hands as Redis does, then answers `answer` to every command."""
    return lambda command: HELLO if command[0].upper() == b"HELLO" else answer


GARBAGE = {
    "+OK to everything": to_everything(b"+OK\r\n"),
    "a bulk string to everything": to_everything(b"$5\r\nhello\r\n"),
    "RESP errors": to_everything(b"-ERR unknown command\r\n"),
    "an HTTP server": to_everything(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"),
    "random bytes": to_everything(lambda: os.urandom(64)),
    "+OK after the handshake": after_hello(b"+OK\r\n"),
    "a bucket index out of range": after_hello(b"*2\r\n:7\r\n$1\r\n0\r\n"),
    "a wait that is no number": after_hello(b"*2\r\n:1\r\n$3\r\nnan\r\n"),
    "a negative wait": after_hello(b"*2\r\n:1\r\n$2\r\n-5\r\n"),
    "a null": after_hello(b"_\r\n"),
    "a map": after_hello(b"%1\r\n+a\r\n:1\r\n"),
    "PING answered OK": after_hello(b"+OK\r\n"),
}


@pytest.mark.parametrize("mode", ["open", "closed"])
@pytest.mark.parametrize("garbage", sorted(GARBAGE))
async def test_a_redis_answering_garbage_counts_as_unreachable(
    project: Project, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, garbage: str, mode: str
) -> None:
    server = GarbageServer(GARBAGE[garbage])
    try:
        monkeypatch.setenv("PETSTORE_REDIS_URL", f"redis://127.0.0.1:{server.port}/0")
        monkeypatch.setenv("PETSTORE_REDIS_TIMEOUT", "0.2")
        monkeypatch.setenv("PETSTORE_REDIS_FAILURE", mode)
        monkeypatch.setenv("PETSTORE_RATE_LIMIT", "2/min")
        monkeypatch.setattr(shared, "RETRY_EVERY", 0.0)  # every call asks the garbage server again
        fresh_replica()
        caplog.set_level(logging.WARNING, logger=shared.log.name)
        with anyio.fail_after(30):  # a guard against a hang
            outcomes = [await guard.take("getPet") for _ in range(3)]
            if mode == "open":  # this replica's own bucket of 2, then its refusal
                assert outcomes[:2] == [None, None]
                assert outcomes[2] is not None and "set by PETSTORE_RATE_LIMIT" in outcomes[2]
            else:
                assert all(o is not None and "PETSTORE_REDIS_FAILURE=closed refuses calls" in o for o in outcomes)
            assert (await guard.shared_upstream_limited(429, "1")).startswith("HTTP 429")
            assert not await shared.reachable()
        assert server.commands  # it was asked
        warnings = [r.getMessage() for r in caplog.records if r.name == shared.log.name]
        assert len(warnings) == 1 and "is unreachable (" in warnings[0]  # once per outage
    finally:
        fresh_replica()
        server.stop()


async def test_keys_of_the_wrong_type_on_a_real_redis_count_as_unreachable(
    on_redis: RedisServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Another program wrote the server's keys: WRONGTYPE, or a value the script cannot read."""
    monkeypatch.setenv("PETSTORE_RATE_LIMIT", "3/min")
    caplog.set_level(logging.WARNING, logger=shared.log.name)
    blocked = "mcpgen:{petstore}:upstream-blocked"
    for key, command in [
        (blocked, ("HSET", blocked, "a", "b")),  # GET on a hash: WRONGTYPE
        (blocked, ("SET", blocked, "soon")),  # tonumber(nil) in Lua: a script error
        ("mcpgen:{petstore}:rate:server:0.05/3", ("SET", "mcpgen:{petstore}:rate:server:0.05/3", "x")),
    ]:
        on_redis.command(*command)
        fresh_replica()
        assert await guard.take("getPet") is None  # fail-open: the local bucket
        assert "is unreachable (ResponseError: " in caplog.records[-1].getMessage()
        on_redis.command("DEL", key)
        assert await guard.take("getPet") is None  # shared again
        assert "reachable again" in caplog.records[-1].getMessage()
    assert await shared.reachable()
