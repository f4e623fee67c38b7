"""One server entry merged into a client's config file by editing its text, keeping everything else.

The file is parsed as strict JSON, or as JSONC (comments, trailing commas) for a client that
reads JSONC (VS Code). Only `<servers_key>.<name>` changes: its value's text is replaced, or the
member is added after the last one (see `jsonc.set_member`); every other byte (comments,
numbers such as `1e400` or long decimals, spacing, key order, line endings, a BOM) stays as it
was. A file that cannot be edited safely (a syntax error, a non-object where an object belongs,
a duplicate key) raises `Unmergeable` and stays untouched; the entry can then be pasted by hand.

Writing (`write`) holds an exclusive lock on a sibling `<file>.mcpgen.lock` (removed after), and
re-reads and re-merges under it, so concurrent installs each add their entry. Before the file
changes it is copied to `<file>.mcpgen.bak` (one name, replaced each time); both are written as
a temporary file in the same folder, fsynced and renamed over the old one. A file that receives
values from `--env` (`private`) ends owner-only (0600): a new file is made so, an existing one
and its backup are tightened, and the result says so (or why not). In project scope every path
written (the folders below the project root, the file, its backup and lock) must be a real
folder or file, not a symbolic link, and contain no `..`.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import os
import stat
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcpgen.install import jsonc

MAX_CONFIG_BYTES = 20_000_000  # ~/.claude.json keeps per-project history and grows
BACKUP_SUFFIX = ".mcpgen.bak"
LOCK_SUFFIX = ".mcpgen.lock"
_BOM = "\ufeff"
_NEW_FILE_MODE = 0o644
_OTHERS = 0o077  # group and other permission bits


class ConfigError(Exception):
    """The config cannot be written; nothing was written."""


class Unmergeable(ConfigError):
    """The file's content cannot be edited safely; the entry can be added by hand."""


class UnsafePath(ConfigError):
    """A path install would write in project scope is a symbolic link or leaves the project."""


@dataclass(frozen=True, slots=True)
class Document:
    path: Path
    text: str | None  # None: the file does not exist yet; without a BOM
    bom: bool
    root: jsonc.Node | None  # None: no file, or no value in it
    allows_jsonc: bool

    def servers(self, servers_key: str) -> jsonc.Node | None:
        """The object servers are listed in; None when the file has none yet."""
        if self.root is None or self.text is None:
            return None
        if self.root.kind != "object":
            raise Unmergeable(f"{self.path}: the top level is a JSON {self.root.kind}, not an object; left untouched")
        found = self.root.find(servers_key)
        if len(found) > 1:
            raise Unmergeable(f"{self.path}: `{servers_key}` appears {len(found)} times; left untouched")
        if not found:
            return None
        node = found[0].value
        if node.kind != "object":
            raise Unmergeable(f"{self.path}: `{servers_key}` is not an object; left untouched")
        return node

    def entry(self, servers_key: str, name: str) -> dict[str, Any] | None:
        """The entry under `servers_key.name`, as Python; None if there is none (or it is not an object)."""
        servers = self.servers(servers_key)
        if servers is None or self.text is None:
            return None
        found = servers.find(name)
        if len(found) > 1:
            raise Unmergeable(f"{self.path}: `{servers_key}.{name}` appears {len(found)} times; left untouched")
        data = jsonc.value(self.text, found[0].value) if found else None
        return data if isinstance(data, dict) else None


@dataclass(frozen=True, slots=True)
class Merge:
    path: Path
    old_text: str | None  # None: the file does not exist yet
    new_text: str
    previous: dict[str, Any] | None  # the entry that was there under the name, if any
    servers_key: str
    name: str
    entry: dict[str, Any]
    allows_jsonc: bool
    bom: bool = False

    @property
    def changed(self) -> bool:
        return self.old_text != self.new_text

    def diff(self) -> str:
        before = (self.old_text or "").splitlines(keepends=True)
        after = self.new_text.splitlines(keepends=True)
        old_name = str(self.path) if self.old_text is not None else "/dev/null"
        return "".join(difflib.unified_diff(before, after, old_name, str(self.path)))


@dataclass(frozen=True, slots=True)
class Written:
    backup: Path | None  # None: a new file, or nothing changed
    tightened: tuple[tuple[Path, int], ...] = ()  # files made owner-only, with their mode before
    warnings: tuple[str, ...] = field(default_factory=tuple)  # why a file is not owner-only


def read(path: Path, *, jsonc_allowed: bool) -> Document:
    """The file parsed; a missing file is an empty document. Raises Unmergeable, ConfigError."""
    if not path.exists():
        return Document(path, None, False, None, jsonc_allowed)
    if not path.is_file():
        raise ConfigError(f"{path}: not a regular file; left untouched")
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(data) > MAX_CONFIG_BYTES:
        raise Unmergeable(f"{path}: larger than {MAX_CONFIG_BYTES:,} bytes; left untouched")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise Unmergeable(f"{path}: not UTF-8 text; left untouched") from None
    bom = text.startswith(_BOM)
    text = text.removeprefix(_BOM)
    try:
        root = jsonc.parse(text, jsonc_allowed)
    except jsonc.SyntaxProblem as exc:
        line, column = jsonc.line_column(text, exc.offset)
        kind = "JSONC" if jsonc_allowed else "JSON"
        hint = "" if jsonc_allowed else " (comments and trailing commas are not JSON)"
        raise Unmergeable(
            f"{path}: invalid {kind} at line {line}, column {column}: {exc.message}. "
            f"The file was left untouched; fix it{hint}, or add the entry below by hand"
        ) from None
    return Document(path, text, bom, root, jsonc_allowed)


def merge(document: Document, servers_key: str, name: str, entry: dict[str, Any]) -> Merge:
    """The file as it would be with `entry` under `servers_key.name`; writes nothing. Raises Unmergeable."""
    previous = document.entry(servers_key, name)
    servers = document.servers(servers_key)
    text = document.text

    def made(new_text: str) -> Merge:
        return Merge(document.path, text, new_text, previous, servers_key, name, entry, document.allows_jsonc, document.bom)

    if text is None or document.root is None:
        fresh = json.dumps({servers_key: {name: entry}}, indent=2, ensure_ascii=False) + "\n"
        if text is None or not text.strip():
            return made(fresh)
        return made(text + ("" if text.endswith("\n") else jsonc.newline(text)) + fresh)  # JSONC: only comments
    if previous == entry:
        return made(text)  # same entry: the bytes stay as they are
    if servers is None:
        return made(jsonc.set_member(text, document.root, servers_key, {name: entry}))
    return made(jsonc.set_member(text, servers, name, entry))


# -- paths in project scope -------------------------------------------------------------


def sidecars(path: Path) -> tuple[Path, Path]:
    """The backup and the lock file beside `path`."""
    return path.with_name(path.name + BACKUP_SUFFIX), path.with_name(path.name + LOCK_SUFFIX)


def check_confined(path: Path, root: Path) -> None:
    """Raises UnsafePath unless `path`, its backup and lock file lie under `root` through real
    folders only: no component below `root` may be a symbolic link or `..`."""
    try:
        relative = path.relative_to(root)
    except ValueError:
        raise UnsafePath(f"{path}: outside the project folder {root}; nothing was written") from None
    if any(part in ("..", ".") for part in relative.parts) or not relative.parts:
        raise UnsafePath(f"{path}: not a plain path inside {root} (`..`); nothing was written")
    for target in (path, *sidecars(path)):
        current = root
        for part in target.relative_to(root).parts:
            current = current / part
            if current.is_symlink():
                raise UnsafePath(
                    f"{current}: a symbolic link (to {os.readlink(current)}); project-scope install never writes "
                    "through links, which could point outside the project. Nothing was written. Replace the link "
                    "with a real file or folder, or install with --scope user"
                )


def _make_folders(folder: Path, root: Path | None) -> None:
    if root is None:
        folder.mkdir(parents=True, exist_ok=True)
        return
    current = root
    for part in folder.relative_to(root).parts:
        current = current / part
        if current.is_symlink():
            raise UnsafePath(f"{current}: a symbolic link; project-scope install never writes through links")
        if not current.exists():
            current.mkdir()


# -- writing --------------------------------------------------------------------------------


@contextlib.contextmanager
def _locked(lock: Path) -> Iterator[None]:
    """An exclusive lock on `lock` (created, never followed if a link; removed when released).

    A waiter may get the lock on a file the holder has just removed; it then sees that the path
    no longer names its file, and tries again."""
    while True:
        descriptor = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            _lock(descriptor)
            try:
                same = os.path.samestat(os.fstat(descriptor), os.lstat(lock))
            except FileNotFoundError:
                same = False
        except BaseException:
            os.close(descriptor)
            raise
        if same:
            break
        os.close(descriptor)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(lock)
        os.close(descriptor)


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _lock(descriptor: int) -> None:
        msvcrt.locking(descriptor, msvcrt.LK_LOCK, 1)

else:
    import fcntl

    def _lock(descriptor: int) -> None:
        fcntl.flock(descriptor, fcntl.LOCK_EX)


def _replace(path: Path, data: bytes, mode: int) -> None:
    """`path` atomically replaced by `data` with `mode`: a temporary file in the same folder,
    fsynced, renamed over it."""
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.chmod(temporary, mode)
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    if hasattr(os, "O_DIRECTORY"):
        folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)


def _still_open(path: Path) -> str | None:
    """Why `path` is readable by others after being made owner-only (None: it is not)."""
    if os.name != "posix":
        return f"{path}: this system has no owner-only file modes; keep the file in a folder only you can read"
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & _OTHERS:
        return f"{path} is still mode {mode:04o} (the file system ignores modes); it holds values given with --env"
    return None


def tighten(path: Path) -> tuple[tuple[Path, int] | None, str | None]:
    """`path` made owner-only if others can read it: (path, mode before) or a loud reason why not."""
    if os.name != "posix" or not path.is_file():
        return None, None
    info = path.stat()
    mode = stat.S_IMODE(info.st_mode)
    if not mode & _OTHERS:
        return None, None
    if info.st_uid != os.geteuid():
        return None, (
            f"{path} holds values given with --env but is mode {mode:04o} and belongs to uid {info.st_uid}, "
            f"not you (uid {os.geteuid()}): mcpgen cannot make it owner-only. As its owner run: chmod 600 {path}"
        )
    try:
        os.chmod(path, mode & ~_OTHERS)
    except OSError as exc:
        return None, f"{path} holds values given with --env and stays mode {mode:04o}: {exc.strerror or exc}"
    return (path, mode), _still_open(path)


def _target(path: Path, root: Path | None) -> Path:
    if root is not None:
        check_confined(path, root)
        return path
    return path.resolve() if path.is_symlink() else path  # a dotfile link stays a link


def write(change: Merge, *, private: bool, root: Path | None = None) -> Written:
    """Writes `change`, re-merged under the lock with the file as it is then.

    `private`: the entry holds values given with --env, so the file and its backup end
    owner-only. `root`: the project folder, for project scope (no links, no `..`)."""
    path = _target(change.path, root)
    try:
        _make_folders(path.parent, root)
        backup, lock = sidecars(path)
        with _locked(lock):
            if root is not None:
                check_confined(path, root)
            current = merge(read(path, jsonc_allowed=change.allows_jsonc), change.servers_key, change.name, change.entry)
            return _write_locked(current, path, backup, private)
    except OSError as exc:
        raise ConfigError(f"{exc.filename or path}: cannot write: {exc.strerror or exc}; nothing was changed") from None


def _write_locked(change: Merge, path: Path, backup: Path, private: bool) -> Written:
    tightened: list[tuple[Path, int]] = []
    warnings: list[str] = []
    if not change.changed:
        for existing in (path, backup) if private else ():
            done, problem = tighten(existing)
            tightened += [done] if done else []
            warnings += [problem] if problem else []
        return Written(None, tuple(tightened), tuple(warnings))
    bom = _BOM if change.bom else ""
    made_backup = None
    if change.old_text is None:
        mode = 0o600 if private else _NEW_FILE_MODE
    else:
        info = path.stat()
        before = stat.S_IMODE(info.st_mode)
        mode = before & ~_OTHERS if private else before
        if mode != before:
            tightened.append((path, before))
        _replace(backup, (bom + change.old_text).encode("utf-8"), mode)
        made_backup = backup
    _replace(path, (bom + change.new_text).encode("utf-8"), mode)
    if private:
        for written in (path, made_backup):
            problem = _still_open(written) if written is not None else None
            warnings += [problem] if problem else []
    return Written(made_backup, tuple(tightened), tuple(warnings))
