"""Security duties and reliability of the generated petstore server, end to end.

A real MCP client drives the generated server over stdio and streamable HTTP against a
real upstream on 127.0.0.1 that misbehaves on demand (`faults.py`): rate limits (ours and
the upstream's 429), read-only mode and allow/deny lists, the HTTP bearer token and
DNS-rebinding checks, output redaction and control-character stripping, timeouts,
retries, TLS trust, the audit log on stderr, and faults that must not crash or stall it.
"""

from __future__ import annotations

import contextlib
import datetime
import ipaddress
import json
import queue
import ssl
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, MCPError, stdio_client, types
from mcp.client.streamable_http import streamable_http_client

from .conftest import PACKAGE, free_port, http_server, server_env, stdio_params
from .faults import CONTROL_TEXT, FaultyUpstream

pytestmark = pytest.mark.anyio

API_KEY = "k3y-that-must-never-show"
TOKEN = "mcp-token-0123456789abcdef"
TRANSPORTS = ("stdio", "http")
# Not a speed limit: a call unanswered this long means the server hung.
HANG_GUARD = 120.0


def error_text(result: types.CallToolResult) -> str:
    assert result.is_error, result
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


def result_text(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


@pytest.fixture(scope="module")
def faulty() -> Iterator[FaultyUpstream]:
    server = FaultyUpstream(slow_seconds=60.0).start()
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def _fresh(request: pytest.FixtureRequest) -> None:
    if "faulty" in request.fixturenames:
        upstream: FaultyUpstream = request.getfixturevalue("faulty")
        upstream.clear()


def env_for(generated: Path, upstream: FaultyUpstream, **overrides: str) -> dict[str, str]:
    settings = {"PETSTORE_BASE_URL": upstream.base_url, "PETSTORE_API_KEY": API_KEY, "PETSTORE_TIMEOUT": "20"}
    return server_env(generated, **{**settings, **overrides})


@contextlib.asynccontextmanager
async def connect(kind: str, env: dict[str, str], log: Path, token: str | None = None) -> AsyncIterator[Client]:
    """A client of a fresh server process over `kind`; the server's stderr goes to `log`."""
    if kind == "stdio":
        with log.open("w") as errlog:
            async with Client(stdio_client(stdio_params(env), errlog=errlog), cache=None) as client:
                yield client
        return
    with http_server(PACKAGE, env, log) as port:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        async with httpx2.AsyncClient(headers=headers, timeout=HANG_GUARD) as http:
            transport = streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http)
            async with Client(transport, cache=None) as client:
                yield client


HARDENED = {
    "PETSTORE_RATE_LIMIT_GETINVENTORY": "2/min",
    "PETSTORE_TOOLS_DENY": "delete*",
    "PETSTORE_RETRIES": "2",
    "PETSTORE_TIMEOUT": "20",
}


@pytest.fixture(scope="module", params=TRANSPORTS)
async def hardened(
    request: pytest.FixtureRequest, generated: Path, faulty: FaultyUpstream, log_dir: Path
) -> AsyncIterator[tuple[Client, Path]]:
    """One server per transport with a per-tool limit, a deny list and retries; (client, its log)."""
    log = log_dir / f"hardened-{request.param}.log"
    async with connect(request.param, env_for(generated, faulty, **HARDENED), log) as client:
        yield client, log


# -- rate limits ------------------------------------------------------------------


async def test_per_tool_rate_limit(hardened: tuple[Client, Path], faulty: FaultyUpstream) -> None:
    client, _ = hardened
    for _ in range(2):
        assert not (await client.call_tool("getInventory", {})).is_error
    text = error_text(await client.call_tool("getInventory", {}))
    assert "Rate limit reached (2/min set by PETSTORE_RATE_LIMIT_GETINVENTORY)" in text
    assert "retry in" in text
    assert len(faulty.take()) == 2  # the limited call never reached the upstream
    assert not (await client.call_tool("getPetById", {"petId": 1})).is_error  # other tools unaffected


async def test_server_rate_limit_and_upstream_429(generated: Path, faulty: FaultyUpstream, log_dir: Path) -> None:
    env = env_for(generated, faulty, PETSTORE_RATE_LIMIT="1/h burst 3")
    async with connect("stdio", env, log_dir / "server-limit.log") as client:
        faulty.program("/pet/42", "429:120", "ok")
        text = error_text(await client.call_tool("getPetById", {"petId": 42}))
        assert "429" in text and "retry in 120 s" in text
        # Later calls wait out Retry-After here, without reaching the API.
        text = error_text(await client.call_tool("getInventory", {}))
        assert "answered 429" in text and "retry in" in text
        assert len(faulty.take()) == 1
    env = env_for(generated, faulty, PETSTORE_RATE_LIMIT="1/h burst 3")
    async with connect("stdio", env, log_dir / "server-limit.log") as client:
        for _ in range(3):
            assert not (await client.call_tool("getInventory", {})).is_error
        text = error_text(await client.call_tool("getPetById", {"petId": 1}))
        assert "1/h burst 3 set by PETSTORE_RATE_LIMIT" in text
        seconds = float(text.rsplit("retry in ", 1)[1].split(" s")[0])
        assert 3000 < seconds <= 3600  # one token an hour, and all 3 of the burst are spent
        assert len(faulty.take()) == 3
        assert len((await client.list_tools()).tools) == 13  # listing is not limited


# -- access control ------------------------------------------------------------------


async def test_denied_tool_is_hidden_and_refused(hardened: tuple[Client, Path], faulty: FaultyUpstream) -> None:
    client, _ = hardened
    names = {tool.name for tool in (await client.list_tools()).tools}
    assert "deletePet" not in names and "getPetById" in names
    with pytest.raises(MCPError) as caught:
        await client.call_tool("deletePet", {"petId": 1})
    assert caught.value.code == types.INVALID_PARAMS
    assert "deletePet" in caught.value.message and "PETSTORE_TOOLS_DENY" in caught.value.message
    assert faulty.take() == []


async def test_read_only_and_allow_list(generated: Path, faulty: FaultyUpstream, log_dir: Path) -> None:
    env = env_for(generated, faulty, PETSTORE_READ_ONLY="1", PETSTORE_TOOLS_ALLOW="get*, find*,addPet")
    async with connect("stdio", env, log_dir / "read-only.log") as client:
        listed = (await client.list_tools()).tools
        assert sorted(t.name for t in listed) == [
            "findPetsByStatus", "findPetsByTags", "getCategory", "getInventory", "getOrderById", "getPetById",
            "getPetPhoto",
        ]
        assert all(t.annotations and t.annotations.read_only_hint for t in listed)
        for tool, setting in (("addPet", "PETSTORE_READ_ONLY"), ("placeOrder", "PETSTORE_READ_ONLY")):
            with pytest.raises(MCPError) as caught:
                await client.call_tool(tool, {"name": "x", "photoUrls": []})
            assert caught.value.code == types.INVALID_PARAMS and setting in caught.value.message
        assert not (await client.call_tool("getPetById", {"petId": 1})).is_error
    assert [r.path for r in faulty.take()] == ["/api/v3/pet/1"]


async def test_http_bearer_token_and_dns_rebinding(generated: Path, faulty: FaultyUpstream, log_dir: Path) -> None:
    env = env_for(generated, faulty, PETSTORE_MCP_TOKEN=TOKEN)
    with http_server(PACKAGE, env, log_dir / "token.log") as port:
        url = f"http://127.0.0.1:{port}/mcp"
        body = {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {}}
        headers = {"Accept": "application/json, text/event-stream"}
        async with httpx2.AsyncClient() as raw:
            for authorization in (None, "Bearer wrong", f"Basic {TOKEN}", f"Bearer {TOKEN}x", TOKEN):
                sent = {**headers, **({"Authorization": authorization} if authorization else {})}
                answer = await raw.post(url, json=body, headers=sent)
                assert answer.status_code == 401, (authorization, answer.text)
                assert answer.headers["www-authenticate"].startswith("Bearer")
            rebinding = {**headers, "Authorization": f"Bearer {TOKEN}", "Host": "evil.example:80"}
            assert (await raw.post(url, json=body, headers=rebinding)).status_code == 421
            foreign = {**headers, "Authorization": f"Bearer {TOKEN}", "Origin": "http://evil.example"}
            assert (await raw.post(url, json=body, headers=foreign)).status_code == 403
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"bearer {TOKEN}"}, timeout=HANG_GUARD) as http,
            Client(streamable_http_client(url, http_client=http), cache=None) as client,
        ):
                assert not (await client.call_tool("getPetById", {"petId": 1})).is_error
    assert TOKEN not in (log_dir / "token.log").read_text()


def test_non_loopback_bind_needs_a_token(generated: Path, faulty: FaultyUpstream) -> None:
    env = env_for(generated, faulty)
    done = subprocess.run(
        [sys.executable, "-m", PACKAGE, "--transport", "http", "--host", "0.0.0.0", "--port", str(free_port())],
        check=False, env=env, capture_output=True, text=True, timeout=HANG_GUARD,
    )
    assert done.returncode == 2
    assert "PETSTORE_MCP_TOKEN" in done.stderr and "0.0.0.0" in done.stderr
    assert done.stdout == ""


async def test_non_loopback_bind_with_token(generated: Path, faulty: FaultyUpstream, log_dir: Path) -> None:
    env = env_for(generated, faulty, PETSTORE_MCP_TOKEN=TOKEN)
    with http_server(PACKAGE, env, log_dir / "wildcard.log", host="0.0.0.0") as port:
        url = f"http://127.0.0.1:{port}/mcp"
        async with httpx2.AsyncClient() as raw:
            ping = {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {}}
            answer = await raw.post(url, json=ping, headers={"Accept": "application/json, text/event-stream"})
            assert answer.status_code == 401
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=HANG_GUARD) as http,
            Client(streamable_http_client(url, http_client=http), cache=None) as client,
        ):
                assert len((await client.list_tools()).tools) == 13


@pytest.mark.parametrize(
    "settings",
    [
        {
            "PETSTORE_RATE_LIMIT": "ten per second",
            "PETSTORE_RATE_LIMIT_NOSUCHTOOL": "1/s",
            "PETSTORE_TOOLS_ALLOW": "getPte*",
            "PETSTORE_READ_ONLY": "maybe",
            "PETSTORE_TIMEOUT": "soon",
            "PETSTORE_RETRIES": "many",
            "PETSTORE_CA_BUNDLE": "/nonexistent/ca.pem",
            "PETSTORE_AUDIT_LOG": "loud",
        },
        {"PETSTORE_RATE_LIMIT_GETPETBYID": "10/s burst 0", "PETSTORE_CONNECT_TIMEOUT": "-1"},
    ],
)
def test_malformed_settings_stop_start_up(generated: Path, faulty: FaultyUpstream, settings: dict[str, str]) -> None:
    """Every malformed value is named at once, with exit code 2, before anything is served."""
    done = subprocess.run(
        [sys.executable, "-m", PACKAGE],
        env=env_for(generated, faulty, **settings),
        check=False, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=HANG_GUARD,
    )
    assert done.returncode == 2, done.stderr
    assert "configuration error" in done.stderr
    reported = [line.split("=")[0].split(":")[0] for line in done.stderr.splitlines()[1:] if line.strip()]
    assert sorted(reported) == sorted(settings), done.stderr  # each named once, on its own line
    assert done.stdout == ""


# -- output sanitising -------------------------------------------------------------------


async def test_reflected_credentials_are_redacted(hardened: tuple[Client, Path], faulty: FaultyUpstream) -> None:
    client, log = hardened
    faulty.program("/pet/13", "echo")
    result = await client.call_tool("getPetById", {"petId": 13})
    text = error_text(result)
    assert faulty.take()[0].headers["api_key"] == API_KEY  # the upstream did get (and reflect) it
    assert "401" in text and "invalid credentials" in text
    assert API_KEY not in text and "[redacted]" in text
    assert API_KEY not in json.dumps(result.structured_content)
    assert API_KEY not in log.read_text()


async def test_control_characters_are_stripped(hardened: tuple[Client, Path], faulty: FaultyUpstream) -> None:
    client, _ = hardened
    faulty.program("/pet/14", "control")
    faulty.program("/pet/14/photo", "control")
    pet = await client.call_tool("getPetById", {"petId": 14})
    assert not pet.is_error
    assert pet.structured_content is not None
    name = pet.structured_content["name"]
    assert name == "Rex[31m red bell nul evil\nline two\tcol"
    assert name in json.loads(result_text(pet))["name"]
    photo = result_text(await client.call_tool("getPetPhoto", {"petId": 14}))
    assert photo == "Rex[31m red bell nul evil\nline two\tcol"
    assert photo != CONTROL_TEXT


# -- upstream calls -------------------------------------------------------------------


async def test_idempotent_calls_are_retried(hardened: tuple[Client, Path], faulty: FaultyUpstream) -> None:
    client, _ = hardened
    faulty.program("/pet/11", "reset", "503", "ok")
    result = await client.call_tool("getPetById", {"petId": 11})
    assert not result.is_error, result_text(result)
    assert len(faulty.take()) == 3
    faulty.program("/pet/12", "502")  # every attempt fails: 1 + PETSTORE_RETRIES
    assert "502" in error_text(await client.call_tool("getPetById", {"petId": 12}))
    assert len(faulty.take()) == 3
    faulty.program("/pet/12", "reset")
    assert "request failed" in error_text(await client.call_tool("getPetById", {"petId": 12}))
    assert len(faulty.take()) == 3


async def test_other_methods_are_sent_once(hardened: tuple[Client, Path], faulty: FaultyUpstream) -> None:
    client, _ = hardened
    for behaviour, expected in (("503", "503"), ("reset", "request failed")):
        faulty.program("/pet", behaviour)
        text = error_text(await client.call_tool("addPet", {"name": "Tom", "photoUrls": []}))
        assert expected in text
        assert len(faulty.take()) == 1


async def test_misbehaving_upstream(hardened: tuple[Client, Path], faulty: FaultyUpstream) -> None:
    """Garbage, a broken schema, 10 MB, a redirect loop: each an answer, then the next call works."""
    client, _ = hardened
    cases = [("garbage", "invalid JSON"), ("redirect_loop", "redirects")]
    for number, (behaviour, expected) in enumerate(cases, start=20):
        faulty.program(f"/pet/{number}", behaviour)
        assert expected in error_text(await client.call_tool("getPetById", {"petId": number}))
        assert not (await client.call_tool("getPetById", {"petId": 1})).is_error
    # A body that strays from its schema still reaches the model (outputs only describe), with a note.
    faulty.program("/pet/22", "schema")
    strayed = await client.call_tool("getPetById", {"petId": 22})
    assert not strayed.is_error and "does not match" in result_text(strayed)
    assert not (await client.call_tool("getPetById", {"petId": 1})).is_error
    faulty.program("/pet/30", "huge")
    huge = await client.call_tool("getPetById", {"petId": 30})
    assert huge.content  # an answer (whole, cut or refused), not a crash
    assert not (await client.call_tool("getPetById", {"petId": 1})).is_error


async def test_slow_call_does_not_block_others(hardened: tuple[Client, Path], faulty: FaultyUpstream) -> None:
    client, _ = hardened
    finished: list[str] = []

    async def slow() -> None:
        result = await client.call_tool("getPetById", {"petId": 1001})
        assert not result.is_error, result_text(result)
        finished.append("slow")

    async def fast(number: int) -> None:
        assert not (await client.call_tool("getCategory", {"id": f"c{number}"})).is_error
        finished.append("fast")

    with anyio.fail_after(HANG_GUARD):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(slow)
            # polls the upstream's thread, which has no anyio event to set
            while not any(r.path.endswith("/pet/1001") for r in faulty.requests):  # noqa: ASYNC110
                await anyio.sleep(0.01)  # the slow request is at the upstream now
            async with anyio.create_task_group() as quick:
                for number in range(5):
                    quick.start_soon(fast, number)
            assert finished == ["fast"] * 5  # all answered while the slow call still waits
            faulty.release()
    assert finished == ["fast"] * 5 + ["slow"]


async def test_read_timeout(generated: Path, faulty: FaultyUpstream, log_dir: Path) -> None:
    env = env_for(generated, faulty, PETSTORE_TIMEOUT="0.5", PETSTORE_CONNECT_TIMEOUT="2")
    async with connect("stdio", env, log_dir / "timeout.log") as client:
        text = error_text(await client.call_tool("getPetById", {"petId": 1001}))
        assert "timeout" in text and "0.5" in text
    assert len(faulty.take()) == 1  # a read timeout is not retried: the request may have run


def _self_signed(directory: Path) -> tuple[Path, Path]:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "mcpgen test upstream")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = directory / "cert.pem", directory / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_file, key_file


async def test_tls_is_verified_and_ca_bundle_trusted(generated: Path, log_dir: Path, tmp_path: Path) -> None:
    cert, key = _self_signed(tmp_path)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    upstream = FaultyUpstream(tls=context).start()
    try:
        assert upstream.base_url.startswith("https://")
        async with connect("stdio", env_for(generated, upstream), log_dir / "tls.log") as client:
            text = error_text(await client.call_tool("getPetById", {"petId": 1}))
            assert "CERTIFICATE_VERIFY_FAILED" in text or "certificate" in text.lower()
        env = env_for(generated, upstream, PETSTORE_CA_BUNDLE=str(cert))
        async with connect("stdio", env, log_dir / "tls.log") as client:
            result = await client.call_tool("getPetById", {"petId": 1})
            assert not result.is_error, result_text(result)
    finally:
        upstream.stop()


# -- audit log and stdout --------------------------------------------------------------


def audit_lines(log: Path) -> list[dict[str, Any]]:
    lines = []
    for line in log.read_text().splitlines():
        if line.startswith("{") and '"event": "tool_call"' in line:
            lines.append(json.loads(line))
    return lines


async def test_audit_log(generated: Path, faulty: FaultyUpstream, log_dir: Path) -> None:
    log = log_dir / "audit.log"
    env = env_for(generated, faulty, PETSTORE_RATE_LIMIT_GETINVENTORY="1/h burst 1")
    async with connect("http", env, log) as client:
        assert not (await client.call_tool("getPetById", {"petId": 1})).is_error
        await client.call_tool("addPet", {"name": f"Tom {API_KEY}", "photoUrls": [], "password": "hunter22"})
        faulty.program("/pet/5", "503")
        await client.call_tool("getPetById", {"petId": 5})
        await client.call_tool("getInventory", {})
        await client.call_tool("getInventory", {})
        with pytest.raises(MCPError):
            await client.call_tool("noSuchTool", {})
    lines = audit_lines(log)
    summary = [(line["tool"], line["outcome"], line["upstream_status"]) for line in lines]
    assert summary == [
        ("getPetById", "ok", 200),
        ("addPet", "error", None),  # rejected by the input schema: nothing sent
        ("getPetById", "error", 503),
        ("getInventory", "ok", 200),
        ("getInventory", "rate_limited", None),
        ("noSuchTool", "refused", None),
    ]
    assert lines[0]["arguments"] == {"petId": 1}
    assert lines[1]["arguments"]["password"] == "[redacted]"
    assert lines[1]["arguments"]["name"] == "Tom [redacted]"
    assert all(isinstance(line["duration_ms"], float) for line in lines)
    assert API_KEY not in log.read_text() and "hunter22" not in log.read_text()


def test_stdout_carries_only_the_protocol(generated: Path, faulty: FaultyUpstream) -> None:
    """Raw stdio: every stdout line is a JSON-RPC message; audit and log lines go to stderr."""
    faulty.program("/pet/13", "echo")
    proc = subprocess.Popen(
        [sys.executable, "-m", PACKAGE, "--log-level", "DEBUG"],
        env=env_for(generated, faulty),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    assert proc.stdin and proc.stdout and proc.stderr
    lines: queue.Queue[bytes] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()  # type: ignore[union-attr]
    stderr: list[bytes] = []
    threading.Thread(target=lambda: stderr.extend(proc.stderr), daemon=True).start()  # type: ignore[arg-type]

    def request(message: dict[str, Any]) -> dict[str, Any]:
        proc.stdin.write(json.dumps(message).encode() + b"\n")  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]
        if "id" not in message:
            return {}
        while True:
            answer = json.loads(lines.get(timeout=HANG_GUARD))  # any non-JSON line fails here
            assert answer["jsonrpc"] == "2.0"
            if answer.get("id") == message["id"]:
                return dict(answer)

    try:
        init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}
        assert "result" in request({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
        request({"jsonrpc": "2.0", "method": "notifications/initialized"})
        calls = [("getPetById", {"petId": 1}), ("getPetById", {"petId": 13}), ("getPetById", {"petId": "x"})]
        for number, (tool, arguments) in enumerate(calls, start=2):
            params = {"name": tool, "arguments": arguments}
            answer = request({"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": params})
            assert "result" in answer
        assert "error" in request({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "nope"}})
    finally:
        proc.stdin.close()
        proc.wait(timeout=HANG_GUARD)
    with contextlib.suppress(queue.Empty):
        while True:
            assert json.loads(lines.get(timeout=1))["jsonrpc"] == "2.0"
    errors = b"".join(stderr).decode()
    assert errors.count('"event": "tool_call"') == 4
    assert API_KEY not in errors
