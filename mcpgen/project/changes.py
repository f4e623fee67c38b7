"""What a regeneration changes for a server's clients: tools added, removed, renamed, moved
to another route, and per tool the input and output schema changes, each classified as
breaking or compatible. The report also lists the overlay actions that matched nothing: the
spec changed under the fixes the user keeps for it.

Tools are paired by what they are, not by name: first by operation (the OpenAPI
operationId, or the Python function), then by HTTP route, then by name. So a renamed tool
is a rename, not one removal plus one addition, and an operation whose path moved (GitHub's
`actions_create-environment-variable`, from `/repositories/{repository_id}/...` to
`/repos/{owner}/{repo}/...`) is a route change on the same tool, with its argument changes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from mcpgen.diagnostics import Diagnostic, Topic
from mcpgen.ir import Tool

Catalog = dict[str, dict[str, Any]]  # tool name -> MCP Tool object as tools/list sends it


@dataclass(frozen=True, slots=True)
class Change:
    tool: str
    change: str  # added, removed, renamed, route, input_added, input_removed, input_required, ...
    detail: str
    breaking: bool


@dataclass(frozen=True, slots=True)
class Served:
    """What a tool is, for pairing old and new tools."""

    identity: str  # "operation <operationId>", "<module>:<function>", or the route when there is neither
    route: str | None = None  # "GET /pets/{id}" for an HTTP operation


def tool_identity(tool: Tool) -> str:
    """What a tool calls; stable across renames and, with an operationId, across moved routes."""
    if tool.route is not None:
        return f"operation {tool.operation_id}" if tool.operation_id else tool_route(tool) or tool.name
    if tool.call is not None:
        return f"{tool.call.module.lstrip('.')}:{tool.call.function}"
    return tool.name


def tool_route(tool: Tool) -> str | None:
    return f"{tool.route.method} {tool.route.path}" if tool.route is not None else None


def served(tool: Tool) -> Served:
    return Served(tool_identity(tool), tool_route(tool))


def pair_tools(old: dict[str, Served], new: dict[str, Served]) -> dict[str, str]:
    """Old tool name -> new tool name, for the tools that are the same: by operation, then by
    route, then by name; at each step only keys that one tool alone holds on each side pair."""
    keys: list[Callable[[str, Served], str | None]] = [
        lambda _, s: s.identity, lambda _, s: s.route, lambda name, _: name,
    ]
    pairs: dict[str, str] = {}
    for key in keys:
        old_keys = _unique({n: key(n, s) for n, s in old.items() if n not in pairs})
        taken = set(pairs.values())
        new_keys = _unique({n: key(n, s) for n, s in new.items() if n not in taken})
        pairs.update({old_name: new_keys[k] for k, old_name in old_keys.items() if k in new_keys})
    return pairs


def _unique(keyed: dict[str, str | None]) -> dict[str, str]:
    """key -> name, for the keys exactly one name has."""
    counts: dict[str, int] = {}
    for value in keyed.values():
        if value is not None:
            counts[value] = counts.get(value, 0) + 1
    return {value: name for name, value in keyed.items() if value is not None and counts[value] == 1}


def compare(old: Catalog, old_served: dict[str, Served], new: Catalog, new_served: dict[str, Served]) -> list[Change]:
    """Changes from `old` to `new`, sorted by tool name then kind. A tool missing from a
    `served` map is known by its name alone."""
    pairs = pair_tools(
        {name: old_served.get(name, Served(f"name:{name}")) for name in old},
        {name: new_served.get(name, Served(f"name:{name}")) for name in new},
    )
    changes = [Change(name, "added", "new tool", False) for name in new if name not in set(pairs.values())]
    for old_name in old:
        new_name = pairs.get(old_name)
        if new_name is None:
            changes.append(Change(old_name, "removed", "tool removed", True))
            continue
        if new_name != old_name:
            changes.append(Change(new_name, "renamed", f"renamed from {old_name!r}", True))
        old_route = old_served[old_name].route if old_name in old_served else None
        new_route = new_served[new_name].route if new_name in new_served else None
        if old_route and new_route and old_route != new_route:
            # The model calls the same tool; what it must send is in the argument changes.
            changes.append(Change(new_name, "route", f"route changed: {old_route} -> {new_route}", False))
        changes.extend(_tool_changes(new_name, old[old_name], new[new_name]))
    return sorted(changes, key=lambda c: (c.tool, c.change, c.detail))


def _tool_changes(name: str, old: dict[str, Any], new: dict[str, Any]) -> list[Change]:
    if old == new:  # most tools of a regeneration: nothing to look into
        return []
    changes = _input_changes(name, old.get("inputSchema") or {}, new.get("inputSchema") or {})
    changes += _output_changes(name, old.get("outputSchema"), new.get("outputSchema"))
    if old.get("annotations") != new.get("annotations"):
        changes.append(Change(name, "annotations", "annotations changed", False))
    if old.get("description") != new.get("description") or old.get("title") != new.get("title"):
        changes.append(Change(name, "description", "title or description changed", False))
    return changes


def _input_changes(name: str, old: dict[str, Any], new: dict[str, Any]) -> list[Change]:
    old_props, new_props = _properties(old), _properties(new)
    old_required, new_required = set(old.get("required") or ()), set(new.get("required") or ())
    changes = []
    for prop in sorted(set(new_props) - set(old_props)):
        required = prop in new_required
        changes.append(
            Change(name, "input_added", f"argument `{prop}` added{' (required)' if required else ''}", required)
        )
    for prop in sorted(set(old_props) - set(new_props)):
        changes.append(Change(name, "input_removed", f"argument `{prop}` removed", True))
    for prop in sorted(set(old_props) & set(new_props)):
        if prop in new_required and prop not in old_required:
            changes.append(Change(name, "input_required", f"argument `{prop}` is now required", True))
        elif prop in old_required and prop not in new_required:
            changes.append(Change(name, "input_optional", f"argument `{prop}` is now optional", False))
        changes.extend(_type_change(name, "input_type", f"argument `{prop}`", old_props[prop], new_props[prop], True))
    if old_props == new_props and old_required == new_required and _canonical(old) != _canonical(new):
        changes.append(Change(name, "input_schema", "input schema changed (constraints or combinators)", True))
    return changes


def _output_changes(name: str, old: dict[str, Any] | None, new: dict[str, Any] | None) -> list[Change]:
    if old == new:
        return []
    if old is None:
        return [Change(name, "output_added", "now declares an output schema", False)]
    if new is None:
        return [Change(name, "output_removed", "no longer declares an output schema", True)]
    old_props, new_props = _properties(old), _properties(new)
    changes = []
    for prop in sorted(set(new_props) - set(old_props)):
        changes.append(Change(name, "output_added_field", f"result field `{prop}` added", False))
    for prop in sorted(set(old_props) - set(new_props)):
        changes.append(Change(name, "output_removed_field", f"result field `{prop}` removed", True))
    for prop in sorted(set(old_props) & set(new_props)):
        changes.extend(
            _type_change(name, "output_type", f"result field `{prop}`", old_props[prop], new_props[prop], True)
        )
    if not changes:
        changes.append(Change(name, "output_schema", "output schema changed", False))
    return changes


def _type_change(name: str, kind: str, what: str, old: Any, new: Any, breaking: bool) -> list[Change]:
    old_type, new_type = _type_of(old), _type_of(new)
    if old_type != new_type:
        return [Change(name, kind, f"{what}: type {old_type} -> {new_type}", breaking)]
    old_enum, new_enum = _enum(old), _enum(new)
    if old_enum is not None and new_enum is not None and old_enum != new_enum:
        gone = [v for v in old_enum if v not in new_enum]
        if gone:
            return [Change(name, kind, f"{what}: values {json.dumps(gone)} no longer allowed", breaking)]
        return [Change(name, kind, f"{what}: new values allowed", False)]
    return []


def _properties(schema: Any) -> dict[str, Any]:
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return {}
    return dict(schema["properties"])


def _type_of(schema: Any) -> str:
    """A short type signature: JSON types, combinator kind, array item type, format."""
    if not isinstance(schema, dict):
        return "any"
    for combinator in ("oneOf", "anyOf", "allOf"):
        if combinator in schema:
            return combinator
    if "$ref" in schema:
        return f"ref {schema['$ref']}"
    kind = schema.get("type", "any")
    text = "|".join(sorted(kind)) if isinstance(kind, list) else str(kind)
    if "items" in schema and isinstance(schema["items"], dict):
        text += f"[{_type_of(schema['items'])}]"
    if "format" in schema:
        text += f" ({schema['format']})"
    return text


def _enum(schema: Any) -> list[Any] | None:
    return list(schema["enum"]) if isinstance(schema, dict) and isinstance(schema.get("enum"), list) else None


def _canonical(schema: Any) -> str:
    """The schema without prose, for spotting a constraint change."""
    def strip(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: strip(v) for k, v in node.items() if k not in ("description", "title", "examples", "example")}
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node

    return json.dumps(strip(schema), sort_keys=True)


def summary(changes: list[Change]) -> dict[str, int]:
    kinds = [c.change for c in changes]
    changed = {c.tool for c in changes if c.change not in ("added", "removed", "renamed", "route")}
    return {
        "added": kinds.count("added"),
        "removed": kinds.count("removed"),
        "renamed": kinds.count("renamed"),
        "moved": kinds.count("route"),
        "changed": len(changed),
        "breaking": sum(c.breaking for c in changes),
    }


def stale_overlay_actions(diagnostics: Sequence[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diagnostics if d.topic is Topic.STALE_OVERLAY]


def as_json(changes: list[Change], diagnostics: Sequence[Diagnostic] = ()) -> dict[str, Any]:
    stale = [
        {"file": d.file, "pointer": d.pointer, "line": d.line, "message": d.message}
        for d in stale_overlay_actions(diagnostics)
    ]
    return {"summary": summary(changes), "changes": [asdict(c) for c in changes], "stale_overlay_actions": stale}


def as_text(changes: list[Change], diagnostics: Sequence[Diagnostic] = ()) -> str:
    stale = stale_overlay_actions(diagnostics)
    lines = _tool_lines(changes)
    if stale:
        lines.append(f"Overlay actions that match nothing ({len(stale)}; the spec changed under them):")
        lines += [f"  {d.location()}: {d.message}" for d in stale]
    return "\n".join(lines)


def _tool_lines(changes: list[Change]) -> list[str]:
    if not changes:
        return ["Tools: no changes."]
    s = summary(changes)
    headline = (
        f"Tools: {s['added']} added, {s['removed']} removed, {s['renamed']} renamed, {s['moved']} moved to "
        f"another route, {s['changed']} changed "
        f"({s['breaking']} breaking change{'s' if s['breaking'] != 1 else ''})"
    )
    lines = [headline]
    marks = {"added": "+", "removed": "-"}
    for c in changes:
        label = "BREAKING" if c.breaking else "compatible"
        lines.append(f"  {marks.get(c.change, '~')} {c.tool}: {c.detail} [{label}]")
    return lines
