"""A server started with `--base-url` pointing at a closed port, no admin credentials and
PETSTORE_RATE_LIMIT=2: connection errors, a missing credential and the rate limit are tool
errors with a clear message, and the process keeps serving."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client, MCPError, stdio_client, types

from .conftest import API_KEY, free_port, server_env, stdio_params
from .upstream import Upstream

pytestmark = pytest.mark.anyio


def error_text(result: types.CallToolResult) -> str:
    assert result.is_error, result
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


async def test_connection_refused_missing_credential_rate_limit(
    generated: Path, upstream: Upstream, log_dir: Path
) -> None:
    closed = free_port()  # bound and released: nothing listens there
    env = server_env(
        generated,
        PETSTORE_BASE_URL=upstream.base_url,  # the --base-url flag must win over this
        PETSTORE_API_KEY=API_KEY,
        PETSTORE_RATE_LIMIT="2",
    )
    params = stdio_params(env, "--base-url", f"http://127.0.0.1:{closed}/api/v3")
    with (log_dir / "restricted.log").open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog), cache=None) as client:
            refused = error_text(await client.call_tool("getPetById", {"petId": 1}))
            assert f"127.0.0.1:{closed}/api/v3/pet/1" in refused
            assert "request failed" in refused and "Connect" in refused

            missing = error_text(await client.call_tool("resetStore", {"confirm": True}))
            assert "PETSTORE_ADMIN_AUTH_USERNAME" in missing and "PETSTORE_ADMIN_AUTH_PASSWORD" in missing

            limited = error_text(await client.call_tool("getInventory", {}))
            assert "Rate limit" in limited and "2/min set by PETSTORE_RATE_LIMIT" in limited and "retry in" in limited

            with pytest.raises(MCPError) as caught:  # protocol errors still come first
                await client.call_tool("noSuchTool", {})
            assert caught.value.code == types.INVALID_PARAMS

            assert len((await client.list_tools()).tools) == 13  # listing is not rate limited
    assert upstream.take() == []
