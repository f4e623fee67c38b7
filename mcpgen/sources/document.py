"""Loading a YAML or JSON document, with source lines for diagnostics."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any

import yaml

from mcpgen.diagnostics import Diagnostics, GenerationError

_SafeLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_BOOL = "tag:yaml.org,2002:bool"


class _Loader(_SafeLoader):  # type: ignore[misc,valid-type]
    """A safe loader that yields the JSON data model OpenAPI is defined in.

    YAML 1.1 would turn `2024-01-15T14:30:00Z` into a datetime (which JSON cannot encode),
    `on`/`no` into booleans and `200:` into an int key. Here dates stay strings, only
    true/false are booleans, and every mapping key is a string.
    """

    def construct_mapping(self, node: Any, deep: bool = False) -> dict[str, Any]:
        mapping = super().construct_mapping(node, deep=deep)
        return {_json_key(key): value for key, value in mapping.items()}


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag not in (_TIMESTAMP, _BOOL)]
    for first, resolvers in _SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver(_BOOL, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))


def _json_key(key: Hashable) -> str:
    """The text JSON would give a non-string key (`200` -> "200", `true` -> "true")."""
    if isinstance(key, str):
        return key
    return json.dumps(key) if isinstance(key, (bool, int, float)) or key is None else str(key)

# Composing a YAML node tree costs ~10 s for a 13 MB spec; above this size
# diagnostics give the JSON pointer alone.
_MAX_LINE_INDEX_BYTES = 4_000_000


def load_document(path: Path, diagnostics: Diagnostics) -> Any:
    """Parse `path` as JSON or YAML; an unreadable file is an error that stops generation."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        diagnostics.error("file not found", hint="check the path")
        raise GenerationError(diagnostics.items) from None
    except (OSError, UnicodeDecodeError) as exc:
        diagnostics.error(f"cannot read file: {exc}")
        raise GenerationError(diagnostics.items) from None
    return parse_text(text, path.suffix.lower() == ".json", diagnostics)


def parse_text(text: str, is_json: bool, diagnostics: Diagnostics) -> Any:
    """Parse a document's text as JSON (when `is_json` or it looks like JSON) or YAML."""
    diagnostics.line_resolver = _lazy_lines(text)
    if is_json or text.lstrip().startswith("{"):
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            if is_json:
                diagnostics.error(f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}")
                raise GenerationError(diagnostics.items) from None
    try:
        return yaml.load(text, Loader=_Loader)  # a SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        diagnostics.error(f"invalid YAML{where}: {getattr(exc, 'problem', None) or exc}")
        raise GenerationError(diagnostics.items) from None


def _lazy_lines(text: str) -> Callable[[str], int | None]:
    """A pointer -> line lookup that composes the YAML node tree only if ever asked."""
    table: dict[str, int] | None = None

    def lookup(pointer: str) -> int | None:
        nonlocal table
        if table is None:
            table = {}
            if len(text) > _MAX_LINE_INDEX_BYTES:
                return None
            try:
                _index(yaml.compose(text, Loader=_Loader), "", table)
            except yaml.YAMLError:
                pass
        while True:
            if pointer in table:
                return table[pointer]
            if not pointer:
                return None
            pointer = pointer.rpartition("/")[0]

    return lookup


def _index(node: Any, pointer: str, table: dict[str, int]) -> None:
    if node is None:
        return
    table[pointer] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            token = str(key.value).replace("~", "~0").replace("/", "~1")
            _index(value, f"{pointer}/{token}", table)
            table[f"{pointer}/{token}"] = key.start_mark.line + 1  # the key's line, where readers look
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _index(item, f"{pointer}/{i}", table)
