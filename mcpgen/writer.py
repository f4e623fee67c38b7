"""Formatting and writing: black in-process, a staging directory, an atomic swap.

Nothing reaches the output directory unless every file rendered and formatted;
an existing non-empty directory is only replaced with `force`.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import black

_MODE = black.Mode(target_versions={black.TargetVersion.PY310}, line_length=100)


class OutputExists(Exception):
    """The output directory exists, is not empty, and `force` was not given."""


def format_files(files: dict[str, str], keep: frozenset[str] = frozenset()) -> dict[str, str]:
    """black every generated Python file (not those in `keep`, e.g. a user's copied module,
    whose line numbers must match the original); raises if one is not valid Python."""
    out = {}
    for path, text in files.items():
        if path.endswith(".py") and path not in keep:
            try:
                text = black.format_str(text, mode=_MODE)
            except black.InvalidInput as exc:
                raise ValueError(f"generated {path} is not valid Python: {exc}") from exc
        out[path] = text
    return out


def check_target(output: Path, force: bool) -> None:
    if output.exists() and not output.is_dir():
        raise OutputExists(f"{output} exists and is not a directory")
    if output.is_dir() and any(output.iterdir()) and not force:
        raise OutputExists(f"{output} exists and is not empty; pass --force to replace it")


def write_tree(output: Path, files: dict[str, str], force: bool = False) -> None:
    """Write `files` under `output` via a sibling staging dir, then swap it into place."""
    check_target(output, force)
    output = output.resolve()
    output.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{output.name}.", suffix=".staging", dir=output.parent))
    try:
        for relative, text in files.items():
            target = staging / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8", newline="\n")
        os.chmod(staging, 0o755)
        _swap(staging, output)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _swap(staging: Path, output: Path) -> None:
    """Replace `output` with `staging`; the old tree is removed only after the rename."""
    if not output.exists():
        staging.rename(output)
        return
    retired = output.with_name(f".{output.name}.old-{os.getpid()}")
    output.rename(retired)
    try:
        staging.rename(output)
    except BaseException:
        retired.rename(output)
        raise
    shutil.rmtree(retired, ignore_errors=True)
