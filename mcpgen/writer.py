"""Writing: a staging directory, an atomic swap, every path confined to the output.

Nothing reaches the output directory unless every file rendered and formatted;
an existing non-empty directory is only replaced with `force`.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path


class OutputExists(Exception):
    """The output directory exists, is not empty, and `force` was not given."""


def check_target(output: Path, force: bool) -> None:
    if output.exists() and not output.is_dir():
        raise OutputExists(f"{output} exists and is not a directory")
    if output.is_dir() and any(output.iterdir()) and not force:
        raise OutputExists(
            f"{output} exists and is not empty; to update a generated project run `mcpgen regenerate {output}`, "
            "or pass --force to write into it (files you changed are kept as .orig copies)"
        )


def write_tree(output: Path, files: dict[str, str], force: bool = False) -> None:
    """Write `files` under `output` via a sibling staging dir, then swap it into place."""
    check_target(output, force)
    output = output.resolve()
    output.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{output.name}.", suffix=".staging", dir=output.parent))
    try:
        for relative, text in files.items():
            if Path(relative).is_absolute() or ".." in Path(relative).parts:  # never outside `output`
                raise ValueError(f"refusing to write {relative!r}: not a path inside the output directory")
            target = staging / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8", newline="\n")
        os.chmod(staging, 0o755)  # noqa: S103 - a directory, readable like a checkout (mkdtemp gives 0o700)
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
