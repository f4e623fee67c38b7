"""End to end: an OpenAPI tool configured with `confirm = true` (mcpgen.toml) asks the user
through elicitation before its upstream request, in both protocol eras.

samples/petstore.yaml is generated with `[tools.deletePet] confirm = true`, served over
stdio (2025-11-25 handshake and 2026-07-28) and stateless HTTP, against the real local
upstream. Accept sends the DELETE; decline and cancel give an isError result and send
nothing; a client without elicitation (or a stateless 2025-11-25 request, no channel back)
gets an isError refusal saying how to enable the call, and nothing is sent.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters, stdio_client, types

from mcpgen.api import generate_openapi
from mcpgen.options import Options, ToolOverride
from tests.clients.harness import run_client, stdio_target
from tests.npm import ensure_installed, package_path

from .conftest import PACKAGE, PETSTORE, http_server, shared_env
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
