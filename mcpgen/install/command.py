"""How a client starts the server, for a project that may not be pip-installed.

In order: `uv run --directory DIR <command>` when `uv` is on PATH (uv makes `DIR/.venv` with the
project and its dependencies on first start); else the project's own `DIR/.venv` (its console
script, or `python -m <package>` with `PYTHONPATH=DIR/src` when the venv has the dependencies
but not the project); else the `<command>` that `pip install DIR` put on PATH. `python -m` from
mcpgen's own interpreter is never offered: it lacks the server's dependencies (mcp, httpx2, ...).
Paths are absolute: desktop clients start servers with a minimal PATH and an undefined cwd.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from mcpgen.install.facts import Facts


class NoCommand(Exception):
    """Nothing can run the server yet; the message says what to install."""


@dataclass(frozen=True, slots=True)
class Launch:
    command: str
    args: tuple[str, ...]
    how: str  # one line for the user: which way was chosen and why
    env: Mapping[str, str] = field(default_factory=dict)  # launch variables (PYTHONPATH), not settings

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
            f"uv is on PATH: `uv run` installs {facts.distribution} and its dependencies into "
            f"{facts.directory / '.venv'} on first start",
        )
    venv = facts.directory / ".venv"
    if venv.is_dir():
        script = _venv_file(venv, facts.command, platform)
        if script.is_file():
            return Launch(str(script), (), f"the project's own venv has the `{facts.command}` script")
        python = _venv_file(venv, "python", platform)
        if python.is_file() and _venv_has(venv, "mcp", platform):
            return Launch(
                str(python), ("-m", facts.package),
                f"the project's own venv has its dependencies; the package is run from {facts.directory / 'src'}",
                {"PYTHONPATH": str(facts.directory / "src")},
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
