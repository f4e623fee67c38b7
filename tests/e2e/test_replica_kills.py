"""No call lost, no write run twice: two replicas of the generated petstore server behind a real
haproxy running the generated `deploy/haproxy.cfg` (its bind and server lines pointed at
127.0.0.1), SIGKILLed again and again under load; clients that never retry."""

from __future__ import annotations

import contextlib
import json
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp import Client

from tests.local_http import Handler, Recorded, RecordingServer
from tests.scale_parts import Haproxy, free_port, local_binds, self_signed_pem

from .conftest import API_KEY, PACKAGE, server_env, wait_for_port

pytestmark = pytest.mark.anyio

KILLS = 10
PET = {"id": 1, "name": "Rex", "photoUrls": [], "status": "available"}


class StripeLikeUpstream(RecordingServer[Recorded]):
    """GET /pet/<id> and POST /pet after 50 ms; a POST whose Idempotency-Key was seen gets the
    stored answer replayed, not run again, and a 409 while the first is still running (as
    Stripe does). Counts executions by method and key."""

    name = "stripe-like-upstream"

    def __init__(self) -> None:
        super().__init__()
        self.executed: Counter[tuple[str, str | None]] = Counter()
        self.replayed = 0
        self.answers: dict[str, bytes | None] = {}  # None: still running
        self.conflicts = 0
        self.guard = threading.Lock()

    def respond(self, handler: Handler, request: Recorded) -> None:
        self._record(request)
        key = request.headers.get("idempotency-key")
        with self.guard:
            if request.method == "POST" and key in self.answers:
                stored = self.answers[key]
                if stored is None:
                    self.conflicts += 1
                    body = b'{"error": {"code": "idempotency_key_in_use"}}'
                    handler.send(409, {"Content-Type": "application/json", "Content-Length": str(len(body))}, body)
                    return
                self.replayed += 1
                handler.send(200, {"Content-Type": "application/json", "Content-Length": str(len(stored))}, stored)
                return
            self.executed[(request.method, key if request.method == "POST" else None)] += 1
            if request.method == "POST" and key is not None:
                self.answers[key] = None
        time.sleep(0.05)
        body = json.dumps(PET).encode()
        if request.method == "POST" and key is not None:
            with self.guard:
                self.answers[key] = body
        handler.send(200, {"Content-Type": "application/json", "Content-Length": str(len(body))}, body)


class Replica:
    """One server process on a fixed port, killed and started again there."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.env, self.log, self.port = env, log, free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as sink:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", PACKAGE, "--transport", "http", "--host", "127.0.0.1", "--port", str(self.port)],
                env=self.env, stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT)
        wait_for_port(self.port, self.proc, self.log)

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=10)
            if self.proc.poll() is None:
                self.proc.kill()


def generated_balancer(generated: Path, log_dir: Path, ports: list[int]) -> Haproxy:
    """The generated haproxy.cfg, only its bind address and its servers (Docker's DNS) replaced."""
    config = (generated / "deploy" / "haproxy.cfg").read_text()
    balancer = Haproxy([], log_dir, config=config)
    head, _, rest = config.partition("# Docker's DNS")
    backend = rest[rest.index("frontend mcp"):]  # the resolvers section left out
    servers = "".join(f"    server replica{i} 127.0.0.1:{port} check\n" for i, port in enumerate(ports, 1))
    backend = backend.replace("    server-template replica 4 server:8000 check resolvers docker init-addr none\n", servers)
    text = local_binds(head + backend, balancer.port, free_port(), self_signed_pem(log_dir))
    assert servers in text and f"bind 127.0.0.1:{balancer.port}" in text and "X-Request-Id" in text
    balancer.config.write_text(text)
    balancer.check()
    return balancer


@pytest.fixture
def upstream() -> Iterator[StripeLikeUpstream]:
    server = StripeLikeUpstream().start()
    yield server
    server.stop()


async def test_replicas_killed_under_load_lose_no_call_and_repeat_no_write(
    generated: Path, upstream: StripeLikeUpstream, log_dir: Path
) -> None:
    env = server_env(generated, PETSTORE_BASE_URL=upstream.origin + "/api/v3", PETSTORE_API_KEY=API_KEY,
                     PETSTORE_IDEMPOTENCY_KEY="Idempotency-Key")
    replicas = [Replica(env, log_dir / f"kills-replica{i}.log") for i in (1, 2)]
    for replica in replicas:
        replica.start()
    balancer = generated_balancer(generated, log_dir, [r.port for r in replicas])
    balancer.start()
    calls: Counter[str] = Counter()
    lost: list[str] = []
    kills = 0
    finished = anyio.Event()
    try:

        async def client(number: int) -> None:
            mode = "legacy" if number % 2 else "auto"  # the 2025-11-25 handshake and 2026-07-28
            async with Client(balancer.url, mode=mode, cache=None) as session:
                turn = 0
                while not finished.is_set() or turn < 20:
                    turn += 1
                    tool, arguments = (("addPet", {"name": f"c{number}-{turn}", "photoUrls": []}) if turn % 2
                                       else ("getPetById", {"petId": 1}))
                    try:  # no retry here: a failure is a lost call
                        result = await session.call_tool(tool, arguments)
                        if result.is_error:
                            lost.append(f"{tool}: {result.content}")
                    except Exception as exc:  # noqa: BLE001 - any failure here is a lost call
                        lost.append(f"{tool}: {type(exc).__name__}: {exc}")
                    calls[tool] += 1

        async def killer() -> None:
            nonlocal kills
            await anyio.sleep(0.5)
            for _ in range(KILLS):
                victim = replicas[kills % 2]
                await anyio.sleep(random.uniform(0.05, 0.3))
                victim.kill()
                kills += 1
                await anyio.to_thread.run_sync(victim.start)
                await anyio.sleep(1.2)  # haproxy's check (inter 2s, rise 1) may take it back
            finished.set()

        async with anyio.create_task_group() as group:
            for number in range(4):
                group.start_soon(client, number)
            group.start_soon(killer)
    finally:
        balancer.stop()
        for replica in replicas:
            replica.stop()
    posts = {key: count for (method, key), count in upstream.executed.items() if method == "POST"}
    twice = {key: count for key, count in posts.items() if count > 1}
    gets = upstream.executed[("GET", None)]
    print(f"{sum(calls.values())} calls {dict(calls)}, {kills} SIGKILLs: {len(lost)} lost; upstream ran "
          f"{sum(posts.values())} POSTs ({len(twice)} twice, {upstream.replayed} retries answered by key, "
          f"{upstream.conflicts} 409s while the first ran), "
          f"{gets} GETs ({gets - calls['getPetById']} re-run)")
    assert kills == KILLS
    assert lost == []
    assert None not in posts  # every POST carried its key
    assert twice == {}
    assert len(posts) == calls["addPet"]  # each call ran once upstream, none lost there either
