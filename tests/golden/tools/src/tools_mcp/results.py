"""Shaping tool results so a client can use them.

- Size: a result longer than `config.max_response_chars()` is cut, JSON by dropping the
  tail of its largest arrays (and long strings) so what remains is still valid JSON, text
  at the limit; a note says how much was cut and which arguments ask for less.
- Shape: MCP clients reject a result whose structuredContent does not match the tool's
  outputSchema, and real APIs stray from their own spec. `conform` drops the parts that
  do not match (setting array items and missing values to null), so the rest still
  arrives as structuredContent while the text keeps the full body.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping
from typing import Any

MAX_CUT_STEPS = 200
MAX_CONFORM_ROUNDS = 20
MAX_DEPTH = 64  # deeper values are measured whole, never cut inside
_NARROWING = re.compile(
    r"(limit|per_?page|page_?size|size|count|max|top|first|last|offset|page|cursor|after|before|since|until"
    r"|fields|select|filter|q|query|search)",
    re.IGNORECASE,
)


def narrowing_hint(tool: Mapping[str, Any]) -> str:
    """Which of the tool's arguments look like filters or pagination."""
    names = [n for n in tool.get("inputSchema", {}).get("properties", {}) if _NARROWING.search(n)]
    if names:
        listed = ", ".join(f"`{n}`" for n in names[:8])
        return f"To get less, call again with narrower arguments (this tool takes {listed})."
    return "To get less, call again with narrower arguments, if the tool takes any."


def clip_text(text: str, limit: int, tool: Mapping[str, Any]) -> tuple[str, str | None]:
    """(text cut at `limit`, note) or (text, None) when it fits."""
    if len(text) <= limit:
        return text, None
    note = (
        f"[Response truncated: showing the first {limit:,} of {len(text):,} characters "
        f"({len(text) - limit:,} cut). {narrowing_hint(tool)}]"
    )
    return text[:limit], note


def fit_json(value: Any, limit: int, drop_keys: bool) -> tuple[Any, list[str]]:
    """A copy of `value` whose JSON text fits `limit` characters, and what was cut.

    Cuts the largest array (keeping its first items) or string, again and again;
    `drop_keys` also lets it cut the largest object's last members."""
    work = copy.deepcopy(value)
    kept: dict[str, tuple[int, int, str]] = {}  # JSON path -> (kept, original, unit)
    for _ in range(MAX_CUT_STEPS):
        size, biggest = _measure(work, [], 0, drop_keys)
        if size <= limit or biggest is None:
            break
        node_size, path, node = biggest
        where = _json_path(path)
        original = kept[where][1] if where in kept else len(node)
        share = max(0.0, 1 - (size - limit) / node_size) * 0.95  # of this node, what may stay
        if isinstance(node, str):
            keep = min(len(node) - 1, int(len(node) * share))
            work = _replace(work, path, node[:keep] + "…")
            unit = "characters"
        elif isinstance(node, list):
            keep = max(1, min(len(node) - 1, int(len(node) * share)))
            del node[keep:]
            unit = "items"
        else:
            keys = list(node)
            keep = max(1, min(len(keys) - 1, int(len(keys) * share)))
            for key in keys[keep:]:
                del node[key]
            unit = "members"
        kept[where] = (keep, original, unit)
    notes = [
        f"`{where}`: kept the first {k:,} of {n:,} {unit}"
        for where, (k, n, unit) in sorted(kept.items())
    ]
    return work, notes


def truncation_note(before: int, after: int, cuts: list[str], tool: Mapping[str, Any]) -> str:
    shown = "; ".join(cuts[:10]) + ("; …" if len(cuts) > 10 else "")
    return (
        f"[Response truncated: {before:,} characters of JSON cut to {after:,} "
        f"({before - after:,} cut): {shown or 'the text was cut at the limit'}. {narrowing_hint(tool)}]"
    )


def conform(instance: Any, validator: Any) -> tuple[Any, list[str]]:
    """(`instance` without the parts that fail `validator`, one line per problem);
    (None, problems) when no such repair makes it valid."""
    problems: list[str] = []
    work = copy.deepcopy(instance)
    for _ in range(MAX_CONFORM_ROUNDS):
        errors = sorted(validator.iter_errors(work), key=lambda e: -len(e.absolute_path))
        if not errors:
            return work, problems
        for error in errors:
            path = list(error.absolute_path)
            message = error.message if len(error.message) <= 200 else error.message[:200] + "…"
            problems.append(f"{_json_path(path)}: {message}")
            if error.validator == "required" and isinstance(error.instance, dict):
                work = _fill_required(work, path, error.validator_value)
            else:
                work = _drop(work, path)
    return None, problems


def mismatch_note(problems: list[str]) -> str:
    listed = "\n".join(f"- {p}" for p in problems[:10]) + ("\n- …" if len(problems) > 10 else "")
    return (
        "[Note: this response does not match the tool's declared output schema (the API strayed from its own "
        "specification). The text above is the response as received; structuredContent leaves out the parts "
        "that do not match:\n" + listed + "]"
    )


# -- helpers -------------------------------------------------------------------


def _measure(
    node: Any, path: list[Any], depth: int, drop_keys: bool
) -> tuple[int, tuple[int, list[Any], Any] | None]:
    """Length of `node` as `json.dumps(node, ensure_ascii=False)` writes it, and its largest
    cuttable part (size, path, node)."""
    if depth >= MAX_DEPTH or not isinstance(node, (dict, list)):
        size = len(json.dumps(node, ensure_ascii=False, default=str))
        if isinstance(node, str) and len(node) > 200:
            return size, (size, path, node)
        return size, None
    best: tuple[int, list[Any], Any] | None = None
    size = 2 + 2 * max(0, len(node) - 1)  # brackets, and ", " between members (json.dumps' default)
    children = node.items() if isinstance(node, dict) else enumerate(node)
    for key, child in children:
        child_size, child_best = _measure(child, [*path, key], depth + 1, drop_keys)
        size += child_size + (
            len(json.dumps(str(key), ensure_ascii=False)) + 2 if isinstance(node, dict) else 0
        )
        if child_best is not None and (best is None or child_best[0] > best[0]):
            best = child_best
    if len(node) > 1 and isinstance(node, list) and (best is None or size >= best[0]):
        best = (size, path, node)
    elif len(node) > 1 and drop_keys and (best is None or best[0] < size // 2):
        best = (
            size,
            path,
            node,
        )  # an object's members go only when no array or string holds the bulk
    return size, best


def _replace(root: Any, path: list[Any], new: Any) -> Any:
    if not path:
        return new
    node = root
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = new
    return root


def _drop(root: Any, path: list[Any]) -> Any:
    """Remove the value at `path`: an object member is deleted, an array item becomes null,
    the root becomes an empty object."""
    if not path:
        return {}
    node = root
    for key in path[:-1]:
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            return root  # gone with an earlier drop
    key = path[-1]
    if isinstance(node, dict):
        node.pop(key, None)
    elif isinstance(node, list) and isinstance(key, int) and key < len(node):
        node[key] = None
    return root


def _fill_required(root: Any, path: list[Any], names: Any) -> Any:
    node = root
    for key in path:
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            return root
    if isinstance(node, dict) and isinstance(names, list):
        for name in names:
            node.setdefault(name, None)
    return root


def _json_path(path: list[Any]) -> str:
    text = "$"
    for key in path:
        if isinstance(key, int):
            text += f"[{key}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(key)):
            text += f".{key}"
        else:
            text += f"[{json.dumps(str(key), ensure_ascii=False)}]"
    return text
