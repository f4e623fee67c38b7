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


# pydantic-ai 2.68's OpenAI strict rules (pydantic_ai/profiles/openai.py: `_STRICT_INCOMPATIBLE_KEYS`,
# `_STRICT_COMPATIBLE_STRING_FORMATS`, `OpenAIJsonSchemaTransformer.transform`), in the order it applies them.
_INCOMPATIBLE_KEYS = ("minLength", "maxLength", "patternProperties", "unevaluatedProperties", "propertyNames",
                      "minProperties", "maxProperties", "unevaluatedItems", "contains", "minContains", "maxContains",
                      "uniqueItems")
_STRICT_FORMATS = ("date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid")
_LOOKAROUND = ("(?=", "(?!", "(?<=", "(?<!")


def obstacle(schema: Any, depth: int = 0) -> str | None:
    """The first OpenAI strict rule `schema` breaks as served (pydantic-ai gives no reason, so its rules are
    applied here in its order: the bench's classification, not pydantic-ai's own words)."""
    if not isinstance(schema, dict) or depth > 40:
        return None
    if "default" in schema:
        return "a default value (`default` is not allowed in strict mode)"
    if isinstance(schema.get("$ref"), str) and len(schema) == 1:
        return "a $ref (recursive definition)"
    for key in _INCOMPATIBLE_KEYS:
        if key in schema:
            return f"`{key}`"
    if isinstance(schema.get("format"), str) and schema["format"] not in _STRICT_FORMATS:
        return "a string format strict mode lacks"
    if isinstance(schema.get("pattern"), str) and any(t in schema["pattern"] for t in _LOOKAROUND):
        return "a pattern with a lookaround"
    if "oneOf" in schema:
        return "`oneOf`"
    if schema.get("type") == "object":
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict) and extra:
            return "a map (additionalProperties: a schema)"
        if extra not in (None, False):
            return "an open object (additionalProperties: true)"
        if "required" not in schema:
            return "an object without a `required` list"
        if any(name not in schema["required"] for name in schema.get("properties") or {}):
            return "an optional property (strict requires every property)"
    if schema.get("type") == "array":
        items = schema.get("items")
        if not (isinstance(items, dict) and any(k in items for k in ("type", "$ref", "anyOf", "enum", "const"))) \
                and not schema.get("prefixItems"):
            return "an array without typed items"
    children: list[Any] = [*(schema.get("properties") or {}).values(), *(schema.get("anyOf") or []),
                           *(schema.get("allOf") or []), *(schema.get("$defs") or {}).values()]
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
