"""Formatting and writing: black in-process, a staging directory, an atomic swap.

Nothing reaches the output directory unless every file rendered and formatted;
an existing non-empty directory is only replaced with `force`.
"""

from __future__ import annotations

import ast
import multiprocessing
import os
import shutil
import tempfile
import threading
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import black
from black.mode import Mode, TargetVersion  # black's __init__ re-exports these without `as`
from black.parsing import InvalidInput

LINE_LENGTH = 100  # generated code's; templates and model_style write to it, so black has little to change
_MODE = Mode(target_versions={TargetVersion.PY310}, line_length=LINE_LENGTH)
# Below this much Python, starting worker processes costs more than it saves.
_PARALLEL_BYTES = 1_000_000


class OutputExists(Exception):
    """The output directory exists, is not empty, and `force` was not given."""


def format_files(files: dict[str, str], keep: frozenset[str] = frozenset()) -> dict[str, str]:
    """black every generated Python file; those in `keep` (a user's copied module, whose line
    numbers must match the original, or a model module already as black writes it) are only
    parsed. Raises if a file is not valid Python."""
    targets = [(path, text, path not in keep) for path, text in files.items() if path.endswith(".py")]
    formatted = dict(_format_all(targets))
    return {path: formatted.get(path, text) for path, text in files.items()}


def _format_one(item: tuple[str, str, bool]) -> tuple[str, str]:
    path, text, reformat = item
    try:
        if not reformat:
            compile(text, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
            return path, text
        return path, black.format_str(text, mode=_MODE)
    except (InvalidInput, SyntaxError, ValueError) as exc:
        raise ValueError(f"generated {path} is not valid Python: {exc}") from exc


def _format_all(items: list[tuple[str, str, bool]]) -> list[tuple[str, str]]:
    """black is ~150 kB/s; a big spec's Python (GitHub: 1.5 MB to format, 3.5 MB of models
    to parse) is split across processes. The output is the same either way: each file is
    formatted alone."""
    workers = _workers(sum(len(text) for _, text, reformat in items if reformat))
    if workers <= 1 or len(items) < 2:
        return [_format_one(item) for item in items]
    # No costly file starts last; parsing costs a small fraction of formatting.
    largest_first = sorted(items, key=lambda item: -len(item[1]) if item[2] else -len(item[1]) // 16)
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        # One file a task: chunks of the cost-sorted list would hand one worker the costly head.
        return list(pool.map(_format_one, largest_first))


def _workers(python_bytes: int) -> int:
    """Worker processes worth starting; 1 means format in this process.

    Only `fork` starts workers cheaply and without re-importing the caller's `__main__`
    (a library caller's script may lack the `if __name__ == "__main__"` guard); forking is
    only safe while this process has a single thread.
    """
    if python_bytes < _PARALLEL_BYTES or threading.active_count() > 1:
        return 1
    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return min(cpus, 8)


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
