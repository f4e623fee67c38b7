"""tools/call over streamable HTTP: throughput and p50/p99 latency, one replica and two behind
haproxy, mcpgen's generated petstore server side by side with FastMCP.from_openapi on the same
spec and the same upstream. No assertions; prints figures and ratios.

    python benchmarks/bench_http.py [--clients 8] [--calls 100] [--peer-venv /work/.bench-venv | --no-peer]

Rows: mcpgen (1 replica; the same with traces and metrics exported over OTLP/HTTP to a local
receiver, and with PETSTORE_TELEMETRY=off; 2 behind haproxy; 2 behind haproxy with the rate limit shared on
Redis, a limit high enough never to refuse: the cost of the shared check) and FastMCP (1
process; 2 behind haproxy, TCP health checks: it has no health route). Every server runs
stateless with JSON responses. The upstream is a separate process on 127.0.0.1 answering
GET /pet/{id} at once. `--clients` tasks in this process each hold one `mcp.Client`
(legacy mode: the 2025-11-25 handshake deployed clients use) and make `--calls` sequential
calls of getPetById, `--rounds` times; throughput is the median round's (timed from when
every client is connected and warm), p50/p99 over every call of every round. Every call must succeed; a failed one is counted and reported.

Needs redis-server and haproxy (Debian's packages, see .ci/run). On a 2-core machine the
client, haproxy, Redis, the upstream and the servers share the cores, so two replicas show
what balancing costs more than what a second machine would add.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import get_default_environment

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.bench_generate import PEER_VENV, peer_python
from mcpgen.api import generate_openapi
from mcpgen.options import Options
from tests.e2e.conftest import free_port, wait_for_port
from tests.scale_parts import Haproxy, RedisServer

PETSTORE = REPO / "samples" / "petstore.yaml"
PACKAGE = "petstore_mcp"
MAX_FAILURES = 20

UPSTREAM = r'''
import json, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
PET = json.dumps({"id": 1, "name": "Rex", "photoUrls": [], "status": "available"}).encode()
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are two writes: no 40 ms delayed-ACK stall
    def log_message(self, *a): pass
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(PET)))
        self.end_headers()
        self.wfile.write(PET)
ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
'''

PEER_SERVER = r'''
import sys, httpx2, yaml
from fastmcp import FastMCP
spec = yaml.safe_load(open(sys.argv[1], encoding="utf-8"))
server = FastMCP.from_openapi(openapi_spec=spec, client=httpx2.AsyncClient(base_url=sys.argv[2]), name="peer")
server.run("http", host="127.0.0.1", port=int(sys.argv[3]), stateless_http=True, json_response=True,
           show_banner=False, log_level="warning")
'''


OTLP_RECEIVER = r'''
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
'''


@contextlib.contextmanager
def process(command: list[str], port: int, env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    with log.open("wb") as sink:
        proc = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT)
    try:
        wait_for_port(port, proc, log, deadline=60)
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@contextlib.contextmanager
def balanced(ports: list[int], work: Path, http_check: bool) -> Iterator[str]:
    balancer = Haproxy(ports, work, http_check=http_check)
    balancer.check()
    balancer.start()
    try:
        yield balancer.url
    finally:
        balancer.stop()


async def load(url: str, clients: int, calls: int, rounds: int) -> tuple[list[float], list[float], int]:
    """Each round's calls per second, every call's latency, failures. The clock of a round starts
    when every client is connected and warm (one call made), and stops at its last call."""
    throughputs: list[float] = []
    latencies: list[float] = []
    failures = 0

    async def one_client(ready: list[int], all_ready: anyio.Event, go: anyio.Event, done: list[float]) -> None:
        nonlocal failures
        async with Client(url, mode="legacy", cache=None) as client:
            await client.call_tool("getPetById", {"petId": 1})  # warm: connection, validators
            ready.append(1)
            if len(ready) == clients:
                all_ready.set()
            await go.wait()
            for _ in range(calls):
                started = time.perf_counter()
                try:
                    result = await client.call_tool("getPetById", {"petId": 1})
                    failures += bool(result.is_error)
                except Exception:
                    failures += 1
                    if failures > MAX_FAILURES:  # a broken setup, not a figure
                        raise
                latencies.append(time.perf_counter() - started)
            done.append(time.perf_counter())

    for _ in range(rounds):
        ready: list[int] = []
        done: list[float] = []
        all_ready, go = anyio.Event(), anyio.Event()
        async with anyio.create_task_group() as group:
            for _ in range(clients):
                group.start_soon(one_client, ready, all_ready, go, done)
            await all_ready.wait()
            started = time.perf_counter()
            go.set()
        throughputs.append(clients * calls / (max(done) - started))
    return throughputs, latencies, failures


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--calls", type=int, default=100, help="sequential calls per client and round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per server setup (median throughput)")
    parser.add_argument("--peer-venv", type=Path, default=PEER_VENV, help="venv holding fastmcp (created if missing)")
    parser.add_argument("--no-peer", action="store_true")
    args = parser.parse_args()
    peer, peer_status = peer_python(None if args.no_peer else args.peer_venv)
    print(f"bench_http: {args.clients} clients x {args.calls} calls of getPetById, {args.rounds} rounds; "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; "
          f"peer: {peer_status}")
    work = Path(tempfile.mkdtemp(prefix="bench-http-"))
    out = work / "petstore-mcp"
    generate_openapi(PETSTORE, Options(output=out, force=True))
    env = dict(get_default_environment(), PYTHONPATH=str(out / "src"), PETSTORE_AUDIT_LOG="off",
               PETSTORE_API_KEY="bench-key")
    rows: dict[str, tuple[list[float], list[float], int]] = {}
    upstream_port = free_port()
    base_url = f"http://127.0.0.1:{upstream_port}/api/v3"
    env["PETSTORE_BASE_URL"] = base_url

    def ours(port: int, extra: dict[str, str], name: str) -> contextlib.AbstractContextManager[object]:
        command = [sys.executable, "-m", PACKAGE, "--transport", "http", "--port", str(port)]
        return process(command, port, {**env, **extra}, work / f"{name}.log")

    def theirs(port: int, name: str) -> contextlib.AbstractContextManager[object]:
        assert peer is not None
        command = [str(peer), "-c", PEER_SERVER, str(PETSTORE), base_url, str(port)]
        return process(command, port, dict(get_default_environment()), work / f"{name}.log")

    def run(label: str, url: str) -> None:
        rows[label] = anyio.run(load, url, args.clients, args.calls, args.rounds)
        throughputs, latencies, failures = rows[label]
        print(f"  {label:44} {statistics.median(throughputs):7.1f} calls/s   p50 {percentile(latencies, 0.5) * 1000:6.1f} ms"
              f"   p99 {percentile(latencies, 0.99) * 1000:6.1f} ms   failed {failures}")

    upstream_log = work / "upstream.log"
    with process([sys.executable, "-c", UPSTREAM, str(upstream_port)], upstream_port, env, upstream_log):
        p1, p2 = free_port(), free_port()
        with ours(p1, {}, "ours-1"):
            run("mcpgen, 1 replica", f"http://127.0.0.1:{p1}/mcp")
        # Tracing's cost: the same replica with spans and metrics exported over OTLP/HTTP to a local
        # receiver (a process that answers 200 to every export), the batch processor at its defaults.
        receiver_port = free_port()
        with process([sys.executable, "-c", OTLP_RECEIVER, str(receiver_port)], receiver_port, env, work / "otlp.log"):
            traced = {"OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{receiver_port}", "OTEL_SERVICE_NAME": "bench"}
            with ours(p1, traced, "ours-traced"):
                run("mcpgen, 1 replica, traced (OTLP export)", f"http://127.0.0.1:{p1}/mcp")
        with ours(p1, {"PETSTORE_TELEMETRY": "off"}, "ours-off"):
            run("mcpgen, 1 replica, PETSTORE_TELEMETRY=off", f"http://127.0.0.1:{p1}/mcp")
        with ours(p1, {}, "ours-a"), ours(p2, {}, "ours-b"), balanced([p1, p2], work, http_check=True) as url:
            run("mcpgen, 2 replicas behind haproxy", url)
        redis = RedisServer(work).start()
        try:
            shared = {"PETSTORE_REDIS_URL": redis.url, "PETSTORE_RATE_LIMIT": "100000/s"}
            with ours(p1, shared, "ours-ra"), ours(p2, shared, "ours-rb"), balanced([p1, p2], work, True) as url:
                run("mcpgen, 2 replicas + haproxy + Redis limit", url)
        finally:
            redis.stop()
        if peer is not None:
            with theirs(p1, "peer-1"):
                run("FastMCP from_openapi, 1 process", f"http://127.0.0.1:{p1}/mcp")
            with theirs(p1, "peer-a"), theirs(p2, "peer-b"), balanced([p1, p2], work, http_check=False) as url:
                run("FastMCP from_openapi, 2 behind haproxy", url)

    print("ratios (mcpgen / FastMCP; throughput: higher is better, p50/p99: lower is better):")
    for ours_label, peer_label in (("mcpgen, 1 replica", "FastMCP from_openapi, 1 process"),
                                   ("mcpgen, 2 replicas behind haproxy", "FastMCP from_openapi, 2 behind haproxy")):
        if peer_label not in rows:
            print(f"  {ours_label}: no peer figures ({peer_status})")
            continue
        (t1, l1, _), (t2, l2, _) = rows[ours_label], rows[peer_label]
        print(f"  {ours_label:36} throughput x{statistics.median(t1) / statistics.median(t2):.2f}   "
              f"p50 x{statistics.median(l1) / statistics.median(l2):.2f}   "
              f"p99 x{percentile(l1, 0.99) / percentile(l2, 0.99):.2f}")
    untraced, traced_row = rows["mcpgen, 1 replica"], rows["mcpgen, 1 replica, traced (OTLP export)"]
    off_row = rows["mcpgen, 1 replica, PETSTORE_TELEMETRY=off"]
    print(f"  tracing exported over OTLP: throughput x{statistics.median(traced_row[0]) / statistics.median(untraced[0]):.2f} "
          f"of the same replica with no SDK set up (target: at least 0.9); x"
          f"{statistics.median(traced_row[0]) / statistics.median(off_row[0]):.2f} of PETSTORE_TELEMETRY=off")
    one, shared_row = rows["mcpgen, 2 replicas behind haproxy"], rows["mcpgen, 2 replicas + haproxy + Redis limit"]
    print(f"  the Redis check: p50 x{statistics.median(shared_row[1]) / statistics.median(one[1]):.2f} of the same "
          f"pair without it")


if __name__ == "__main__":
    main()
