"""Upstream bodies that would exhaust memory, and an upstream that never finishes, through a real
MCP client against the generated petstore server (streamable HTTP, its own process): each call is
an isError result naming the limit and its variable, the server's RSS stays bounded (read from
/proc/<pid>/status), and it goes on answering."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client

from .conftest import API_KEY, PACKAGE, http_process, server_env
from .faults import BOMB_BYTES, FaultyUpstream, gzip_bomb

pytestmark = pytest.mark.anyio

RSS_BOUND_KB = 150 * 1024  # the 20 MB default limit, its copies and buffers; a 1 GB body took 5 GB before
CALL_TIMEOUT = 3.0


def status_kb(pid: int, field: str) -> int:
    found = re.search(rf"^{field}:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text(), re.MULTILINE)
    assert found is not None, field
    return int(found.group(1))


def text(result: object) -> str:
    return "\n".join(getattr(c, "text", "") for c in getattr(result, "content", []))


@pytest.fixture(scope="module")
def faulty() -> Iterator[FaultyUpstream]:
    gzip_bomb()  # built before the server measures anything
    server = FaultyUpstream().start()
    yield server
    server.stop()


async def test_huge_and_endless_bodies_are_errors_and_the_server_stays_small(
    generated: Path, faulty: FaultyUpstream, log_dir: Path
) -> None:
    env = server_env(
        generated, PETSTORE_BASE_URL=faulty.base_url, PETSTORE_API_KEY=API_KEY,
        PETSTORE_CALL_TIMEOUT=str(CALL_TIMEOUT),  # the size limit is left at its default
    )
    faulty.program("/pet/5", "endless")
    faulty.program("/pet/6", "gzip_bomb")
    faulty.program("/pet/7", "drip")
    with http_process(PACKAGE, env, log_dir / "limits.log") as (port, proc):
        async with Client(f"http://127.0.0.1:{port}/mcp", cache=None) as client:
            await client.list_tools()
            assert not (await client.call_tool("getPetById", {"petId": 1})).is_error
            baseline = status_kb(proc.pid, "VmRSS")

            started = time.monotonic()
            endless = await client.call_tool("getPetById", {"petId": 5})
            endless_seconds = time.monotonic() - started
            bomb = await client.call_tool("getPetById", {"petId": 6})
            started = time.monotonic()
            drip = await client.call_tool("getPetById", {"petId": 7})
            drip_seconds = time.monotonic() - started
            after = await client.call_tool("getPetById", {"petId": 1})
            peak = status_kb(proc.pid, "VmHWM")

    limit = "20,000,000 bytes (counted decompressed), the limit PETSTORE_MAX_RESPONSE_BYTES sets"
    assert endless.is_error and limit in text(endless), text(endless)
    assert bomb.is_error and limit in text(bomb), text(bomb)
    assert endless_seconds < CALL_TIMEOUT and faulty.streamed < 20_000_000 + 64 * 2**20
    assert drip.is_error and f"no complete answer within {CALL_TIMEOUT:g} s" in text(drip), text(drip)
    assert "PETSTORE_CALL_TIMEOUT" in text(drip) and drip_seconds < CALL_TIMEOUT + 2
    assert not after.is_error, text(after)
    growth = peak - baseline
    print(f"server RSS {baseline:,} kB after listing; peak {peak:,} kB (+{growth:,} kB) after an endless body "
          f"and a {BOMB_BYTES:,}-byte gzip bomb")
    assert growth < RSS_BOUND_KB, f"the server's peak RSS grew {growth:,} kB"
