"""Loading a YAML or JSON document, with source lines for diagnostics."""

from __future__ import annotations

import contextlib
import json
import math
import re
import sys
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from mcpgen.diagnostics import Diagnostics, GenerationError
from mcpgen.schema.strict import drop_unencodable

if TYPE_CHECKING:  # the C loader (when libyaml is there) has the pure one's interface
    _SafeLoader = yaml.SafeLoader
else:
    _SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_BOOL = "tag:yaml.org,2002:bool"
_ALIAS = re.compile(r"(?:^|[\s\[{,])\*[^\s,\[\]{}]")  # `*name` where YAML allows an alias (and then some)


class _Loader(_SafeLoader):
    """A safe loader that yields the JSON data model OpenAPI is defined in.

    YAML 1.1 would turn `2024-01-15T14:30:00Z` into a datetime (which JSON cannot encode),
    `on`/`no` into booleans and `200:` into an int key. Here dates stay strings, only
    true/false are booleans, and every mapping key is a string.
    """

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        # The alias check walks every node: only worth it when the text can hold an alias.
        self._may_alias = not isinstance(stream, str) or _ALIAS.search(stream) is not None

    def construct_document(self, node: Any) -> Any:
        if self._may_alias:
            _check_aliases(node)
        return super().construct_document(node)

    def construct_mapping(self, node: Any, deep: bool = False) -> dict[Hashable, Any]:  # every key a str
        mapping = super().construct_mapping(node, deep=deep)
        return {_json_key(key): value for key, value in mapping.items()}


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag not in (_TIMESTAMP, _BOOL)]
    for first, resolvers in _SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver(_BOOL, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))


# Aliases may expand a document to at most this many nodes beyond 10x its own size:
# "billion laughs" documents expand a few hundred nodes into billions.
_MAX_ALIAS_EXPANSION = 1_000_000


def _check_aliases(root: Any) -> None:
    """Refuse alias bombs and self-containing anchors before constructing anything.

    Composed YAML shares an anchored node among its aliases; this counts the nodes the
    document would have with every alias expanded (memoized per node, iteratively).
    """
    expanded: dict[int, int] = {}
    uses: dict[int, int] = {}
    nodes: dict[int, Any] = {}
    stack: list[tuple[Any, bool]] = [(root, False)]
    on_path: set[int] = set()
    while stack:
        node, done = stack.pop()
        key = id(node)
        children = node.value if isinstance(node, (yaml.SequenceNode, yaml.MappingNode)) else ()
        if isinstance(node, yaml.MappingNode):
            children = [part for pair in children for part in pair]
        if done:
            on_path.discard(key)
            expanded[key] = 1 + sum(expanded[id(child)] for child in children)
            continue
        uses[key] = uses.get(key, 0) + 1
        if key in on_path:
            raise _alias_error("an anchor that contains an alias of itself (a recursive structure)", node)
        if key in expanded:
            continue
        nodes[key] = node
        on_path.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in reversed(children))
    total, limit = expanded[id(root)], 10 * len(expanded) + _MAX_ALIAS_EXPANSION
    if total > limit:
        worst = max(uses, key=lambda k: (uses[k] - 1) * expanded[k])
        raise _alias_error(
            f"aliases expand the document to {total:,} nodes (more than {limit:,}); "
            f"the anchor here ({expanded[worst]:,} nodes) is used {uses[worst]:,} times",
            nodes[worst],
        )


def _alias_error(problem: str, node: Any) -> yaml.YAMLError:
    return yaml.MarkedYAMLError(problem=problem, problem_mark=node.start_mark)


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
    """Parse a document's text as JSON (when `is_json` or it looks like JSON) or YAML.

    Numbers strict JSON cannot carry (NaN, infinities, `1e999`) are dropped with a warning
    each; an integer longer than Python reads is an error at its line."""
    diagnostics.line_resolver = _lazy_lines(text)
    data, finite = _parse(text, is_json, diagnostics)
    if not finite and _may_hold_unencodable(text):
        data, dropped = drop_unencodable(data)
        for pointer, reason in dropped[:_DROPPED_SHOWN]:
            diagnostics.warning(f"{reason}; dropped", pointer, "write a finite number, or leave the value out")
        if len(dropped) > _DROPPED_SHOWN:
            diagnostics.warning(f"{len(dropped) - _DROPPED_SHOWN:,} more values that are not JSON numbers dropped")
    return data


_DROPPED_SHOWN = 20
# NaN/Infinity (JSON, as Python reads it), .nan/.inf (YAML), exponents past a float's range, or 309+ digits.
_UNENCODABLE = re.compile(r"NaN|Infinity|(?i:\.nan|\.inf)|\d[eE]\+?\d{3}|\d{309}")


def _may_hold_unencodable(text: str) -> bool:
    return _UNENCODABLE.search(text) is not None


def _long_integer(text: str, diagnostics: Diagnostics) -> GenerationError:
    """The error for an integer with more digits than Python turns into an int."""
    limit = sys.get_int_max_str_digits()
    found = re.search(rf"\d{{{limit + 1},}}", text) if limit else None
    where = ""
    if found is not None:
        line = text.count("\n", 0, found.start()) + 1
        where = f" at line {line}, column {found.start() - text.rfind(chr(10), 0, found.start())}"
        digits = f"{len(found.group()):,}"
    else:
        digits = "too many"
    diagnostics.error(
        f"invalid number{where}: an integer of {digits} digits, more than the {limit:,} mcpgen reads",
        hint="shorten it, or write it as a string",
    )
    return GenerationError(diagnostics.items)


def _parse(text: str, is_json: bool, diagnostics: Diagnostics) -> tuple[Any, bool]:
    """The document, and whether it is known to hold only finite numbers (JSON read with
    hooks that see each one: no second walk over a big spec for NaN and the infinities)."""
    if is_json or text.lstrip().startswith("{"):
        not_finite: list[str] = []
        try:
            data = json.loads(text, parse_constant=_noting(not_finite), parse_float=_finite_or_noted(not_finite))
            return data, not not_finite
        except RecursionError:
            line, column = _too_deep(text)
            diagnostics.error(
                f"invalid JSON at line {line}, column {column}: nested more than {_MAX_DEPTH} levels deep",
                hint="mcpgen reads documents nested at most this deep",
            )
            raise GenerationError(diagnostics.items) from None
        except json.JSONDecodeError as exc:
            if is_json:
                diagnostics.error(f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}")
                raise GenerationError(diagnostics.items) from None
        except ValueError:  # an integer past Python's int-string limit
            raise _long_integer(text, diagnostics) from None
    try:
        return yaml.load(text, Loader=_Loader), False  # noqa: S506 - a SafeLoader subclass
    except ValueError as exc:  # PyYAML's int(): an integer past Python's int-string limit
        if "digits" not in str(exc):
            raise
        raise _long_integer(text, diagnostics) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        diagnostics.error(f"invalid YAML{where}: {getattr(exc, 'problem', None) or exc}")
        raise GenerationError(diagnostics.items) from None


def _noting(seen: list[str]) -> Callable[[str], float]:
    def constant(name: str) -> float:  # NaN, Infinity, -Infinity
        seen.append(name)
        return float(name)

    return constant


def _finite_or_noted(seen: list[str]) -> Callable[[str], float]:
    def number(literal: str) -> float:
        value = float(literal)
        if not math.isfinite(value):  # 1e999
            seen.append(literal)
        return value

    return number


# Python's json module recurses once per level; beyond about this depth it overflows the stack.
_MAX_DEPTH = 900


def _too_deep(text: str) -> tuple[int, int]:
    """Line and column of the first bracket nested deeper than `_MAX_DEPTH` (strings skipped)."""
    depth, in_string, escaped = 0, False, False
    for offset, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > _MAX_DEPTH:
                line = text.count("\n", 0, offset) + 1
                return line, offset - text.rfind("\n", 0, offset)
        elif char in "]}":
            depth -= 1
    return 1, 1


def _lazy_lines(text: str) -> Callable[[str], int | None]:
    """A pointer -> line lookup that composes the YAML node tree only if ever asked."""
    table: dict[str, int] | None = None

    def lookup(pointer: str) -> int | None:
        nonlocal table
        if table is None:
            table = {}
            if len(text) > _MAX_LINE_INDEX_BYTES:
                return None
            with contextlib.suppress(yaml.YAMLError):
                _index(yaml.compose(text, Loader=_Loader), "", table)
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
