"""Scale-out: two replicas of the generated petstore server (streamable HTTP on 127.0.0.1) behind
a real haproxy, sharing rate limits and the upstream's Retry-After on a real redis-server,
driven by the Python `mcp` client; the health route; allowed hosts; the generated deployment
files (Dockerfile, compose.yaml, deploy/haproxy.cfg)."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import shlex
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from mcp import Client

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

from mcpgen.naming import is_server_setting
from tests.local_http import Handler, Recorded, RecordingServer
from tests.scale_parts import Haproxy, RedisServer, haproxy, local_binds, redis_server, self_signed_pem

from .conftest import API_KEY, PACKAGE, free_port, http_process, server_env, wait_for_port

pytestmark = pytest.mark.anyio

PET = {"id": 1, "name": "Rex", "photoUrls": [], "status": "available"}


class ScaleUpstream(RecordingServer[Recorded]):
    """GET /api/v3/pet/<id>: the pet, after `delay` seconds; a 429 with Retry-After while `limited`."""

    name = "scale-upstream"

    def __init__(self) -> None:
        super().__init__()
        self.limited: str | None = None  # the Retry-After to send with a 429
        self.delay = 0.0

    @property
    def base_url(self) -> str:
        return self.origin + "/api/v3"

    def respond(self, handler: Handler, request: Recorded) -> None:
        self._record(request)
        if self.delay:
            time.sleep(self.delay)
        if self.limited is not None:
            body = b'{"message": "slow down"}'
            handler.send(429, {"Content-Type": "application/json", "Retry-After": self.limited,
                               "Content-Length": str(len(body))}, body)
            return
        body = json.dumps(PET).encode()
        handler.send(200, {"Content-Type": "application/json", "Content-Length": str(len(body))}, body)


@pytest.fixture
def scale_upstream() -> Iterator[ScaleUpstream]:
    server = ScaleUpstream().start()
    yield server
    server.stop()


@pytest.fixture
def redis(log_dir: Path) -> Iterator[RedisServer]:
    server = RedisServer(log_dir).start()
    yield server
    server.stop()


def replica_env(generated: Path, upstream: ScaleUpstream, **settings: str) -> dict[str, str]:
    return server_env(generated, PETSTORE_BASE_URL=upstream.base_url, PETSTORE_API_KEY=API_KEY, **settings)


@contextlib.contextmanager
def replicas(env: dict[str, str], log_dir: Path, label: str, count: int = 2) -> Iterator[list[tuple[int, Any, Path]]]:
    """`count` server processes with `env`: (port, process, log) each."""
    with contextlib.ExitStack() as stack:
        started = []
        for number in range(1, count + 1):
            log = log_dir / f"{label}-replica{number}.log"
            port, proc = stack.enter_context(http_process(PACKAGE, env, log))
            started.append((port, proc, log))
        yield started


def text(result: Any) -> str:
    return "\n".join(getattr(c, "text", "") for c in result.content)


def audited_calls(log: Path) -> int:
    return sum('"event": "tool_call"' in line or '"event":"tool_call"' in line for line in log.read_text().splitlines())


def get(port: int, path: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", path, headers=headers or {})
    response = connection.getresponse()
    body = response.read().decode()
    connection.close()
    return response.status, body


async def test_two_replicas_share_one_rate_limit(
    generated: Path, scale_upstream: ScaleUpstream, redis: RedisServer, log_dir: Path
) -> None:
    env = replica_env(generated, scale_upstream, PETSTORE_RATE_LIMIT="6/min", PETSTORE_REDIS_URL=redis.url)
    with replicas(env, log_dir, "shared-limit") as started, haproxy([p for p, _, _ in started], log_dir) as balancer:
        outcomes = []
        for mode in ("auto", "legacy"):  # 2026-07-28 and the 2025-11-25 handshake
            async with Client(balancer.url, mode=mode, cache=None) as client:
                for _ in range(7):
                    outcomes.append(await client.call_tool("getPetById", {"petId": 1}))
        status, body = get(balancer.port, "/healthz")
    allowed = [r for r in outcomes if not r.is_error]
    refused = [text(r) for r in outcomes if r.is_error]
    assert len(allowed) == 6, refused  # six in total, not six per replica
    assert len(refused) == 8 and all(t.startswith("Rate limit reached (6/min set by PETSTORE_RATE_LIMIT); retry in ")
                                     for t in refused), refused
    assert len(scale_upstream.requests) == 6
    per_replica = [audited_calls(log) for _, _, log in started]
    assert all(count > 0 for count in per_replica) and sum(per_replica) == 14, per_replica  # haproxy used both
    assert status == 200 and json.loads(body) == {"status": "ok", "server": "petstore", "version": "1.2.0", "redis": "ok"}
    line = "streamable HTTP at http://127.0.0.1:{}/mcp, no authentication (loopback only), rate limits shared on Redis "
    assert line.format(started[0][0]) + f"127.0.0.1:{redis.port}/0 (fail-open)" in started[0][2].read_text()


async def test_an_upstream_429_seen_by_one_replica_holds_off_the_other(
    generated: Path, scale_upstream: ScaleUpstream, redis: RedisServer, log_dir: Path
) -> None:
    env = replica_env(generated, scale_upstream, PETSTORE_REDIS_URL=redis.url)
    with replicas(env, log_dir, "shared-429") as [(port_a, _, _), (port_b, _, _)]:
        scale_upstream.limited = "30"
        async with Client(f"http://127.0.0.1:{port_a}/mcp", cache=None) as first:
            limited = await first.call_tool("getPetById", {"petId": 1})
        scale_upstream.limited = None
        async with Client(f"http://127.0.0.1:{port_b}/mcp", cache=None) as second:
            held = await second.call_tool("getPetById", {"petId": 1})
            other_tool = await second.call_tool("getInventory", {})
    assert limited.is_error and text(limited) == "HTTP 429: the upstream API is rate limiting; retry in 30 s."
    assert held.is_error and text(held).startswith(
        "Rate limit reached (the upstream API answered 429 Too Many Requests); retry in "), text(held)
    assert other_tool.is_error and "429" in text(other_tool)  # the block is the upstream's, for every tool
    assert len(scale_upstream.requests) == 1  # the second replica never reached the API


async def test_a_replica_killed_under_load_loses_no_retried_call(
    generated: Path, scale_upstream: ScaleUpstream, log_dir: Path
) -> None:
    """Four clients make 15 calls each through haproxy; one replica is killed (SIGKILL) after the
    first ten. haproxy's health checks take it out and its retries resend what it dropped; a call
    that still fails is retried by the client on a new connection. Every call succeeds."""
    scale_upstream.delay = 0.02  # calls are in flight when the replica dies
    env = replica_env(generated, scale_upstream)
    done: list[int] = []
    client_retries: list[str] = []
    with replicas(env, log_dir, "killed") as started, haproxy([p for p, _, _ in started], log_dir) as balancer:
        victim = started[0][1]

        async def worker() -> None:
            for _ in range(15):
                for attempt in range(5):
                    try:
                        async with Client(balancer.url, mode="legacy", cache=None) as client:
                            result = await client.call_tool("getPetById", {"petId": 1})
                        assert not result.is_error, text(result)
                        break
                    except Exception as exc:  # a broken connection: this client retries
                        client_retries.append(f"{type(exc).__name__}: {exc}")
                        if attempt == 4:
                            raise
                        await anyio.sleep(0.2)
                done.append(1)
                if len(done) == 10:
                    victim.send_signal(signal.SIGKILL)

        async with anyio.create_task_group() as group:
            for _ in range(4):
                group.start_soon(worker)
        victim.wait()
        survivor_calls = audited_calls(started[1][2])
    assert len(done) == 60
    assert victim.returncode == -signal.SIGKILL
    assert survivor_calls >= 50  # everything after the kill went to the survivor
    print(f"60 calls, replica 1 killed after 10: {len(client_retries)} client retries {client_retries[:3]}; "
          f"the survivor served {survivor_calls}")


async def test_redis_with_a_password_from_a_file_and_never_shown(
    generated: Path, scale_upstream: ScaleUpstream, log_dir: Path, tmp_path: Path
) -> None:
    """A redis-server started with requirepass: a replica reading the password from a file (a
    compose secret) shares the limits; one whose URL carries a wrong password finds Redis
    unreachable. Neither password appears in a log, the start-up line or /healthz."""
    password, wrong = "redis-pass-" + "7" * 24, "wrong-pass-" + "8" * 24
    secret = tmp_path / "redis_password"
    secret.write_text(password + "\n")
    redis = RedisServer(log_dir, password=password).start()
    try:
        good = replica_env(generated, scale_upstream, PETSTORE_RATE_LIMIT="100/min", PETSTORE_REDIS_URL=redis.url,
                           PETSTORE_REDIS_PASSWORD_FILE=str(secret))
        bad = replica_env(generated, scale_upstream, PETSTORE_RATE_LIMIT="100/min",
                          PETSTORE_REDIS_URL=f"redis://:{wrong}@127.0.0.1:{redis.port}/0")
        with replicas(good, log_dir, "redis-pass", count=1) as [(port, _, log)], \
                replicas(bad, log_dir, "redis-wrong", count=1) as [(bad_port, _, bad_log)]:
            async with Client(f"http://127.0.0.1:{port}/mcp", cache=None) as client:
                result = await client.call_tool("getPetById", {"petId": 1})
            async with Client(f"http://127.0.0.1:{bad_port}/mcp", cache=None) as client:
                refused_redis = await client.call_tool("getPetById", {"petId": 1})  # fail-open: served
            health, bad_health = get(port, "/healthz"), get(bad_port, "/healthz")
            keys = redis.command("KEYS", "*")
        logs = log.read_text() + bad_log.read_text()
    finally:
        redis.stop()
    assert not result.is_error and not refused_redis.is_error
    assert json.loads(health[1])["redis"] == "ok" and json.loads(bad_health[1])["redis"] == "unreachable"
    assert "rate:server" in keys
    assert f"Redis at 127.0.0.1:{redis.port}/0 is unreachable" in logs
    assert f"rate limits shared on Redis 127.0.0.1:{redis.port}/0" in logs
    for shown in (logs, health[1], bad_health[1]):
        assert password not in shown and wrong not in shown


@pytest.mark.parametrize("mode", ["open", "closed"])
async def test_redis_stopped_mid_run_then_back(
    generated: Path, scale_upstream: ScaleUpstream, redis: RedisServer, log_dir: Path, mode: str
) -> None:
    env = replica_env(generated, scale_upstream, PETSTORE_RATE_LIMIT="100/min", PETSTORE_REDIS_URL=redis.url,
                      PETSTORE_REDIS_FAILURE=mode)
    with replicas(env, log_dir, f"redis-{mode}") as started, haproxy([p for p, _, _ in started], log_dir) as balancer:
        async with Client(balancer.url, cache=None) as client:
            before = await client.call_tool("getPetById", {"petId": 1})
            redis.stop()
            during = [await client.call_tool("getPetById", {"petId": 1}) for _ in range(6)]
            health = json.loads(get(balancer.port, "/healthz")[1])
            redis.start()
            await anyio.sleep(1.2)  # past the runtime's once-a-second retry during an outage
            after = [await client.call_tool("getPetById", {"petId": 1}) for _ in range(4)]
            health_after = json.loads(get(balancer.port, "/healthz")[1])
    assert not before.is_error
    logs = [log.read_text() for _, _, log in started]
    unreachable = f"Redis at 127.0.0.1:{redis.port}/0 is unreachable"
    assert [log.count(unreachable) for log in logs] == [1, 1], logs  # once per outage, not per call
    if mode == "open":
        assert not any(r.is_error for r in during), [text(r) for r in during]
        assert all("rate limits apply per replica until it is back (PETSTORE_REDIS_FAILURE=open)" in log for log in logs)
    else:
        assert all(r.is_error and "PETSTORE_REDIS_FAILURE=closed refuses calls until it is back" in text(r)
                   for r in during), [text(r) for r in during]
    assert health["status"] == "ok" and health["redis"] == "unreachable"
    assert not any(r.is_error for r in after), [text(r) for r in after]
    assert health_after["redis"] == "ok"
    assert any("is reachable again after" in log for log in logs)
    assert "rate:server" in redis.command("KEYS", "*")  # shared again


def test_health_route_and_allowed_hosts_behind_the_balancer(
    generated: Path, scale_upstream: ScaleUpstream, log_dir: Path
) -> None:
    token = "t" * 32
    env = replica_env(generated, scale_upstream, PETSTORE_ALLOWED_HOSTS="mcp.example.test", PETSTORE_MCP_TOKEN=token)
    initialize = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "hosts", "version": "1"}}})
    with replicas(env, log_dir, "hosts") as started, haproxy([p for p, _, _ in started], log_dir) as balancer:

        def post(host: str, authorized: bool = True) -> int:
            connection = http.client.HTTPConnection("127.0.0.1", balancer.port, timeout=10)
            headers = {"Host": host, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
            if authorized:
                headers["Authorization"] = f"Bearer {token}"
            connection.request("POST", "/mcp", body=initialize, headers=headers)
            response = connection.getresponse()
            response.read()
            connection.close()
            return response.status

        statuses = {host: post(host) for host in ("mcp.example.test", "mcp.example.test:443", "evil.example", "localhost")}
        unauthorized = post("mcp.example.test", authorized=False)
        health = get(balancer.port, "/healthz")  # no token, any Host
        head = http.client.HTTPConnection("127.0.0.1", started[0][0], timeout=10)
        head.request("HEAD", "/healthz", headers={"Host": "evil.example"})
        head_response = head.getresponse()
        head_body = head_response.read()
    assert statuses == {"mcp.example.test": 200, "mcp.example.test:443": 200, "evil.example": 421, "localhost": 200}
    assert unauthorized == 401
    assert health[0] == 200 and json.loads(health[1]) == {"status": "ok", "server": "petstore", "version": "1.2.0"}
    assert head_response.status == 200 and head_body == b""


# -- the generated deployment files ----------------------------------------------


def test_the_deployment_files_are_valid(generated: Path, log_dir: Path) -> None:
    """haproxy checks its configuration itself; compose.yaml is read as YAML and every setting it
    passes is one the server reads; the Dockerfile runs the console script as a non-root user."""
    config = (generated / "deploy" / "haproxy.cfg").read_text()
    balancer = Haproxy([], log_dir, config=config)
    tls_port = free_port()
    balancer.config.write_text(local_binds(config, balancer.port, tls_port, self_signed_pem(log_dir)))
    assert "Configuration file is valid" in balancer.check()
    balancer.start()  # TLS terminated by the generated frontend: a verified handshake, an HTTP answer
    try:
        trust = ssl.create_default_context(cafile=str(log_dir / "tls-cert.pem"))
        secure = http.client.HTTPSConnection("127.0.0.1", tls_port, timeout=10, context=trust)
        secure.request("GET", "/healthz")
        tls_status = secure.getresponse().status
        secure.close()
        with pytest.raises(ssl.SSLError):  # an untrusted certificate is refused by the client
            ssl.create_default_context().wrap_socket(socket.create_connection(("127.0.0.1", tls_port)),
                                                     server_hostname="127.0.0.1")
    finally:
        balancer.stop()
    assert tls_status == 503  # answered over TLS (no replica behind it here)

    compose = yaml.safe_load((generated / "compose.yaml").read_text())
    assert set(compose["services"]) == {"redis", "server", "balancer", "collector"}
    assert compose["services"]["collector"]["profiles"] == ["telemetry"]  # started only when asked for
    server = compose["services"]["server"]
    assert server["deploy"]["replicas"] == 2 and server["build"] == "."
    assert server["command"] == ["--transport", "http", "--host", "0.0.0.0", "--port", "8000"]
    assert "/healthz" in " ".join(server["healthcheck"]["test"])
    environment = server["environment"]
    assert environment["PETSTORE_REDIS_URL"] == "redis://redis:6379/0"
    credentials = {"PETSTORE_API_KEY", "PETSTORE_ADMIN_AUTH_USERNAME", "PETSTORE_ADMIN_AUTH_PASSWORD"}
    for name in environment:
        standard = name.startswith("OTEL_")  # OpenTelemetry's own variables, read by its SDK
        known = is_server_setting("PETSTORE", name) or name in credentials or name == "PETSTORE_REQUEST_STATE_KEY"
        assert known or standard, name
    balancer_service = compose["services"]["balancer"]
    assert balancer_service["volumes"] == ["./deploy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro",
                                           "./deploy/certs:/usr/local/etc/haproxy/certs:ro"]
    assert balancer_service["ports"] == ["8443:8443", "127.0.0.1:8080:8080"]  # plain HTTP on loopback only
    redis_service = compose["services"]["redis"]
    assert redis_service["secrets"] == server["secrets"] == ["redis_password"]
    assert compose["secrets"] == {"redis_password": {"file": "./deploy/redis_password"}}
    assert environment["PETSTORE_REDIS_PASSWORD_FILE"] == "/run/secrets/redis_password"
    # The redis service's shell command, run here (compose's `$$` is a `$`), starts a Redis that wants the password.
    assert redis_service["command"][:2] == ["sh", "-c"]
    secret = log_dir / "compose-redis-password"
    secret.write_text("compose-redis-" + "5" * 20 + "\n")
    local = RedisServer(log_dir)
    script = redis_service["command"][2].replace("$$", "$").replace("/run/secrets/redis_password", str(secret))
    proc = subprocess.Popen(["sh", "-c", f"{script} --port {local.port} --bind 127.0.0.1"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(local.port, proc, log_dir / "compose-redis.log")
        with socket.create_connection(("127.0.0.1", local.port), timeout=5) as conn:
            conn.sendall(b"PING\r\n")
            refused = conn.recv(200)
            conn.sendall(b"AUTH " + secret.read_bytes().strip() + b"\r\nPING\r\n")
            time.sleep(0.2)
            accepted = conn.recv(200)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert refused.startswith(b"-NOAUTH") and accepted == b"+OK\r\n+PONG\r\n"

    lines = [line for line in (generated / "Dockerfile").read_text().splitlines() if line and not line.startswith("#")]
    instructions = [line.split()[0] for line in lines if not line.startswith(" ")]
    assert instructions[0] == "FROM" and re.fullmatch(r"FROM python:3\.12-slim@sha256:[0-9a-f]{64}", lines[0]), lines[0]
    user = next(line.split()[1] for line in lines if line.startswith("USER "))
    assert user.isdigit() and int(user) != 0
    assert instructions.index("USER") > instructions.index("RUN")  # installs as root, runs as the user
    scripts = tomllib.loads((generated / "pyproject.toml").read_text())["project"]["scripts"]
    entrypoint = json.loads(next(line for line in lines if line.startswith("ENTRYPOINT")).split(None, 1)[1])
    assert entrypoint == list(scripts) == ["petstore-mcp"]
    extras = tomllib.loads((generated / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert extras["redis"] == ["redis>=5"]
    assert "pip install '.[redis,otel]'" in (generated / "Dockerfile").read_text()  # shared limits, telemetry


def test_the_generated_haproxy_closes_a_client_that_drips_its_headers(generated: Path, log_dir: Path) -> None:
    """Slowloris: one header byte every 0.5 s would hold a connection for `timeout client`
    (120 s), each byte resetting it; `timeout http-request` bounds the whole head. The generated
    file's 10 s is shortened to 2 s here (the rest is the generated config, bound to 127.0.0.1),
    and the drip lasts up to 40 s: the connection must be closed, with a 408, well before."""
    generated_config = (generated / "deploy" / "haproxy.cfg").read_text()
    assert "    timeout http-request 10s\n" in generated_config
    balancer = Haproxy([], log_dir, config=generated_config)
    config = generated_config.replace("timeout http-request 10s", "timeout http-request 2s")
    balancer.config.write_text(local_binds(config, balancer.port, free_port(), self_signed_pem(log_dir)))
    balancer.check()
    balancer.start()
    try:
        assert get(balancer.port, "/healthz")[0] == 503  # a whole request is answered (no replica here)
        with socket.create_connection(("127.0.0.1", balancer.port), timeout=5) as slow:
            slow.sendall(b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            started, answer, dripped = time.monotonic(), b"", 0
            for _ in range(80):  # 40 s of drip at most
                time.sleep(0.5)
                try:
                    slow.sendall(b"a")
                    dripped += 1
                except OSError:  # reset: closed
                    break
                slow.setblocking(False)
                try:
                    chunk = slow.recv(4096)
                except BlockingIOError:
                    chunk = None
                except OSError:
                    break
                finally:
                    slow.setblocking(True)
                if chunk == b"":  # closed by haproxy
                    break
                answer += chunk or b""
            else:
                pytest.fail(f"still open after {dripped} header bytes over {time.monotonic() - started:.0f} s")
            closed_after = time.monotonic() - started
    finally:
        balancer.stop()
    print(f"haproxy closed the dripping connection after {closed_after:.1f} s ({dripped} bytes; deadline 2 s)")
    assert answer.startswith(b"HTTP/1.1 408"), answer[:80]  # Request Timeout, then closed
    assert dripped < 80


@pytest.mark.slow
def test_the_dockerfile_steps_run_without_docker(generated: Path, tmp_path: Path, log_dir: Path) -> None:
    """Where no Docker daemon runs, the Dockerfile's own instructions are carried out here: COPY
    into an app directory, RUN's pip install into a fresh venv, then its ENTRYPOINT serves stdio,
    and HTTP on 0.0.0.0 with a token, its health route reporting the Redis the extra talks to.
    (`useradd` and `USER` change the system, so they are only read: the uid is checked above.)"""
    logical = re.sub(r"\\\n\s*", " ", (generated / "Dockerfile").read_text())
    app, venv = tmp_path / "app", tmp_path / "venv"
    app.mkdir()
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and not k.startswith("PETSTORE_")}
    entrypoint: list[str] = []
    skipped = []
    for line in logical.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        op, arg = line.split(None, 1)
        if op == "ENV":
            env.update(pair.split("=", 1) for pair in shlex.split(arg))
        elif op == "COPY":
            *sources, destination = arg.split()
            for source in sources:
                target = app / destination / (Path(source).name if destination.endswith("/") else "")
                if (generated / source).is_dir():
                    shutil.copytree(generated / source, target)
                else:
                    shutil.copy(generated / source, target)
        elif op == "RUN":
            for command in arg.split("&&"):
                words = shlex.split(command)
                if words[0] == "pip":  # this interpreter's pip, installing into the fresh venv
                    command_line = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), *words[1:]]
                    done = subprocess.run(command_line, cwd=app, env=env, capture_output=True, text=True,
                                          timeout=900, check=False)
                    assert done.returncode == 0, done.stdout + done.stderr
                else:
                    skipped.append(words[0])
        elif op == "ENTRYPOINT":
            entrypoint = json.loads(arg)
        else:
            assert op in ("FROM", "WORKDIR", "USER", "EXPOSE"), op
    assert skipped == ["useradd"] and entrypoint == ["petstore-mcp"]
    command = [str(venv / "bin" / entrypoint[0])]
    initialize = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "docker", "version": "1"}}})
    stdio = subprocess.run(command, input=initialize + "\n", capture_output=True, text=True, timeout=120,
                           check=False, cwd=tmp_path)
    assert json.loads(stdio.stdout.splitlines()[0])["result"]["serverInfo"]["name"] == "petstore", stdio.stderr
    port = free_port()
    token = "d" * 32
    http_env = {**env, "PETSTORE_MCP_TOKEN": token, "PETSTORE_REDIS_URL": ""}
    with redis_server(log_dir) as redis, (log_dir / "dockerfile-http.log").open("wb") as sink:
        http_env["PETSTORE_REDIS_URL"] = redis.url
        proc = subprocess.Popen([*command, "--transport", "http", "--host", "0.0.0.0", "--port", str(port)],
                                env=http_env, stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT)
        try:
            wait_for_port(port, proc, log_dir / "dockerfile-http.log")
            status, body = get(port, "/healthz")
            refused, _ = get(port, "/mcp", {"Accept": "text/event-stream"})
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    assert status == 200 and json.loads(body)["redis"] == "ok"
    assert refused == 401  # 0.0.0.0 needs the token
def _docker_works() -> bool:
    if shutil.which("docker") is None:
        return False
    return subprocess.run(["docker", "info"], capture_output=True, check=False).returncode == 0


@pytest.mark.skipif(not _docker_works(), reason="no Docker daemon here (docker info fails): the image is not built")
def test_the_image_builds_and_serves_stdio(generated: Path) -> None:
    tag = "mcpgen-test-petstore:latest"
    subprocess.run(["docker", "build", "-q", "-t", tag, str(generated)], check=True, timeout=1800)
    initialize = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "docker", "version": "1"}}})
    run = subprocess.run(["docker", "run", "-i", "--rm", tag], input=initialize + "\n", capture_output=True,
                         text=True, timeout=120, check=False)
    assert '"serverInfo"' in run.stdout, run.stderr
    user = subprocess.run(["docker", "run", "--rm", "--entrypoint", "id", tag, "-u"], capture_output=True,
                          text=True, check=True)
    assert user.stdout.strip() == "10001"
