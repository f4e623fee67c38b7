"""Bringing an existing project's files up to date without losing a line of the user's.

A plan compares the new generated files with the disk and the manifest:
- untouched generated files (disk digest = manifest digest) are updated or removed freely;
- edited generated files (digest mismatch) are conflicts: nothing is written unless
  `force`, which keeps each edited file as `<file>.orig` before replacing it;
- user files (hooks.py, custom_tools.py, mcpgen.toml) are created when missing, never touched after.
All new contents are staged inside the project before the first file is replaced.
Every path read, written or deleted must lie inside the project (`project.paths`): a
manifest naming `../x` or a `src/<pkg>` link out of the project stops the plan.
"""

from __future__ import annotations

import difflib
import os
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from mcpgen.diagnostics import Diagnostic, GenerationError, Level, join_pointer
from mcpgen.project.manifest import MANIFEST_FILE, Manifest, digest, file_digest
from mcpgen.project.paths import lexical_problem, link_problem, outside_link


@dataclass(frozen=True, slots=True)
class Conflict:
    path: str
    added: int  # lines the new version adds relative to the file on disk
    removed: int
    gone: bool = False  # no longer generated (the edited file is kept, not removed)

    def describe(self) -> str:
        if self.gone:
            return f"{self.path}: edited, and no longer generated (kept as it is)"
        return f"{self.path}: edited since it was generated (+{self.added} -{self.removed} lines against the new version)"


@dataclass(slots=True)
class Plan:
    create: list[str] = field(default_factory=list)
    update: list[str] = field(default_factory=list)
    delete: list[str] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # edited files no longer generated: left alone

    @property
    def changes_files(self) -> bool:
        return bool(self.create or self.update or self.delete or self.blocking)

    @property
    def blocking(self) -> list[Conflict]:
        return [c for c in self.conflicts if not c.gone]

    def lines(self) -> list[str]:
        out = [f"  create {p}" for p in self.create]
        out += [f"  update {p}" for p in self.update]
        out += [f"  delete {p}" for p in self.delete]
        out += [f"  conflict {c.describe()}" for c in self.blocking]
        out += [f"  keep {p} (edited, no longer generated)" for p in self.kept]
        return out


def plan(
    project_dir: Path,
    generated: dict[str, str],
    user_files: dict[str, str],
    manifest: Manifest | None,
) -> Plan:
    """What writing `generated` (and missing `user_files`) into `project_dir` would do.

    With no manifest (a directory mcpgen did not make), every existing file that differs
    is treated as the user's: a conflict.
    """
    result = Plan()
    recorded = manifest.files if manifest else {}
    check_confined(project_dir, [*generated, *user_files, *(p + ".orig" for p in generated)], recorded)
    for path, text in generated.items():
        on_disk = project_dir / path
        current = file_digest(on_disk) if on_disk.exists() else None
        if current is None:
            result.create.append(path)
        elif current == digest(text):
            continue
        elif recorded.get(path) == current:
            result.update.append(path)
        else:
            result.conflicts.append(_conflict(on_disk, path, text))
    for path in user_files:
        if not (project_dir / path).exists():
            result.create.append(path)
    for path in sorted(set(recorded) - set(generated) - set(user_files)):
        on_disk = project_dir / path
        if not on_disk.exists():
            continue
        if file_digest(on_disk) == recorded[path]:
            result.delete.append(path)
        else:
            result.kept.append(path)
    return result


def check_confined(project_dir: Path, paths: Iterable[str], recorded: dict[str, str]) -> None:
    """Raise GenerationError unless every path of `paths` (the tree's) and of `recorded` (the
    manifest's) lies inside `project_dir` once links are resolved: one located error per bad
    manifest entry, one per link leading out."""
    root = project_dir.resolve()
    found: list[Diagnostic] = []
    hint = "nothing was written or deleted; a cloned project may have been tampered with"
    beyond: dict[str, list[str]] = {}  # link leading out -> the paths behind it
    for relative in sorted(recorded):
        problem = lexical_problem(relative)
        if problem is not None:
            message = f"lists {relative!r}, which {problem}"
            pointer = join_pointer("/files", relative)
            found.append(Diagnostic(Level.ERROR, message, str(root / MANIFEST_FILE), pointer, hint=hint + "; remove the entry"))
    checked: dict[str, str | None] = {}  # folder -> the link out it is, or None
    for relative in sorted({*paths, *recorded}):
        link = None if lexical_problem(relative) else outside_link(root, relative, checked)
        if link is not None:
            beyond.setdefault(link, []).append(relative)
    for link, behind in sorted(beyond.items()):
        behind.sort(key=lambda p: p.endswith(".orig"))  # backups it might make: named last
        example = ", ".join(behind[:3]) + (f" and {len(behind) - 3} more" if len(behind) > 3 else "")
        message = f"{link_problem(root, link)}; mcpgen would read, write or delete {example} through it"
        found.append(Diagnostic(Level.ERROR, message, str(root / link), hint=hint + "; replace the link with a directory"))
    if found:
        raise GenerationError(found)


def _conflict(on_disk: Path, path: str, new_text: str) -> Conflict:
    try:
        old_lines = on_disk.read_text("utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        old_lines = []
    added = removed = 0
    for line in difflib.unified_diff(old_lines, new_text.splitlines(), lineterm="", n=0):
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return Conflict(path, added, removed)


def apply(
    project_dir: Path,
    the_plan: Plan,
    generated: dict[str, str],
    user_files: dict[str, str],
    manifest: Manifest,
    force: bool,
) -> list[str]:
    """Carry out `the_plan`; returns the `.orig` backups made. Conflicts need `force`."""
    if the_plan.blocking and not force:
        raise ValueError("conflicts present; pass force")
    touched = [*the_plan.create, *the_plan.update, *the_plan.delete, MANIFEST_FILE]
    check_confined(project_dir, [*touched, *(c.path + ".orig" for c in the_plan.blocking)], {})
    contents = {**{p: user_files[p] for p in the_plan.create if p in user_files}}
    for path in [*the_plan.create, *the_plan.update, *(c.path for c in the_plan.blocking)]:
        if path in generated:
            contents[path] = generated[path]
    contents[MANIFEST_FILE] = manifest.to_json()
    staging = Path(tempfile.mkdtemp(prefix=".mcpgen-staging-", dir=project_dir))
    backups: list[str] = []
    try:
        staged = {}
        for index, (path, text) in enumerate(sorted(contents.items())):
            target = staging / str(index)
            target.write_text(text, encoding="utf-8", newline="\n")
            staged[path] = target
        for conflict in the_plan.blocking:
            original = project_dir / conflict.path
            backup = original.with_name(original.name + ".orig")
            shutil.copy2(original, backup)
            backups.append(backup.relative_to(project_dir).as_posix())
        # The manifest goes last: if anything before fails, the old one still describes the disk.
        for path in sorted(staged, key=lambda p: p == MANIFEST_FILE):
            target = project_dir / path
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(staged[path], target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    for path in the_plan.delete:
        (project_dir / path).unlink(missing_ok=True)
        _remove_empty_parents(project_dir, (project_dir / path).parent)
    return backups


def _remove_empty_parents(root: Path, directory: Path) -> None:
    root = root.resolve()
    directory = directory.resolve()
    while directory != root and root in directory.parents:
        try:
            directory.rmdir()  # only succeeds when empty
        except OSError:
            return
        directory = directory.parent
