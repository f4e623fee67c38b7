"""End-to-end fixtures: the generated petstore server, a real upstream, and MCP clients.

One generation per session; one server process per transport (stdio handshake, stdio
modern, streamable HTTP) shared by every test; clients stay connected for the session.
Servers write their stderr under `log_dir`; the tails are attached to failing reports.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, ClientSession, StdioServerParameters, stdio_client
from mcp.client.stdio import get_default_environment

from mcpgen.api import generate_openapi
from mcpgen.options import OperationFilter, Options

from .upstream import Upstream
from .wheel import WheelInstall

REPO = Path(__file__).resolve().parents[2]
PETSTORE = REPO / "samples" / "petstore.yaml"
PACKAGE = "petstore_mcp"
API_KEY = "secret-key-123"
ADMIN_USER, ADMIN_PASSWORD = "admin", "p@ss:word"
TIMEOUT = "1.5"  # PETSTORE_TIMEOUT for the shared servers; the slow endpoint takes far longer

# The client kinds every shared-server test runs against.
CLIENT_KINDS = ("stdio-handshake", "stdio-modern", "http-modern", "http-legacy")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: builds a wheel and installs it into a fresh venv (runs in CI)")


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session", autouse=True)
def wheel_install(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> WheelInstall | None:
    """Starts the wheel build + fresh-venv install at once when a `slow` test is selected."""
    if not any(item.get_closest_marker("slow") for item in request.session.items):
        return None
    return WheelInstall(tmp_path_factory.mktemp("wheel")).start()


# -- generation and processes ------------------------------------------------


@pytest.fixture(scope="session")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """samples/petstore.yaml generated once; the output dir (with pyproject.toml and src/)."""
    out = tmp_path_factory.mktemp("generated") / "petstore-mcp"
    # findPetsByTags is deprecated: skipped by default, kept here for its query style.
    options = Options(output=out, force=True, filters=OperationFilter(include_deprecated=True))
    result = generate_openapi(PETSTORE, options)
    assert (out / "src" / PACKAGE / "server.py").is_file(), result.files.keys()
    return out


@pytest.fixture(scope="session")
def upstream() -> Iterator[Upstream]:
    server = Upstream().start()
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def _fresh_upstream_log(request: pytest.FixtureRequest) -> None:
    if "upstream" in request.fixturenames:
        request.getfixturevalue("upstream").clear()


_log_dirs: list[Path] = []  # the session's log_dir, once created, for the report hook


@pytest.fixture(scope="session")
def log_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where server processes write their stderr."""
    path = tmp_path_factory.mktemp("server-logs")
    _log_dirs[:] = [path]
    return path


def server_env(generated: Path, **overrides: str | None) -> dict[str, str]:
    """A clean environment for a server process: nothing leaks from the test's own env."""
    env = dict(get_default_environment())
    env["PYTHONPATH"] = str(generated / "src")
    env["PYTHONUNBUFFERED"] = "1"
    env.update({k: v for k, v in overrides.items() if v is not None})
    return env


def shared_env(generated: Path, upstream: Upstream) -> dict[str, str]:
    return server_env(
        generated,
        PETSTORE_BASE_URL=upstream.base_url,
        PETSTORE_API_KEY=API_KEY,
        PETSTORE_ADMIN_AUTH_USERNAME=ADMIN_USER,
        PETSTORE_ADMIN_AUTH_PASSWORD=ADMIN_PASSWORD,
        PETSTORE_TIMEOUT=TIMEOUT,
    )


def stdio_params(env: dict[str, str], *args: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", PACKAGE, *args], env=env)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_for_port(port: int, proc: subprocess.Popen[bytes], log: Path, deadline: float = 30.0) -> None:
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}:\n{log.read_text()}")
        with contextlib.suppress(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        time.sleep(0.05)
    raise RuntimeError(f"server did not listen on {port} within {deadline} s:\n{log.read_text()}")


@contextlib.contextmanager
def http_server(package: str, env: dict[str, str], log: Path, host: str = "127.0.0.1") -> Iterator[int]:
    """A generated server's process on streamable HTTP, its output in `log`; yields its port."""
    with http_process(package, env, log, host) as (port, _):
        yield port


@contextlib.contextmanager
def http_process(
    package: str, env: dict[str, str], log: Path, host: str = "127.0.0.1"
) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    """`http_server`, yielding the process too (its pid, for /proc/<pid>/status)."""
    port = free_port()
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            [sys.executable, "-m", package, "--transport", "http", "--host", host, "--port", str(port)],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_for_port(port, proc, log)
            yield port, proc
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


@pytest.fixture(scope="session")
def http_url(generated: Path, upstream: Upstream, log_dir: Path) -> Iterator[str]:
    """The generated server over streamable HTTP (stateless) on 127.0.0.1."""
    with http_server(PACKAGE, shared_env(generated, upstream), log_dir / "http.log") as port:
        yield f"http://127.0.0.1:{port}/mcp"


# -- connected clients ---------------------------------------------------------


@dataclass
class Connection:
    """A connected client of either API; `session` has list_tools/call_tool."""

    kind: str
    session: Any  # ClientSession or Client
    protocol_version: str

    async def list_tools(self) -> Any:
        return await self.session.list_tools()

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        return await self.session.call_tool(name, arguments)


@pytest.fixture(scope="session")
async def conn_stdio_handshake(generated: Path, upstream: Upstream, log_dir: Path) -> AsyncIterator[Connection]:
    """stdio subprocess, `ClientSession` + `initialize()`: the handshake era (2025-11-25)."""
    params = stdio_params(shared_env(generated, upstream))
    with (log_dir / "stdio-handshake.log").open("w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            init = await session.initialize()
            await session.list_tools()  # the client validates structuredContent against listed tools
            yield Connection("stdio-handshake", session, init.protocol_version)


@pytest.fixture(scope="session")
async def conn_stdio_modern(generated: Path, upstream: Upstream, log_dir: Path) -> AsyncIterator[Connection]:
    """stdio subprocess, `mcp.Client` default (auto) mode: 2026-07-28."""
    with (log_dir / "stdio-modern.log").open("w") as errlog:
        params = stdio_params(shared_env(generated, upstream))
        # Client has no errlog option; a transport built by hand keeps server stderr in the log.
        async with Client(stdio_client(params, errlog=errlog), cache=None) as client:
            await client.list_tools()
            yield Connection("stdio-modern", client, str(client.protocol_version))


@pytest.fixture(scope="session")
async def conn_http_modern(http_url: str) -> AsyncIterator[Connection]:
    """Streamable HTTP, `mcp.Client(url)` default (auto) mode: 2026-07-28."""
    async with Client(http_url, cache=None) as client:
        await client.list_tools()
        yield Connection("http-modern", client, str(client.protocol_version))


@pytest.fixture(scope="session")
async def conn_http_legacy(http_url: str) -> AsyncIterator[Connection]:
    """Streamable HTTP, `mcp.Client(url, mode="legacy")`: the handshake era."""
    async with Client(http_url, mode="legacy", cache=None) as client:
        await client.list_tools()
        yield Connection("http-legacy", client, str(client.protocol_version))


@pytest.fixture(params=CLIENT_KINDS)
def mcp(request: pytest.FixtureRequest) -> Connection:
    """Each test that takes `mcp` runs once per client kind, against the shared servers."""
    connection: Connection = request.getfixturevalue("conn_" + request.param.replace("-", "_"))
    return connection


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """On failure, attach the tail of every server log (their stderr) to the report."""
    report = yield
    if report.failed and _log_dirs:
        for log in sorted(_log_dirs[0].glob("*.log")):
            text = log.read_text(errors="replace")[-4000:]
            if text.strip():
                report.sections.append((f"server log {log.name}", text))
    return report
