"""A generated package's `project.py` (`PROJECT = Project(...)`), read without running it.

A project may come from anyone, so the file is parsed as a syntax tree, read up to a byte
cap, and only literal keyword arguments are taken: `install`, `lint` and `regenerate` all
read a project's facts through here.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

MAX_FACTS_BYTES = 1_000_000  # a generated project.py is a few kB


class FactsError(Exception):
    """project.py is too large, not UTF-8, not Python, or its PROJECT is not literals."""


def read_facts(path: Path) -> dict[str, Any]:
    """The keyword arguments of `PROJECT = Project(...)`, each a literal; {} without the file."""
    if not path.is_file():
        return {}
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_FACTS_BYTES + 1)
    except OSError as exc:
        raise FactsError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(data) > MAX_FACTS_BYTES:
        raise FactsError(f"{path}: larger than {MAX_FACTS_BYTES:,} bytes; not a file mcpgen generated")
    try:
        tree = ast.parse(data.decode("utf-8"), filename=str(path))
    except UnicodeDecodeError:
        raise FactsError(f"{path}: not UTF-8 text") from None
    except (SyntaxError, RecursionError, MemoryError) as exc:
        raise FactsError(f"{path}: not valid Python (line {getattr(exc, 'lineno', '?')})") from None
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "PROJECT" for t in node.targets)
            and isinstance(node.value, ast.Call)
        ):
            found: dict[str, Any] = {}
            for keyword in node.value.keywords:
                if keyword.arg is None:
                    continue
                try:
                    found[keyword.arg] = ast.literal_eval(keyword.value)
                except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                    raise FactsError(f"{path}: line {keyword.value.lineno}: `{keyword.arg}` is not a literal") from None
            return found
    raise FactsError(f"{path}: no `PROJECT = Project(...)`")


def fact(path: Path, field: str) -> str | None:
    """One string fact of project.py, or None when the file, the field or a readable form is missing."""
    try:
        value = read_facts(path).get(field)
    except FactsError:
        return None
    return value if isinstance(value, str) else None
