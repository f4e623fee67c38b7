"""End to end: an OpenAPI tool configured with `confirm = true` (mcpgen.toml) asks the user
through elicitation before its upstream request, in both protocol eras.

samples/petstore.yaml is generated with `[tools.deletePet] confirm = true`, served over
stdio (2025-11-25 handshake and 2026-07-28) and stateless HTTP, against the real local
upstream. Accept sends the DELETE; decline and cancel give an isError result and send
nothing; a client without elicitation (or a stateless 2025-11-25 request, no channel back)
gets an isError refusal saying how to enable the call, and nothing is sent.

On 2026-07-28 a confirmation is the server's own question, answered once: an answer sent
before the server asked is ignored, one confirmation sent four times deletes once, one
for other arguments or another OAuth caller sends nothing; dynamic mode's call_tool asks
the same way (or refuses a client without elicitation).
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, MCPError, StdioServerParameters, stdio_client, types
from mcp.client.streamable_http import streamable_http_client

from mcpgen.api import generate_openapi
from mcpgen.options import Options, ToolOverride
from tests.clients.harness import run_client, stdio_target
from tests.npm import ensure_installed, package_path

from .conftest import PACKAGE, PETSTORE, http_server, server_env, shared_env
from .oauth_server import AuthServer
from .test_oauth import PACKAGE as OAUTH_PACKAGE
from .test_oauth import SPEC as OAUTH_SPEC
from .test_oauth import Upstream as OAuthUpstream
from .test_oauth import oauth_env
from .upstream import Upstream

pytestmark = pytest.mark.anyio

HANG_GUARD = 120.0  # not a speed limit: a call unanswered this long means a hung server


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("confirm") / "petstore-mcp"
    overrides = (ToolOverride(key="deletePet", confirm=True),)
    generate_openapi(PETSTORE, Options(output=out, force=True, overrides=overrides))
    assert "confirm = true" in (out / "mcpgen.toml").read_text(encoding="utf-8")
    return out


@pytest.fixture(scope="module")
def stateless_url(project: Path, upstream: Upstream, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("confirm-logs") / "stateless.log"
    with http_server(PACKAGE, shared_env(project, upstream), log) as port:
        yield f"http://127.0.0.1:{port}/mcp"


class User:
    """Answers the server's questions, and keeps them."""

    def __init__(self, action: str = "accept", confirmed: bool = True) -> None:
        self.action = action
        self.confirmed = confirmed
        self.asked: list[types.ElicitRequestParams] = []

    async def elicit(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.asked.append(params)
        if self.action != "accept":
            return types.ElicitResult(action=self.action)  # type: ignore[arg-type]
        return types.ElicitResult(action="accept", content={"confirmed": self.confirmed})


@asynccontextmanager
async def client(
    request: pytest.FixtureRequest, target: str, mode: str, user: User | None
) -> AsyncIterator[Client]:
    project: Path = request.getfixturevalue("project")
    upstream: Upstream = request.getfixturevalue("upstream")
    if target == "stdio":
        params = StdioServerParameters(
            command=sys.executable, args=["-m", PACKAGE], env=shared_env(project, upstream)
        )
        transport: Any = stdio_client(params)
    else:
        transport = request.getfixturevalue("stateless_url")
    callbacks = {"elicitation_callback": user.elicit} if user is not None else {}
    async with Client(transport, mode=mode, cache=None, **callbacks) as connected:  # type: ignore[arg-type]
        yield connected


async def delete(connected: Client) -> types.CallToolResult:
    with anyio.fail_after(HANG_GUARD):
        return await connected.call_tool("deletePet", {"petId": 1, "X-Reason": "adopted"})


def text(result: types.CallToolResult) -> str:
    first = result.content[0]
    assert isinstance(first, types.TextContent)
    return first.text


def deletes(upstream: Upstream) -> list[str]:
    return [r.path for r in upstream.requests if r.method == "DELETE"]


TARGETS = [("stdio", "legacy"), ("stdio", "auto"), ("stateless", "auto")]


@pytest.mark.parametrize(("target", "mode"), TARGETS)
async def test_accept_sends_the_request(
    request: pytest.FixtureRequest, upstream: Upstream, target: str, mode: str
) -> None:
    user = User()
    async with client(request, target, mode, user) as connected:
        result = await delete(connected)
        assert not result.is_error, result
        # Other tools are not confirmed.
        assert not (await connected.call_tool("getPetById", {"petId": 1})).is_error
    assert deletes(upstream) == ["/api/v3/pet/1"]
    assert len(user.asked) == 1
    asked = user.asked[0]
    assert isinstance(asked, types.ElicitRequestFormParams)
    assert "DELETE /pet/1" in asked.message and "adopted" in asked.message
    assert asked.requested_schema["required"] == ["confirmed"]


@pytest.mark.parametrize(("target", "mode"), TARGETS)
@pytest.mark.parametrize(("action", "confirmed"), [("decline", True), ("cancel", True), ("accept", False)])
async def test_no_confirmation_sends_nothing(
    request: pytest.FixtureRequest, upstream: Upstream, target: str, mode: str, action: str, confirmed: bool
) -> None:
    user = User(action, confirmed)
    async with client(request, target, mode, user) as connected:
        result = await delete(connected)
    assert result.is_error
    assert "not confirmed by the user" in text(result) and "nothing was sent" in text(result)
    assert len(user.asked) == 1
    assert deletes(upstream) == []


@pytest.mark.parametrize(("target", "mode"), [*TARGETS, ("stateless", "legacy")])
async def test_a_client_that_cannot_be_asked_is_told_how_to_enable(
    request: pytest.FixtureRequest, upstream: Upstream, target: str, mode: str
) -> None:
    # A stateless 2025-11-25 request has no channel back even with the capability.
    user = User() if (target, mode) == ("stateless", "legacy") else None
    async with client(request, target, mode, user) as connected:
        result = await delete(connected)
    assert result.is_error
    shown = text(result)
    assert "must be confirmed by the user before it sends DELETE /pet/1" in shown, shown
    assert "`[tools.deletePet] confirm = false` in mcpgen.toml" in shown
    assert "PETSTORE_HTTP_SESSIONS=1" in shown
    if user is None:
        assert "the client does not support elicitation" in shown
    else:
        assert user.asked == []
    assert deletes(upstream) == []


# -- TypeScript clients (SDK 1.x and 2.x: both negotiate 2025-11-25) ---------------------------


@pytest.fixture(scope="module")
def sessions_url(project: Path, upstream: Upstream, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("confirm-logs") / "sessions.log"
    with http_server(PACKAGE, {**shared_env(project, upstream), "PETSTORE_HTTP_SESSIONS": "1"}, log) as port:
        yield f"http://127.0.0.1:{port}/mcp"


TS_DELETE = [{"name": "deletePet", "arguments": {"petId": 1, "X-Reason": "adopted"}}]
TS_ANSWERS = {
    "accept": {"elicit": {"action": "accept", "content": {"confirmed": True}}},
    "decline": {"elicit": {"action": "decline"}},
    "no capability": None,
}


@pytest.mark.parametrize("sdk", ["ts-v1", "ts-v2"])
@pytest.mark.parametrize("target", ["stdio", "sessions"])
@pytest.mark.parametrize("answer", list(TS_ANSWERS))
def test_typescript_clients_confirm(
    request: pytest.FixtureRequest, project: Path, upstream: Upstream, sdk: str, target: str, answer: str
) -> None:
    ensure_installed(package_path("@modelcontextprotocol/sdk", "package.json"),
                     package_path("@modelcontextprotocol/client", "package.json"))
    where = stdio_target(PACKAGE) if target == "stdio" else [request.getfixturevalue("sessions_url")]
    env = {**shared_env(project, upstream), "PATH": os.environ.get("PATH", "")}
    report = run_client(sdk, TS_DELETE, where, env, answers=TS_ANSWERS[answer])
    if sdk == "ts-v2" or target != "stdio":  # 1.x over stdio does not tell its version
        assert report["protocolVersion"] == "2025-11-25", report
    (call,) = report["calls"]
    assert call["ok"], report  # the client threw nothing: the question and the answer were valid to it
    if answer == "accept":
        assert call["isError"] is False, report
        assert deletes(upstream) == ["/api/v3/pet/1"]
        (asked,) = report["elicitations"]
        assert "DELETE /pet/1" in asked and "adopted" in asked
        return
    assert call["isError"] is True and deletes(upstream) == [], report
    if answer == "decline":
        assert len(report["elicitations"]) == 1
        assert "not confirmed by the user" in call["texts"][0]
    else:
        assert report["elicitations"] == []
        assert "the client does not support elicitation" in call["texts"][0]


# -- 2026-07-28: a server-issued, single-use confirmation (issue 26) ----------------------------
# A 2026-07-28 ClientSession leaves the input-required rounds to the test, which plays a hostile
# client: answers before it is asked, sends one confirmation again, changes the arguments or
# the caller. Each case against the real upstream, counting the DELETEs it received.

YES = {confirm_key: types.ElicitResult(action="accept", content={"confirmed": True})
       for confirm_key in ("confirm", "input-1")}  # the server's key, and the key of round one


@asynccontextmanager
async def raw_session(url: str, headers: dict[str, str] | None = None) -> AsyncIterator[Any]:
    """A 2026-07-28 session (elicitation declared) that leaves the rounds to the test."""
    if headers is None:
        async with Client(url, cache=None, elicitation_callback=User().elicit) as connected:
            yield connected.session
        return
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        Client(streamable_http_client(url, http_client=http), cache=None,  # type: ignore[arg-type]
               elicitation_callback=User().elicit) as connected,
    ):
        yield connected.session


async def ask(session: Any, name: str, arguments: dict[str, Any]) -> types.InputRequiredResult:
    with anyio.fail_after(HANG_GUARD):
        asked = await session.call_tool(name, arguments, allow_input_required=True)
    assert isinstance(asked, types.InputRequiredResult), asked
    assert asked.input_requests is not None and list(asked.input_requests) == ["confirm"]
    question = asked.input_requests["confirm"]
    assert isinstance(question, types.ElicitRequest) and "DELETE /pet/1" in question.params.message
    assert asked.request_state is not None and asked.request_state.startswith("v1.")  # sealed
    return asked


async def answer(session: Any, name: str, arguments: dict[str, Any], state: str) -> Any:
    """The call again with "yes" and `state`: its result, or the MCPError it raised."""
    try:
        with anyio.fail_after(HANG_GUARD):
            return await session.call_tool(
                name, arguments, input_responses=YES, request_state=state, allow_input_required=True
            )
    except MCPError as exc:
        return exc


ARGS = {"petId": 1, "X-Reason": "adopted"}


async def test_a_pre_answered_first_call_is_asked_and_sends_nothing(
    stateless_url: str, upstream: Upstream
) -> None:
    async with raw_session(stateless_url) as session:
        with anyio.fail_after(HANG_GUARD):
            first = await session.call_tool("deletePet", ARGS, input_responses=YES, allow_input_required=True)
        assert isinstance(first, types.InputRequiredResult), first
    assert deletes(upstream) == []


async def test_one_confirmation_sent_four_times_deletes_once(stateless_url: str, upstream: Upstream) -> None:
    async with raw_session(stateless_url) as session:
        asked = await ask(session, "deletePet", ARGS)
        assert asked.request_state is not None
        answers: list[Any] = []

        async def send() -> None:
            answers.append(await answer(session, "deletePet", ARGS, asked.request_state or ""))

        async with anyio.create_task_group() as group:  # at once, as a replaying client would
            for _ in range(4):
                group.start_soon(send)
    assert deletes(upstream) == ["/api/v3/pet/1"]
    sent = [a for a in answers if isinstance(a, types.CallToolResult) and not a.is_error]
    refused = [a for a in answers if isinstance(a, types.CallToolResult) and a.is_error]
    assert len(sent) == 1 and len(refused) == 3, answers
    assert all("this confirmation was already used" in text(a) for a in refused)


async def test_a_confirmation_for_other_arguments_is_refused(stateless_url: str, upstream: Upstream) -> None:
    async with raw_session(stateless_url) as session:
        asked = await ask(session, "deletePet", ARGS)
        assert asked.request_state is not None
        for other in ({"petId": 2, "X-Reason": "adopted"}, {"petId": 1}):
            refused = await answer(session, "deletePet", other, asked.request_state)
            assert isinstance(refused, MCPError), refused  # the sealed state names the arguments
            assert refused.error.message == "Invalid or expired requestState"
        assert deletes(upstream) == []
        done = await answer(session, "deletePet", ARGS, asked.request_state)  # still good, once
        assert isinstance(done, types.CallToolResult) and not done.is_error, done
    assert deletes(upstream) == ["/api/v3/pet/1"]


# -- dynamic mode: call_tool of a confirm-required operation --------------------------------------


@pytest.fixture(scope="module")
def dynamic_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("confirm-dynamic") / "petstore-mcp"
    overrides = (ToolOverride(key="deletePet", confirm=True),)
    generate_openapi(PETSTORE, Options(output=out, force=True, overrides=overrides, tool_mode="dynamic"))
    return out


@pytest.fixture(scope="module")
def dynamic_url(dynamic_project: Path, upstream: Upstream, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("confirm-logs") / "dynamic.log"
    with http_server(PACKAGE, shared_env(dynamic_project, upstream), log) as port:
        yield f"http://127.0.0.1:{port}/mcp"


CALL = {"name": "deletePet", "arguments": ARGS}


@pytest.mark.parametrize("target", ["stdio legacy", "http auto"])
async def test_dynamic_call_tool_asks_first(
    dynamic_project: Path, dynamic_url: str, upstream: Upstream, target: str
) -> None:
    user = User()
    if target == "stdio legacy":  # 2025-11-25: asked on the call's stream
        params = StdioServerParameters(
            command=sys.executable, args=["-m", PACKAGE], env=shared_env(dynamic_project, upstream)
        )
        transport: Any = stdio_client(params)
        mode = "legacy"
    else:  # 2026-07-28: call_tool's own input-required round
        transport, mode = dynamic_url, "auto"
    async with Client(transport, mode=mode, cache=None, elicitation_callback=user.elicit) as connected:  # type: ignore[arg-type]
        with anyio.fail_after(HANG_GUARD):
            result = await connected.call_tool("call_tool", CALL)
    assert not result.is_error, result
    assert len(user.asked) == 1 and "DELETE /pet/1" in user.asked[0].message
    assert deletes(upstream) == ["/api/v3/pet/1"]


async def test_dynamic_call_tool_without_elicitation_is_refused(dynamic_url: str, upstream: Upstream) -> None:
    async with Client(dynamic_url, cache=None) as connected:
        with anyio.fail_after(HANG_GUARD):
            result = await connected.call_tool("call_tool", CALL)
    assert result.is_error
    assert "must be confirmed by the user before it sends DELETE /pet/1" in text(result)
    assert "the client does not support elicitation" in text(result)
    assert deletes(upstream) == []


async def test_dynamic_call_tool_is_neither_pre_answered_nor_replayed(dynamic_url: str, upstream: Upstream) -> None:
    async with raw_session(dynamic_url) as session:
        with anyio.fail_after(HANG_GUARD):
            first = await session.call_tool("call_tool", CALL, input_responses=YES, allow_input_required=True)
        assert isinstance(first, types.InputRequiredResult), first
        assert deletes(upstream) == []
        asked = await ask(session, "call_tool", CALL)
        assert asked.request_state is not None
        answers = [await answer(session, "call_tool", CALL, asked.request_state) for _ in range(4)]
        other = await answer(session, "call_tool", {**CALL, "arguments": {"petId": 2}}, asked.request_state)
    assert isinstance(other, MCPError)
    assert [isinstance(a, types.CallToolResult) and a.is_error for a in answers] == [False, True, True, True]
    assert deletes(upstream) == ["/api/v3/pet/1"]


# -- another caller (OAuth): a confirmation is the caller's own ----------------------------------


@pytest.fixture(scope="module")
def oauth_setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, AuthServer, OAuthUpstream]]:
    out = tmp_path_factory.mktemp("confirm-oauth") / "scoped-pets-mcp"
    overrides = (ToolOverride(key="addPet", confirm=True),)
    generate_openapi(OAUTH_SPEC, Options(output=out, force=True, overrides=overrides))
    auth_server, pets = AuthServer().start(), OAuthUpstream().start()
    log = tmp_path_factory.mktemp("confirm-logs") / "oauth.log"
    try:
        with http_server(OAUTH_PACKAGE, server_env(out, **oauth_env(auth_server, pets)), log) as port:
            yield f"http://127.0.0.1:{port}/mcp", auth_server, pets
    finally:
        auth_server.stop()
        pets.stop()


async def test_another_caller_cannot_use_a_confirmation(oauth_setup: tuple[str, AuthServer, OAuthUpstream]) -> None:
    url, auth_server, pets = oauth_setup
    alice, bob = (
        {"Authorization": "Bearer " + auth_server.token(url, "pets:read pets:write", subject=who)}
        for who in ("alice", "bob")
    )
    arguments = {"name": "Tom"}
    async with raw_session(url, alice) as session:
        with anyio.fail_after(HANG_GUARD):
            asked = await session.call_tool("addPet", arguments, allow_input_required=True)
    assert isinstance(asked, types.InputRequiredResult) and asked.request_state is not None, asked
    assert asked.input_requests is not None and list(asked.input_requests) == ["confirm"]
    async with raw_session(url, bob) as session:
        stolen = await answer(session, "addPet", arguments, asked.request_state)
    # The sealed state names alice (the SDK's principal binding); confirm's own digest names her
    # too (tests/runtime/test_confirm.py), should the state ever reach it.
    assert isinstance(stolen, MCPError) and stolen.error.message == "Invalid or expired requestState", stolen
    assert [r for r in pets.requests if r.method == "POST"] == []
    async with raw_session(url, alice) as session:  # alice's own, once
        done = await answer(session, "addPet", arguments, asked.request_state)
        assert isinstance(done, types.CallToolResult) and not done.is_error, done
        again = await answer(session, "addPet", arguments, asked.request_state)
        assert isinstance(again, types.CallToolResult) and again.is_error
    assert len([r for r in pets.requests if r.method == "POST"]) == 1
