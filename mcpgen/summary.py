"""What a generation prints for people when it is done: tools made, renames and skips grouped
by reason with a count and a few examples, the files read, and how to run the server."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from mcpgen.diagnostics import Diagnostic, Level, Topic, printable

RENAMES_SHOWN = 10  # listed one by one with their locations before the summary, unless --verbose
EXAMPLES = 2  # per reason: enough to recognise the rule, few enough to read
_RENAME = re.compile(r"^tool (?P<old>'.*'|\".*\") renamed to (?P<new>'.*?'|\".*?\")")


@dataclass(slots=True)
class Group:
    reason: str
    count: int = 0
    examples: list[str] = field(default_factory=list)


def groups(diagnostics: Iterable[Diagnostic], topic: Topic) -> list[Group]:
    """The diagnostics of `topic` by reason, the largest group first (ties by reason)."""
    found: dict[str, Group] = {}
    for diagnostic in diagnostics:
        if diagnostic.topic is not topic:
            continue
        group = found.setdefault(diagnostic.reason, Group(diagnostic.reason))
        group.count += diagnostic.count
        example = _example(diagnostic)
        if example and len(group.examples) < EXAMPLES:
            group.examples.append(example)
    return sorted(found.values(), key=lambda g: (-g.count, g.reason))


def _example(diagnostic: Diagnostic) -> str:
    """`old → new` for a rename; where it was for a skip (a single operation or function)."""
    if diagnostic.topic is Topic.RENAMED:
        match = _RENAME.match(diagnostic.message)
        return f"{match['old'][1:-1]} → {match['new'][1:-1]}" if match else ""
    if diagnostic.count != 1:
        return ""
    if diagnostic.pointer:
        return diagnostic.pointer
    return f"line {diagnostic.line}" if diagnostic.line is not None else ""


def lines(
    tool_count: int,
    title: str,
    output: str,
    diagnostics: list[Diagnostic],
    files_read: tuple[str, ...],
    verbose: bool,
    skipped_noun: str = "operation",
) -> list[str]:
    """The summary, one printable line each."""
    out = [f"Generated {_count(tool_count, 'tool')} for {title!r} in {output}"]
    renamed = groups(diagnostics, Topic.RENAMED)
    if renamed:
        total = sum(g.count for g in renamed)
        listed = "listed above" if verbose or total <= RENAMES_SHOWN else "--verbose lists each"
        out.append(f"Renamed {_count(total, 'tool')} ({listed}):")
        out += [_group_line(g) for g in renamed]
    skipped = groups(diagnostics, Topic.SKIPPED)
    if skipped:
        total = sum(g.count for g in skipped)
        out.append(f"Skipped {_count(total, skipped_noun)} (the lines above say where and why):")
        out += [_group_line(g) for g in skipped]
    warnings = sum(1 for d in diagnostics if d.level is Level.WARNING and d.topic is not Topic.SKIPPED)
    if warnings:
        out.append(f"{_count(warnings, 'warning')} above")
    if files_read:
        out.append(files_read_line(files_read))
    return [printable(line) for line in out]


def files_read_line(files: tuple[str, ...]) -> str:
    """The line naming every file (or URL) the source was read from."""
    return printable(f"Read {_count(len(files), 'file')}: " + ", ".join(files))


def _group_line(group: Group) -> str:
    examples = f": {', '.join(group.examples)}" if group.examples else ""
    more = ", ..." if examples and group.count > len(group.examples) else ""
    return f"  {group.count:>6,}  {group.reason}{examples}{more}"


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'s' if n != 1 else ''}"
