"""Load check: N concurrent clients making M tool calls each against the generated petstore
server, with an upstream on 127.0.0.1 that fails 20% of requests (500 or 400) and answers
5% more slowly (`--slow` seconds). Prints figures; exits 1 if a call was lost or the server died.

    python benchmarks/load.py [--clients 20] [--calls 50] [--slow 0.3] [--transports stdio,http]

stdio: one server process, one session, N client tasks multiplexed on it (stdio has one
client per process by nature). HTTP: one server process, N `mcp.Client` connections.
Every call must come back as a result; the calls with isError must equal the upstream's
4xx/5xx answers (each call reaches the upstream exactly once: 500 and 400 are not retried).
Server RSS is read from /proc after the first tools/list and again after the load; the
server's own view of each call comes from its audit log (one line per call, also checked).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters, stdio_client
from mcp.client.stdio import get_default_environment

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from mcpgen.api import generate_openapi
from mcpgen.options import Options
from tests.e2e.conftest import free_port, wait_for_port
from tests.e2e.faults import FaultyUpstream

PACKAGE = "petstore_mcp"
CALL_GUARD = 120.0  # seconds: a call unanswered this long counts as lost


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    ok: int = 0
    errors: int = 0
    lost: list[str] = field(default_factory=list)
    seconds: float = 0.0  # wall time of the load phase alone (no start-up)


def one_call(rng: random.Random) -> tuple[str, dict[str, Any]]:
    roll = rng.random()
    if roll < 0.4:
        return "getPetById", {"petId": rng.randint(1, 500)}
    if roll < 0.6:
        return "getInventory", {}
    if roll < 0.8:
        return "getCategory", {"id": f"c{rng.randint(1, 99)}"}
    return "addPet", {"name": f"pet {rng.randint(1, 10**6)}", "photoUrls": []}


async def client_loop(client: Client, calls: int, seed: int, tally: Tally) -> None:
    rng = random.Random(seed)
    for _ in range(calls):
        name, arguments = one_call(rng)
        started = time.perf_counter()
        try:
            with anyio.fail_after(CALL_GUARD):
                result = await client.call_tool(name, arguments)
        except Exception as exc:  # noqa: BLE001 - a lost call: the figure that must stay 0
            tally.lost.append(f"{name}: {type(exc).__name__}: {exc}")
            continue
        tally.latencies.append(time.perf_counter() - started)
        if result.is_error:
            tally.errors += 1
        else:
            tally.ok += 1


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def server_child(marker: str) -> int:
    """The pid of our child process running the generated server (stdio_client spawns it)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == os.getpid() and marker in cmdline:
            return int(entry.name)
    raise RuntimeError("server process not found")


async def run_stdio(env: dict[str, str], clients: int, calls: int, log: Path) -> tuple[Tally, int, int, bool]:
    tally = Tally()
    params = StdioServerParameters(command=sys.executable, args=["-m", PACKAGE], env=env)
    with log.open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog), cache=None) as client:
            await client.list_tools()
            pid = server_child(PACKAGE)
            before = rss_kib(pid)
            started = time.perf_counter()
            async with anyio.create_task_group() as tasks:
                for number in range(clients):
                    tasks.start_soon(client_loop, client, calls, number, tally)
            tally.seconds = time.perf_counter() - started
            after = rss_kib(pid)
            alive = Path(f"/proc/{pid}").exists()  # noqa: ASYNC240 - one stat, after the load
    return tally, before, after, alive


async def run_http(env: dict[str, str], clients: int, calls: int, log: Path) -> tuple[Tally, int, int, bool]:
    tally = Tally()
    port = free_port()
    with log.open("wb") as sink:
        proc = subprocess.Popen(  # noqa: ASYNC220 - once, before the load
            [sys.executable, "-m", PACKAGE, "--transport", "http", "--port", str(port)],
            env=env, stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT,
        )
        try:
            wait_for_port(port, proc, log)
            url = f"http://127.0.0.1:{port}/mcp"
            async with Client(url, cache=None) as probe:
                await probe.list_tools()
            before = rss_kib(proc.pid)

            async def one_client(number: int) -> None:
                async with Client(url, cache=None) as client:
                    await client_loop(client, calls, 1000 + number, tally)

            started = time.perf_counter()
            async with anyio.create_task_group() as tasks:
                for number in range(clients):
                    tasks.start_soon(one_client, number)
            tally.seconds = time.perf_counter() - started
            after = rss_kib(proc.pid)
            alive = proc.poll() is None
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    return tally, before, after, alive


def audit_durations(log: Path) -> list[float]:
    """duration_ms of every audit line the server wrote (its own view of each call)."""
    lines = [line for line in log.read_text().splitlines() if line.startswith("{") and '"tool_call"' in line]
    return [float(json.loads(line)["duration_ms"]) for line in lines]


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--calls", type=int, default=50, help="calls per client")
    parser.add_argument("--slow", type=float, default=0.3, help="seconds a slow upstream answer takes")
    parser.add_argument("--transports", default="stdio,http")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="mcpgen-load-"))
    out = work / "petstore-mcp"
    generate_openapi(REPO / "samples" / "petstore.yaml", Options(output=out, force=True))
    failed = False
    print(f"load check: {args.clients} clients x {args.calls} calls, upstream 20% errors, 5% slow ({args.slow} s)")
    print(f"{'transport':9} {'calls':>6} {'ok':>6} {'isError':>8} {'expected':>8} {'lost':>5} "
          f"{'p50 ms':>8} {'p99 ms':>8} {'calls/s':>8} {'RSS before':>11} {'RSS after':>10} alive")
    for transport in args.transports.split(","):
        upstream = FaultyUpstream(slow_seconds=args.slow, fault_rate=0.2, seed=11).start()
        upstream.default = "random"
        env = {
            **get_default_environment(),
            "PYTHONPATH": str(out / "src"),
            "PETSTORE_BASE_URL": upstream.base_url,
            "PETSTORE_API_KEY": "load-key-0123456789",
            "PETSTORE_TIMEOUT": "10",
        }
        runner = run_stdio if transport == "stdio" else run_http
        started = time.perf_counter()
        try:
            tally, before, after, alive = anyio.run(runner, env, args.clients, args.calls, work / f"{transport}.log")
        finally:
            upstream.stop()
        elapsed = time.perf_counter() - started
        expected = sum(count for status, count in upstream.answered.items() if status >= 400)
        reached = sum(upstream.answered.values())
        done = tally.ok + tally.errors
        ms = [v * 1000 for v in tally.latencies]
        print(
            f"{transport:9} {done:>6} {tally.ok:>6} {tally.errors:>8} {expected:>8} {len(tally.lost):>5} "
            f"{percentile(ms, 0.5):>8.1f} {percentile(ms, 0.99):>8.1f} {done / tally.seconds:>8.0f} "
            f"{before / 1024:>8.1f} MB {after / 1024:>7.1f} MB {'yes' if alive else 'NO'}"
        )
        problems = []
        if done != args.clients * args.calls or tally.lost:
            problems.append(f"{args.clients * args.calls - done} calls lost: {tally.lost[:3]}")
        if tally.errors != expected or reached != done:
            problems.append(f"errors {tally.errors} != upstream 4xx/5xx {expected} (upstream saw {reached} requests)")
        if not alive:
            problems.append("the server process died")
        for problem in problems:
            print(f"  FAIL {transport}: {problem}")
        failed = failed or bool(problems)
        audited = audit_durations(work / f"{transport}.log")
        print(
            f"  server side (audit log): {len(audited)} lines, p50 {percentile(audited, 0.5):.1f} ms, "
            f"p99 {percentile(audited, 0.99):.1f} ms"
        )
        if len(audited) != done:
            problems.append(f"{len(audited)} audit lines for {done} calls")
            print(f"  FAIL {transport}: {problems[-1]}")
            failed = True
        print(f"  RSS growth {100 * (after - before) / max(before, 1):+.1f}%; wall {elapsed:.1f} s; log {work}/{transport}.log")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
