"""Located messages that parsers collect instead of printing or raising."""

from __future__ import annotations

import enum
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


class Level(enum.Enum):
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


class Topic(enum.Enum):
    RENAMED = "renamed"
    SKIPPED = "skipped"
    STALE_OVERLAY = "stale_overlay"  # an overlay action whose target matches nothing: the change report lists it


_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


@dataclass(frozen=True, slots=True)
class Diagnostic:
    level: Level
    message: str
    file: str = ""
    pointer: str = ""
    line: int | None = None
    hint: str = ""
    # How the generation summary counts it: a renamed tool or skipped operations (`count` of them,
    # `reason` the group they fall in), told by more than the message's wording.
    topic: Topic | None = None
    reason: str = ""
    count: int = 1

    def location(self) -> str:
        where = self.file
        if self.pointer:
            where += "#" + self.pointer
        if self.line is not None:
            where += f" (line {self.line})"
        return where

    def __str__(self) -> str:
        text = f"{self.level.value}: "
        location = self.location()
        if location:
            text += f"{location}: "
        text += self.message
        if self.hint:
            text += f" ({self.hint})"
        return printable(text)


def printable(text: str) -> str:
    """`text` safe to print: spec text (pointers, names, file names) must not move the
    terminal's cursor or start new lines, so control characters are escaped."""
    return _UNPRINTABLE.sub(lambda m: ascii(m.group())[1:-1], text)


LineLookup = Callable[[str], int | None]  # JSON pointer -> line in the source file


@dataclass(slots=True)
class Diagnostics:
    """Collector handed through a parse; `items` keep insertion order."""

    file: str = ""
    items: list[Diagnostic] = field(default_factory=list)
    # JSON pointer -> source line; set by the document loader, consulted only on report
    line_resolver: LineLookup | None = None

    def add(self, level: Level, message: str, pointer: str = "", hint: str = "", **summary: Any) -> None:
        """`summary`: the `topic`, `reason` and `count` the generation summary groups it by."""
        line = self.line_resolver(pointer) if self.line_resolver and pointer else None
        self.items.append(Diagnostic(level, message, self.file, pointer, line, hint, **summary))

    def info(self, message: str, pointer: str = "", hint: str = "", **summary: Any) -> None:
        self.add(Level.INFO, message, pointer, hint, **summary)

    def warning(self, message: str, pointer: str = "", hint: str = "", **summary: Any) -> None:
        self.add(Level.WARNING, message, pointer, hint, **summary)

    def renamed(self, old: str, new: str, reason: str, pointer: str = "", hint: str = "") -> None:
        self.info(renamed_message(old, new, reason), pointer, hint, topic=Topic.RENAMED, reason=reason)

    def skipped(self, message: str, reason: str, pointer: str = "", hint: str = "", count: int = 1) -> None:
        """`count` operations (or functions) left out, each for `reason` (a short group name)."""
        self.warning(message, pointer, hint, topic=Topic.SKIPPED, reason=reason, count=count)

    def error(self, message: str, pointer: str = "", hint: str = "") -> None:
        self.add(Level.ERROR, message, pointer, hint)

    @property
    def has_errors(self) -> bool:
        return any(d.level is Level.ERROR for d in self.items)


def renamed_message(old: str, new: str, reason: str) -> str:
    return f"tool {old!r} renamed to {new!r}: {reason}"


class GenerationError(Exception):
    """Generation stopped before writing; carries every diagnostic collected so far."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = diagnostics
        errors = [str(d) for d in diagnostics if d.level is Level.ERROR]
        super().__init__("\n".join(errors) or "generation failed")


def pointer_escape(token: str) -> str:
    """One JSON pointer token (RFC 6901)."""
    return token.replace("~", "~0").replace("/", "~1")


def join_pointer(base: str, *tokens: str | int) -> str:
    return base + "".join("/" + pointer_escape(str(t)) for t in tokens)
