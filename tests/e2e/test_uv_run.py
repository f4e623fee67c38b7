"""`uv run`, started exactly as a client starts it: an install entry and an unpacked MCPB bundle
answer `tools/list`.

uv is the PyPI package (the test extra). It resolves from PyPI, so these tests need the network
(CI has it); its cache is shared across runs under `.ci/uv-cache` (`$UV_CACHE_DIR` wins), so
only the first run downloads. The server's environment is the MCP SDK's default one (what a
client passes: PATH, HOME, ...) plus the entry's `env`, that cache and the machine's TLS trust
(`SSL_CERT_FILE`, `SSL_CERT_DIR`, when set: what a client started from the user's shell inherits;
CI machines behind an intercepting proxy need it to reach PyPI).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
import zipfile
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters, stdio_client
from mcp.client.stdio import get_default_environment
from typer.testing import CliRunner

from mcpgen.cli import app

from .projects import run_cli

REPO = Path(__file__).resolve().parents[2]
UV = shutil.which("uv", path=str(Path(sys.executable).parent))
CACHE = Path(os.environ.get("UV_CACHE_DIR") or REPO / ".ci" / "uv-cache")
PETSTORE_TOOLS = 12
# Claude Code gives a stdio server this long to answer before `claude mcp list` says it failed
# (its default MCP_TIMEOUT); a start after `install` (which ran `uv sync`) must fit in it.
CLIENT_WAIT = 5.0
TLS_TRUST = ("SSL_CERT_FILE", "SSL_CERT_DIR")

pytestmark = pytest.mark.skipif(UV is None, reason="uv is not installed: pip install -e '.[test]'")


def client_env(entry_env: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(get_default_environment())
    env.update({name: os.environ[name] for name in TLS_TRUST if name in os.environ})
    env["UV_CACHE_DIR"] = str(CACHE)
    env.update(entry_env or {})
    return env


def list_tools(command: str, args: list[str], env: dict[str, str], cwd: Path) -> tuple[list[str], float]:
    """The tool names the server lists, and how long it took from spawn to the answer."""
    params = StdioServerParameters(command=command, args=args, env=env, cwd=str(cwd))

    async def listed() -> list[str]:
        async with Client(stdio_client(params), cache=None) as client:
            return [tool.name for tool in (await client.list_tools()).tools]

    started = time.monotonic()
    names = anyio.run(listed)
    return names, time.monotonic() - started


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    output = tmp_path_factory.mktemp("uv-run") / "petstore-mcp"
    run_cli("from-openapi", str(REPO / "samples" / "petstore.yaml"), "-o", str(output))
    return output


@pytest.fixture(scope="module")
def python_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A from-python server: no httpx2, so `>=3.10`, which uv resolves too."""
    output = tmp_path_factory.mktemp("uv-run-python") / "inventory"
    run_cli("from-python", str(REPO / "samples" / "tools.py"), "-o", str(output))
    return output


@pytest.mark.parametrize(("fixture", "server", "command", "requires"), [
    ("project", "petstore", "petstore-mcp", ">=3.11"),
    ("python_project", "inventory", "inventory-mcp", ">=3.10"),
])
def test_install_entry_starts_with_uv_run(
    fixture: str, server: str, command: str, requires: str, request: pytest.FixtureRequest, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert UV is not None
    project: Path = request.getfixturevalue(fixture)
    assert f'requires-python = "{requires}"' in (project / "pyproject.toml").read_text()
    monkeypatch.setenv("PATH", f"{Path(UV).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("UV_CACHE_DIR", str(CACHE))  # for the `uv sync` install runs
    result = CliRunner().invoke(app, ["install", "mcp-json", str(project)])
    assert result.exit_code == 0, result.stderr
    assert "warning" not in result.stderr, result.stderr
    entry = json.loads(result.stdout)["mcpServers"][server]
    assert entry["command"] == UV and entry["args"] == ["run", "--directory", str(project), command]
    assert (project / ".venv").is_dir()  # install synced it: the first start has nothing to download
    names, took = list_tools(entry["command"], entry["args"], client_env(entry.get("env")), tmp_path)
    if server == "petstore":
        assert "getPetById" in names and len(names) == PETSTORE_TOOLS
    else:
        assert names, "the inventory server lists no tools"
    assert took < CLIENT_WAIT, f"first start after install took {took:.1f} s"


def test_unpacked_bundle_starts_with_uv_run(project: Path, tmp_path: Path) -> None:
    """The manifest's `mcp_config` as the host runs it: `${__dirname}` is the unpacked bundle,
    every `${user_config.<key>}` its default, `uv` found on PATH; uv builds a fresh environment."""
    assert UV is not None
    bundle = tmp_path / "petstore.mcpb"
    run_cli("bundle", str(project), "-o", str(bundle))
    unpacked = tmp_path / "unpacked"
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(unpacked)
    manifest = json.loads((unpacked / "manifest.json").read_text())
    assert manifest["compatibility"]["runtimes"]["python"] == ">=3.11"
    config = manifest["server"]["mcp_config"]
    defaults = {key: str(field.get("default", "")) for key, field in manifest.get("user_config", {}).items()}

    def substituted(text: str) -> str:
        text = text.replace("${__dirname}", str(unpacked))
        for key, value in defaults.items():
            text = text.replace("${user_config." + key + "}", value)
        return text

    assert config["command"] == "uv"
    env = client_env({name: substituted(value) for name, value in config["env"].items()})
    env["PATH"] = f"{Path(UV).parent}{os.pathsep}{env.get('PATH', '')}"
    names, _ = list_tools(UV, [substituted(arg) for arg in config["args"]], env, tmp_path)
    assert "getPetById" in names and len(names) == PETSTORE_TOOLS
