"""Helpers for e2e tests that generate a project with the CLI, edit its mcpgen.toml and
regenerate it: run the CLI in-process, connect a real client over stdio in either protocol
era, and hold the project to the generated-code bar (mypy --strict, ruff)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import Client, ClientSession, StdioServerParameters, stdio_client
from mcp.client.stdio import get_default_environment
from typer.testing import CliRunner

from mcpgen.cli import app


def run_cli(*args: str) -> None:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.stderr


@asynccontextmanager
async def connect(project: Path, package: str, era: str, **env_vars: str) -> AsyncIterator[Any]:
    """A client of the project's server over stdio: `handshake` (ClientSession) or `modern` (Client)."""
    env = dict(get_default_environment())
    env.update(PYTHONPATH=str(project / "src"), PYTHONUNBUFFERED="1", **env_vars)
    params = StdioServerParameters(command=sys.executable, args=["-m", package], env=env)
    if era == "handshake":
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session
    else:
        async with Client(stdio_client(params), cache=None) as client:
            yield client


def assert_mypy_strict_and_ruff(project: Path, cache: Path) -> None:
    mypy = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", f"--cache-dir={cache}", "src"],
        cwd=project, capture_output=True, text=True, check=False, timeout=600,
    )
    assert mypy.returncode == 0, mypy.stdout
    ruff = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "."], cwd=project, capture_output=True, text=True,
        check=False, timeout=300,
    )
    assert ruff.returncode == 0, ruff.stdout
