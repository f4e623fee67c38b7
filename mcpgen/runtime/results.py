# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""Shaping tool results so a client can use them.

- Size: a result longer than `config.max_response_chars()` is cut, JSON by dropping the
  tail of its largest arrays (and long strings) so what remains is still valid JSON, text
  at the limit; a note says how much was cut and which arguments ask for less.
- Shape: MCP clients reject a result whose structuredContent does not match the tool's
  outputSchema, and real APIs stray from their own spec. `conform` leaves out the parts
  that do not match (and `finite` the numbers a JavaScript client would misread), so the
  rest still arrives as structuredContent while the text keeps the full body.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Mapping
from typing import Any

MAX_CUT_STEPS = 200
MAX_CONFORM_ROUNDS = 20
MAX_DEPTH = 64  # deeper values are measured whole, never cut inside
_MAX_DOUBLE = sys.float_info.max
_GONE = object()  # marks a value left out
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
    """`value` cut so its JSON text fits `limit` characters, and what was cut.

    Cuts the largest array (keeping its first items) or string, again and again;
    `drop_keys` also lets it cut an object's last members. `value` itself is not changed:
    containers on the way to a cut are copied."""
    work = value
    kept: dict[str, tuple[int, int, str]] = {}  # JSON path -> (kept, original, unit)
    for _ in range(MAX_CUT_STEPS):
        size = _json_len(work)
        if size <= limit:
            break
        floor = max(256, (size - limit) // 64)  # smaller parts are not worth descending into
        biggest = _biggest(work, size, [], 0, drop_keys, floor)
        if biggest is None:
            break
        node_size, path, node = biggest
        where = _json_path(path)
        original = kept[where][1] if where in kept else len(node)
        share = max(0.0, 1 - (size - limit) / node_size) * 0.95  # of this node, what may stay
        if isinstance(node, str):
            keep = min(len(node) - 1, int(len(node) * share))
            cut: Any = node[:keep] + "…"
            unit = "characters"
        elif isinstance(node, list):
            keep = max(1, min(len(node) - 1, int(len(node) * share)))
            cut = node[:keep]
            unit = "items"
        else:
            keys = list(node)
            keep = max(1, min(len(keys) - 1, int(len(keys) * share)))
            cut = {key: node[key] for key in keys[:keep]}
            unit = "members"
        work = _replace(work, path, cut)
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
    (None, problems) when not even an empty object passes.

    Each round leaves out the outermost values that fail (an object member is removed, an
    array item taken out), so the rest of the response still arrives as structured data.
    The schemas mcpgen advertises for API responses accept `{}`, the last resort.
    `instance` has been through `finite` already."""
    work = instance
    problems: list[str] = []
    for _ in range(MAX_CONFORM_ROUNDS):
        errors = sorted(
            validator.iter_errors(work), key=lambda e: [str(p) for p in e.absolute_path]
        )
        if not errors:
            return work, problems
        for error in errors:
            message = error.message if len(error.message) <= 200 else error.message[:200] + "…"
            problems.append(f"{_json_path(list(error.absolute_path))}: {message}")
        if any(not error.absolute_path for error in errors):
            break  # the root fails: only `{}` is left to try (not the same error 20 times)
        work = _without(work, [tuple(error.absolute_path) for error in errors])
    return ({} if validator.is_valid({}) else None), problems


def finite(value: Any) -> tuple[Any, list[str]]:
    """A copy of `value` without the numbers JSON cannot carry to every client, and where
    they were: NaN and infinities (lenient JSON parsing makes them of `1e400`; they would
    be sent as null) and integers beyond a double's range (JavaScript reads them as Infinity)."""
    dropped: list[str] = []
    if not _has_unreadable(value, 0):  # every result comes here: copy only when something goes
        return value, dropped

    def keep(node: Any, path: list[Any]) -> Any:
        if _unreadable(node):
            dropped.append(
                f"{_json_path(path)}: {node!r:.40} is not a number every client can read"
            )
            return _GONE
        if len(path) >= MAX_DEPTH:
            return node
        if isinstance(node, dict):
            kept = ((k, keep(v, [*path, k])) for k, v in node.items())
            return {k: v for k, v in kept if v is not _GONE}
        if isinstance(node, list):
            return [v for v in (keep(v, [*path, i]) for i, v in enumerate(node)) if v is not _GONE]
        return node

    kept = keep(value, [])
    return ({} if kept is _GONE else kept), dropped


def _unreadable(node: Any) -> bool:
    return (isinstance(node, float) and not math.isfinite(node)) or (
        isinstance(node, int) and not isinstance(node, bool) and abs(node) > _MAX_DOUBLE
    )


def _has_unreadable(node: Any, depth: int) -> bool:
    if depth >= MAX_DEPTH:
        return False
    if isinstance(node, dict):
        return any(_has_unreadable(v, depth + 1) for v in node.values())
    if isinstance(node, list):
        return any(_has_unreadable(v, depth + 1) for v in node)
    return _unreadable(node)


def mismatch_note(problems: list[str]) -> str:
    listed = "\n".join(f"- {p}" for p in problems[:10]) + ("\n- …" if len(problems) > 10 else "")
    return (
        "[Note: this response does not match the tool's declared output schema as every client reads it (an "
        "API that strays from its own specification, or numbers JavaScript cannot hold). The text above is the "
        "response as received; structuredContent leaves out the parts that do not match:\n"
        + listed
        + "]"
    )


# -- helpers -------------------------------------------------------------------


def _json_len(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, default=str))


def _biggest(
    node: Any, size: int, path: list[Any], depth: int, drop_keys: bool, floor: int
) -> tuple[int, list[Any], Any] | None:
    """The largest cuttable part of `node` (whose JSON length is `size`): (size, path, node).

    Arrays and long strings; objects only where no array or string inside holds half of them."""
    if isinstance(node, str):
        return (size, path, node) if len(node) > 200 else None
    if not isinstance(node, (dict, list)) or depth >= MAX_DEPTH or size < floor:
        return None
    best: tuple[int, list[Any], Any] | None = None
    for key, child in node.items() if isinstance(node, dict) else enumerate(node):
        found = _biggest(child, _json_len(child), [*path, key], depth + 1, drop_keys, floor)
        if found is not None and (best is None or found[0] > best[0]):
            best = found
    if len(node) < 2:
        return best
    if isinstance(node, list):
        cut_here = best is None or size >= best[0]
    else:
        cut_here = drop_keys and (best is None or best[0] < size // 2)
    return (size, path, node) if cut_here else best


def _replace(root: Any, path: list[Any], new: Any) -> Any:
    """`root` with the value at `path` replaced, copying only the containers on the way."""
    if not path:
        return new
    copied: Any = dict(root) if isinstance(root, dict) else list(root)
    copied[path[0]] = _replace(root[path[0]], path[1:], new)
    return copied


def _without(root: Any, paths: list[tuple[Any, ...]]) -> Any:
    """`root` without the values at `paths` (object members removed, array items taken
    out); a path inside another is gone with it; the root itself becomes `{}`."""
    tree: dict[Any, Any] = {}
    for path in sorted(set(paths), key=len):
        node = tree
        for key in path:
            if node.get(key) is _GONE:
                break
            node = node.setdefault(key, {})
        else:
            if not path:
                return {}
            parent = tree
            for key in path[:-1]:
                parent = parent[key]
            parent[path[-1]] = _GONE
    return _prune(root, tree)


def _prune(node: Any, tree: dict[Any, Any]) -> Any:
    if isinstance(node, dict):
        return {
            k: (_prune(v, tree[k]) if k in tree else v)
            for k, v in node.items()
            if tree.get(k) is not _GONE
        }
    if isinstance(node, list):
        return [
            (_prune(v, tree[i]) if i in tree else v)
            for i, v in enumerate(node)
            if tree.get(i) is not _GONE
        ]
    return node


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
