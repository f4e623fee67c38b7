"""Issue 12: every tool call works in the clients people actually run.

Real MCP clients (TypeScript SDK 1.x and 2.x, the Inspector CLI, Python mcp 1.x and both
eras of 2.x) drive generated servers over stdio and streamable HTTP on 127.0.0.1, against a
real upstream on 127.0.0.1 that strays from the spec (tests/clients/messy_upstream.py).
What is asserted is what the client reports: it listed every page, and every call came back
as a result it accepted (no thrown validation error), `isError` exactly for the failures,
with text content. The TypeScript clients assert `format` (ajv-formats), the Python ones do
not; so a call can pass in Python and fail in TypeScript.

    .venv/bin/python -m pytest tests/clients
"""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_oauth import raw_post

from . import cases
from .conftest import Served
from .harness import CLIENTS, inspector, portability, stdio_target, tool_args

Report = Callable[[str, str, str], dict[str, Any]]
SERVERS = {"petstore": cases.PETSTORE_CASES, "python": cases.PYTHON_CASES, "github": cases.GITHUB_CASES}
# GitHub's server runs on HTTP only: one process; each client lists its 1,186 tools once.
TRANSPORTS = {"petstore": ("stdio", "http"), "python": ("stdio", "http"), "github": ("http",)}


def _runs() -> list[Any]:
    return [pytest.param(c, t, s, id=f"{s}-{t}-{c}") for s in SERVERS for t in TRANSPORTS[s] for c in CLIENTS]


def _calls() -> list[Any]:
    return [
        pytest.param(c, t, s, i, id=f"{s}-{t}-{c}-{i}-{case.tool}")
        for s, planned in SERVERS.items() for t in TRANSPORTS[s] for c in CLIENTS for i, case in enumerate(planned)
    ]


def _served(request: pytest.FixtureRequest, server: str) -> Served:
    served: Served = request.getfixturevalue("python_module" if server == "python" else server)
    return served


@pytest.mark.parametrize(("client", "transport", "server"), _runs())
def test_lists_every_tool(reports: Report, request: pytest.FixtureRequest, client: str, transport: str,
                          server: str) -> None:
    report = reports(client, transport, server)
    assert report["listError"] is None, f"{client} could not list the tools: {report['listError']}"
    assert report["tools"] == _served(request, server).tool_count()


@pytest.mark.parametrize(("client", "transport", "server", "index"), _calls())
def test_call_is_accepted(reports: Report, client: str, transport: str, server: str, index: int) -> None:
    case = SERVERS[server][index]
    report = reports(client, transport, server)
    entry = report["calls"][index]
    assert entry["name"] == case.tool
    assert entry["ok"], f"{client} threw on {case.tool}({case.arguments}) [{case.why}]: {entry['error']}"
    assert entry["isError"] is case.fails, f"{case.why}: isError={entry['isError']}: {entry['texts']}"
    assert "text" in entry["contentTypes"] and entry["texts"][0].strip(), entry
    if case.text is not None:
        assert entry["texts"][0] == case.text, f"[{case.why}] the text is not the returned str"
    if case.text_prefix is not None:
        assert entry["texts"][0].startswith(case.text_prefix), entry["texts"][0][:300]


# -- the Inspector CLI -----------------------------------------------------------------------


@pytest.mark.parametrize("server", ["petstore", "bookshelf", "python"])
def test_inspector_finds_no_portability_problems(request: pytest.FixtureRequest, ts_clients: None,
                                                 tmp_path: Path, server: str) -> None:
    served = _served(request, server)
    run = inspector(["--method", "tools/list", "--strict", *_env_args(served), *stdio_target(served.package)],
                    tmp_path / "catalog.json")
    errors, warnings = portability(run)
    summary = run.stderr.strip().splitlines()[-1:] if errors or warnings else []
    assert (errors, warnings) == (0, 0), f"{summary}; the first findings:\n{run.stderr[:1500]}"


def _env_args(served: Served) -> list[str]:
    return [arg for key in ("PYTHONPATH", *[k for k in served.env if k.endswith("_BASE_URL")])
            for arg in ("-e", f"{key}={served.env[key]}")]


def test_inspector_lists_all_of_github(github: Served, shared_http: Callable[[Served], str], tmp_path: Path) -> None:
    """1,186 tools in pages the Inspector walks to the end (it stops after 64)."""
    run = inspector([shared_http(github), "--method", "tools/list"], tmp_path / "catalog.json")
    assert run.returncode == 0, run.stderr[-3000:]
    assert len(json.loads(run.stdout)["tools"]) == github.tool_count()


def test_a_client_that_reads_one_page_sees_all_of_github(github: Served, shared_http: Callable[[Served], str]) -> None:
    """google-adk's McpToolset sends one tools/list and ignores `nextCursor`: GitHub's 3.35 MB
    list is within the one-page budget, so it sees every tool. The answer is one JSON body, not
    an SSE event (the Python SDK's 2.x client refuses events over 1 MiB)."""
    status, headers, body = raw_post(shared_http(github), None, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert status == 200, body
    assert headers["content-type"] == "application/json"
    assert len(body["result"]["tools"]) == github.tool_count() and "nextCursor" not in body["result"]


@pytest.fixture(scope="module")
def inspector_calls(request: pytest.FixtureRequest, ts_clients: None, shared_http: Callable[[Served], str],
                    tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, int], tuple[int, str, str]]:
    """(exit code, stdout, stderr) of one Inspector `tools/call` per case, over HTTP, a few at a time
    (each CLI call is a process of its own, about 1.5 s)."""
    catalog = tmp_path_factory.mktemp("inspector") / "catalog.json"
    jobs = {}
    for server in ("petstore", "github"):
        url = shared_http(_served(request, server))
        for index, case in enumerate(SERVERS[server]):
            jobs[server, index] = [url, "--method", "tools/call", "--tool-name", case.tool, *tool_args(case.arguments)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        runs = dict(zip(jobs, pool.map(lambda args: inspector(args, catalog), jobs.values()), strict=True))
    return {key: (run.returncode, run.stdout, run.stderr) for key, run in runs.items()}


@pytest.mark.parametrize(
    ("server", "index"),
    [pytest.param(s, i, id=f"{s}-{i}-{c.tool}") for s in ("petstore", "github") for i, c in enumerate(SERVERS[s])],
)
def test_inspector_call_is_accepted(inspector_calls: dict[tuple[str, int], tuple[int, str, str]], server: str,
                                    index: int) -> None:
    """Exit 0 for a success, 5 for an isError result; anything else is the Inspector refusing it."""
    case = SERVERS[server][index]
    code, stdout, stderr = inspector_calls[server, index]
    assert code == (5 if case.fails else 0), f"[{case.why}] exit {code}:\n{stdout[-1500:]}\n{stderr[-1500:]}"
    result = json.loads(stdout)
    assert result["isError"] is case.fails
