"""The security duties that apply to from-python servers too, end to end over stdio and HTTP:
per-tool rate limits, allow/deny and read-only, redaction of secrets a function returns or
raises, control characters stripped from results, one audit line per call on stderr."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from mcp import Client, MCPError, StdioServerParameters, stdio_client, types
from mcp.client.stdio import get_default_environment

from mcpgen.api import generate_python
from mcpgen.options import Options

from .conftest import free_port, wait_for_port

pytestmark = pytest.mark.anyio

SECRET = "sup3r-secret-service-token"
PROBE = '''\
"""Probe tools for the security tests."""

from __future__ import annotations

import os


def echo(text: str) -> dict[str, str]:
    """Return the text as given."""
    return {"text": text}


def reveal() -> str:
    """Return a string that contains the service token."""
    return "the token is " + os.environ["PROBE_SERVICE_TOKEN"]


def fail() -> str:
    """Raise an error whose message contains the service token."""
    raise RuntimeError("could not log in with " + os.environ["PROBE_SERVICE_TOKEN"])


def danger_zone() -> str:
    """A tool the deny list hides."""
    return "boom"
'''


# Tools of the user's custom_tools.py go through the same guards as generated ones.
CUSTOM_TOOLS = '''

import os


@tool(read_only=True)
def peek() -> str:
    """A read-only custom tool whose result carries the token and a control character."""
    return "peek\\x1b " + os.environ["PROBE_SERVICE_TOKEN"]


@tool()
def wipe() -> str:
    """A custom tool that is not read-only."""
    return "wiped"
'''


@pytest.fixture(scope="module")
def probe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = tmp_path_factory.mktemp("probe-src") / "probe.py"
    source.write_text(PROBE)
    out = tmp_path_factory.mktemp("probe-generated") / "probe-mcp"
    generate_python(str(source), Options(output=out, force=True))
    with (out / "src" / "probe_mcp" / "custom_tools.py").open("a") as custom:
        custom.write(CUSTOM_TOOLS)
    return out


def env(out: Path, **settings: str) -> dict[str, str]:
    return {
        **get_default_environment(),
        "PYTHONPATH": str(out / "src"),
        "PYTHONUNBUFFERED": "1",
        "PROBE_SERVICE_TOKEN": SECRET,
        **settings,
    }


@contextlib.asynccontextmanager
async def serve(kind: str, environment: dict[str, str], log: Path) -> AsyncIterator[Client]:
    if kind == "stdio":
        params = StdioServerParameters(command=sys.executable, args=["-m", "probe_mcp"], env=environment)
        with log.open("w") as errlog:
            async with Client(stdio_client(params, errlog=errlog), cache=None) as client:
                yield client
        return
    import subprocess

    port = free_port()
    with log.open("wb") as sink:
        proc = subprocess.Popen(  # noqa: ASYNC220 - started once, like conftest's servers
            [sys.executable, "-m", "probe_mcp", "--transport", "http", "--port", str(port)],
            env=environment, stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT,
        )
        try:
            wait_for_port(port, proc, log)
            async with Client(f"http://127.0.0.1:{port}/mcp", cache=None) as client:
                yield client
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


@pytest.mark.parametrize("kind", ["stdio", "http"])
async def test_python_server_duties(probe: Path, log_dir: Path, kind: str) -> None:
    log = log_dir / f"probe-{kind}.log"
    settings = {"PROBE_RATE_LIMIT_ECHO": "2/min", "PROBE_TOOLS_DENY": "danger_*"}
    async with serve(kind, env(probe, **settings), log) as client:
        listed = sorted(t.name for t in (await client.list_tools()).tools)
        assert listed == ["echo", "fail", "peek", "reveal", "wipe"]
        with pytest.raises(MCPError) as caught:
            await client.call_tool("danger_zone", {})
        assert caught.value.code == types.INVALID_PARAMS and "PROBE_TOOLS_DENY" in caught.value.message

        echoed = await client.call_tool("echo", {"text": "a\x1b]0;title\x07b\u202ec\r\nd\te"})
        assert not echoed.is_error
        assert echoed.structured_content == {"result": {"text": "a]0;titlebc\nd\te"}}
        assert json.loads(text_of(echoed)) == echoed.structured_content["result"]

        revealed = await client.call_tool("reveal", {})
        assert not revealed.is_error
        assert text_of(revealed) == "the token is [redacted]"  # a str result: the text itself
        assert revealed.structured_content is None

        failed = await client.call_tool("fail", {})
        assert failed.is_error and text_of(failed) == "RuntimeError: could not log in with [redacted]"

        assert not (await client.call_tool("echo", {"text": "2"})).is_error
        limited = await client.call_tool("echo", {"text": "3"})
        assert limited.is_error and "2/min set by PROBE_RATE_LIMIT_ECHO" in text_of(limited)
    written = log.read_text()
    assert SECRET not in written  # neither in the audit lines nor in the logged traceback
    assert "RuntimeError: could not log in with [redacted]" in written
    outcomes = [
        (line["tool"], line["outcome"])
        for line in map(json.loads, filter(lambda s: s.startswith('{"time"'), written.splitlines()))
    ]
    assert outcomes == [
        ("danger_zone", "refused"),
        ("echo", "ok"),
        ("reveal", "ok"),
        ("fail", "error"),
        ("echo", "ok"),
        ("echo", "rate_limited"),
    ]


async def test_python_server_read_only(probe: Path, log_dir: Path) -> None:
    """Python functions carry no readOnlyHint: read-only mode leaves only the custom tool
    declared `read_only=True`, whose result is cleaned like any other."""
    async with serve("stdio", env(probe, PROBE_READ_ONLY="yes"), log_dir / "probe-ro.log") as client:
        assert [t.name for t in (await client.list_tools()).tools] == ["peek"]
        for name in ("echo", "wipe"):
            with pytest.raises(MCPError) as caught:
                await client.call_tool(name, {"text": "x"} if name == "echo" else {})
            assert "PROBE_READ_ONLY" in caught.value.message
        peeked = await client.call_tool("peek", {})
        assert not peeked.is_error and text_of(peeked) == "peek [redacted]"
