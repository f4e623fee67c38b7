"""One server entry merged into a client's JSON config file, keeping everything else.

The file is parsed as strict JSON; one that is not (invalid JSON, comments, a non-object where
an object belongs) is an error and stays untouched. Other servers, other keys and key order are
kept; only `<servers_key>.<name>` changes. Before the file changes it is copied to
`<file>.mcpgen.bak` (one name, replaced each time, so reruns leave no trail); the new text is
written to a temporary file beside it and renamed over it.
"""

from __future__ import annotations

import difflib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_CONFIG_BYTES = 20_000_000  # ~/.claude.json keeps per-project history and grows
BACKUP_SUFFIX = ".mcpgen.bak"


class ConfigError(Exception):
    """The existing config cannot be merged into; nothing was written."""


@dataclass(frozen=True, slots=True)
class Merge:
    path: Path
    old_text: str | None  # None: the file does not exist yet
    new_text: str
    previous: dict[str, Any] | None  # the entry that was there under the name, if any

    @property
    def changed(self) -> bool:
        return self.old_text != self.new_text

    def diff(self) -> str:
        before = (self.old_text or "").splitlines(keepends=True)
        after = self.new_text.splitlines(keepends=True)
        old_name = str(self.path) if self.old_text is not None else "/dev/null"
        return "".join(difflib.unified_diff(before, after, old_name, str(self.path)))


def load(path: Path) -> tuple[str | None, dict[str, Any]]:
    """The file's text and its top-level object; (None, {}) if it does not exist."""
    if not path.exists():
        return None, {}
    if not path.is_file():
        raise ConfigError(f"{path}: not a regular file")
    with path.open("rb") as handle:
        data = handle.read(MAX_CONFIG_BYTES + 1)
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{path}: larger than {MAX_CONFIG_BYTES:,} bytes; left untouched")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text; left untouched") from None
    if not text.strip():
        return text, {}
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{path}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}. "
            "The file was left untouched; fix it (comments and trailing commas are not JSON), "
            "or add the entry shown by `--dry-run` by hand."
        ) from None
    if not isinstance(document, dict):
        raise ConfigError(f"{path}: the top level is a JSON {type(document).__name__}, not an object; left untouched")
    return text, document


def merge(path: Path, servers_key: str, name: str, entry: dict[str, Any]) -> Merge:
    """The file as it would be with `entry` under `servers_key.name`; writes nothing."""
    old_text, document = load(path)
    servers = document.get(servers_key, {})
    if not isinstance(servers, dict):
        raise ConfigError(f"{path}: `{servers_key}` is not an object; left untouched")
    previous = servers.get(name)
    if previous == entry and old_text is not None:
        return Merge(path, old_text, old_text, previous)  # same entry: the bytes stay as they are
    document[servers_key] = {**servers, name: entry}
    new_text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    return Merge(path, old_text, new_text, previous if isinstance(previous, dict) else None)


def write(change: Merge, private: bool) -> Path | None:
    """Writes the merged file; returns the backup's path (None for a new file).

    `private`: the entry holds a secret, so a new file is made readable by its owner only
    (an existing file keeps its mode)."""
    path = change.path.resolve() if change.path.is_symlink() else change.path  # a dotfile link stays a link
    backup = None
    if change.old_text is not None:
        backup = path.with_name(path.name + BACKUP_SUFFIX)
        shutil.copy2(path, backup)
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(change.new_text)
        if change.old_text is not None:
            shutil.copymode(path, temporary)
        else:
            os.chmod(temporary, 0o600 if private else 0o644)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return backup
