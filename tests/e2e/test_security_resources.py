"""resources/read does every security duty a tool call does, end to end: the petstore
server generated with `--resources`, served over stdio and streamable HTTP, read by a real
MCP client, against an upstream on 127.0.0.1 that misbehaves on demand (`faults.py`).

Rate limits (per resource, by the operation's name), the deny list (a resource is addressed
by its name, the operation's tool name), template variables checked against their parameter
schemas before anything is sent, secrets redacted and control characters stripped from text
contents and from JSON-RPC error messages, and one audit line per read."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, MCPError, types

from mcpgen.api import generate_openapi
from mcpgen.options import Options

from .conftest import PETSTORE
from .faults import CONTROL_TEXT, FaultyUpstream
from .test_security import API_KEY, TRANSPORTS, connect, env_for

pytestmark = pytest.mark.anyio

RATE_LIMITED = -32029  # runtime/guarded.py
RESOURCE_NOT_FOUND = -32002
STRIPPED = "Rex[31m red bell nul evil\nline two\tcol"
GUARDED = {
    "PETSTORE_RATE_LIMIT_GETINVENTORY": "2/min",  # no tool reads it here: the resource's own limit
    "PETSTORE_TOOLS_DENY": "getOrderById",
}


@pytest.fixture(scope="module")
def with_resources(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("guarded-resources") / "petstore-mcp"
    generate_openapi(PETSTORE, Options(output=out, force=True, resources=True))
    return out


@pytest.fixture(scope="module")
def faulty() -> Iterator[FaultyUpstream]:
    server = FaultyUpstream(slow_seconds=60.0).start()
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def _fresh(faulty: FaultyUpstream) -> None:
    faulty.clear()


@pytest.fixture(scope="module", params=TRANSPORTS)
async def guarded(
    request: pytest.FixtureRequest, with_resources: Path, faulty: FaultyUpstream, log_dir: Path
) -> AsyncIterator[tuple[Client, Path]]:
    """One server per transport with a per-resource limit and a deny list; (client, its log)."""
    log = log_dir / f"guarded-resources-{request.param}.log"
    async with connect(request.param, env_for(with_resources, faulty, **GUARDED), log) as client:
        yield client, log


async def read_error(client: Client, uri: str) -> MCPError:
    with pytest.raises(MCPError) as caught:
        await client.read_resource(uri)
    return caught.value


async def read_text(client: Client, uri: str) -> str:
    (content,) = (await client.read_resource(uri)).contents
    assert isinstance(content, types.TextResourceContents), content
    return content.text


async def test_rate_limit_exhausted_is_refused(guarded: tuple[Client, Path], faulty: FaultyUpstream) -> None:
    client, _ = guarded
    for _ in range(2):
        assert json.loads(await read_text(client, "petstore://store/inventory")) == {"available": 3}
    error = await read_error(client, "petstore://store/inventory")
    assert error.code == RATE_LIMITED
    assert "Rate limit reached (2/min set by PETSTORE_RATE_LIMIT_GETINVENTORY); retry in" in error.message
    assert len(faulty.take()) == 2  # the limited read never reached the upstream
    assert await read_text(client, "petstore://pet/1")  # other resources unaffected


async def test_denied_resource_is_hidden_and_refused(guarded: tuple[Client, Path], faulty: FaultyUpstream) -> None:
    client, _ = guarded
    templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
    assert "petstore://store/order/{orderId}" not in templates and "petstore://pet/{petId}" in templates
    error = await read_error(client, "petstore://store/order/1")
    assert error.code == RESOURCE_NOT_FOUND
    assert error.message == (
        "Resource not found: petstore://store/order/1 (resource template 'getOrderById' is in PETSTORE_TOOLS_DENY)"
    )
    assert faulty.take() == []


@pytest.mark.parametrize(
    ("uri", "problem"),
    [
        ("petstore://pet/abc", "petId: 'abc' is not of type 'integer'"),
        ("petstore://pet/1.5", "petId: 1.5 is not of type 'integer'"),
    ],
)
async def test_bad_template_variable_is_invalid_params(
    guarded: tuple[Client, Path], faulty: FaultyUpstream, uri: str, problem: str
) -> None:
    client, _ = guarded
    error = await read_error(client, uri)
    assert error.code == types.INVALID_PARAMS
    assert error.message == f"Invalid resource URI {uri}:\n{problem}"
    assert faulty.take() == []  # nothing sent upstream


async def test_echoed_secret_is_redacted(guarded: tuple[Client, Path], faulty: FaultyUpstream) -> None:
    client, log = guarded
    faulty.program("/pet/13", "echo")
    error = await read_error(client, "petstore://pet/13")
    assert faulty.take()[0].headers["api_key"] == API_KEY  # the upstream did get (and reflect) it
    assert error.message.startswith("HTTP 401 Unauthorized") and "invalid credentials" in error.message
    assert API_KEY not in error.message and "[redacted]" in error.message
    assert API_KEY not in log.read_text()


async def test_control_characters_are_stripped(guarded: tuple[Client, Path], faulty: FaultyUpstream) -> None:
    client, _ = guarded
    faulty.program("/pet/14", "control")
    faulty.program("/pet/14/photo", "control")
    pet = await read_text(client, "petstore://pet/14")
    assert json.loads(pet)["name"] == STRIPPED  # JSON escapes controls: cleaned as data
    photo = await read_text(client, "petstore://pet/14/photo")
    assert photo == STRIPPED and photo != CONTROL_TEXT


async def test_error_messages_are_redacted_and_stripped(guarded: tuple[Client, Path], faulty: FaultyUpstream) -> None:
    """The URI a client sends is echoed in errors: raw control characters and secrets in it too."""
    client, _ = guarded
    error = await read_error(client, f"petstore://nowhere/\x1b[2J\u202e{API_KEY}\x07")
    assert error.code == RESOURCE_NOT_FOUND
    assert error.message == "Resource not found: petstore://nowhere/[2J[redacted]"
    error = await read_error(client, "petstore://pet/\x1b[2J")
    assert error.code == types.INVALID_PARAMS
    assert error.message == "Invalid resource URI petstore://pet/[2J:\npetId: '\\x1b[2J' is not of type 'integer'"
    assert faulty.take() == []


def audit_lines(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines() if line.startswith('{"time"')]


async def test_every_read_writes_an_audit_line(with_resources: Path, faulty: FaultyUpstream, log_dir: Path) -> None:
    log = log_dir / "resource-audit.log"
    limits = {"PETSTORE_RATE_LIMIT_GETINVENTORY": "1/h burst 1", "PETSTORE_TOOLS_DENY": "getOrderById"}
    env = env_for(with_resources, faulty, **limits)
    faulty.program("/pet/13", "echo")
    async with connect("http", env, log) as client:
        await client.read_resource("petstore://pet/1")
        await client.read_resource("petstore://store/inventory")
        for uri in ("petstore://store/inventory", "petstore://store/order/1", "petstore://pet/abc",
                    "petstore://pet/13", "petstore://nowhere"):
            await read_error(client, uri)
    lines = [line for line in audit_lines(log) if line["event"] == "resource_read"]
    summary = [(line["resource"], line["uri"], line["outcome"], line["upstream_status"]) for line in lines]
    assert summary == [
        ("getPetById", "petstore://pet/1", "ok", 200),
        ("getInventory", "petstore://store/inventory", "ok", 200),
        ("getInventory", "petstore://store/inventory", "rate_limited", None),
        ("getOrderById", "petstore://store/order/1", "refused", None),
        ("getPetById", "petstore://pet/abc", "error", None),  # invalid: nothing sent
        ("getPetById", "petstore://pet/13", "error", 401),
        (None, "petstore://nowhere", "refused", None),
    ]
    assert all(line["kind"] == "resource" for line in lines)
    assert lines[0]["arguments"] == {"petId": "1"}
    assert API_KEY not in log.read_text()
