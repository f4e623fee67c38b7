"""Running the client drivers and the Inspector CLI; shared by the client matrix and benchmarks.

No pytest here: benchmarks/bench_clients.py imports it too.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tests.npm import NPM_PREFIX, package_path

HERE = Path(__file__).parent
TS_DRIVER = HERE / "ts_client.mjs"
PY_DRIVER = HERE / "py_client.py"
INSPECTOR = NPM_PREFIX / "node_modules" / ".bin" / "mcp-inspector"
TS_PACKAGES = (
    package_path("@modelcontextprotocol/sdk", "package.json"),
    package_path("@modelcontextprotocol/client", "package.json"),
    INSPECTOR,
)

# client -> (driver, its first argument); "py-v1" runs under the mcp 1.x venv's python.
CLIENTS = {
    "ts-v1": ("node", "v1"),  # @modelcontextprotocol/sdk 1.x: Claude Desktop, Cursor, VS Code
    "ts-v2": ("node", "v2"),  # @modelcontextprotocol/client 2.x
    "py-v1": ("mcp1", "v1"),  # mcp 1.x ClientSession
    "py-handshake": ("python", "handshake"),  # mcp 2.x ClientSession.initialize(): 2025-11-25
    "py-modern": ("python", "modern"),  # mcp 2.x Client(mode="auto"): 2026-07-28
}
# The Inspector's summary of `tools/list --strict` on stderr: "0 errors, 96 warnings across 8 tools."
PORTABILITY = re.compile(r"(\d+) errors?, (\d+) warnings? across (\d+) tools?")


def stdio_target(package: str) -> list[str]:
    """The driver's target for a generated server on stdio (the driver spawns it)."""
    return ["--", sys.executable, "-m", package]


def run_client(client: str, calls: Sequence[dict[str, Any]], target: Sequence[str], env: dict[str, str],
               mcp1_python: str | None = None, timeout: float = 600,
               answers: dict[str, Any] | None = None, **plan: Any) -> dict[str, Any]:
    """One driver run: connect, list every page, make `calls`; the driver's JSON report.
    `answers` (TS driver): what the client answers elicitation and sampling with, its log level;
    `plan`: more of the plan file (ts_client.mjs: `subscribe`, `details`)."""
    runtime, which = CLIENTS[client]
    driver = {"node": ["node", str(TS_DRIVER)], "python": [sys.executable, str(PY_DRIVER)],
              "mcp1": [mcp1_python or "", str(PY_DRIVER)]}[runtime]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as plan_file:
        json.dump({**plan, "calls": list(calls), **({"client": answers} if answers else {})}, plan_file)
    try:
        run = subprocess.run(
            [*driver, which, plan_file.name, *target], check=False, capture_output=True, text=True, timeout=timeout,
            env={**os.environ, **env, "MCPGEN_NPM_PREFIX": str(NPM_PREFIX)},
        )
    finally:
        os.unlink(plan_file.name)
    lines = run.stdout.strip().splitlines()
    if run.returncode != 0 or not lines:
        raise AssertionError(f"{client} driver exited {run.returncode}:\n{run.stdout[-2000:]}\n{run.stderr[-4000:]}")
    report: dict[str, Any] = json.loads(lines[-1])
    report["stderr"] = run.stderr[-4000:]
    return report


def inspector(args: Sequence[str], catalog: Path, env: dict[str, str] | None = None,
              timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """`mcp-inspector --cli ARGS`, its catalog in `catalog` (not ~/.mcp-inspector)."""
    return subprocess.run(
        [str(INSPECTOR), "--cli", *args], check=False, capture_output=True, text=True, timeout=timeout,
        env={**os.environ, **(env or {}), "MCP_CATALOG_PATH": str(catalog)},
    )


def tool_args(arguments: dict[str, Any]) -> list[str]:
    """`--tool-arg` pairs: strings as they are, everything else as JSON (the Inspector parses it)."""
    pairs = [f"{key}={value if isinstance(value, str) else json.dumps(value)}" for key, value in arguments.items()]
    return ["--tool-arg", *pairs] if pairs else []


def portability(run: subprocess.CompletedProcess[str]) -> tuple[int, int]:
    """(errors, warnings) from `tools/list --strict`: its summary line on stderr, which the
    Inspector leaves out when no tool has a finding (exit 0, the listing on stdout)."""
    match = PORTABILITY.search(run.stderr)
    if match is not None:
        return int(match[1]), int(match[2])
    if run.returncode == 0 and "tools" in json.loads(run.stdout or "{}"):
        return 0, 0
    raise AssertionError(f"the Inspector exited {run.returncode} without a listing:\n{run.stderr[-3000:]}")
