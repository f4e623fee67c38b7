"""Client profiles: rewrite what tools/list advertises so one client accepts every tool.

A profile is the client's rule table in `mcpgen.clients.lint`: each rule it lists has one
transform here, so a profile's output lints clean for its client by construction (the
tests re-lint it). The server keeps validating calls against the full schema: a tool
whose advertised inputSchema differs carries the original as `input_validation`.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from typing import Any

from mcpgen import naming
from mcpgen.clients import lint
from mcpgen.diagnostics import Diagnostic, Level
from mcpgen.ir import JsonSchema, Project

RECURSION_DEPTH = 2  # how many times a recursive $def is unrolled before a described object stands in
MAX_INLINE_DEPTH = 8  # refs nested deeper than this (recursive or not) become described objects
PROFILES = tuple(lint.CLIENTS)


def advertise(schema: JsonSchema, client: lint.Client) -> JsonSchema:
    """The input schema as `client` should see it (a new dict; `schema` is left alone)."""
    rules = client.rules
    out = copy.deepcopy(schema)
    if "ref" in rules:
        out = inline_refs(out)
    if "top-level-combinator" in rules:
        out = flatten_top_level(out)
    for _, sub in list(lint.subschemas(out)):
        if "additional-properties" in rules:
            sub.pop("additionalProperties", None)
        if "format" in rules and "format" in sub:
            allowed = set().union(*(rules["format"].limit.get(t, frozenset()) for t in lint.types_of(sub)))
            if sub["format"] not in allowed:
                _note(sub, f"Format: {sub.pop('format')}.")
        if "pattern" in rules and "pattern" in sub:
            _note(sub, f"Pattern: {sub.pop('pattern')}")
        if "enum-type" in rules and "enum" in sub and lint.types_of(sub) != {"string"}:
            values = sub.pop("enum")
            _note(sub, "One of: " + ", ".join(_literal(v) for v in values) + ".")
        if "array-items" in rules and "array" in lint.types_of(sub) and not isinstance(sub.get("items"), dict):
            sub["items"] = {}
    return out


def _literal(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _note(schema: dict[str, Any], text: str) -> None:
    """Append a constraint the client cannot read to the description it can."""
    current = schema.get("description")
    schema["description"] = f"{current.rstrip()} {text}" if isinstance(current, str) and current.strip() else text


def inline_refs(schema: JsonSchema) -> JsonSchema:
    """Local `$ref`s replaced by the definitions they name; recursion unrolled RECURSION_DEPTH
    times, then a described object; `$defs`/`definitions` removed."""
    defs: dict[str, Any] = {}
    for key in ("definitions", "$defs"):
        block = schema.pop(key, None)
        if isinstance(block, dict):
            defs.update({f"#/{key}/{name}": value for name, value in block.items()})

    def resolve(node: Any, stack: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [resolve(item, stack) for item in node]
        if not isinstance(node, dict):
            return node
        if isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            name = ref.rsplit("/", 1)[-1]
            target = defs.get(ref)
            if target is None or stack.count(ref) >= RECURSION_DEPTH or len(stack) >= MAX_INLINE_DEPTH:
                kind = target.get("type") if isinstance(target, dict) and isinstance(target.get("type"), str) else "object"
                stand_in: dict[str, Any] = {"type": kind}
                why = "defined elsewhere" if target is None else "nested too deep to spell out here"
                _note(stand_in, f"A {name} ({why}): same shape as the {name} one level up.")
                if isinstance(siblings.get("description"), str):
                    stand_in["description"] = siblings["description"].rstrip() + " " + stand_in["description"]
                return stand_in
            merged = {**copy.deepcopy(target), **siblings}
            return resolve(merged, (*stack, ref))
        return {key: (value if key in ("enum", "const", "default", "examples") else resolve(value, stack))
                for key, value in node.items()}

    resolved: JsonSchema = resolve(schema, ())
    return resolved


def flatten_top_level(schema: JsonSchema) -> JsonSchema:
    """Top-level oneOf/anyOf/allOf folded into one object schema: every branch's properties;
    required = what all branches require (allOf: what any requires); the alternatives described."""
    properties: dict[str, Any] = dict(schema.get("properties") or {})
    required: list[str] = list(schema.get("required") or [])
    notes = []
    for key in ("allOf", "anyOf", "oneOf"):
        branches = [b for b in schema.pop(key, None) or [] if isinstance(b, dict)]
        if not branches:
            continue
        sets = []
        for branch in branches:
            for name, prop in (branch.get("properties") or {}).items():
                properties.setdefault(name, prop)
            sets.append([r for r in branch.get("required") or [] if isinstance(r, str)])
        if key == "allOf":
            required += [r for s in sets for r in s]
        else:
            common = set.intersection(*(set(s) for s in sets)) if sets else set()
            required += [r for r in sets[0] if r in common] if sets else []
            choices = " | ".join("(" + ", ".join(s) + ")" if s else "(none)" for s in sets)
            notes.append(f"{'Exactly one' if key == 'oneOf' else 'At least one'} of these argument sets is required: {choices}.")
    schema["type"] = "object"
    schema["properties"] = properties
    if required:
        schema["required"] = list(dict.fromkeys(required))
    for note in notes:
        _note(schema, note)
    return schema


def apply(project: Project, profile: str) -> tuple[Project, list[Diagnostic]]:
    """`project` with every tool advertised as `profile`'s client accepts it."""
    client = lint.CLIENTS[profile]
    diagnostics: list[Diagnostic] = []
    names = {t.name: t.name for t in project.tools}
    length = client.rules.get("name-length")
    if length is not None:
        prefix = client.prefix.format(server=project.name)
        budget = length.limit - len(prefix)
        if budget < 8:
            diagnostics.append(Diagnostic(
                Level.ERROR,
                f"client profile {profile}: the prefix {prefix!r} leaves {budget} characters for tool names",
                project.source_file,
                hint="choose a shorter server name with --name",
            ))
            return project, diagnostics
        requests = [naming.ToolNameRequest(key=t.name, wanted=t.name) for t in project.tools]
        names = {n.key: n.name for n in naming.assign_tool_names(requests, max_length=min(budget, 64))}
    tools = []
    for tool in project.tools:
        advertised = advertise(tool.input_schema, client)
        description = tool.description
        if "missing-description" in client.rules and not description.strip():
            description = tool.title or f"Calls {tool.name}."
        new_name = names[tool.name]
        if new_name != tool.name:
            diagnostics.append(Diagnostic(
                Level.INFO,
                f"client profile {profile}: tool {tool.name!r} advertised as {new_name!r} (fits {client.label}'s names)",
                tool.origin.file,
                tool.origin.pointer,
                tool.origin.line,
            ))
        tools.append(dataclasses.replace(
            tool,
            name=new_name,
            description=description,
            input_schema=advertised,
            input_validation=None if advertised == tool.input_schema else tool.input_schema,
        ))
    count = client.rules.get("tool-count")
    if count is not None and len(tools) > count.limit:
        diagnostics.append(Diagnostic(
            Level.WARNING,
            f"client profile {profile}: {len(tools)} tools, over the {count.limit} {client.label} accepts",
            project.source_file,
            hint="filter the operations or generate with --tool-mode dynamic",
        ))
    return dataclasses.replace(project, tools=tuple(tools), client_profile=profile), diagnostics
