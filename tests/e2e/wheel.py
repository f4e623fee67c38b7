"""Build mcpgen's wheel and install it into a fresh venv, in a background thread.

Started when the session starts (if the wheel test is selected), so the slow part, pip
fetching mcpgen's dependencies, overlaps the other end-to-end tests."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


class WheelInstall:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.venv = root / "venv"
        self.wheel: Path | None = None
        self._failure: str | None = None
        self._thread = threading.Thread(target=self._run, name="wheel-install", daemon=True)

    def start(self) -> WheelInstall:
        self._thread.start()
        return self

    def wait(self) -> Path:
        """The venv's directory once mcpgen is installed in it; fails with the step's output."""
        self._thread.join(timeout=900)
        assert not self._thread.is_alive(), "building or installing the wheel did not finish"
        assert self._failure is None, self._failure
        return self.venv

    def _run(self) -> None:
        try:
            self._build_and_install()
        except (OSError, RuntimeError, ValueError, subprocess.SubprocessError) as exc:  # reported by wait()
            self._failure = f"{type(exc).__name__}: {exc}"

    def _step(self, *args: str | Path) -> None:
        command = [str(a) for a in args]
        done = subprocess.run(command, check=False, cwd=self.root, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} exited {done.returncode}\n{done.stdout}\n{done.stderr}")

    def _build_and_install(self) -> None:
        dist = self.root / "dist"
        self._step(sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", dist, REPO)
        [self.wheel] = dist.glob("mcpgen-*.whl")
        # A fresh venv without pip of its own: this interpreter's pip installs into it
        # (--python) and fetches mcpgen's dependencies from the index.
        self._step(sys.executable, "-m", "venv", "--without-pip", self.venv)
        python = self.venv / "bin" / "python"
        self._step(sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--no-compile", self.wheel)
