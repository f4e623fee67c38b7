"""Claude Code in headless mode (`claude -p`) gets a generated server's tools to the model and calls one.

Claude Code runs offline: its model API is tests/clients/fake_model.py on 127.0.0.1
(ANTHROPIC_BASE_URL, a fake key), which records every request and answers the first one that
offers `mcp__petstore__getPetById` with a `tool_use` of it. The MCP config names the generated
Petstore server on stdio (`--mcp-config`, `--strict-mcp-config`: no other server is read), the
one tool is allowed (`--allowedTools`), and HOME is a fresh folder. Two settings make the run
say what a user's would: MCP_CONNECTION_NONBLOCKING=false (wait up to MCP_CONNECT_TIMEOUT_MS,
5 s, for the servers before the first model request, rather than send it without their tools)
and ENABLE_TOOL_SEARCH=false (every MCP tool in the request's `tools`, not behind a search tool).

Checked: the model was offered every tool of the server, with its input schema; Claude Code
called the tool when the model asked (the upstream got the request) and sent the result back
to the model as a `tool_result`; the run ended with the model's last answer. And GitHub's server
(1,186 tools in one tools/list page) gets every tool into the first request.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.npm import ensure_installed, package_path

from .conftest import Served
from .fake_model import FakeModel, tool_names, tool_results
from .harness import stdio_target
from .messy_upstream import PETSTORE_PREFIX, MessyUpstream

CLAUDE = package_path("@anthropic-ai/claude-code", "bin/claude.exe")
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
QUIET = {  # no update checks, telemetry or error reports
    "DISABLE_AUTOUPDATER": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "NO_COLOR": "1",
}
TOOL = "mcp__petstore__getPetById"


@pytest.fixture
def fake_model() -> Iterator[FakeModel]:
    model = FakeModel(reply="Rex it is.", call=TOOL, call_input={"petId": 1}).start()
    yield model
    model.stop()


def _claude(served: Served, name: str, model: FakeModel, root: Path, prompt: str, *args: str,
            **env: str) -> subprocess.CompletedProcess[str]:
    """`claude -p PROMPT ARGS` with one MCP server, `served` on stdio named `name`, in a fresh HOME."""
    ensure_installed(CLAUDE)
    home, workspace = root / "home", root / "workspace"
    home.mkdir()
    workspace.mkdir()
    _, python, *server_args = stdio_target(served.package)
    config = {"mcpServers": {name: {"type": "stdio", "command": python, "args": server_args, "env": served.env}}}
    (workspace / "mcp.json").write_text(json.dumps(config))
    environment = {"HOME": str(home), "PATH": SYSTEM_PATH, "LANG": "C.UTF-8", "ANTHROPIC_BASE_URL": model.origin,
                   "ANTHROPIC_API_KEY": "sk-ant-fake", "MCP_CONNECTION_NONBLOCKING": "false",
                   "ENABLE_TOOL_SEARCH": "false", **QUIET, **env}
    run = subprocess.run(
        [str(CLAUDE), "-p", prompt, "--mcp-config", str(workspace / "mcp.json"), "--strict-mcp-config",
         "--output-format", "json", "--no-session-persistence", *args],
        cwd=workspace, env=environment, capture_output=True, text=True, timeout=300, check=False,
    )
    assert run.returncode == 0, f"claude -p exited {run.returncode}:\n{run.stdout[-2000:]}\n{run.stderr[-3000:]}"
    return run


def _listed(served: Served) -> dict[str, dict[str, Any]]:
    entries = json.loads((served.src / served.package / "tools.json").read_text())
    return {entry["tool"]["name"]: entry["tool"] for entry in entries}


def test_claude_code_sends_the_tools_to_the_model_and_calls_one(
    petstore: Served, messy_upstream: MessyUpstream, fake_model: FakeModel, tmp_path: Path,
) -> None:
    before = messy_upstream.hits.get(f"{PETSTORE_PREFIX}/pet/1", 0)
    run = _claude(petstore, "petstore", fake_model, tmp_path, "What is pet 1 called?", "--allowedTools", TOOL)
    assert json.loads(run.stdout)["result"] == "Rex it is."

    offered = [body for body in fake_model.messages if TOOL in tool_names(body)]
    assert offered, f"no model request offered the server's tools: {[tool_names(b) for b in fake_model.messages]}"
    listed = _listed(petstore)
    sent = {tool["name"]: tool for tool in offered[0]["tools"] if tool["name"].startswith("mcp__petstore__")}
    assert sorted(sent) == sorted(f"mcp__petstore__{name}" for name in listed)
    assert sent[TOOL]["input_schema"]["properties"].keys() == listed["getPetById"]["inputSchema"]["properties"].keys()

    assert messy_upstream.hits.get(f"{PETSTORE_PREFIX}/pet/1", 0) == before + 1
    (result,) = tool_results(offered[-1])
    assert not result.get("is_error"), result
    assert "Rex" in json.dumps(result["content"])


def test_claude_code_sends_every_tool_of_github_to_the_model(github: Served, tmp_path: Path) -> None:
    """All 1,186 tools of GitHub's one-page listing reach the first model request. The connect
    budget is raised, so that a loaded machine cannot fail this: how long it takes is
    benchmarks/bench_startup.py's to measure."""
    model = FakeModel().start()
    try:
        _claude(github, "github", model, tmp_path, "hello", MCP_CONNECT_TIMEOUT_MS="120000")
    finally:
        model.stop()
    first = model.messages[0]
    sent = sorted(name for name in tool_names(first) if name.startswith("mcp__github__"))
    assert sent == sorted(f"mcp__github__{name}" for name in _listed(github))
