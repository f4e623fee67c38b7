"""What OAuth costs per request: tools/list and tools/call over streamable HTTP, by auth mode.

    .venv/bin/python benchmarks/bench_oauth.py [--requests 300]

tests/e2e/specs/oauth_pets.yaml is generated once and served on 127.0.0.1 four ways: the
static `PREFIX_MCP_TOKEN` (the peer), OAuth with RS256 JWTs, with ES256 JWTs (both checked
against the JWKS of tests/e2e/oauth_server.AuthServer on every request), and with
introspection (cached by token hash after the first request). One keep-alive connection
sends `requests` raw JSON-RPC POSTs of each kind in turn; prints the median latency per
request and its ratio to the static token's.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from mcpgen.api import generate_openapi  # imports after the sys.path set-up above
from mcpgen.options import Options
from tests.e2e.conftest import http_process, server_env
from tests.e2e.oauth_server import CLIENT_ID, CLIENT_SECRET, AuthServer
from tests.e2e.test_oauth import PACKAGE, SPEC, Upstream

STATIC = "s" * 40
LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
CALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "listPets", "arguments": {}}}


def timed(port: int, token: str, body: dict[str, object], count: int) -> float:
    """Median seconds of `count` POSTs on one connection."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-11-25",
        "Authorization": f"Bearer {token}",
    }
    payload = json.dumps(body)
    samples = []
    for _ in range(count + 10):  # 10 warm-up requests: the JWKS fetch, the first introspection
        start = time.perf_counter()
        connection.request("POST", "/mcp", body=payload, headers=headers)
        response = connection.getresponse()
        response.read()
        assert response.status == 200, response.status
        samples.append(time.perf_counter() - start)
    connection.close()
    return statistics.median(samples[10:])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=300)
    count = parser.parse_args().requests
    auth, upstream = AuthServer().start(), Upstream().start()
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "p"
        generate_openapi(SPEC, Options(output=project, force=True))
        base = {"SCOPED_PETS_BASE_URL": upstream.origin, "SCOPED_PETS_PETS_AUTH": "upstream-token-123", "SCOPED_PETS_AUDIT_LOG": "off"}
        oauth = {**base, "SCOPED_PETS_MCP_AUTH": "oauth", "SCOPED_PETS_MCP_OAUTH_ISSUER": auth.issuer}
        introspection = {
            **oauth,
            "SCOPED_PETS_MCP_OAUTH_INTROSPECTION_URL": f"{auth.origin}/introspect",
            "SCOPED_PETS_MCP_OAUTH_CLIENT_ID": CLIENT_ID,
            "SCOPED_PETS_MCP_OAUTH_CLIENT_SECRET": CLIENT_SECRET,
        }
        modes = [
            ("static token (peer)", {**base, "SCOPED_PETS_MCP_TOKEN": STATIC}, lambda url: STATIC),
            ("OAuth JWT RS256", oauth, lambda url: auth.token(url, "pets:read", lifetime=3600)),
            ("OAuth JWT ES256", oauth, lambda url: auth.token(url, "pets:read", key=auth.ec, lifetime=3600)),
            (
                "OAuth introspection",
                introspection,
                lambda url: auth.opaque({"active": True, "scope": "pets:read", "exp": int(time.time()) + 3600}),
            ),
        ]
        rows = []
        for name, env, token_for in modes:
            log = Path(tmp) / f"{len(rows)}.log"
            with http_process(PACKAGE, server_env(project, **env), log) as (port, _):
                token = token_for(f"http://127.0.0.1:{port}/mcp")
                rows.append((name, timed(port, token, LIST, count), timed(port, token, CALL, count)))
    auth.stop()
    upstream.stop()
    peer_list, peer_call = rows[0][1], rows[0][2]
    print(f"{'mode':<22} {'tools/list ms':>14} {'ratio':>6} {'tools/call ms':>14} {'ratio':>6}  ({count} requests each)")
    for name, listed, called in rows:
        print(f"{name:<22} {listed * 1000:>14.2f} {listed / peer_list:>6.2f} {called * 1000:>14.2f} {called / peer_call:>6.2f}")


if __name__ == "__main__":
    main()
