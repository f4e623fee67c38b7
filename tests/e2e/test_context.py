"""End to end: Python tools that take the SDK's `Context` (written as for MCPServer) in a
generated server, driven by real clients in both protocol eras, over stdio and HTTP.

The module below is generated with `mcpgen from-python`, a resource bound in mcpgen.toml,
then served: over stdio (one process per client), over HTTP with sessions (what a
2025-11-25 client needs to be asked anything mid-call) and over stateless HTTP (the
default; 2026-07-28 asks through input-required rounds, so it needs no session).

Checked for each: progress notifications arrive, log messages arrive at the level asked
for (and only then on 2026-07-28), redacted; elicitation accepted, declined and cancelled;
two questions in one call; sampling; `ctx.read_resource` of the server's own resource; a
client without the capability and a stateless 2025-11-25 request get a clean isError.
The TypeScript clients (1.x and 2.x) do the same through `tests/clients/ts_client.mjs`.
Sealed request state is checked across two replicas sharing `PREFIX_REQUEST_STATE_KEY`.
"""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, ClientSession, MCPError, StdioServerParameters, stdio_client, types

from tests.clients.harness import run_client, stdio_target
from tests.npm import ensure_installed, package_path

from .conftest import API_KEY, http_server, server_env
from .faults import FaultyUpstream
from .projects import run_cli

pytestmark = pytest.mark.anyio

PACKAGE = "desk_mcp"
SECRET = "s3cret-desk-value-1234567890"  # DESK_API_SECRET: named like a secret, so redacted
HANG_GUARD = 120.0  # not a speed limit: a call unanswered this long means a hung server
MODULE = '''\
    """Front desk: tools that use the request's context."""

    from __future__ import annotations

    import os

    import anyio
    from mcp import types
    from mcp.server.mcpserver import Context
    from pydantic import BaseModel

    __all__ = ["add", "ask_twice", "book", "chatty", "count", "motd", "summarize"]


    class Booking(BaseModel):
        seats: int
        name: str


    class Confirm(BaseModel):
        ok: bool


    def add(a: int, b: int) -> int:
        """No context: generated as before."""
        return a + b


    async def count(n: int, ctx: Context) -> int:
        """Counts to n, reporting progress."""
        for i in range(1, n + 1):
            await ctx.report_progress(i, n, f"step {i}")
            await anyio.sleep(0.02)  # the step's work (TS 1.x drops progress that ties with the result)
        return n


    async def chatty(ctx: Context) -> str:
        """Logs at three levels."""
        await ctx.debug("debug line")
        await ctx.info("info line")
        await ctx.warning(f"the key is {os.environ['DESK_API_SECRET']}")
        return "logged"


    async def book(show: str, ctx: Context) -> dict[str, object]:
        """Asks how many seats."""
        answer = await ctx.elicit(f"Seats for {show}? (key {os.environ['DESK_API_SECRET']})", Booking)
        if answer.action == "accept":
            return {"show": show, "seats": answer.data.seats, "name": answer.data.name}
        return {"show": show, "seats": 0, "action": answer.action}


    async def ask_twice(ctx: Context) -> str:
        """Two questions in one call."""
        first = await ctx.elicit("First?", Confirm)
        second = await ctx.elicit("Second?", Confirm)
        return f"{first.action}/{second.action}"


    async def summarize(text: str, ctx: Context) -> str:
        """Asks the client's model."""
        message = types.SamplingMessage(role="user", content=types.TextContent(type="text", text=text))
        result = await ctx.session.create_message(messages=[message], max_tokens=50)
        return result.content.text if isinstance(result.content, types.TextContent) else "?"


    async def motd(ctx: Context) -> str:
        """Reads the server's own resource."""
        contents = list(await ctx.read_resource("desk://motd"))
        return f"{contents[0].mime_type}: {contents[0].content}"


    def motd_text() -> str:
        """The message of the day."""
        return "Welcome to the desk"
'''
RESOURCES = '''
[[resources]]
function = "motd_text"
uri = "desk://motd"
name = "motd"
mime_type = "text/plain"
'''


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("context")
    source = root / "desk.py"
    source.write_text(textwrap.dedent(MODULE), encoding="utf-8")
    out = root / "out"
    run_cli("from-python", str(source), "-o", str(out), "--name", "desk")
    with (out / "mcpgen.toml").open("a", encoding="utf-8") as project_file:
        project_file.write(RESOURCES)
    run_cli("regenerate", str(out))
    return out


def env_for(project: Path, **extra: str) -> dict[str, str]:
    return server_env(project, DESK_API_SECRET=SECRET, **extra)


@pytest.fixture(scope="module")
def log_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("context-logs")


@pytest.fixture(scope="module")
def sessions_url(project: Path, log_dir: Path) -> Iterator[str]:
    with http_server(PACKAGE, env_for(project, DESK_HTTP_SESSIONS="1"), log_dir / "sessions.log") as port:
        yield f"http://127.0.0.1:{port}/mcp"


@pytest.fixture(scope="module")
def stateless_url(project: Path, log_dir: Path) -> Iterator[str]:
    with http_server(PACKAGE, env_for(project), log_dir / "stateless.log") as port:
        yield f"http://127.0.0.1:{port}/mcp"


class Answers:
    """What the client answers, and what it was sent."""

    def __init__(self) -> None:
        self.action: str = "accept"
        self.content: dict[str, Any] = {"seats": 2, "name": "Ada"}
        self.elicitations: list[str] = []
        self.samplings: list[str] = []
        self.logs: list[tuple[str, Any]] = []

    async def elicit(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.elicitations.append(params.message)
        if self.action != "accept":
            return types.ElicitResult(action=self.action)  # type: ignore[arg-type]
        content = self.content if "Seats" in params.message else {"ok": True}
        return types.ElicitResult(action="accept", content=content)

    async def sample(self, context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        content = params.messages[0].content
        self.samplings.append(content.text if isinstance(content, types.TextContent) else "")
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text="a short summary"), model="test-model"
        )

    async def log(self, params: types.LoggingMessageNotificationParams) -> None:
        self.logs.append((params.level, params.data))


TARGETS = [
    ("stdio", "legacy"),
    ("stdio", "auto"),
    ("sessions", "legacy"),
    ("sessions", "auto"),
    ("stateless", "auto"),
]


@asynccontextmanager
async def client(
    request: pytest.FixtureRequest,
    target: str,
    mode: str,
    answers: Answers,
    *,
    capable: bool = True,
    log_level: types.LoggingLevel | None = "info",
) -> AsyncIterator[Client]:
    """A connected `mcp.Client` (legacy: the 2025-11-25 handshake; auto: 2026-07-28)."""
    project: Path = request.getfixturevalue("project")
    if target == "stdio":
        params = StdioServerParameters(command=sys.executable, args=["-m", PACKAGE], env=env_for(project))
        transport: Any = stdio_client(params)
    else:
        transport = request.getfixturevalue(f"{target}_url")
    callbacks: dict[str, Any] = {"logging_callback": answers.log}
    if capable:
        callbacks.update(elicitation_callback=answers.elicit, sampling_callback=answers.sample)
    # 2026-07-28 asks for logs per request (log_level); 2025-11-25 by logging/setLevel.
    modern_level = log_level if mode == "auto" else None
    async with Client(transport, mode=mode, cache=None, log_level=modern_level, **callbacks) as connected:  # type: ignore[arg-type]
        if mode == "legacy" and log_level is not None:
            await connected.set_logging_level(log_level)
        yield connected


async def call(connected: Client, name: str, arguments: dict[str, Any], **options: Any) -> types.CallToolResult:
    with anyio.fail_after(HANG_GUARD):
        return await connected.call_tool(name, arguments, **options)


def data(result: types.CallToolResult) -> Any:
    """A dict-returning tool's value (served wrapped: `dict[str, object]` is no object schema)."""
    assert result.structured_content is not None, result
    return result.structured_content["result"]


def text(result: types.CallToolResult) -> str:
    first = result.content[0]
    assert isinstance(first, types.TextContent)
    return first.text


@pytest.mark.parametrize(("target", "mode"), TARGETS)
async def test_context_features(request: pytest.FixtureRequest, target: str, mode: str) -> None:
    answers = Answers()
    async with client(request, target, mode, answers) as connected:
        expected = "2026-07-28" if mode == "auto" else "2025-11-25"
        assert connected.session.protocol_version == expected

        # The context parameter is no tool argument; a function without one is unchanged.
        tools = {tool.name: tool for tool in (await connected.list_tools()).tools}
        assert set(tools["count"].input_schema["properties"]) == {"n"}
        assert set(tools["motd"].input_schema.get("properties", {})) == set()
        assert (await call(connected, "add", {"a": 2, "b": 3})).structured_content == {"result": 5}
        refused = await call(connected, "count", {"n": 1, "ctx": {}})
        assert refused.is_error and "ctx" in text(refused)

        progress: list[tuple[float, float | None, str | None]] = []

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            progress.append((done, total, message))

        counted = await call(connected, "count", {"n": 3}, progress_callback=on_progress)
        assert counted.structured_content == {"result": 3}
        assert progress == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]

        assert text(await call(connected, "chatty", {})) == "logged"
        await anyio.sleep(0.2)  # notifications ride the call's stream, ahead of its result; slack for stdio
        assert answers.logs == [("info", "info line"), ("warning", "the key is [redacted]")]

        booked = await call(connected, "book", {"show": "Hamlet"})
        assert data(booked) == {"show": "Hamlet", "seats": 2, "name": "Ada"}
        assert answers.elicitations == ["Seats for Hamlet? (key [redacted])"]
        for action in ("decline", "cancel"):
            answers.action = action
            result = await call(connected, "book", {"show": "Lear"})
            assert not result.is_error
            assert data(result) == {"show": "Lear", "seats": 0, "action": action}
        answers.action = "accept"
        answers.elicitations.clear()
        assert text(await call(connected, "ask_twice", {})) == "accept/accept"
        assert answers.elicitations == ["First?", "Second?"]

        assert text(await call(connected, "summarize", {"text": f"summarize {SECRET}"})) == "a short summary"
        assert answers.samplings == ["summarize [redacted]"]

        assert text(await call(connected, "motd", {})) == "text/plain: Welcome to the desk"


@pytest.mark.parametrize(("target", "mode"), [("stdio", "legacy"), ("stdio", "auto"), ("stateless", "auto")])
async def test_a_client_without_the_capability_gets_a_clean_error(
    request: pytest.FixtureRequest, target: str, mode: str
) -> None:
    answers = Answers()
    async with client(request, target, mode, answers, capable=False) as connected:
        for name, arguments, what in [
            ("book", {"show": "Hamlet"}, "elicitation"),
            ("summarize", {"text": "x"}, "sampling"),
        ]:
            result = await call(connected, name, arguments)
            assert result.is_error
            assert text(result).startswith(f"ClientUnsupported: the client does not support {what}")
    assert answers.elicitations == answers.samplings == []


async def test_modern_logs_only_when_asked(request: pytest.FixtureRequest) -> None:
    answers = Answers()
    async with client(request, "stateless", "auto", answers, log_level=None) as connected:
        assert text(await call(connected, "chatty", {})) == "logged"
    assert answers.logs == []
    answers = Answers()
    async with client(request, "stateless", "auto", answers, log_level="debug") as connected:
        assert text(await call(connected, "chatty", {})) == "logged"
    assert [level for level, _ in answers.logs] == ["debug", "info", "warning"]


async def test_stateless_http_refuses_a_2025_client_cleanly(request: pytest.FixtureRequest) -> None:
    """No channel back on a stateless request: progress and logs still arrive, questions are refused."""
    answers = Answers()
    async with client(request, "stateless", "legacy", answers) as connected:
        progress: list[float] = []

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            progress.append(done)

        assert (await call(connected, "count", {"n": 2}, progress_callback=on_progress)).structured_content == {
            "result": 2
        }
        assert progress == [1, 2]
        refused = await call(connected, "book", {"show": "Hamlet"})
        assert refused.is_error
        assert "DESK_HTTP_SESSIONS=1" in text(refused) and "stateless HTTP" in text(refused)
    assert answers.elicitations == []


async def test_json_responses_carry_no_notifications(project: Path, log_dir: Path) -> None:
    answers = Answers()
    env = env_for(project, DESK_HTTP_RESPONSE="json")
    with http_server(PACKAGE, env, log_dir / "json.log") as port:
        async with Client(f"http://127.0.0.1:{port}/mcp", cache=None, log_level="info",
                          logging_callback=answers.log, elicitation_callback=answers.elicit) as connected:
            progress: list[float] = []

            async def on_progress(done: float, total: float | None, message: str | None) -> None:
                progress.append(done)

            assert (await call(connected, "count", {"n": 2}, progress_callback=on_progress)).structured_content
            assert text(await call(connected, "chatty", {})) == "logged"
            booked = await call(connected, "book", {"show": "Hamlet"})  # input-required needs no stream
            assert data(booked) == {"show": "Hamlet", "seats": 2, "name": "Ada"}
    assert progress == [] and answers.logs == []


# -- sealed request state across replicas ---------------------------------------------------


@asynccontextmanager
async def raw_session(url: str) -> AsyncIterator[ClientSession]:
    """A 2026-07-28 ClientSession that leaves input-required rounds to the test."""
    async with Client(url, cache=None, elicitation_callback=Answers().elicit) as connected:
        yield connected.session


async def test_request_state_crosses_replicas_with_a_shared_key(project: Path, log_dir: Path) -> None:
    key = "k" * 40
    shared = env_for(project, DESK_REQUEST_STATE_KEY=key)
    other = env_for(project, DESK_REQUEST_STATE_KEY="o" * 40)
    with (
        http_server(PACKAGE, shared, log_dir / "replica-a.log") as a,
        http_server(PACKAGE, shared, log_dir / "replica-b.log") as b,
        http_server(PACKAGE, other, log_dir / "replica-c.log") as c,
    ):
        async with raw_session(f"http://127.0.0.1:{a}/mcp") as first:
            asked = await first.call_tool("book", {"show": "Hamlet"}, allow_input_required=True)
        assert isinstance(asked, types.InputRequiredResult)
        assert asked.input_requests is not None and asked.request_state is not None
        [(question_key, question)] = asked.input_requests.items()
        assert isinstance(question, types.ElicitRequest)
        assert question.params.message == "Seats for Hamlet? (key [redacted])"
        assert "Hamlet" not in asked.request_state  # sealed: encrypted, not just signed
        reply = {question_key: types.ElicitResult(action="accept", content={"seats": 4, "name": "Bo"})}
        async with raw_session(f"http://127.0.0.1:{b}/mcp") as second:
            done = await second.call_tool(
                "book", {"show": "Hamlet"}, input_responses=reply, request_state=asked.request_state
            )
            assert data(done) == {"show": "Hamlet", "seats": 4, "name": "Bo"}
            with pytest.raises(MCPError) as changed:  # bound to the tool's arguments
                await second.call_tool(
                    "book", {"show": "Othello"}, input_responses=reply, request_state=asked.request_state
                )
            assert changed.value.error.message == "Invalid or expired requestState"
        async with raw_session(f"http://127.0.0.1:{c}/mcp") as third:
            with pytest.raises(MCPError) as foreign:
                await third.call_tool("book", {"show": "Hamlet"}, input_responses=reply, request_state=asked.request_state)
            assert foreign.value.error.message == "Invalid or expired requestState"


# -- TypeScript clients ------------------------------------------------------------------


@pytest.fixture(scope="module")
def node_ready() -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed (tests/npm.py makes this a failure in CI)")
    ensure_installed(package_path("@modelcontextprotocol/sdk", "package.json"),
                     package_path("@modelcontextprotocol/client", "package.json"))


TS_CALLS = [
    {"name": "count", "arguments": {"n": 3}, "progress": True},
    {"name": "chatty", "arguments": {}},
    {"name": "book", "arguments": {"show": "Hamlet"}},
    {"name": "summarize", "arguments": {"text": "hello"}},
    {"name": "motd", "arguments": {}},
]
TS_ANSWERS = {
    "elicit": {"action": "accept", "content": {"seats": 3, "name": "Cy"}},
    "sample": "ts summary",
    "logLevel": "info",
}


@pytest.mark.parametrize(("sdk", "target"), [("ts-v1", "stdio"), ("ts-v1", "sessions"), ("ts-v2", "stdio"),
                                             ("ts-v2", "sessions")])
def test_typescript_clients(request: pytest.FixtureRequest, node_ready: None, project: Path, sdk: str,
                            target: str) -> None:
    where = stdio_target(PACKAGE) if target == "stdio" else [request.getfixturevalue(f"{target}_url")]
    report = run_client(sdk, TS_CALLS, where, env_for(project), answers=TS_ANSWERS)
    calls = {entry["name"]: entry for entry in report["calls"]}
    assert all(entry["ok"] and not entry["isError"] for entry in calls.values()), report
    assert calls["count"]["progress"] == [1, 2, 3]
    assert calls["chatty"]["texts"] == ["logged"]
    assert report["logs"] == ["info line", "the key is [redacted]"], report
    assert json.loads(calls["book"]["texts"][0]) == {"show": "Hamlet", "seats": 3, "name": "Cy"}
    assert report["elicitations"] == ["Seats for Hamlet? (key [redacted])"]
    assert calls["summarize"]["texts"] == ["ts summary"]
    assert report["samplings"] == ["hello"]
    assert calls["motd"]["texts"] == ["text/plain: Welcome to the desk"]


@pytest.mark.parametrize("sdk", ["ts-v1", "ts-v2"])
def test_typescript_clients_on_stateless_http(request: pytest.FixtureRequest, node_ready: None, project: Path,
                                              sdk: str) -> None:
    """Both negotiate 2025-11-25 by default: progress and logs arrive, questions are refused cleanly."""
    report = run_client(sdk, TS_CALLS, [request.getfixturevalue("stateless_url")], env_for(project),
                        answers=TS_ANSWERS)
    assert report["protocolVersion"] == "2025-11-25"
    calls = {entry["name"]: entry for entry in report["calls"]}
    assert calls["count"]["progress"] == [1, 2, 3]
    # logging/setLevel lasts as long as its connection: a stateless request is one, so every level comes.
    assert report["logs"] == ["debug line", "info line", "the key is [redacted]"], report
    for name in ("book", "summarize"):
        assert calls[name]["ok"] and calls[name]["isError"], report
        assert "DESK_HTTP_SESSIONS=1" in calls[name]["texts"][0]
    assert report["elicitations"] == report["samplings"] == []
    assert calls["motd"]["texts"] == ["text/plain: Welcome to the desk"]


# -- OpenAPI tools: heartbeat progress while the upstream is slow ----------------------------


@pytest.mark.parametrize(("transport", "mode"), [("stdio", "legacy"), ("stdio", "auto"), ("http", "legacy"),
                                                 ("http", "auto")])
async def test_openapi_tools_send_heartbeat_progress(generated: Path, log_dir: Path, transport: str,
                                                     mode: str) -> None:
    """A client that sent a progressToken hears from a call waiting on a slow upstream."""
    upstream = FaultyUpstream().start()
    env = server_env(generated, PETSTORE_BASE_URL=upstream.base_url, PETSTORE_API_KEY=API_KEY,
                     PETSTORE_PROGRESS_INTERVAL="0.1")
    beats: list[tuple[float, float | None, str | None]] = []
    two_beats = anyio.Event()

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        beats.append((done, total, message))
        if len(beats) >= 2:
            two_beats.set()

    async def slow_call(connected: Client) -> None:
        with anyio.fail_after(HANG_GUARD):
            async with anyio.create_task_group() as group:
                results: list[types.CallToolResult] = []

                async def run() -> None:
                    results.append(await connected.call_tool("getPetById", {"petId": 1001},
                                                             progress_callback=on_progress))

                group.start_soon(run)
                await two_beats.wait()  # while the call still waits: the upstream holds it
                upstream.release()
            assert not results[0].is_error
        quick = await connected.call_tool("getPetById", {"petId": 1}, progress_callback=on_progress)
        assert not quick.is_error

    try:
        if transport == "stdio":
            params = StdioServerParameters(command=sys.executable, args=["-m", "petstore_mcp"], env=env)
            async with Client(stdio_client(params), mode=mode, cache=None) as connected:  # type: ignore[arg-type]
                await slow_call(connected)
        else:
            with http_server("petstore_mcp", env, log_dir / f"heartbeat-{mode}.log") as port:
                async with Client(f"http://127.0.0.1:{port}/mcp", mode=mode, cache=None) as connected:  # type: ignore[arg-type]
                    await slow_call(connected)
    finally:
        upstream.stop()
    assert beats[:2] == [(1, None, "waiting for the upstream API (0.1 s)"),
                         (2, None, "waiting for the upstream API (0.2 s)")]
    assert all(total is None for _, total, _ in beats)  # nothing after the quick call's answer
