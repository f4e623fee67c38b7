"""The pinned npm packages some tests drive (the MCP conformance suite, the Inspector, ajv).

They live under one prefix, `.ci/npm` (or `$MCPGEN_NPM_PREFIX`): `.ci/run` installs all of
them; a test installs what it needs on first use, so a plain `pytest` works from a clean
clone too. Tests skip only when node itself is absent.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
NPM_PREFIX = Path(os.environ.get("MCPGEN_NPM_PREFIX") or REPO / ".ci" / "npm")


def node(why: str) -> str:
    """The node executable, or skip: `why` says what needs it."""
    found = shutil.which("node")
    if found is None:
        pytest.skip(f"node is not installed: {why}")
    return found


def package_path(name: str, relative: str = "package.json") -> Path:
    """A file of an installed package under the prefix."""
    return NPM_PREFIX / "node_modules" / name / relative


def ensure_installed(specs: list[str], paths: list[Path], force: bool = False) -> None:
    """`npm install` the pinned `specs` into the prefix unless every one of `paths` exists
    (npm keeps what an earlier install put there: the prefix's package.json lists it)."""
    if not force and all(path.exists() for path in paths):
        return
    npm = shutil.which("npm")
    assert npm is not None, "node is installed but npm is not; install npm or set MCPGEN_NPM_PREFIX"
    run = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--prefix", str(NPM_PREFIX), *specs],
        check=False, capture_output=True, text=True, timeout=600,
    )
    assert run.returncode == 0, f"npm install into {NPM_PREFIX} failed:\n{run.stderr[-3000:]}"
