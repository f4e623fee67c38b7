"""Which paths a project may hold: a cloned project is untrusted input.

Every path mcpgen reads, writes or deletes inside a project (from its manifest, its
mcpgen.toml or its tree) is relative, has no `..`, and still lies inside the project once
symbolic links are resolved; anything else stops the run before a file is touched.
"""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePosixPath, PureWindowsPath

# mcpgen.toml and mcpgen.manifest.json are read whole; GitHub's API (1,186 tools) gives a
# manifest of about 0.3 MB and an mcpgen.toml with an override per tool of about 0.2 MB.
MAX_PROJECT_FILE_BYTES = 8_000_000


# Names every platform reads as relative, without `.` or `..` parts: most of a tree's paths,
# answered without building pure paths (3,000 of them for GitHub's project).
_PLAIN_RELATIVE = re.compile(r"(?:[A-Za-z0-9_-][A-Za-z0-9_.-]*/)*[A-Za-z0-9_-][A-Za-z0-9_.-]*")


def lexical_problem(relative: str) -> str | None:
    """Why `relative` (a path as a manifest or the renderer gives it) cannot name a file
    inside a project, looking at the text alone; None when it can."""
    if _PLAIN_RELATIVE.fullmatch(relative):
        return None
    if not relative or "\x00" in relative:
        return "is empty or holds a NUL character"
    if PurePosixPath(relative).is_absolute() or PureWindowsPath(relative).is_absolute() or PureWindowsPath(relative).drive:
        return "is an absolute path"
    parts = PurePosixPath(relative.replace("\\", "/")).parts
    if ".." in parts:
        return "goes up out of the project with `..`"
    if not parts or parts == (".",):
        return "names the project directory itself"
    return None


def outside_link(root: Path, relative: str, checked: dict[str, str | None] | None = None) -> str | None:
    """The first symbolic link on the way to `root/relative` that leads outside `root` (as a
    path relative to `root`); None if there is none. `root` must be resolved, `relative`
    free of lexical problems. `checked` keeps the answers for the folders on the way, for a
    caller checking a whole tree (each folder is then looked at once)."""
    checked = {} if checked is None else checked
    parts = PurePosixPath(relative.replace("\\", "/")).parts
    for depth in range(1, len(parts) + 1):
        prefix = "/".join(parts[:depth])
        if prefix not in checked:
            checked[prefix] = _link_out(root, root / prefix)
        if checked[prefix] is not None:
            return checked[prefix]
    return None


def _link_out(root: Path, path: Path) -> str | None:
    if path.is_symlink():
        target = path.resolve()
        if target != root and root not in target.parents:
            return path.relative_to(root).as_posix()
    return None


def link_problem(root: Path, link: str) -> str:
    return f"is a symbolic link to {os.readlink(root / link)}, outside the project"


def escape(root: Path, relative: str) -> str | None:
    """Why `root/relative` lies outside `root` (a lexical problem, or a symbolic link on the
    way that leads out); None when it stays inside. `root` must be resolved."""
    problem = lexical_problem(relative)
    if problem is not None:
        return problem
    link = outside_link(root, relative)
    if link is None:
        return None
    return f"passes through {link}, which {link_problem(root, link)}"


def read_bounded(path: Path, limit: int = MAX_PROJECT_FILE_BYTES) -> str:
    """The UTF-8 text of `path`, refusing (ValueError) files larger than `limit` bytes."""
    with path.open("rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"larger than {limit:,} bytes")
    return data.decode("utf-8")
