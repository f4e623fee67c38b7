"""The README's commands, verbatim, on a fresh copy of the repository with fresh venvs.

The copy holds the tracked files only (`git ls-files`), as a clean clone would. Each fenced
`sh` block runs as the README shows it, through `bash -c`, with `mcpgen` found on PATH from the
quick start's venv, the way a reader who activated it would run the later blocks. The quick
start ends in a server that runs until stopped: it is run until it prints its URL, then a real
client lists its tools over streamable HTTP, then it is stopped.

Not run here, and why: the test command (`... && .venv/bin/python -m pytest`) is the whole suite,
which cannot run inside itself; `.ci/run` runs that same command on a clean clone, and the test
below checks the two agree. The development block's checks (mypy, ruff, pytest) are what
`.ci/run` runs; its benchmarks take minutes each and print figures: each is checked to start
(`--help`).
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text()
_BLOCK = re.compile(r"^```sh\n(.*?)^```", re.MULTILINE | re.DOTALL)
QUICK_START_PORT = 8000  # the README's own

pytestmark = pytest.mark.slow


def sh_blocks() -> list[str]:
    return _BLOCK.findall(README)


def commands(block: str) -> list[str]:
    """A block's commands: one per line, trailing comments dropped, continuation lines joined."""
    found: list[str] = []
    for line in block.splitlines():
        if line.startswith(" ") and found:  # an indented comment continuing the previous line's
            continue
        command = line.split("  #")[0].strip()
        if command and not command.startswith("#"):
            found.append(command)
    return found


_QUICK_START, _TEST, _USAGE, _INSTALL, _DEVELOPMENT = range(5)  # the README's sh blocks, in order
QUICK_START, TEST_COMMAND, INSTALL_BLOCK = (commands(sh_blocks()[i])[0] for i in (_QUICK_START, _TEST, _INSTALL))


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository's tracked files, copied as a clean clone would have them."""
    root = tmp_path_factory.mktemp("readme") / "mcpgen"
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    for name in filter(None, listed.decode().split("\0")):
        source = REPO / name
        if source.is_file():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, root / name)
    # ../shared, as the tests and CI see it beside a clone
    (root.parent / "shared").symlink_to(REPO.parent / "shared")
    return root


def _env(checkout: Path, home: Path) -> dict[str, str]:
    path = f"{checkout / '.venv' / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME"))}
    return {**keep, "PATH": path, "HOME": str(home), "NO_COLOR": "1"}


@pytest.fixture(scope="module")
def quick_start(checkout: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The quick start, verbatim: it installs mcpgen, generates Petstore, installs and serves it."""
    with socket.socket() as probe:  # a clear failure, not a confusing one, if something holds the port
        assert probe.connect_ex(("127.0.0.1", QUICK_START_PORT)) != 0, f"port {QUICK_START_PORT} is in use"
    home = tmp_path_factory.mktemp("home")
    log = checkout.parent / "quick-start.log"
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            ["bash", "-c", QUICK_START], cwd=checkout, env=_env(checkout, home),
            stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
        )
    url = f"http://127.0.0.1:{QUICK_START_PORT}/mcp"
    try:
        deadline = time.monotonic() + 900  # two pip installs into fresh venvs
        while f"streamable HTTP at {url}" not in log.read_text(errors="replace"):
            assert proc.poll() is None, f"the quick start ended with {proc.returncode}:\n{log.read_text()[-5000:]}"
            assert time.monotonic() < deadline, f"the quick start printed no URL:\n{log.read_text()[-5000:]}"
            time.sleep(0.5)
        yield url
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


def test_the_quick_start_serves_petstore_to_a_real_client(quick_start: str) -> None:
    async def listed() -> list[str]:
        async with Client(quick_start, mode="legacy") as client:
            return sorted(tool.name for tool in (await client.list_tools()).tools)

    names = asyncio.run(listed())
    assert "getPetById" in names and "addPet" in names


def test_the_install_and_bundle_commands_work_as_written(
    checkout: Path, quick_start: str, tmp_path: Path
) -> None:
    """`mcpgen` comes from the quick start's venv (on PATH); HOME is empty, so the dry run's
    Claude Desktop config is a fresh one, and nothing is written there."""
    done = subprocess.run(
        ["bash", "-c", INSTALL_BLOCK], cwd=checkout, env=_env(checkout, tmp_path),
        capture_output=True, text=True, timeout=900, check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert '"petstore"' in done.stdout and "PETSTORE_API_KEY" in done.stdout  # the entry it would add
    assert not any(tmp_path.rglob("claude_desktop_config.json")), "a dry run wrote the config"
    [bundle] = checkout.glob("petstore-mcp-*.mcpb")  # named with the server's version
    assert bundle.stat().st_size > 0 and f"Wrote {bundle}" in done.stdout + done.stderr


def test_the_readme_test_command_is_what_ci_runs() -> None:
    """The suite cannot run inside itself: `.ci/run` runs the README's test command, step by step."""
    steps = [step.strip() for step in TEST_COMMAND.split("&&")]
    assert steps == [
        "python3.11 -m venv .venv",
        ".venv/bin/pip install -e '.[test]'",
        ".venv/bin/python -m pytest",
    ]
    ci = (REPO / ".ci" / "run").read_text()
    assert '"$PY" -m venv .venv' in ci and "python3.11" in ci
    assert ".venv/bin/python -m pip install --quiet -e '.[test]'" in ci
    assert ci.rstrip().endswith(".venv/bin/python -m pytest")


@pytest.mark.parametrize(
    "command",
    [c for c in commands(sh_blocks()[_DEVELOPMENT]) if "benchmarks/" in c],
    ids=lambda c: c.split("benchmarks/")[1].split()[0],
)
def test_each_benchmark_the_readme_names_starts(command: str) -> None:
    script = command.split()[1]
    done = subprocess.run(
        [sys.executable, script, "--help"], cwd=REPO, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0 and "usage" in done.stdout.lower(), done.stderr[-2000:]


def test_the_readme_blocks_are_the_ones_this_test_knows() -> None:
    """A new `sh` block in the README must be run here too. The Usage block is a synopsis of
    every command's options, not something to run."""
    blocks = sh_blocks()
    assert len(blocks) == 5, [b.splitlines()[0] for b in blocks]
    assert commands(blocks[_USAGE])[0].startswith("mcpgen from-openapi SPEC")
    assert commands(blocks[_DEVELOPMENT])[0].startswith(".venv/bin/python -m mypy")
