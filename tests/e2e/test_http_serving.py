"""Streamable HTTP: says where it serves, and keeps idle connections open long enough for
TypeScript clients.

After tools/list, a TypeScript client compiles every tool's output validator before its
first call and then reuses the pooled connection; with uvicorn's default 5 s keep-alive the
server had closed it by then (`fetch failed (other side closed)` on GitHub's server).
"""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import time
from pathlib import Path

from .conftest import PACKAGE, free_port, http_server, server_env

# Any request will do; a handshake-era `initialize` needs no session on a stateless server.
INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "keep-alive", "version": "1"},
}})
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def initialize_on(connection: http.client.HTTPConnection) -> int:
    connection.request("POST", "/mcp", body=INITIALIZE, headers=HEADERS)
    response = connection.getresponse()
    body = response.read()
    assert response.status == 200, body
    return response.status


def test_an_idle_connection_outlives_a_validator_warm_up(generated: Path, log_dir: Path) -> None:
    with http_server(PACKAGE, server_env(generated), log_dir / "keep-alive.log") as port:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        assert initialize_on(connection) == 200
        socket_before = connection.sock
        time.sleep(6.5)  # past uvicorn's default 5 s
        assert initialize_on(connection) == 200
        assert connection.sock is socket_before  # the same connection: the server kept it open
        connection.close()
    line = f"petstore: streamable HTTP at http://127.0.0.1:{port}/mcp, no authentication (loopback only)"
    assert line in (log_dir / "keep-alive.log").read_text()


def test_a_plain_get_is_answered_at_once(generated: Path, log_dir: Path) -> None:
    """`curl http://127.0.0.1:PORT/mcp` used to hang on an idle event stream; a GET that does not
    accept one (browsers, bare curl) now says what the endpoint is, token or not."""
    env = server_env(generated, PETSTORE_MCP_TOKEN="t" * 32)
    with http_server(PACKAGE, env, log_dir / "greeting.log") as port:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("GET", "/mcp", headers={"Accept": "*/*"})
        response = connection.getresponse()
        body = response.read().decode()
        assert response.status == 406 and response.getheader("content-type", "").startswith("text/plain")
        assert body.startswith("petstore: an MCP server (streamable HTTP). Point an MCP client at this URL")
        # Clients (Accept: text/event-stream) still reach the gate: no token, 401.
        connection.request("GET", "/mcp", headers={"Accept": "text/event-stream"})
        gated = connection.getresponse()
        gated.read()
        assert gated.status == 401
        connection.close()
    assert f"http://127.0.0.1:{port}/mcp, bearer token required (PETSTORE_MCP_TOKEN)" in (log_dir / "greeting.log").read_text()


def test_a_malformed_keep_alive_stops_the_server(generated: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", PACKAGE, "--transport", "http", "--port", str(free_port())],
        env=server_env(generated, PETSTORE_HTTP_KEEP_ALIVE="forever"),
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert run.returncode == 2
    assert "PETSTORE_HTTP_KEEP_ALIVE='forever': expected a whole number >= 1" in run.stderr
