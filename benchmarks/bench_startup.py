"""Spawn to the end of the full tools/list over stdio, per client: a big server against a one-tool floor.

    python benchmarks/bench_startup.py [--runs 5] [--load 2] [--clients raw,py-handshake,...,claude]
                                       [--spec GITHUB_JSON | --generated DIR]

Claude Code's headless mode (`claude -p`) gives MCP servers a budget to connect and list before its
first model request (MCP_CONNECT_TIMEOUT_MS, 5 s by default); a server that lists later than that
has no tools in that request. This measures, over stdio:

- github: the server generated from GitHub's REST spec (1,186 tools, 3.35 MB, one page);
- floor: a server generated from a one-operation spec, same runtime: what any start costs.

Clients, each a fresh server process per run (.pyc files warm after one warm-up run):
- raw: JSON-RPC lines over the pipes, no client library (benchmarks/bench_cold_start.py);
- py-handshake, py-modern, ts-v1, ts-v2: the drivers of tests/clients (connect + list, timed inside
  the driver from the spawn, so the client's own start is not counted);
- claude: `claude -p` offline against a fake Anthropic API on 127.0.0.1 (tests/clients/fake_model.py),
  with MCP_CONNECTION_NONBLOCKING=false and ENABLE_TOOL_SEARCH=false, so it waits its 5 s budget and
  sends every MCP tool to the model: the time is from the server's spawn (Claude Code's debug log,
  "Starting connection") to the first model request that carries the server's tools, an upper bound
  of the listing's end; "arrived" counts the tools in that request (none: the budget was missed);
- claude-defaults: the same with Claude Code's defaults, where MCP tools are deferred behind its
  ToolSearch tool and the first request only names them (counted there); -p still waits for the
  servers before that request (up to MCP_CONNECT_TIMEOUT_MS, as read from its code).

"connect ms" is the big server's spawn -> initialize answered (claude: its own "connected in"
figure), so the rest of each time is the listing and the client's handling of it.

`--load N` runs N busy-looping processes meanwhile ("while it runs the test suite"). Prints
medians of --runs, the ratio to the floor and the share of the 5 s budget. No assertions.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench_cold_start import Server, raw_run  # benchmarks/ is this script's own folder

from mcpgen.api import generate_openapi
from mcpgen.options import Options
from tests.clients.fake_model import FakeModel, tool_names
from tests.clients.harness import run_client
from tests.e2e.conftest import server_env
from tests.npm import package_path

GITHUB = package_path("@octokit/openapi", "generated/api.github.com.json")
CLAUDE = package_path("@anthropic-ai/claude-code", "bin/claude.exe")
BUDGET = 5.0  # seconds: Claude Code's MCP_CONNECT_TIMEOUT_MS default
CLIENTS = ("raw", "py-handshake", "py-modern", "ts-v1", "ts-v2", "claude", "claude-defaults")
# claude: every MCP tool in the first request's `tools`, after waiting for the servers (at most 5 s)
STRICT_WAIT = {"MCP_CONNECTION_NONBLOCKING": "false", "ENABLE_TOOL_SEARCH": "false"}
ONE_TOOL = {
    "openapi": "3.0.3", "info": {"title": "Floor", "version": "1.0.0"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {"/ping": {"get": {"operationId": "ping", "summary": "Ping.",
                                "responses": {"200": {"description": "ok", "content": {"application/json": {
                                    "schema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}}}}}}},
}
CONNECTED = r'MCP server "{name}": Successfully connected \(transport: stdio\) in (?P<ms>\d+)ms'
STARTING = re.compile(r'^(\S+) \[DEBUG\] MCP server "(?P<name>[^"]+)": Starting connection', re.MULTILINE)
QUIET = {"DISABLE_AUTOUPDATER": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1",
         "DISABLE_ERROR_REPORTING": "1", "NO_COLOR": "1"}


@dataclass(frozen=True, slots=True)
class Target:
    label: str
    package: str
    project: Path
    tools: int

    @property
    def env(self) -> dict[str, str]:
        return server_env(self.project)

    @property
    def command(self) -> list[str]:
        return [sys.executable, "-m", self.package]


@dataclass(frozen=True, slots=True)
class Sample:
    seconds: float | None  # None: the tools did not arrive
    tools: int  # tools the client got (for claude: the ones the model was sent)
    connect: float | None = None  # spawn -> initialize answered (claude: its own "connected in" figure)


def generate(spec: Path, out: Path, name: str) -> Target:
    generate_openapi(spec, Options(output=out, name=name, force=True))
    package = name.replace("-", "_") + "_mcp"
    tools = len(json.loads((out / "src" / package / "tools.json").read_text()))
    return Target(name, package, out, tools)


def existing(project: Path) -> Target:
    (package,) = [p.name for p in (project / "src").iterdir() if (p / "tools.json").exists()]
    return Target("github", package, project, len(json.loads((project / "src" / package / "tools.json").read_text())))


def measure_raw(target: Target) -> Sample:
    raw = raw_run(Server(target.label, target.command, target.env))
    return Sample(raw.total, raw.tools, raw.initialize)


def measure_driver(client: str) -> Callable[[Target], Sample]:
    def measure(target: Target) -> Sample:
        report = run_client(client, [], ["--", *target.command], target.env)
        if report["listError"]:
            return Sample(None, 0)
        return Sample((report["connectMs"] + report["listMs"]) / 1000, report["tools"] or 0,
                      report["connectMs"] / 1000)

    return measure


def measure_claude(fake: FakeModel, work: Path, defaults: bool) -> Callable[[Target], Sample]:
    def measure(target: Target) -> Sample:
        home, workspace = Path(tempfile.mkdtemp(dir=work)), Path(tempfile.mkdtemp(dir=work))
        config = {"mcpServers": {target.label: {"type": "stdio", "command": target.command[0],
                                                "args": target.command[1:], "env": target.env}}}
        (workspace / "mcp.json").write_text(json.dumps(config))
        env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8",
               "ANTHROPIC_BASE_URL": fake.origin, "ANTHROPIC_API_KEY": "sk-ant-fake", **QUIET,
               **({} if defaults else STRICT_WAIT)}
        fake.reset()
        debug = workspace / "debug.log"
        run = subprocess.run(
            [str(CLAUDE), "-p", "hello", "--mcp-config", str(workspace / "mcp.json"), "--strict-mcp-config",
             "--output-format", "json", "--no-session-persistence", "--debug-file", str(debug)],
            cwd=workspace, env=env, capture_output=True, text=True, timeout=180, check=False,
        )
        if run.returncode != 0:
            raise RuntimeError(f"claude -p exited {run.returncode}: {run.stdout[-1000:]} {run.stderr[-2000:]}")
        spawned = [m for m in STARTING.finditer(debug.read_text()) if m["name"] == target.label]
        if not spawned or not fake.arrivals:
            raise RuntimeError(f"no server start or no model request in {debug}")
        started = datetime.fromisoformat(spawned[0][1].replace("Z", "+00:00")).timestamp()
        connected = re.search(CONNECTED.format(name=re.escape(target.label)), debug.read_text())
        connect = int(connected["ms"]) / 1000 if connected else None
        prefix = f"mcp__{target.label}__"
        named = re.compile(re.escape(prefix) + "[A-Za-z0-9_-]+")
        for arrived, body in fake.arrivals:
            if defaults:  # deferred: named in the request for its ToolSearch tool, not in `tools`
                tools = sorted(set(named.findall(json.dumps(body))))
            else:
                tools = [name for name in tool_names(body) if name.startswith(prefix)]
            if tools:
                return Sample(arrived - started, len(tools), connect)
        return Sample(None, 0, connect)

    return measure


@contextlib.contextmanager
def cpu_load(workers: int) -> Iterator[None]:
    """`workers` busy-looping processes, stopped (by pid) on exit."""
    processes = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(workers)]
    try:
        yield
    finally:
        for process in processes:
            process.kill()
            process.wait()


def _ms(seconds: float | None) -> str:
    return "missed" if seconds is None else f"{seconds * 1000:.0f}"


def _median(samples: list[Sample]) -> float | None:
    """The median of the times, a miss counting as later than any time."""
    values = sorted(s.seconds if s.seconds is not None else float("inf") for s in samples)
    value = statistics.median_high(values) if len(values) % 2 == 0 else statistics.median(values)
    return None if value == float("inf") else value


def table(results: dict[str, dict[str, list[Sample]]], floor: Target, big: Target) -> str:
    lines = [(f"{'client':15} {'floor ms':>9} {big.label + ' ms':>10} {'min-max ms':>12} {'x floor':>7} "
              f"{'of 5 s':>6} {'arrived':>9} {'connect ms':>10}")]
    for client, by_target in results.items():
        low, high = by_target[floor.label], by_target[big.label]
        low_ms, high_ms = _median(low), _median(high)
        times = [s.seconds for s in high if s.seconds is not None]
        spread = f"{min(times) * 1000:.0f}-{max(times) * 1000:.0f}" if times else "-"
        ratio = f"{high_ms / low_ms:.1f}" if high_ms and low_ms else "-"
        share = f"{high_ms / BUDGET:.0%}" if high_ms else "-"
        arrived = f"{min(s.tools for s in high)}/{big.tools}"
        connects = [s.connect for s in high if s.connect is not None]
        connect = f"{statistics.median(connects) * 1000:.0f}" if connects else "-"
        lines.append(f"{client:15} {_ms(low_ms):>9} {_ms(high_ms):>10} {spread:>12} {ratio:>7} {share:>6} "
                     f"{arrived:>9} {connect:>10}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spec", type=Path, default=GITHUB)
    parser.add_argument("--generated", type=Path, help="a project generated from GitHub's spec (skips generation)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--load", type=int, default=0, help="busy-looping processes meanwhile (2: both cores)")
    parser.add_argument("--clients", default=",".join(CLIENTS), help=f"from {', '.join(CLIENTS)}")
    parser.add_argument("--json", type=Path, help="also write every sample here")
    args = parser.parse_args()
    clients = args.clients.split(",")
    if any(c.startswith("claude") for c in clients) and not CLAUDE.exists():
        sys.exit(f"{CLAUDE} is missing: run .ci/run (or set MCPGEN_NPM_PREFIX), or leave claude out of --clients")
    work = Path(tempfile.mkdtemp(prefix="bench-startup-"))
    spec = work / "one-tool.json"
    spec.write_text(json.dumps(ONE_TOOL))
    floor = generate(spec, work / "floor-mcp", "floor")
    big = existing(args.generated) if args.generated else generate(args.spec, work / "github-mcp", "github")
    fake = FakeModel().start()
    measures: dict[str, Callable[[Target], Sample]] = {
        client: measure_raw if client == "raw"
        else measure_claude(fake, work, defaults=client == "claude-defaults") if client.startswith("claude")
        else measure_driver(client) for client in clients}
    results: dict[str, dict[str, list[Sample]]] = {c: {floor.label: [], big.label: []} for c in clients}
    try:
        for target in (floor, big):  # warm-up: .pyc files written, as an installed package has them
            measure_raw(target)
        with cpu_load(args.load):
            time.sleep(1 if args.load else 0)
            load = os.getloadavg()[0]
            for _ in range(args.runs):  # interleaved, so the load hits every pairing alike
                for client in clients:
                    for target in (floor, big):
                        results[client][target.label].append(measures[client](target))
    finally:
        fake.stop()
        shutil.rmtree(work, ignore_errors=True)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, {args.load} busy processes (load {load:.1f} "
          f"at the start); {floor.tools} vs {big.tools} tools over stdio; medians of {args.runs} runs; "
          "spawn -> end of the full tools/list (claude: -> the model request with the tools)\n")
    print(table(results, floor, big))
    if args.json:
        args.json.write_text(json.dumps({c: {t: [[s.seconds, s.tools] for s in v] for t, v in r.items()}
                                         for c, r in results.items()}, indent=1))


if __name__ == "__main__":
    main()
