"""Client compatibility: which tool breaks which MCP client, and why.

The rules are data: one table per client (`CLIENTS`), each mapping a rule id to its
level and limit; `CHECKS` holds one function per rule id. Limits as found in the
clients' own error messages, docs and issue trackers (checked 2026-11):

claude (Claude Code / Claude Desktop over the Anthropic Messages API)
  - A tool name must match `^[a-zA-Z0-9_-]{1,128}$` ("tools.15.custom.name: String should
    match pattern", microsoft/wassette#56) and be at most 64 characters ("tools.N.custom.name:
    String should have at most 64 characters", anthropics/claude-code#2326) *after* Claude Code
    prefixes it as `mcp__<server>__<tool>` (mims-harvard/ToolUniverse#65, cloudflare/skills#11).
  - "input_schema does not support oneOf, allOf, or anyOf at the top level"
    (anthropics/claude-code#5319, #5973; mobile-next/mobile-mcp#344).
openai (Chat Completions / Responses function tools)
  - "Invalid schema for function 'x': In context=('properties', 'paths'), array schema missing
    items." (code invalid_function_parameters; sigoden/aichat#1049, streamnative/streamnative-mcp-server#26).
  - "Invalid 'tools': array too long. Expected an array with maximum length 128"
    (code array_above_max_length; zed-industries/zed#32946, vishalmysore/Tools4AI#16).
  - Function names `^[a-zA-Z0-9_-]{1,64}$` (the same pattern the Anthropic API enforces; names are
    sent unprefixed by the API, clients such as Codex add their own prefix).
gemini (Gemini API function declarations, Gemini CLI)
  - `$ref`/`$defs` rejected or unresolved: "reference to undefined schema", "can't resolve
    reference #/$defs/..." (google-gemini/gemini-cli#13326, #13142; anomalyco/opencode#12295).
  - "Unknown name \"additionalProperties\" ... Cannot find field." (promptfoo/promptfoo#6902, which
    also lists `pattern` among the unsupported keywords).
  - "format: only 'enum' and 'date-time' are supported for STRING type" (hideya/langchain-mcp-tools-ts#36;
    ai.google.dev/api/caching#Schema: NUMBER float/double, INTEGER int32/int64, STRING enum/date-time,
    quoted in CherryHQ/cherry-studio#4153).
  - "enum: only allowed for STRING type" (diegosouzapw/OmniRoute#760); arrays need `items`
    ("items: missing field", DEEIX-AI/DEEIX-Chat#546).
  - Function names: letters, digits, `_ . : -`, starting with a letter or `_`, at most 64.
cursor
  - "Cursor will only send the first 40 tools to the Agent" (docs.cursor.com, tool quantity;
    quoted in anyproto/anytype-mcp#5, getsentry/sentry-mcp-stdio#3; later raised to 80,
    Snowflake-Labs/mcp#77).
  - Server name plus tool name at most 60 characters, longer tools are filtered out (awslabs/mcp#1283).
vscode (GitHub Copilot Chat)
  - "Cannot have more than 128 tools per request" / "You may not include more than 128 tools in
    your request" (microsoft/vscode-copilot-release#9375, #11653).
  - Tools are named `mcp_<server>_<tool>` (microsoft/vscode#249929) and sent to models with the
    64-character `^[a-zA-Z0-9_-]` rule above; arrays without `items` fail with OpenAI models.
every client
  - A tool without a description gives the model nothing to choose by; the MCP conformance suite's
    tools-list scenario requires one (warning).

`lint_tools` takes MCP Tool objects as sent on the wire, so it lints a spec (through the
generator, nothing written) and a generated project (its `tools.json`) alike.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mcpgen.project.facts import fact
from mcpgen.runtime.paging import ONE_PAGE_BYTES, page_end

ERROR, WARNING = "error", "warning"


@dataclass(frozen=True, slots=True)
class Rule:
    level: str
    limit: Any = None  # a length, a count, a regex, or {type: allowed formats}


@dataclass(frozen=True, slots=True)
class Client:
    name: str
    label: str
    prefix: str  # how the client prefixes tool names; `{server}` is the configured server name
    rules: dict[str, Rule] = field(default_factory=dict)


_API_NAME = r"^[a-zA-Z0-9_-]+$"
GEMINI_FORMATS = {
    "string": frozenset({"enum", "date-time"}),
    "integer": frozenset({"int32", "int64"}),
    "number": frozenset({"float", "double"}),
}

CLAUDE = Client("claude", "Claude (Anthropic API, Claude Code)", "mcp__{server}__", {
    "name-length": Rule(ERROR, 64),
    "name-chars": Rule(ERROR, _API_NAME),
    "top-level-combinator": Rule(ERROR),
    "missing-description": Rule(WARNING),
})
OPENAI = Client("openai", "OpenAI function calling", "", {
    "name-length": Rule(ERROR, 64),
    "name-chars": Rule(ERROR, _API_NAME),
    "tool-count": Rule(ERROR, 128),
    "array-items": Rule(ERROR),
    "missing-description": Rule(WARNING),
})
GEMINI = Client("gemini", "Gemini function declarations", "", {
    "name-length": Rule(ERROR, 64),
    "name-chars": Rule(ERROR, r"^[A-Za-z_][A-Za-z0-9_.:-]*$"),
    "ref": Rule(ERROR),
    "additional-properties": Rule(ERROR),
    "format": Rule(ERROR, GEMINI_FORMATS),
    "enum-type": Rule(ERROR),
    "array-items": Rule(ERROR),
    "pattern": Rule(WARNING),
    "missing-description": Rule(WARNING),
})
CURSOR = Client("cursor", "Cursor", "{server}", {
    "name-length": Rule(ERROR, 60),
    "tool-count": Rule(ERROR, 40),
    "missing-description": Rule(WARNING),
})
VSCODE = Client("vscode", "VS Code (GitHub Copilot)", "mcp_{server}_", {
    "name-length": Rule(ERROR, 64),
    "name-chars": Rule(ERROR, _API_NAME),
    "tool-count": Rule(ERROR, 128),
    "array-items": Rule(ERROR),
    "missing-description": Rule(WARNING),
})
CLIENTS: dict[str, Client] = {c.name: c for c in (CLAUDE, OPENAI, GEMINI, CURSOR, VSCODE)}


@dataclass(frozen=True, slots=True)
class Finding:
    client: str
    tool: str  # "" for a rule about the whole catalogue
    rule: str
    level: str
    pointer: str  # JSON pointer into the tool's inputSchema ("" for the tool itself)
    message: str


# -- schema walking ---------------------------------------------------------------

_SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas")
_SCHEMA_VALUES = (
    "items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
    "unevaluatedProperties", "unevaluatedItems", "additionalItems",
)
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def subschemas(schema: Any, pointer: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema object inside `schema` (itself first) with its JSON pointer; keyword
    values such as `enum` or a property *named* `format` are never taken for schemas."""
    if not isinstance(schema, dict):
        return
    yield pointer, schema
    for key in _SCHEMA_MAPS:
        children = schema.get(key)
        if isinstance(children, dict):
            for name, child in children.items():
                yield from subschemas(child, f"{pointer}/{key}/{_escape(str(name))}")
    for key in _SCHEMA_VALUES:
        yield from subschemas(schema.get(key), f"{pointer}/{key}")
    for key in _SCHEMA_LISTS:
        children = schema.get(key)
        if isinstance(children, list):
            for i, child in enumerate(children):
                yield from subschemas(child, f"{pointer}/{key}/{i}")


def types_of(schema: dict[str, Any]) -> set[str]:
    kind = schema.get("type")
    return {kind} if isinstance(kind, str) else {k for k in kind if isinstance(k, str)} if isinstance(kind, list) else set()


# -- one check per rule id: (tool, limit, full name) -> [(pointer, message)] -------

Hit = tuple[str, str]


def _name_length(tool: dict[str, Any], limit: Any, full: str) -> list[Hit]:
    if len(full) <= limit:
        return []
    shown = f"'{full}' ({len(full)})" if full != tool["name"] else f"{len(full)}"
    return [("", f"name is {shown} characters, over {limit} with the client's prefix" if full != tool["name"]
             else f"name is {shown} characters, over {limit}")]


def _name_chars(tool: dict[str, Any], limit: Any, full: str) -> list[Hit]:
    return [] if re.match(limit, full) else [("", f"name '{full}' has characters outside {limit}")]


def _top_level_combinator(tool: dict[str, Any], limit: Any, full: str) -> list[Hit]:
    schema = tool.get("inputSchema") or {}
    return [(f"/{k}", f"inputSchema has {k} at the top level") for k in ("oneOf", "anyOf", "allOf") if k in schema]


def _array_items(tool: dict[str, Any], limit: Any, full: str) -> list[Hit]:
    return [
        (p, "array schema without items")
        for p, s in subschemas(tool.get("inputSchema"))
        if "array" in types_of(s) and not isinstance(s.get("items"), dict)
    ]


def _ref(tool: dict[str, Any], limit: Any, full: str) -> list[Hit]:
    hits = [(p + "/$ref", f"$ref {s['$ref']}") for p, s in subschemas(tool.get("inputSchema")) if "$ref" in s]
    schema = tool.get("inputSchema") or {}
    hits += [(f"/{k}", f"{k} block") for k in ("$defs", "definitions") if k in schema]
    return hits


def _additional_properties(tool: dict[str, Any], limit: Any, full: str) -> list[Hit]:
    return [
        (p + "/additionalProperties", "additionalProperties")
        for p, s in subschemas(tool.get("inputSchema"))
        if "additionalProperties" in s
    ]


def _format(tool: dict[str, Any], limit: Any, full: str) -> list[Hit]:
    hits = []
    for p, s in subschemas(tool.get("inputSchema")):
        if "format" in s:
            allowed = set().union(*(limit.get(t, frozenset()) for t in types_of(s))) if types_of(s) else set()
            if s["format"] not in allowed:
                hits.append((p + "/format", f"format '{s['format']}' (supported: {', '.join(sorted(allowed)) or 'none'})"))
    return hits


def _enum_type(tool: dict[str, Any], limit: Any, full: str) -> list[Hit]:
    return [
        (p + "/enum", f"enum on a {'/'.join(sorted(types_of(s))) or 'untyped'} schema (strings only)")
        for p, s in subschemas(tool.get("inputSchema"))
        if "enum" in s and types_of(s) != {"string"}
    ]


def _pattern(tool: dict[str, Any], limit: Any, full: str) -> list[Hit]:
    return [(p + "/pattern", "pattern") for p, s in subschemas(tool.get("inputSchema")) if "pattern" in s]


def _missing_description(tool: dict[str, Any], limit: Any, full: str) -> list[Hit]:
    return [] if (tool.get("description") or "").strip() else [("", "tool has no description")]


CHECKS: dict[str, Callable[[dict[str, Any], Any, str], list[Hit]]] = {
    "name-length": _name_length,
    "name-chars": _name_chars,
    "top-level-combinator": _top_level_combinator,
    "array-items": _array_items,
    "ref": _ref,
    "additional-properties": _additional_properties,
    "format": _format,
    "enum-type": _enum_type,
    "pattern": _pattern,
    "missing-description": _missing_description,
}
MAX_HITS_SHOWN = 3  # per tool and rule; the rest are counted


def full_name(client: Client, server: str, tool_name: str) -> str:
    return client.prefix.format(server=server) + tool_name


def lint_tools(
    tools: list[dict[str, Any]], server: str, clients: list[str], skip: frozenset[str] = frozenset()
) -> list[Finding]:
    """Every rule (but those in `skip`) each tool breaks, for each client, in a stable order."""
    findings: list[Finding] = []
    for client_name in clients:
        client = CLIENTS[client_name]
        count = None if "tool-count" in skip else client.rules.get("tool-count")
        if count is not None and len(tools) > count.limit:
            findings.append(Finding(
                client.name, "", "tool-count", count.level, "",
                f"{len(tools)} tools, over the {count.limit} {client.label} accepts: filter the operations "
                "or generate with --tool-mode dynamic",
            ))
        for tool in tools:
            full = full_name(client, server, tool["name"])
            for rule_id, rule in client.rules.items():
                if rule_id == "tool-count" or rule_id in skip:
                    continue
                hits = CHECKS[rule_id](tool, rule.limit, full)
                for pointer, message in hits[:MAX_HITS_SHOWN]:
                    findings.append(Finding(client.name, tool["name"], rule_id, rule.level, pointer, message))
                if len(hits) > MAX_HITS_SHOWN:
                    findings.append(Finding(client.name, tool["name"], rule_id, rule.level, "",
                                            f"... and {len(hits) - MAX_HITS_SHOWN} more"))
    return findings


# -- toolsets ------------------------------------------------------------------------


def toolset_sizes(memberships: dict[str, tuple[str, ...]]) -> dict[str, int]:
    """Tool name -> its toolsets, as toolset -> how many tools it has (sorted by name)."""
    sizes: dict[str, int] = {}
    for toolsets in memberships.values():
        for name in toolsets:
            sizes[name] = sizes.get(name, 0) + 1
    return dict(sorted(sizes.items()))


def toolset_report(sizes: dict[str, int], clients: list[str]) -> list[dict[str, Any]]:
    """Each toolset's tool count and, per client, its tool-count limit and whether it fits."""
    report = []
    for name, count in sizes.items():
        limits = {
            c: CLIENTS[c].rules["tool-count"].limit for c in clients if "tool-count" in CLIENTS[c].rules
        }
        report.append({
            "toolset": name,
            "tools": count,
            "limits": limits,
            "over": [c for c, limit in limits.items() if count > limit],
        })
    return report


def toolset_findings(report: list[dict[str, Any]]) -> list[Finding]:
    """A warning per toolset and client whose tool-count limit it passes on its own: enabling that
    toolset alone is too much for the client (split it in mcpgen.toml's [toolsets.<name>])."""
    return [
        Finding(
            client, "", "toolset-tool-count", WARNING, "",
            f"toolset {row['toolset']!r} has {row['tools']} tools, over the {row['limits'][client]} "
            f"{CLIENTS[client].label} accepts: split it with [toolsets.<name>] globs in mcpgen.toml",
        )
        for row in report
        for client in row["over"]
    ]


def toolset_table(report: list[dict[str, Any]]) -> str:
    """One line per toolset: its tool count and, per client with a limit, `ok` or `over`."""
    if not report:
        return ""
    clients = list(report[0]["limits"])
    header = ["TOOLSET", "TOOLS", *(f"{c.upper()}<={report[0]['limits'][c]}" for c in clients)]
    rows = [header] + [
        [row["toolset"], str(row["tools"]), *("over" if c in row["over"] else "ok" for c in clients)]
        for row in report
    ]
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows)


# -- reading what to lint ------------------------------------------------------------


class LintInputError(Exception):
    pass


def project_tools(path: Path) -> tuple[list[dict[str, Any]], str]:
    """The advertised tools of a generated project (a directory, or its tools.json) and its server name."""
    tools, name, _ = project_catalogue(path)
    return tools, name


def project_catalogue(path: Path) -> tuple[list[dict[str, Any]], str, dict[str, tuple[str, ...]]]:
    """`project_tools`, and each tool's toolsets (tool name -> toolsets; only tools in some)."""
    if path.is_dir():
        candidates = sorted(path.glob("src/*/tools.json")) or sorted(path.glob("tools.json"))
        if not candidates:
            raise LintInputError(f"{path}: no src/<package>/tools.json; is this a generated project?")
        path = candidates[0]
    try:
        entries = json.loads(path.read_text("utf-8"))
        tools = [entry["tool"] for entry in entries]
        toolsets = {e["tool"]["name"]: tuple(e["toolsets"]) for e in entries if e.get("toolsets")}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise LintInputError(f"{path}: not a generated tools.json ({exc})") from None
    name = fact(path.parent / "project.py", "name")
    return tools, name if name is not None else path.parent.name, toolsets


def is_dynamic_project(path: Path) -> bool:
    """A project generated with --tool-mode dynamic: clients see three meta-tools, not the catalogue."""
    folder = path if path.is_dir() else path.parent
    packages = [tools.parent for tools in sorted(folder.glob("src/*/tools.json"))] or [folder]
    return any(fact(package / "project.py", "tool_mode") in ("dynamic", "code") for package in packages)


def summary(findings: list[Finding], tools: int, clients: list[str]) -> dict[str, Any]:
    return {
        "tools": tools,
        "clients": clients,
        "errors": sum(f.level == ERROR for f in findings),
        "warnings": sum(f.level == WARNING for f in findings),
    }


def to_json(
    findings: list[Finding], tools: int, clients: list[str], toolsets: list[dict[str, Any]] | None = None
) -> str:
    body: dict[str, Any] = {"summary": summary(findings, tools, clients), "findings": [asdict(f) for f in findings]}
    if toolsets:
        body["toolsets"] = toolsets
    return json.dumps(body, indent=2)


def to_table(
    findings: list[Finding], tools: int, clients: list[str], toolsets: list[dict[str, Any]] | None = None
) -> str:
    header = ("CLIENT", "LEVEL", "RULE", "TOOL", "WHERE", "PROBLEM")
    rows = [header] + [(f.client, f.level, f.rule, f.tool or "(all)", f.pointer or "-", f.message) for f in findings]
    widths = [min(48, max(len(r[i]) for r in rows)) for i in range(len(header) - 1)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)) + "  " + r[-1] for r in rows] if findings else []
    s = summary(findings, tools, clients)
    if toolsets:
        lines += ["", toolset_table(toolsets), ""]
    lines.append(f"{s['tools']} tools, {', '.join(clients)}: {s['errors']} errors, {s['warnings']} warnings")
    return "\n".join(lines)


# The generated server's paging rule (runtime `paging`), counted here to warn at generation.
CLIENT_MAX_PAGES = 64  # the TypeScript SDK's listMaxPages: Claude Desktop, VS Code, Cursor, the Inspector


# Clients that read the first page of tools/list only, ignoring `nextCursor`.
FIRST_PAGE_ONLY = "google-adk (McpToolset) and other simple agent clients"


def page_count(sizes: list[int], page_size: int, one_page_bytes: int = ONE_PAGE_BYTES) -> int:
    """tools/list pages a server with tools of these JSON sizes serves: the runtime's own rule."""
    start, pages = 0, 0
    while start < len(sizes):
        start, pages = page_end(start, len(sizes), page_size, sizes, one_page_bytes), pages + 1
    return pages


def page_count_notes(sizes: list[int], page_size: int, one_page_bytes: int = ONE_PAGE_BYTES) -> list[str]:
    pages = page_count(sizes, page_size, one_page_bytes)
    if pages == 1:
        return []
    first = page_end(0, len(sizes), page_size, sizes, one_page_bytes)
    notes = [(
        f"tools/list takes {pages} pages ({sum(sizes):,} bytes of tools, over the one-page budget of "
        f"{one_page_bytes:,}): {FIRST_PAGE_ONLY} read only the first, {first} of {len(sizes)} tools; filter the "
        "operations, generate with --tool-mode dynamic, or raise <PREFIX>_ONE_PAGE_BYTES"
    )]
    if pages > CLIENT_MAX_PAGES:
        notes.append(
            f"tools/list takes {pages} pages: TypeScript clients (Claude Desktop, Claude Code, VS Code, Cursor, "
            f"the Inspector) stop listing after {CLIENT_MAX_PAGES}; filter the operations or generate with "
            "--tool-mode dynamic"
        )
    return notes


def tool_count_notes(count: int, toolsets: bool = False) -> list[str]:
    """Generation-time warnings when a static catalogue outgrows what common clients handle
    (`toolsets`: it is grouped in toolsets, which a server can serve a few of)."""
    notes = []
    fix = "serve some of its toolsets (<PREFIX>_TOOLSETS; `mcpgen lint` counts each)" if toolsets else (
        "filter the operations (--tag, --operation, --path, or [filters] in mcpgen.toml) or generate with "
        "--tool-mode dynamic"
    )
    for limit, who in ((40, "Cursor sends only the first 40 tools to its model"),
                       (128, "OpenAI and VS Code (Copilot) refuse requests with more than 128 tools")):
        if count > limit:
            notes.append(f"{count} tools: {who}; {fix}")
    return notes
