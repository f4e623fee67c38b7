"""The generated project as a distribution: its wheel ships tools.json, its console script
serves MCP, and its README documents every tool and variable."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from .conftest import API_KEY, PACKAGE, server_env
from .test_tools_list import spec_operations
from .upstream import INVENTORY, Upstream

pytestmark = pytest.mark.anyio


def run(args: list[str | Path], cwd: Path) -> str:
    done = subprocess.run([str(a) for a in args], check=False, cwd=cwd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{args}\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def installed(generated: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The generated project's wheel, installed (without dependencies) into a --target dir."""
    root = tmp_path_factory.mktemp("generated-wheel")
    pip = [sys.executable, "-m", "pip"]
    run([*pip, "wheel", "--no-deps", "--quiet", "-w", root / "dist", generated], root)
    [wheel] = (root / "dist").glob("petstore_mcp-*.whl")
    run([*pip, "install", "--no-deps", "--no-compile", "--quiet", "--target", root / "site", wheel], root)
    assert (root / "site" / PACKAGE / "tools.json").is_file()
    assert (root / "site" / PACKAGE / "py.typed").is_file()
    return root / "site"


async def test_console_script_serves_stdio(installed: Path, upstream: Upstream) -> None:
    script = installed / "bin" / "petstore-mcp"
    env = server_env(installed.parent, PETSTORE_API_KEY=API_KEY)  # PYTHONPATH is replaced below
    env["PYTHONPATH"] = str(installed)
    params = StdioServerParameters(command=str(script), args=["--base-url", upstream.base_url], env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        assert len((await session.list_tools()).tools) == len(spec_operations())
        result = await session.call_tool("getInventory", {})
        assert not result.is_error and result.structured_content == INVENTORY
    [request] = upstream.take()
    assert request.path == "/api/v3/store/inventory"


def test_cli_flags(generated: Path) -> None:
    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", PACKAGE, *args]
        env = server_env(generated)
        return subprocess.run(command, check=False, env=env, capture_output=True, text=True, timeout=60)

    shown = cli("--help")
    assert shown.returncode == 0, shown.stderr
    for flag in ("--transport", "{stdio,http}", "--host", "--port", "--base-url", "--log-level"):
        assert flag in shown.stdout
    for bad in (["--log-level", "loud"], ["--port", "70000"], ["--transport", "sse"]):
        refused = cli(*bad)  # a usage error, not a traceback
        assert refused.returncode == 2 and "Traceback" not in refused.stderr, (bad, refused.stderr)


def test_readme(generated: Path) -> None:
    readme = (generated / "README.md").read_text()
    for name in spec_operations():
        assert f"`{name}`" in readme
    for var in ("BASE_URL", "API_KEY", "ADMIN_AUTH_USERNAME", "ADMIN_AUTH_PASSWORD", "RATE_LIMIT", "TIMEOUT"):
        assert f"`PETSTORE_{var}`" in readme
    blocks = re.findall(r"```json\n(.*?)\n```", readme, re.DOTALL)
    assert len(blocks) == 2
    for block in blocks:
        json.loads(block)  # client configurations are valid JSON
