"""Cold start and a full tools/list of a big generated server, against the SDK's floor and FastMCP,
in one run. No assertions: figures and ratios.

    python benchmarks/bench_cold_start.py [--spec GITHUB_JSON] [--generated DIR] [--runs 5]
                                          [--peer-venv /work/.bench-venv | --no-peer]

Servers, each started over stdio the same way (a fresh process per run, .pyc files warm):
- floor: the SDK's `minimal_server.py` (a low-level `mcp.server.Server`, one tool), the least
  any server on this SDK pays to answer `initialize`;
- mcpgen: the server generated from --spec (GitHub's REST spec by default; --generated reuses one);
- FastMCP.from_openapi on the same spec, from the peer venv.

(a) raw JSON-RPC over the pipes, no client library: seconds from spawn to the `initialize`
    answer, then every tools/list page in a tight loop: "server time" is the sum of
    request-sent to answer-read per page; bytes are the JSON lines received. RSS after listing.
(b) the Python `mcp` client (`Client(stdio_client(...), mode="legacy")`): spawn to the last
    page of tools/list, median of --runs.
(c) where the floor goes: interpreter start, `import mcp.server` (and whether it drags in
    `mcp.client`), the generated server's import.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

REPO = Path(__file__).resolve().parent.parent
GITHUB = Path("/work/.corpus/node_modules/@octokit/openapi/generated/api.github.com.json")
MINIMAL_SERVER = REPO.parent / "shared" / "mcp-sdk-examples" / "minimal_server.py"
PEER_VENV = REPO.parent / ".bench-venv"
PEER_SERVER = """
import json, sys, httpx2
from fastmcp import FastMCP
spec = json.loads(open(sys.argv[1], encoding="utf-8").read())
server = FastMCP.from_openapi(openapi_spec=spec, client=httpx2.AsyncClient(base_url="http://127.0.0.1:9"), name="peer")
server.run("stdio", show_banner=False)
"""
INITIALIZE = {
    "jsonrpc": "2.0", "id": 0, "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}},
}


@dataclass(frozen=True, slots=True)
class Server:
    label: str
    command: list[str]
    env: dict[str, str]


@dataclass(frozen=True, slots=True)
class Raw:
    initialize: float  # spawn -> initialize answered
    listing: float  # sum over pages of request -> answer
    total: float  # spawn -> last page
    pages: int
    tools: int
    size: int  # bytes of the tools/list answers
    cpu_initialize: float  # the server's CPU seconds (user + system) until it answered initialize
    cpu_listing: float  # ... while serving every page
    rss_mb: float
    hwm_mb: float


def _status_mb(pid: int, key: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _cpu_seconds(pid: int) -> float:
    """utime + stime of a process: steadier than wall time on a loaded machine."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def raw_run(server: Server) -> Raw:
    """One cold start, initialize, every tools/list page, over raw JSON-RPC lines."""
    started = time.perf_counter()
    process = subprocess.Popen(
        server.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        env={**os.environ, **server.env},
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        def send(message: dict[str, Any]) -> None:
            process.stdin.write(json.dumps(message).encode() + b"\n")  # type: ignore[union-attr]
            process.stdin.flush()  # type: ignore[union-attr]

        def answer(request_id: int) -> bytes:
            while True:
                line = process.stdout.readline()  # type: ignore[union-attr]
                if not line:
                    raise RuntimeError(f"{server.label}: the server closed stdout")
                if json.loads(line).get("id") == request_id:
                    return line

        send(INITIALIZE)
        answer(0)
        initialized = time.perf_counter() - started
        cpu_initialized = _cpu_seconds(process.pid)
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        listing, pages, tools, size, cursor = 0.0, 0, 0, 0, None
        while True:
            pages += 1
            sent = time.perf_counter()
            send({"jsonrpc": "2.0", "id": pages, "method": "tools/list",
                  "params": {"cursor": cursor} if cursor else {}})
            line = answer(pages)
            listing += time.perf_counter() - sent
            size += len(line)
            result = json.loads(line)["result"]
            tools += len(result["tools"])
            cursor = result.get("nextCursor")
            if not cursor:
                break
        total = time.perf_counter() - started
        cpu_listed = _cpu_seconds(process.pid) - cpu_initialized
        rss, hwm = _status_mb(process.pid, "VmRSS"), _status_mb(process.pid, "VmHWM")
    finally:
        process.kill()
        process.wait()
    return Raw(initialized, listing, total, pages, tools, size, cpu_initialized, cpu_listed, rss, hwm)


async def _client_list(server: Server, quiet: TextIO) -> float:
    from mcp import Client, StdioServerParameters, stdio_client

    params = StdioServerParameters(command=server.command[0], args=server.command[1:],
                                   env={**os.environ, **server.env})
    started = time.perf_counter()
    async with Client(stdio_client(params, errlog=quiet), mode="legacy", cache=None,
                      read_timeout_seconds=300) as client:
        cursor = None
        while True:
            page = await client.list_tools(cursor=cursor)
            cursor = page.next_cursor
            if not cursor:
                return time.perf_counter() - started


def client_run(server: Server) -> float:
    import anyio

    with open(os.devnull, "w") as quiet:  # the servers' logs
        return anyio.run(_client_list, server, quiet)


def seconds_printed(python: str, code: str, env: dict[str, str], runs: int) -> float:
    values = []
    for _ in range(runs):
        done = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True,
                              env={**os.environ, **env})
        values.append(float(done.stdout.split()[-1]))
    return statistics.median(values)


def wall(command: list[str], env: dict[str, str], runs: int) -> float:
    values = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, env={**os.environ, **env})
        values.append(time.perf_counter() - started)
    return statistics.median(values)


def _median_raw(runs: list[Raw]) -> Raw:
    def med(field: str) -> Any:
        return statistics.median(getattr(r, field) for r in runs)

    return Raw(med("initialize"), med("listing"), med("total"), runs[0].pages, runs[0].tools, runs[0].size,
               med("cpu_initialize"), med("cpu_listing"), med("rss_mb"), med("hwm_mb"))


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:7.0f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spec", type=Path, default=GITHUB)
    parser.add_argument("--generated", type=Path, help="a project generated from --spec (skips generation)")
    parser.add_argument("--baseline", type=Path, help="another generated project (e.g. by an older mcpgen), "
                        "measured in the same run")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--peer-venv", type=Path, default=PEER_VENV)
    parser.add_argument("--no-peer", action="store_true")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="bench-cold-"))
    project = args.generated
    if project is None:
        project = scratch / "out"
        subprocess.run([sys.executable, "-m", "mcpgen", "from-openapi", str(args.spec), "-o", str(project)],
                       check=True, cwd=REPO, capture_output=True)
    (package,) = [p.name for p in (project / "src").iterdir() if p.is_dir()]
    src = {"PYTHONPATH": str(project / "src")}
    servers = [
        Server("SDK floor (minimal_server.py)", [sys.executable, str(MINIMAL_SERVER)], {}),
        Server("mcpgen (generated)", [sys.executable, "-m", package], src),
    ]
    if args.baseline is not None:
        (old,) = [p.name for p in (args.baseline / "src").iterdir() if p.is_dir()]
        servers.append(Server("mcpgen (baseline)", [sys.executable, "-m", old], {"PYTHONPATH": str(args.baseline / "src")}))
    peer = args.peer_venv / "bin" / "python"
    if not args.no_peer and peer.exists():
        script = scratch / "fastmcp_peer.py"
        script.write_text(PEER_SERVER, encoding="utf-8")
        servers.append(Server("FastMCP.from_openapi", [str(peer), str(script), str(args.spec)], {}))
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; "
          f"spec {args.spec.name}; {args.runs} runs each, interleaved, medians\n")

    for server in servers:  # warm-up: .pyc files written, as an installed package has them
        raw_run(server)
    raws: dict[str, list[Raw]] = {s.label: [] for s in servers}
    clients: dict[str, list[float]] = {s.label: [] for s in servers}
    for _ in range(args.runs):  # interleaved, so load on the machine hits every server alike
        for server in servers:
            raws[server.label].append(raw_run(server))
            clients[server.label].append(client_run(server))
    raw = {label: _median_raw(runs) for label, runs in raws.items()}
    client = {label: statistics.median(values) for label, values in clients.items()}

    floor, ours = servers[0].label, servers[1].label
    print("(a) raw JSON-RPC over stdio")
    print(f"  {'server':30} {'initialize':>10} {'list (server)':>13} {'spawn->list':>11} {'CPU init':>9} "
          f"{'CPU list':>9} {'pages':>5} {'tools':>5} {'list bytes':>10} {'RSS':>7} {'peak':>7}")
    for label, r in raw.items():
        print(f"  {label:30} {_ms(r.initialize):>10} {_ms(r.listing):>13} {_ms(r.total):>11} "
              f"{_ms(r.cpu_initialize):>9} {_ms(r.cpu_listing):>9} {r.pages:>5} "
              f"{r.tools:>5} {r.size / 1e6:8.2f} MB {r.rss_mb:5.0f} MB {r.hwm_mb:5.0f} MB")
    print(f"  mcpgen - floor: initialize {(raw[ours].initialize - raw[floor].initialize) * 1000:+.0f} ms wall, "
          f"{(raw[ours].cpu_initialize - raw[floor].cpu_initialize) * 1000:+.0f} ms CPU "
          f"(CPU: {1000 / os.sysconf('SC_CLK_TCK'):.0f} ms ticks)")
    print("\n(b) Python mcp client (legacy handshake), spawn -> last tools/list page")
    for label, seconds in client.items():
        print(f"  {label:30} {_ms(seconds)}")
    fast = "FastMCP.from_openapi"
    if fast in client:
        print(f"  FastMCP / mcpgen: {client[fast] / client[ours]:.1f}x   "
              f"RSS after listing mcpgen {raw[ours].rss_mb:.0f} MB, FastMCP {raw[fast].rss_mb:.0f} MB")

    print("\n(c) where the floor goes (median of fresh processes)")
    timer = "import time, importlib, sys; t = time.perf_counter(); importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else {!r}); print(time.perf_counter() - t)"
    interpreter = wall([sys.executable, "-c", "pass"], {}, args.runs)
    print(f"  {'python -c pass':44} {_ms(interpreter)}")
    for module, env in (("mcp", {}), ("mcp.server", {}), ("mcp.server.stdio", {}), ("minimal_server", {"PYTHONPATH": str(MINIMAL_SERVER.parent)}),
                        (f"{package}.server", src)):
        seconds = seconds_printed(sys.executable, timer.format(module), env, args.runs)
        print(f"  {'import ' + module:44} {_ms(seconds)}")
    dragged = subprocess.run(
        [sys.executable, "-c", "import sys, mcp.server.stdio; print(sorted(m for m in sys.modules if m.startswith('mcp.client')))"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()
    print(f"  `import mcp.server.stdio` loads mcp.client modules: {dragged}")


if __name__ == "__main__":
    main()
