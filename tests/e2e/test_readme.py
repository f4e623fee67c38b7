"""The README's and the docs pages' commands, verbatim, on a fresh copy of the repository with fresh venvs.

The copy holds the tracked files only (`git ls-files`), as a clean clone would. Each fenced
`sh` block of README.md and of every docs/*.md page runs as the page shows it, through
`bash -c`, in the copy's root, with `mcpgen` found on PATH from the quick start's venv, the way
a reader who activated it would run the later blocks; it must exit 0. The quick start ends in a
server that runs until stopped: it is run until it prints its URL, then a real client lists its
tools over streamable HTTP, then it is stopped.

Not run here, and why: the test command (`... && .venv/bin/python -m pytest`) is the whole suite,
which cannot run inside itself; `.ci/run` runs that same command on a clean clone, and the test
below checks the two agree. The development blocks' checks (mypy, ruff, pytest, regen) are what
`.ci/run` runs; the benchmarks take minutes each and print figures: each is checked to start
(`--help`). The few other blocks that cannot run here (a server that runs until stopped, Docker)
are listed in NOT_RUN with the reason. Every block, run or not, is checked for the mcpgen
commands it names: each subcommand and each of its options must exist.

Every relative link of these pages must lead to a file of the repository and, with an anchor,
to a heading of that page; every docs page is linked from the README.
"""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from mcp import Client

from mcpgen import cli

REPO = Path(__file__).resolve().parents[2]
PAGES = ["README.md", *sorted(f"docs/{page.name}" for page in (REPO / "docs").glob("*.md"))]
TEXT = {page: (REPO / page).read_text() for page in PAGES}
README = TEXT["README.md"]
_BLOCK = re.compile(r"^```sh\n(.*?)^```", re.MULTILINE | re.DOTALL)
_FENCE = re.compile(r"^```(\w*)", re.MULTILINE)
QUICK_START_PORT = 8000  # the README's own

pytestmark = pytest.mark.slow


def sh_blocks(page: str = "README.md") -> list[str]:
    return _BLOCK.findall(TEXT[page])


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


_QUICK_START, _TEST, _COMMANDS, _DEVELOPMENT = range(4)  # the README's sh blocks, in order
QUICK_START, TEST_COMMAND = (commands(sh_blocks()[i])[0] for i in (_QUICK_START, _TEST))
CLIENTS_PAGE = "docs/clients.md"
[INSTALL_BLOCK] = [c for b in sh_blocks(CLIENTS_PAGE) for c in commands(b) if "mcpgen install claude-desktop" in c]
DEVELOPMENT_PAGE = "docs/development.md"

# (page, the start of a block's first command) -> why that block is not run here
NOT_RUN = {
    ("docs/generated-project.md", "petstore-mcp"): "servers that run until stopped (the quick start runs one)",
    ("docs/oauth.md", "export PETSTORE_MCP_AUTH=oauth"): "a server that runs until stopped, for an authorization server",
    ("docs/security.md", "GITHUB_BEARER_TOKEN="): "a generated GitHub server, which runs until stopped",
    ("docs/deploying.md", "cd petstore-mcp && python -c"): "needs a Docker daemon",
}


def _first(block: str) -> str:
    return commands(block)[0]


def _special(page: str, block: str) -> str | None:
    """Why a block is not run by test_each_block_runs_as_written (another test covers it), or None."""
    first = _first(block)
    if page == "README.md" and first in (QUICK_START, TEST_COMMAND):
        return "the quick start and the test command"
    if page == CLIENTS_PAGE and INSTALL_BLOCK in commands(block):
        return "the install block"
    if (page == "README.md" and first.startswith(".venv/bin/python -m mypy")) or page == DEVELOPMENT_PAGE:
        return "the checks .ci/run runs, and benchmarks"
    for (where, start), reason in NOT_RUN.items():
        if where == page and first.startswith(start):
            return reason
    return None


ALL_BLOCKS = [(page, i, block) for page in PAGES for i, block in enumerate(sh_blocks(page))]
RUN_BLOCKS = [(page, i, block) for page, i, block in ALL_BLOCKS if _special(page, block) is None]


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
    [c for b in sh_blocks(DEVELOPMENT_PAGE) for c in commands(b) if "benchmarks/" in c],
    ids=lambda c: c.split("benchmarks/")[1].split()[0],
)
def test_each_benchmark_the_readme_names_starts(command: str) -> None:
    script = command.split()[1]
    done = subprocess.run(
        [sys.executable, script, "--help"], cwd=REPO, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0 and "usage" in done.stdout.lower(), done.stderr[-2000:]


@pytest.mark.parametrize(("page", "index", "block"), RUN_BLOCKS, ids=[f"{p}#{i}" for p, i, _ in RUN_BLOCKS])
def test_each_block_runs_as_written(page: str, index: int, block: str, checkout: Path, quick_start: str,
                                    tmp_path: Path) -> None:
    """The block as the page shows it, in the copy's root, `mcpgen` from the quick start's venv."""
    done = subprocess.run(
        ["bash", "-e", "-c", block], cwd=checkout, env=_env(checkout, tmp_path),
        capture_output=True, text=True, timeout=900, check=False,
    )
    assert done.returncode == 0, f"{page}, sh block {index}:\n{block}\n{done.stdout[-3000:]}{done.stderr[-3000:]}"


def test_the_pages_blocks_are_the_ones_this_test_knows() -> None:
    """A block is run unless a test above covers it or NOT_RUN says why not; each NOT_RUN entry
    names a block that exists. Shell examples are fenced `sh`, so this test sees them."""
    for page in PAGES:
        other = sorted({f for f in _FENCE.findall(TEXT[page]) if f in {"bash", "shell", "console", "zsh", "shell-session"}})
        assert not other, f"{page}: fence shell blocks as ```sh, not {other}"
    for where, start in NOT_RUN:
        assert any(_first(b).startswith(start) for b in sh_blocks(where)), (where, start)
    assert RUN_BLOCKS, "no block is run"


def _mcpgen_calls(block: str) -> list[list[str]]:
    """Every `mcpgen ...` command in a block: split on `&&`, `||`, `;` and `|`, leading
    VAR=value assignments dropped."""
    found: list[list[str]] = []
    for command in commands(block):
        for part in re.split(r"&&|\|\||;|\|", command):
            try:
                words = shlex.split(part)
            except ValueError:
                continue
            while words and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[0]):
                words.pop(0)
            if words and Path(words[0]).name == "mcpgen":
                found.append(words[1:])
    return found


def _cli_commands() -> dict[str, Any]:
    """mcpgen's subcommands by name, as its CLI declares them (each with its `params`)."""
    commands: dict[str, Any] = typer.main.get_command(cli.app).commands  # type: ignore[attr-defined]
    return commands


@pytest.mark.parametrize("page", PAGES)
def test_every_mcpgen_command_shown_exists_with_its_options(page: str) -> None:
    declared = _cli_commands()
    for block in sh_blocks(page):
        for words in _mcpgen_calls(block):
            assert words and words[0] in declared, f"{page}: no command `mcpgen {' '.join(words)}`"
            known = {o for p in declared[words[0]].params for o in (*p.opts, *p.secondary_opts)}
            for word in words[1:]:
                flag = word.split("=")[0]
                if flag.startswith("-"):
                    assert flag in known, f"{page}: `mcpgen {words[0]}` has no option {flag}"


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as `-`."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(text: str) -> set[str]:
    without_code = re.sub(r"^```.*?^```", "", text, flags=re.MULTILINE | re.DOTALL)
    return {_slug(m) for m in re.findall(r"^#{1,6} (.+)$", without_code, re.MULTILINE)}


_LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")


def _links(text: str) -> list[str]:
    without_code = re.sub(r"^```.*?^```", "", text, flags=re.MULTILINE | re.DOTALL)
    return _LINK.findall(re.sub(r"`[^`\n]*`", "", without_code))


@pytest.mark.parametrize("page", PAGES)
def test_every_link_resolves(page: str) -> None:
    tracked = set(subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout.split())
    for link in _links(TEXT[page]):
        if re.match(r"[a-z]+:", link):
            continue  # https:, mailto:
        target, _, anchor = link.partition("#")
        path = (REPO / page).parent / target if target else REPO / page
        relative = path.resolve().relative_to(REPO).as_posix()
        assert relative in tracked or relative in TEXT, f"{page}: {link} leads to no file of the repository"
        if anchor:
            assert relative in TEXT, f"{page}: {link}: anchors only into these pages"
            assert anchor in _anchors(TEXT[relative]), f"{page}: {link}: {relative} has no heading #{anchor}"


def test_the_readme_links_every_docs_page() -> None:
    linked = {(REPO / link.partition("#")[0]).resolve() for link in _links(README) if link.startswith("docs/")}
    for page in PAGES[1:]:
        assert (REPO / page).resolve() in linked, f"the README does not link {page}"


def test_the_readme_blocks_are_the_ones_this_test_knows() -> None:
    """The README's blocks: the quick start, the test command, the commands (run above), the
    development checks."""
    blocks = sh_blocks()
    assert len(blocks) == 4, [b.splitlines()[0] for b in blocks]
    assert commands(blocks[_QUICK_START])[0].startswith("python3.11 -m venv .venv && .venv/bin/pip install . &&")
    assert commands(blocks[_COMMANDS])[0].startswith("mcpgen from-openapi samples/petstore.yaml")
    assert commands(blocks[_DEVELOPMENT])[0].startswith(".venv/bin/python -m mypy")
