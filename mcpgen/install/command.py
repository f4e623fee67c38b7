"""How a client starts the server, for a project that may not be pip-installed.

In order: `uv run --directory DIR <command>` when `uv` is on PATH (`install` has uv make `DIR/.venv` with the
project and its dependencies, see below); else the project's own `DIR/.venv` (its console
script, or its python importing the package from `DIR/src` when the venv has the dependencies
but not the project); else the `<command>` that `pip install DIR` put on PATH. `python -m` from
mcpgen's own interpreter is never offered: it lacks the server's dependencies (mcp, httpx2, ...).
Paths are absolute: desktop clients start servers with a minimal PATH and an undefined cwd.

No entry relies on the client passing variables through: Gemini CLI (0.61) drops `PYTHONPATH`
from a server's environment, so the venv's interpreter puts `DIR/src` on `sys.path` itself.

With uv, `install` runs `uv sync --directory DIR` once (`prepare`), so the client's first start
does not resolve and download the dependencies: Claude Code waits a few seconds for a server to
answer before it reports it failed, and a cold uv cache takes longer than that.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from mcpgen.install.facts import Facts

# `python -c` with DIR/src as its argument: `-m` would need PYTHONPATH, which clients may drop.
_FROM_SOURCE = "import sys; sys.path.insert(0, sys.argv.pop(1)); from {package}.__main__ import main; main()"


class NoCommand(Exception):
    """Nothing can run the server yet; the message says what to install."""


@dataclass(frozen=True, slots=True)
class Launch:
    command: str
    args: tuple[str, ...]
    how: str  # one line for the user: which way was chosen and why
    prepare: tuple[str, ...] = ()  # run once at install time so the first start is quick (uv sync)

    def shown(self) -> str:
        return " ".join([self.command, *self.args])


def _venv_file(venv: Path, name: str, platform: str) -> Path:
    return venv / "Scripts" / f"{name}.exe" if platform == "win32" else venv / "bin" / name


def _venv_has(venv: Path, package: str, platform: str) -> bool:
    """Whether `package` is installed in the venv (looked up on disk, nothing run)."""
    if platform == "win32":
        return (venv / "Lib" / "site-packages" / package).is_dir()
    return any(path.is_dir() for path in sorted(venv.glob(f"lib/python3*/site-packages/{package}")))


def resolve(facts: Facts, *, platform: str, path: str | None) -> Launch:
    """The command a client should run; `path` is the PATH to search (None: the process's)."""
    directory = str(facts.directory)
    uv = shutil.which("uv", path=path)
    if uv is not None:
        return Launch(
            uv, ("run", "--directory", directory, facts.command),
            f"uv is on PATH: install runs `uv sync` to put {facts.distribution} and its dependencies into "
            f"{facts.directory / '.venv'}, and `uv run` keeps them in step on every start",
            prepare=(uv, "sync", "--directory", directory),
        )
    venv = facts.directory / ".venv"
    if venv.is_dir():
        script = _venv_file(venv, facts.command, platform)
        if script.is_file():
            return Launch(str(script), (), f"the project's own venv has the `{facts.command}` script")
        python = _venv_file(venv, "python", platform)
        if python.is_file() and _venv_has(venv, "mcp", platform):
            return Launch(
                str(python), ("-c", _FROM_SOURCE.format(package=facts.package), str(facts.directory / "src")),
                f"the project's own venv has its dependencies; the package is run from {facts.directory / 'src'}",
            )
    installed = shutil.which(facts.command, path=path)
    if installed is not None:
        return Launch(installed, (), f"`{facts.command}` is installed on PATH (pip install)")
    pip = _venv_file(venv, "pip", platform)
    hint = f"{pip} install {directory}" if venv.is_dir() else f"pip install {directory}"
    raise NoCommand(
        f"cannot run {facts.distribution} yet: uv is not on PATH, {venv} "
        f"{'lacks its dependencies' if venv.is_dir() else 'does not exist'} and `{facts.command}` is not installed. "
        f"Install uv (https://docs.astral.sh/uv/), or run `{hint}` first, then run this again."
    )


def prepare(launch: Launch, timeout: float = 900) -> str | None:
    """Runs `launch.prepare` (if any); None when it worked, else what went wrong (its last lines)."""
    if not launch.prepare:
        return None
    try:
        run = subprocess.run(launch.prepare, capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"`{' '.join(launch.prepare)}` did not finish: {exc}"
    if run.returncode == 0:
        return None
    tail = "\n".join((run.stderr or run.stdout).strip().splitlines()[-8:])
    return f"`{' '.join(launch.prepare)}` failed (exit {run.returncode}):\n{tail}"
