"""Client-matrix fixtures: generated servers, the messy upstream, the mcp 1.x venv, driver reports.

Each server is generated once per session (GitHub's spec takes the longest). Stateless
servers (petstore, GitHub) get one shared HTTP process; the Python-module server keeps its
inventory in memory, so every driver run gets a fresh process. A driver run (connect, list,
all planned calls) happens once per client × transport × server and its report is shared
by the tests that assert on it.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mcpgen.api import generate_openapi
from mcpgen.options import OperationFilter, Options
from tests.e2e.conftest import http_server, server_env
from tests.npm import REPO, ensure_installed, node, package_path

from . import cases
from .harness import CLIENTS, TS_PACKAGES, run_client, stdio_target
from .messy_upstream import GITHUB_PREFIX, PETSTORE_PREFIX, MessyUpstream

MCP1_VENV = REPO / ".ci" / "mcp1-venv"
MCP1_REQUIREMENT = "mcp==1.22.0"  # the last 1.x whose client speaks 2025-06-18, as many deployed clients do
GITHUB_SPEC = "generated/api.github.com.json"


@dataclass(frozen=True)
class Served:
    """A generated server: how to start it and what to call."""

    name: str
    package: str
    src: Path
    env: dict[str, str]
    cases: tuple[cases.Case, ...]
    stateful: bool  # state in memory: a fresh process per driver run

    def tool_count(self) -> int:
        return len(json.loads((self.src / self.package / "tools.json").read_text()))


@pytest.fixture(scope="session")
def messy_upstream() -> Iterator[MessyUpstream]:
    server = MessyUpstream().start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def client_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("client-matrix-logs")


@pytest.fixture(scope="session")
def mcp1_python() -> str:
    """The python of a venv with mcp 1.x (its client cannot share a venv with 2.x), made once."""
    python = MCP1_VENV / "bin" / "python"
    if not python.exists():
        for args in ([sys.executable, "-m", "venv", str(MCP1_VENV)],
                     [str(python), "-m", "pip", "install", "--quiet", MCP1_REQUIREMENT]):
            run = subprocess.run(args, check=False, capture_output=True, text=True, timeout=900)
            assert run.returncode == 0, f"{' '.join(args)} failed:\n{run.stderr[-3000:]}"
    return str(python)


@pytest.fixture(scope="session")
def ts_clients() -> None:
    """The pinned TypeScript clients and Inspector (skipped without node, a failure in CI)."""
    ensure_installed(*TS_PACKAGES)


def _generate_openapi(spec: Path, out: Path, **options: Any) -> Path:
    generate_openapi(spec, Options(output=out, force=True, **options))
    return out / "src"


@pytest.fixture(scope="session")
def petstore(tmp_path_factory: pytest.TempPathFactory, messy_upstream: MessyUpstream) -> Served:
    out = tmp_path_factory.mktemp("matrix") / "petstore-mcp"
    src = _generate_openapi(REPO / "samples" / "petstore.yaml", out, filters=OperationFilter(include_deprecated=True))
    env = server_env(out, PETSTORE_BASE_URL=messy_upstream.origin + PETSTORE_PREFIX, PETSTORE_API_KEY="key")
    return Served("petstore", "petstore_mcp", src, env, cases.PETSTORE_CASES, stateful=False)


@pytest.fixture(scope="session")
def python_module(tmp_path_factory: pytest.TempPathFactory) -> Served:
    out = tmp_path_factory.mktemp("matrix") / "inventory-mcp"
    run = subprocess.run(
        [sys.executable, "-m", "mcpgen", "from-python", str(REPO / "samples" / "tools.py"), "-o", str(out),
         "--name", "inventory"], check=False, capture_output=True, text=True, timeout=300, cwd=REPO,
    )
    assert run.returncode == 0, run.stderr
    return Served("python", "inventory_mcp", out / "src", server_env(out), cases.PYTHON_CASES, stateful=True)


@pytest.fixture(scope="session")
def github(tmp_path_factory: pytest.TempPathFactory, messy_upstream: MessyUpstream, ts_clients: None) -> Served:
    """GitHub's whole REST spec (1,186 tools), generated once; named so that its env prefix is
    OCTO_GITHUB_, not GITHUB_ (GitHub Actions sets GITHUB_* variables of its own)."""
    out = tmp_path_factory.mktemp("matrix") / "github-mcp"
    spec = package_path("@octokit/openapi", GITHUB_SPEC)
    ensure_installed(spec)
    src = _generate_openapi(spec, out, name="octo-github")
    env = server_env(out, OCTO_GITHUB_BASE_URL=messy_upstream.origin + GITHUB_PREFIX)
    return Served("github", "octo_github_mcp", src, env, cases.GITHUB_CASES, stateful=False)


@pytest.fixture(scope="session")
def bookshelf(tmp_path_factory: pytest.TempPathFactory) -> Served:
    out = tmp_path_factory.mktemp("matrix") / "bookshelf-mcp"
    src = _generate_openapi(REPO / "samples" / "bookshelf.yaml", out)
    return Served("bookshelf", "bookshelf_mcp", src, server_env(out), (), stateful=False)


@pytest.fixture(scope="session")
def shared_http(client_logs: Path) -> Iterator[Callable[[Served], str]]:
    """The URL of a stateless server's one HTTP process, started on first use."""
    urls: dict[str, str] = {}
    with contextlib.ExitStack() as stack:

        def url(served: Served) -> str:
            if served.name not in urls:
                port = stack.enter_context(http_server(served.package, served.env, client_logs / f"{served.name}.log"))
                urls[served.name] = f"http://127.0.0.1:{port}/mcp"
            return urls[served.name]

        yield url


@pytest.fixture(scope="session")
def reports(request: pytest.FixtureRequest, shared_http: Callable[[Served], str],
            client_logs: Path) -> Callable[[str, str, str], dict[str, Any]]:
    """`report(client, transport, server)`: one driver run's report, memoized for the session."""
    done: dict[tuple[str, str, str], dict[str, Any]] = {}

    def report(client: str, transport: str, server: str) -> dict[str, Any]:
        key = (client, transport, server)
        if key not in done:
            served: Served = request.getfixturevalue(server if server != "python" else "python_module")
            mcp1 = request.getfixturevalue("mcp1_python") if client == "py-v1" else None
            if CLIENTS[client][0] == "node":
                node()
                request.getfixturevalue("ts_clients")
            calls = [case.plan() for case in served.cases]
            if transport == "stdio":
                done[key] = run_client(client, calls, stdio_target(served.package), served.env, mcp1)
            elif served.stateful:
                log = client_logs / f"{served.name}-{client}.log"
                with http_server(served.package, served.env, log) as port:
                    done[key] = run_client(client, calls, [f"http://127.0.0.1:{port}/mcp"], served.env, mcp1)
            else:
                done[key] = run_client(client, calls, [shared_http(served)], served.env, mcp1)
        return done[key]

    return report
