"""End to end: `--tool-mode code` on samples/petstore.yaml, against the real local upstream.

The server lists two tools, `search` (operations as typed Python signatures, BM25-ranked)
and `execute` (the model's Python in a pydantic-monty sandbox). Multi-step code runs its
operations against the upstream; every guard of a direct tools/call applies to each
operation inside execute (a denied operation, a rate limit, a destructive operation needing
confirmation, a secret echoed by the upstream); hostile code is refused or bounded and the
server keeps answering. Python mcp client over stdio (both eras) and stateless HTTP; the TS
SDK clients over stdio.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, ClientSession, StdioServerParameters, stdio_client, types

from mcpgen.api import generate_openapi
from mcpgen.options import Options, ToolOverride
from tests.clients.harness import run_client, stdio_target

from .conftest import API_KEY, PACKAGE, PETSTORE, http_server, shared_env
from .upstream import Upstream

pytestmark = pytest.mark.anyio
HANG_GUARD = 120.0  # not a speed limit: a call unanswered this long means a hung server

MULTI_STEP = """
pets = findPetsByStatus(status=["available"])
quantities = []
for pet in pets:
    order = getOrderById(orderId=pet["id"])
    quantities.append(order["quantity"])
print("pets:", len(pets))
{"names": [pet["name"] for pet in pets], "quantities": quantities, "inventory": getInventory()}
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("code") / "petstore-mcp"
    overrides = (ToolOverride(key="deletePet", confirm=True),)
    generate_openapi(PETSTORE, Options(output=out, force=True, tool_mode="code", overrides=overrides))
    pyproject = (out / "pyproject.toml").read_text(encoding="utf-8")
    assert '"pydantic-monty>=1.4,<1.5"' in pyproject  # the sandbox's API changes between minors
    readme = (out / "README.md").read_text(encoding="utf-8")
    assert "## Code mode" in readme and "PETSTORE_CODE_MAX_CALLS" in readme
    return out


@pytest.fixture(scope="module")
def http_url(project: Path, upstream: Upstream, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("code-logs") / "http.log"
    with http_server(PACKAGE, shared_env(project, upstream), log) as port:
        yield f"http://127.0.0.1:{port}/mcp"


@asynccontextmanager
async def client(
    project: Path, upstream: Upstream, target: str = "stdio", elicit: Any = None, **env: str
) -> AsyncIterator[Client]:
    if target == "stdio":
        params = StdioServerParameters(
            command=sys.executable, args=["-m", PACKAGE], env={**shared_env(project, upstream), **env}
        )
        transport: Any = stdio_client(params)
    else:
        transport = target
    callbacks = {"elicitation_callback": elicit} if elicit is not None else {}
    async with Client(transport, cache=None, **callbacks) as connected:
        yield connected


async def execute(connected: Client | ClientSession, code: str) -> types.CallToolResult:
    with anyio.fail_after(HANG_GUARD):
        return await connected.call_tool("execute", {"code": code})


def text(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


@pytest.mark.parametrize("target", ["stdio", "http"])
async def test_two_tools_search_and_multi_step_execute(
    request: pytest.FixtureRequest, project: Path, upstream: Upstream, target: str
) -> None:
    where = "stdio" if target == "stdio" else request.getfixturevalue("http_url")
    async with client(project, upstream, where) as connected:
        listed = await connected.list_tools()
        assert [t.name for t in listed.tools] == ["search", "execute"]
        found = await connected.call_tool("search", {"query": "find pets by status", "limit": 3})
        assert not found.is_error
        assert found.structured_content is not None
        names = [op["name"] for op in found.structured_content["operations"]]
        assert names[0] == "findPetsByStatus"
        assert "def findPetsByStatus(*, status: list[Literal['available', 'pending', 'sold']]" in text(found)
        assert "Returns:" in text(found)
        order = await connected.call_tool("search", {"query": "place an order for a pet", "limit": 1})
        assert order.structured_content is not None
        assert order.structured_content["operations"][0]["name"] == "placeOrder"
        upstream.clear()
        result = await execute(connected, MULTI_STEP)
    assert not result.is_error, text(result)
    assert result.structured_content == {
        "names": ["Rex", "Tom"], "quantities": [2, 2], "inventory": {"available": 2, "sold": 1}
    }
    assert text(result).startswith("pets: 2\n")
    paths = [r.path.split("/api/v3", 1)[1] for r in upstream.requests]
    assert paths == ["/pet/findByStatus", "/store/order/1", "/store/order/2", "/store/inventory"]


async def test_each_operation_is_audited_and_errors_name_line_and_operation(
    project: Path, upstream: Upstream
) -> None:
    async with client(project, upstream) as connected:
        result = await execute(connected, "x = getPetById(petId=1)\ny = getPetById(petId=500)\n")
    assert result.is_error
    message = text(result)
    assert "line 2: y = getPetById(petId=500)" in message
    assert "getPetById failed: HTTP 500" in message and "operation: getPetById" in message


def audit_lines(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{") and '"event"' in line]


@asynccontextmanager
async def served(
    project: Path, upstream: Upstream, target: str, log: Path, mode: str = "auto", **env: str
) -> AsyncIterator[Client]:
    """A server of its own over `target`, its stderr (audit lines) in `log`; `mode="legacy"` for
    the 2025-11-25 era, which still has ping."""
    environment = {**shared_env(project, upstream), **env}
    if target == "http":
        with http_server(PACKAGE, environment, log) as port:
            async with Client(f"http://127.0.0.1:{port}/mcp", cache=None, mode=mode) as connected:
                yield connected
        return
    params = StdioServerParameters(command=sys.executable, args=["-m", PACKAGE], env=environment)
    with log.open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog), cache=None, mode=mode) as connected:
            yield connected


@pytest.mark.parametrize("target", ["stdio", "http"])
async def test_one_audit_line_per_operation_inside_execute(
    project: Path, upstream: Upstream, tmp_path: Path, target: str
) -> None:
    log = tmp_path / "audit.log"
    code = "getPetById(petId=1)\ngetInventory()\ngetPetById(petId=500)"
    async with served(project, upstream, target, log, PETSTORE_TOOLS_DENY="getOrderById") as connected:
        result = await execute(connected, code)
        refused = await execute(connected, "getOrderById(orderId=1)")
    assert result.is_error and refused.is_error
    summary = [(line["tool"], line["outcome"]) for line in audit_lines(log) if line["event"] == "tool_call"]
    assert summary == [
        ("getPetById", "ok"),
        ("getInventory", "ok"),
        ("getPetById", "error"),
        ("execute", "error"),  # the execute's own line, after its operations'
        ("getOrderById", "refused"),
        ("execute", "error"),
    ]


@pytest.mark.parametrize("target", ["stdio", "http"])
async def test_ping_and_tools_list_are_answered_while_execute_runs(
    project: Path, upstream: Upstream, tmp_path: Path, target: str
) -> None:
    """The sandbox runs in a worker process the server awaits: a long loop blocks nothing."""
    events: list[str] = []
    running = anyio.Event()

    async def progress(done: float, total: float | None, message: str | None) -> None:
        running.set()  # the first operation call: execute is under way, its loop next

    # The loop runs until the sandbox's time limit; everything else is answered meanwhile.
    code = "getInventory()\nwhile True:\n    pass"
    log = tmp_path / "server.log"
    async with served(project, upstream, target, log, "legacy", PETSTORE_CODE_TIMEOUT="5") as connected:

        async def run() -> None:
            with anyio.fail_after(HANG_GUARD):
                result = await connected.call_tool("execute", {"code": code}, progress_callback=progress)
            assert result.is_error and "TimeoutError" in text(result), text(result)
            events.append("execute")

        async with anyio.create_task_group() as group:
            group.start_soon(run)
            with anyio.fail_after(HANG_GUARD):
                await running.wait()
                await connected.send_ping()
                events.append("ping")
                listed = await connected.list_tools()
                events.append("tools/list")
                found = await connected.call_tool("search", {"query": "inventory", "limit": 1})
                events.append("search")
        assert [t.name for t in listed.tools] == ["search", "execute"]
        assert not found.is_error
        assert events == ["ping", "tools/list", "search", "execute"]
        await connected.send_ping()


async def test_a_denied_operation_is_refused_inside_execute(project: Path, upstream: Upstream) -> None:
    upstream.clear()
    async with client(project, upstream, PETSTORE_TOOLS_DENY="getInventory") as connected:
        found = await connected.call_tool("search", {"query": "inventory"})
        assert found.structured_content is not None
        assert "getInventory" not in [op["name"] for op in found.structured_content["operations"]]
        result = await execute(connected, "getPetById(petId=1)\ngetInventory()")
    assert result.is_error
    assert "line 2" in text(result) and "getInventory" in text(result)
    assert [r.path.split("/api/v3", 1)[1] for r in upstream.requests] == ["/pet/1"]


async def test_a_per_operation_rate_limit_applies_inside_execute(project: Path, upstream: Upstream) -> None:
    upstream.clear()
    async with client(project, upstream, PETSTORE_RATE_LIMIT_GETPETBYID="1/min") as connected:
        result = await execute(connected, "a = getPetById(petId=1)\nb = getPetById(petId=1)")
    assert result.is_error and "line 2" in text(result) and "rate limit" in text(result).lower()
    assert len(upstream.requests) == 1


async def test_the_operation_call_limit_is_a_clear_error(project: Path, upstream: Upstream) -> None:
    async with client(project, upstream, PETSTORE_CODE_MAX_CALLS="3") as connected:
        result = await execute(connected, "for i in range(10):\n    getInventory()")
    assert result.is_error and "PETSTORE_CODE_MAX_CALLS=3" in text(result)


async def test_a_secret_echoed_by_the_upstream_is_redacted(project: Path, upstream: Upstream) -> None:
    async with client(project, upstream) as connected:
        # The upstream echoes the category id; the code sends it the API key it cannot read
        # any other way than by guessing: here the test hands it in.
        result = await execute(connected, f"c = getCategory(id={API_KEY!r})\nprint(c)\nc")
    assert not result.is_error, text(result)
    assert API_KEY not in text(result)
    assert API_KEY not in json.dumps(result.structured_content)
    assert "[redacted]" in text(result)


@pytest.mark.parametrize("answer", ["accept", "decline", "none"])
async def test_a_destructive_operation_asks_the_user_inside_execute(
    project: Path, upstream: Upstream, answer: str
) -> None:
    asked: list[str] = []

    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        if answer == "decline":
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content={"confirmed": True})

    upstream.clear()
    params = StdioServerParameters(command=sys.executable, args=["-m", PACKAGE], env=shared_env(project, upstream))
    callbacks: dict[str, Any] = {"elicitation_callback": elicit} if answer != "none" else {}
    # 2025-11-25: the question is asked while execute waits, on the call's own stream.
    async with stdio_client(params) as (read, write), ClientSession(read, write, **callbacks) as session:
        await session.initialize()
        result = await execute(session, "deletePet(petId=1)\n'deleted'")
    deletes = [r.path for r in upstream.requests if r.method == "DELETE"]
    if answer == "accept":
        assert not result.is_error, text(result)
        assert deletes == ["/api/v3/pet/1"] and len(asked) == 1 and "DELETE /pet/1" in asked[0]
    else:
        assert result.is_error and "deletePet" in text(result) and deletes == []


async def test_on_2026_07_28_a_confirmation_inside_execute_is_refused(project: Path, upstream: Upstream) -> None:
    """That era asks with an InputRequiredResult on a later round, which code cannot wait for."""

    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"confirmed": True})

    upstream.clear()
    async with client(project, upstream, elicit=elicit) as connected:
        result = await execute(connected, "deletePet(petId=1)")
    assert result.is_error and "deletePet" in text(result)
    assert [r for r in upstream.requests if r.method == "DELETE"] == []


HOSTILE = {
    "import": ("import socket\nsocket.socket()", "ModuleNotFoundError"),
    "import os": ("import os\nos.listdir('/')", "PermissionError"),
    "environment": ("import os\nos.environ['PETSTORE_API_KEY']", "Error"),
    "file": ("open('/etc/passwd').read()", "PermissionError"),
    "attribute walk": ("().__class__.__base__.__subclasses__()", "AttributeError"),
    "builtins": ("__builtins__.__import__('os')", "NameError"),
    "function internals": ("getPetById.__globals__", "Error"),
    "infinite loop": ("while True:\n    pass", "TimeoutError"),
    "memory bomb": ("x = 'a' * (10 ** 10)", "MemoryError"),
    "growing memory": ("x = []\nwhile True:\n    x.append('a' * 100000)", "MemoryError"),
    "deep recursion": ("def f(n):\n    return f(n + 1)\nf(0)", "RecursionError"),
    "clock": ("import time\ntime.time()", "not supported"),
    "positional arguments": ("getPetById(1)", "keyword arguments only"),
    "hostile arguments": ("getPetById(petId='1/../../admin/reset')", "Invalid arguments"),
    "unknown argument": ("getPetById(petId=1, evil='x' * 100000)", "Invalid arguments"),
    "syntax": ("def (:", "SyntaxError"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
async def test_hostile_code_is_refused_or_bounded_and_the_server_stays_up(
    project: Path, upstream: Upstream, case: str
) -> None:
    code, expected = HOSTILE[case]
    upstream.clear()
    env = {**shared_env(project, upstream), "PETSTORE_CODE_TIMEOUT": "1", "PETSTORE_CODE_MAX_MEMORY": "20MB"}
    params = StdioServerParameters(command=sys.executable, args=["-m", PACKAGE], env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        async with anyio.create_task_group() as group:
            pings: list[bool] = []

            async def ping_meanwhile() -> None:
                await session.send_ping()
                pings.append(True)

            group.start_soon(ping_meanwhile)
            result = await execute(session, code)
        assert result.is_error, text(result)
        assert expected in text(result), text(result)
        assert pings == [True]
        await session.send_ping()
        after = await execute(session, "1 + 1")
        assert not after.is_error and text(after) == "2"
    assert [r for r in upstream.requests if "admin" in r.path] == []


async def test_huge_output_is_cut(project: Path, upstream: Upstream) -> None:
    async with client(project, upstream, PETSTORE_CODE_MAX_OUTPUT="1000") as connected:
        printed = await execute(connected, "for i in range(100000):\n    print('x' * 100)")
        returned = await execute(connected, "['y' * 100 for i in range(1000)]")
    assert not printed.is_error and len(text(printed)) < 1100 and "[output cut]" in text(printed)
    assert not returned.is_error and len(text(returned)) < 1100 and "result cut" in text(returned)


@pytest.mark.parametrize("client_name", ["ts-v1", "ts-v2"])
def test_typescript_clients_search_and_execute(project: Path, upstream: Upstream, client_name: str) -> None:
    calls = [
        {"name": "search", "arguments": {"query": "pet by id", "limit": 1}},
        {"name": "execute", "arguments": {"code": MULTI_STEP}},
        {"name": "execute", "arguments": {"code": "import os\nos.listdir('/')"}},
    ]
    report = run_client(client_name, calls, stdio_target(PACKAGE), shared_env(project, upstream))
    assert report["listError"] is None, report
    searched, executed, refused = report["calls"]
    assert searched["isError"] is False and "def getPetById(" in searched["texts"][0]
    assert executed["isError"] is False and executed["structured"] is True, executed
    assert '"Rex"' in executed["texts"][0]
    assert refused["isError"] is True and "PermissionError" in refused["texts"][0]


# -- OAuth scopes: per operation inside execute, not per execute ----------------------------


@pytest.fixture(scope="module")
def oauth_setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any, Any]]:
    from .conftest import server_env
    from .oauth_server import AuthServer
    from .test_oauth import PACKAGE as OAUTH_PACKAGE
    from .test_oauth import SPEC as OAUTH_SPEC
    from .test_oauth import Upstream as OAuthUpstream
    from .test_oauth import oauth_env

    out = tmp_path_factory.mktemp("code-oauth") / "scoped-pets-mcp"
    generate_openapi(OAUTH_SPEC, Options(output=out, force=True, tool_mode="code"))
    auth_server, pets = AuthServer().start(), OAuthUpstream().start()
    log = tmp_path_factory.mktemp("code-logs") / "oauth.log"
    try:
        with http_server(OAUTH_PACKAGE, server_env(out, **oauth_env(auth_server, pets)), log) as port:
            yield f"http://127.0.0.1:{port}/mcp", auth_server, pets
    finally:
        auth_server.stop()
        pets.stop()


async def test_a_missing_scope_refuses_that_operation_inside_execute(oauth_setup: tuple[str, Any, Any]) -> None:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    url, auth_server, pets = oauth_setup
    headers = {"Authorization": "Bearer " + auth_server.token(url, "pets:read")}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        Client(streamable_http_client(url, http_client=http), cache=None) as connected,  # type: ignore[arg-type]
    ):
        found = await connected.call_tool("search", {"query": "pets"})
        assert found.structured_content is not None
        assert [op["name"] for op in found.structured_content["operations"]] == ["listPets"]  # addPet: not callable
        read = await execute(connected, "listPets()")
        assert not read.is_error, text(read)
        write = await execute(connected, "listPets()\naddPet(name='Tom')")
    assert write.is_error and "line 2" in text(write) and "pets:write" in text(write), text(write)
    assert [r.method for r in pets.requests] == ["GET", "GET"]


# -- a Python source: the module's functions are the operations ------------------------------


async def test_a_python_source_in_code_mode(tmp_path: Path) -> None:
    from mcpgen.api import generate_python

    from .conftest import server_env
    from .test_python_server import SAMPLE, SAMPLE_PACKAGE

    out = tmp_path / "tools-mcp"
    generate_python(str(SAMPLE), Options(output=out, force=True, tool_mode="code"))
    params = StdioServerParameters(command=sys.executable, args=["-m", SAMPLE_PACKAGE], env=server_env(out))
    async with Client(stdio_client(params), cache=None) as connected:
        assert [t.name for t in (await connected.list_tools()).tools] == ["search", "execute"]
        found = await connected.call_tool("search", {"query": "add an item to the inventory", "limit": 1})
        assert "def add_item(*, sku: str, name: str, category: Literal[" in text(found), text(found)
        code = (
            "add_item(sku='ABC-1234', name='Bolt', category='parts', quantity=3)\n"
            "left = adjust_stock(sku='ABC-1234', delta=-1)\n"
            "{'left': left}"
        )
        result = await execute(connected, code)
        assert not result.is_error, text(result)
        assert result.structured_content == {"left": 2}
        bad = await execute(connected, "add_item(sku='nope', name='', category='parts')")
        assert bad.is_error and "add_item failed: Invalid arguments" in text(bad), text(bad)
