"""How many tools each strict converter takes strict, and why the rest fall back to non-strict.

    python benchmarks/bench_agents_strict.py [--servers petstore,python,github,stripe] [--keep DIR]

Generates each server (as the agents matrix does: tests/clients/test_agents.py), lists and
converts its tools through openai-agents (`MCPServerStdio`, `MCPUtil.to_function_tool(strict=True)`,
whose fallback reason is what `ensure_strict_json_schema` raises) and pydantic-ai (its OpenAI
profile's transformer, strict inferred from `is_strict_compatible`; it gives no reason, so the
served schema is classified by the first OpenAI strict rule it breaks, see `obstacle`), with the
pinned venvs of tests/clients/agent_frameworks.py. Prints a table; not a gate.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from mcpgen.api import generate_openapi
from mcpgen.options import OperationFilter, Options
from tests.clients.agent_frameworks import venv_python
from tests.e2e.conftest import server_env
from tests.npm import package_path

DRIVER = REPO / "tests" / "clients" / "agent_driver.py"
PATHS = {"openai-agents": "openai-agents-strict", "pydantic-ai": "pydantic-ai-openai"}


def generate(server: str, out: Path) -> tuple[Path, str]:
    """(output dir, package) of one server."""
    if server == "python":
        subprocess.run([sys.executable, "-m", "mcpgen", "from-python", str(REPO / "samples" / "tools.py"), "-o",
                        str(out), "--name", "inventory"], check=True, capture_output=True, cwd=REPO)
        return out, "inventory_mcp"
    spec, name, extra = {
        "petstore": (REPO / "samples" / "petstore.yaml", "petstore", {"filters": OperationFilter(include_deprecated=True)}),
        "github": (package_path("@octokit/openapi", "generated/api.github.com.json"), "octo-github", {}),
        "stripe": (REPO / ".ci" / "corpus" / "package" / "api" / "stripe.com.json", "stripe", {}),
    }[server]
    generate_openapi(spec, Options(output=out, force=True, name=name, **extra))
    return out, name.replace("-", "_") + "_mcp"


def obstacle(schema: Any, depth: int = 0) -> str | None:
    """The first OpenAI strict rule `schema` breaks as served (a heuristic: pydantic-ai gives no reason)."""
    if not isinstance(schema, dict) or depth > 40:
        return None
    if isinstance(schema.get("$ref"), str) and len(schema) == 1:
        return "a $ref (recursive definition)"
    if schema.get("type") == "object" or "properties" in schema:
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict) and extra:
            return "a map (additionalProperties: a schema)"
        if not schema.get("properties") and extra is not False:
            return "an open object (no properties)"
    if schema == {} or schema is True:
        return "an unconstrained value ({})"
    for key in ("oneOf", "allOf", "not", "if", "patternProperties", "dependentSchemas"):
        if key in schema:
            return f"`{key}`"
    children: list[Any] = [*(schema.get("properties") or {}).values(), *(schema.get("anyOf") or []),
                           *(schema.get("$defs") or {}).values()]
    if isinstance(schema.get("items"), dict):
        children.append(schema["items"])
    for child in children:
        found = obstacle(child, depth + 1)
        if found:
            return found
    return None


def _reason(text: str) -> str:
    """An error message with names and numbers taken out."""
    return re.sub(r"'[^']*'|\"[^\"]*\"|\d+", "…", text.split(":", 1)[-1].strip())[:90]


def run(framework: str, out: Path, package: str) -> dict[str, Any]:
    venv = "agents"
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as plan:
        json.dump({"call": {"name": "(none)", "arguments": {}}}, plan)
    done = subprocess.run([str(venv_python(venv)), str(DRIVER), framework, plan.name, "--", sys.executable, "-m",
                           package], check=True, capture_output=True, text=True, env=server_env(out), timeout=1800)
    Path(plan.name).unlink()
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--servers", default="petstore,python,github,stripe")
    parser.add_argument("--keep", type=Path, help="generate under this folder (else a temporary one)")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-agents-"))
    rows: list[tuple[str, str, int, int, Counter[str]]] = []
    for server in args.servers.split(","):
        out, package = generate(server, work / f"{server}-mcp")
        served = {e["tool"]["name"]: e["tool"]["inputSchema"]
                  for e in json.loads((out / "src" / package / "tools.json").read_text())}
        for framework, path in PATHS.items():
            entries = run(framework, out, package)["paths"][path]
            reasons: Counter[str] = Counter()
            strict = 0
            for name, entry in entries.items():
                if entry.get("strict"):
                    strict += 1
                elif "error" in entry:
                    reasons["conversion failed: " + _reason(entry["error"])] += 1
                elif framework == "openai-agents":
                    reasons[_reason(entry.get("strict_error", "?"))] += 1
                else:
                    reasons[obstacle(served[name]) or "(no rule found by the heuristic)"] += 1
            rows.append((server, framework, len(entries), strict, reasons))
    print(f"{'server':10} {'framework':14} {'tools':>6} {'strict':>7} {'fallback':>8}  reasons (count)")
    for server, framework, tools, strict, reasons in rows:
        print(f"{server:10} {framework:14} {tools:6} {strict:7} {tools - strict:8}")
        for reason, count in reasons.most_common():
            print(f"{'':42}{count:6}  {reason}")


if __name__ == "__main__":
    main()
