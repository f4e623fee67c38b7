"""Generate every spec of a corpus list and check the output is what strict MCP clients accept.

    python scripts/corpus_check.py ROOT [--list /work/shared/corpus/public.txt] [--jobs 2]
                                        [--serve sample|all|none] [--only SUBSTRING] [--keep DIR]

ROOT is the spec root `fetch.sh` prints. Each spec is generated in a fresh worker process
(so one spec's memory or a hard crash cannot spoil the next) and classified:

- ok:      generated, and every check below passed;
- refused: mcpgen stopped with a located error (expected for Swagger 2.0 for now);
- crash:   an exception escaped mcpgen;
- invalid: generated, but a check failed.

Checks: every generated `.py` compiles; in `tools.json`, each tool passes `types.Tool.model_validate`
(mcp), its inputSchema/outputSchema pass `Draft202012Validator.check_schema`, have `type: object`
at the root and resolve every local `$ref`; the inputSchema root has no oneOf/anyOf/allOf; every
array schema has `items`; names match ^[A-Za-z0-9_-]{1,64}$ and are unique. For a sample
(`--serve sample`: specs of at most 100 tools, and GitHub's) the server is also spawned over stdio
and `initialize` + `tools/list` must return the same tools as `tools.json`; then its typed API
(`operations`) and every model module must import.

Crashes, invalid outputs and failed serves make the exit status 1.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_LIST = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "public.txt"
TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
SERVE_SAMPLE_MAX_TOOLS = 100
SERVE_TIMEOUT = 120.0


@dataclass(slots=True)
class Outcome:
    spec: str
    status: str  # ok | refused | crash | invalid
    tools: int = 0
    warnings: int = 0
    seconds: float = 0.0
    tools_json_bytes: int = 0
    detail: str = ""  # first error, crash summary or first problem
    problems: list[str] = field(default_factory=list)
    output: str = ""
    package: str = ""
    served: str = ""  # "", "ok", or what went wrong
    serve_seconds: float = 0.0


# -- generation (runs in a worker process) ------------------------------------


def generate_one(root: str, spec: str, workdir: str) -> Outcome:
    from mcpgen import api
    from mcpgen.config import Options
    from mcpgen.diagnostics import GenerationError, Level

    output = Path(workdir) / re.sub(r"[^A-Za-z0-9]+", "_", spec).strip("_")
    started = time.perf_counter()
    try:
        result = api.generate_openapi(Path(root) / spec, Options(output=output, force=True))
    except GenerationError as exc:
        errors = [d for d in exc.diagnostics if d.level is Level.ERROR]
        return Outcome(spec, "refused", seconds=time.perf_counter() - started, detail=str(errors[0]) if errors else str(exc))
    except Exception as exc:  # noqa: BLE001 - the point is to catch and report anything
        detail = f"{type(exc).__name__}: {str(exc)[:300]} [{_where(exc)}]"
        return Outcome(spec, "crash", seconds=time.perf_counter() - started, detail=detail)
    seconds = time.perf_counter() - started
    warnings = sum(1 for d in result.diagnostics if d.level is Level.WARNING)
    problems, size = verify_tree(result.files)
    return Outcome(
        spec,
        "invalid" if problems else "ok",
        tools=len(result.project.tools),
        warnings=warnings,
        seconds=seconds,
        tools_json_bytes=size,
        detail=problems[0] if problems else "",
        problems=problems[:20],
        output=str(output),
        package=result.project.package,
    )


def _where(exc: BaseException) -> str:
    """Where it was raised, and the last mcpgen frame on the way (the one to fix)."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if f"{os.sep}mcpgen{os.sep}" in f.filename]
    shown = [frames[-1], *(f for f in ours[-1:] if f is not frames[-1])] if frames else []
    return " <- ".join(f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in shown)


# -- verification ----------------------------------------------------------------


def verify_tree(files: dict[str, str]) -> tuple[list[str], int]:
    """Problems found in a generated tree (path -> text), and the size of tools.json."""
    problems = []
    for path, text in files.items():
        if path.endswith(".py"):
            try:
                compile(text, path, "exec")
            except SyntaxError as exc:
                problems.append(f"{path}:{exc.lineno}: does not compile: {exc.msg}")
    tables = [path for path in files if path.endswith("/tools.json")]
    if len(tables) != 1:
        return [*problems, f"expected one tools.json, found {len(tables)}"], 0
    text = files[tables[0]]
    problems.extend(verify_tools(json.loads(text)))
    return problems, len(text.encode())


def verify_tools(entries: list[dict[str, Any]]) -> list[str]:
    from mcp import types
    from pydantic import ValidationError

    problems = []
    seen: set[str] = set()
    checked: dict[str, list[str]] = {}  # many tools share a schema; the meta-schema check is slow
    for entry in entries:
        tool = entry["tool"]
        name = tool.get("name", "")
        if not TOOL_NAME.match(name):
            problems.append(f"{name!r}: name does not match {TOOL_NAME.pattern}")
        if name in seen:
            problems.append(f"{name!r}: duplicate name")
        seen.add(name)
        try:
            types.Tool.model_validate(tool)
        except ValidationError as exc:
            problems.append(f"{name}: types.Tool rejects it: {exc.errors()[0]['msg']}")
        for key in ("inputSchema", "outputSchema"):
            if key in tool:
                text = json.dumps([key, tool[key]], sort_keys=True)
                if text not in checked:
                    checked[text] = verify_schema(tool[key], top_level_unions=key == "inputSchema")
                problems.extend(f"{name}.{key}{p}" for p in checked[text])
    return problems


def verify_schema(schema: Any, top_level_unions: bool) -> list[str]:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    if not isinstance(schema, dict):
        return [": not an object"]
    problems = []
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        where = "/".join(str(p) for p in exc.absolute_path)
        problems.append(f"/{where}: invalid JSON Schema: {exc.message[:200]}")
    if schema.get("type") != "object":
        problems.append(f": root type is {schema.get('type')!r}, not 'object'")
    if top_level_unions:
        problems.extend(f": top-level {k}" for k in ("oneOf", "anyOf", "allOf") if k in schema)
    defs = schema.get("$defs", {})
    for pointer, node in walk(schema, ""):
        kind = node.get("type")
        if (kind == "array" or (isinstance(kind, list) and "array" in kind)) and "items" not in node:
            problems.append(f"{pointer}: array without items")
        ref = node.get("$ref")
        if isinstance(ref, str) and not _resolves(ref, schema, defs):
            problems.append(f"{pointer}: $ref {ref!r} does not resolve")
    return problems


def _resolves(ref: str, root: dict[str, Any], defs: dict[str, Any]) -> bool:
    if ref == "#":
        return True
    if not ref.startswith("#/"):
        return False
    node: Any = root
    for token in ref[2:].split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return False
    return True


def walk(node: Any, pointer: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every dict under `node` that sits where a schema can (data keywords are skipped)."""
    if isinstance(node, list):
        for i, item in enumerate(node):
            yield from walk(item, f"{pointer}/{i}")
        return
    if not isinstance(node, dict):
        return
    yield pointer, node
    for key, value in node.items():
        if key in ("enum", "const", "default", "examples", "example"):
            continue  # instance data, not schemas
        if key in ("properties", "patternProperties", "$defs", "dependentSchemas") and isinstance(value, dict):
            for name, sub in value.items():
                yield from walk(sub, f"{pointer}/{key}/{name}")
        elif isinstance(value, (dict, list)):
            yield from walk(value, f"{pointer}/{key}")


# -- serving over stdio ----------------------------------------------------------


async def serve_check(outcome: Outcome) -> tuple[str, float]:
    """Spawn the generated server, initialize, list tools; compare with tools.json."""
    from mcp import ClientSession, StdioServerParameters, stdio_client

    src = Path(outcome.output) / "src"
    expected = json.loads((src / outcome.package / "tools.json").read_text("utf-8"))
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", outcome.package],
        env={**os.environ, "PYTHONPATH": str(src)},
    )
    started = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = await session.list_tools()
    seconds = time.perf_counter() - started
    names = [t.name for t in listed.tools]
    if names != [e["tool"]["name"] for e in expected]:
        return f"tools/list returned {len(names)} tools, tools.json has {len(expected)}", seconds
    return import_check(src, outcome.package), seconds


# Imports the typed API and every model module: compiling is not enough, a model class
# can still fail when pydantic builds it (a pattern, a default, a forward reference).
_IMPORT_ALL = """
import importlib, pkgutil, sys
package = sys.argv[1]
importlib.import_module(package + ".operations")
try:
    models = importlib.import_module(package + ".models")
except ModuleNotFoundError:
    sys.exit(0)
for info in pkgutil.walk_packages(models.__path__, package + ".models."):
    try:
        importlib.import_module(info.name)
    except Exception as exc:
        sys.exit(f"{info.name}: {type(exc).__name__}: {exc}"[:300])
"""


def import_check(src: Path, package: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", _IMPORT_ALL, package],
        env={**os.environ, "PYTHONPATH": str(src)},
        capture_output=True, text=True, timeout=SERVE_TIMEOUT * 5, check=False,
    )
    return "ok" if done.returncode == 0 else f"import failed: {(done.stderr.strip().splitlines() or ['?'])[-1]}"


def serve_all(outcomes: list[Outcome], mode: str) -> None:
    import anyio

    for outcome in outcomes:
        if outcome.status not in ("ok", "invalid") or not _wants_serve(outcome, mode):
            continue
        try:
            outcome.served, outcome.serve_seconds = anyio.run(_serve_with_timeout, outcome)
        except Exception as exc:  # noqa: BLE001 - any failure to serve is reported, not raised
            outcome.served = f"{type(exc).__name__}: {exc}"[:300]


async def _serve_with_timeout(outcome: Outcome) -> tuple[str, float]:
    import anyio

    with anyio.fail_after(SERVE_TIMEOUT):
        return await serve_check(outcome)


def _wants_serve(outcome: Outcome, mode: str) -> bool:
    if mode == "all":
        return True
    if mode == "none":
        return False
    return outcome.tools <= SERVE_SAMPLE_MAX_TOOLS or "api.github.com" in outcome.spec


# -- report ------------------------------------------------------------------------


def print_table(outcomes: list[Outcome]) -> None:
    header = f"{'status':8} {'tools':>5} {'warn':>5} {'gen s':>6} {'tools.json':>10} {'serve':>8}  spec"
    print(header)
    print("-" * len(header))
    for o in outcomes:
        served = "" if not o.served else ("ok" if o.served == "ok" else "FAIL")
        if served == "ok":
            served = f"ok {o.serve_seconds:.1f}s"
        size = _size(o.tools_json_bytes) if o.tools_json_bytes else ""
        print(f"{o.status:8} {o.tools:>5} {o.warnings:>5} {o.seconds:>6.1f} {size:>10} {served:>8}  {o.spec}")
    details = [o for o in outcomes if o.status != "ok" or (o.served and o.served != "ok")]
    if details:
        print()
    for o in details:
        print(f"{o.status}: {o.spec}: {o.detail}")
        for problem in o.problems[1:5]:
            print(f"    {problem}")
        if o.served and o.served != "ok":
            print(f"    serve: {o.served}")


def print_summary(outcomes: list[Outcome], wall: float) -> None:
    counts = {s: sum(1 for o in outcomes if o.status == s) for s in ("ok", "refused", "crash", "invalid")}
    served = [o for o in outcomes if o.served]
    served_ok = sum(1 for o in served if o.served == "ok")
    generated = [o for o in outcomes if o.status in ("ok", "invalid")]
    print()
    print(
        f"{len(outcomes)} specs: " + ", ".join(f"{n} {s}" for s, n in counts.items())
        + f"; served over stdio {served_ok}/{len(served)}"
    )
    if generated:
        print(
            f"tools: {sum(o.tools for o in generated)} in all; warnings: {sum(o.warnings for o in generated)}; "
            f"generation {sum(o.seconds for o in generated):.1f} s in all, "
            f"slowest {max(o.seconds for o in generated):.1f} s; wall {wall:.1f} s"
        )


def _size(n: int) -> str:
    return f"{n / 1_000_000:.1f} MB" if n >= 1_000_000 else f"{n / 1000:.0f} kB"


# -- main ----------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="spec root (what fetch.sh prints)")
    parser.add_argument("--list", type=Path, default=DEFAULT_LIST, help="specs to check, relative to ROOT")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--serve", choices=("sample", "all", "none"), default="sample")
    parser.add_argument("--only", help="only specs whose path contains this")
    parser.add_argument("--keep", type=Path, help="generate here and keep the output (default: a temp dir)")
    args = parser.parse_args(argv)

    specs = [line.strip() for line in args.list.read_text().splitlines() if line.strip() and not line.startswith("#")]
    if args.only:
        specs = [s for s in specs if args.only in s]
    workdir = args.keep or Path(tempfile.mkdtemp(prefix="mcpgen-corpus-"))
    workdir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    try:
        outcomes = run_all(str(args.root), specs, str(workdir), args.jobs)
        serve_all(outcomes, args.serve)
    finally:
        if args.keep is None:
            shutil.rmtree(workdir, ignore_errors=True)
    print_table(outcomes)
    print_summary(outcomes, time.perf_counter() - started)
    bad = [o for o in outcomes if o.status in ("crash", "invalid") or (o.served and o.served != "ok")]
    return 1 if bad else 0


def run_all(root: str, specs: list[str], workdir: str, jobs: int) -> list[Outcome]:
    # One spec per worker process: GitHub's spec alone holds ~1 GB while it is generated.
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context, max_tasks_per_child=1) as pool:
        futures = [pool.submit(generate_one, root, spec, workdir) for spec in specs]
        outcomes = []
        for spec, future in zip(specs, futures, strict=True):
            try:
                outcomes.append(future.result())
            except Exception as exc:  # noqa: BLE001 - a worker that died (e.g. killed for memory)
                outcomes.append(Outcome(spec, "crash", detail=f"worker died: {type(exc).__name__}: {exc}"))
            print(f"  {outcomes[-1].status:8} {outcomes[-1].seconds:6.1f}s  {spec}", file=sys.stderr, flush=True)
    return outcomes


if __name__ == "__main__":
    sys.exit(main())
