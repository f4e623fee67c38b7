"""Progress of one generation, for people watching a terminal.

The pipeline says which step it is in (`step("formatting 2,431 Python files")`); whoever
runs it decides whether anyone hears: the CLI installs a reporter only when stderr is a
terminal and `--quiet` was not given, so logs, pipes and the library API see nothing.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import TextIO

Reporter = Callable[[str], None]
_reporter: ContextVar[Reporter | None] = ContextVar("mcpgen_progress", default=None)


def step(text: str) -> None:
    """The step the pipeline starts now; a no-op unless someone is reporting."""
    reporter = _reporter.get()
    if reporter is not None:
        reporter(text)


@contextlib.contextmanager
def reporting(reporter: Reporter | None) -> Iterator[None]:
    token = _reporter.set(reporter)
    try:
        yield
    finally:
        _reporter.reset(token)


class TerminalLine:
    """One status line, rewritten in place (`\\r` + erase), with the seconds since the start;
    `clear()` leaves the terminal as it was before the first step."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.started = time.monotonic()
        self.shown = False

    def __call__(self, text: str) -> None:
        seconds = time.monotonic() - self.started
        self.stream.write(f"\r\x1b[K{text} … ({seconds:.1f} s)")
        self.stream.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
