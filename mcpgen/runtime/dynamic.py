# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""Dynamic tool mode: three meta-tools stand in for the whole catalogue.

`search_tools` ranks the catalogue by keywords, `describe_tool` returns one tool's
schemas, `call_tool` runs one tool by name. A call goes through the same path as a
direct tools/call (rate limit, argument validation against the tool's inputSchema,
upstream errors as isError results), so the model sees the same behaviour either way.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from mcp import types

from . import messages, patterns, policy, redact, settings
from .catalog import tool_table
from .project import resets
from .registry import CALL, DESCRIBE, META_TOOL_NAMES, SEARCH, registry

__all__ = ["CALL", "DESCRIBE", "META_TOOL_NAMES", "SEARCH", "call_meta", "meta_tools", "search"]
MAX_RESULTS = 50
# Where a query word is found counts this much: a word of the name says more than one of the prose.
FIELD_WEIGHTS = {"name": 3.0, "title": 2.0, "tags": 2.0, "description": 1.0}

_READ_ONLY = {
    "readOnlyHint": True,
    "destructiveHint": False,
    "idempotentHint": True,
    "openWorldHint": False,
}


@resets
@cache
def _meta_tool_dicts() -> list[dict[str, Any]]:
    """The meta tools as sent (their text counts the catalogue's tools)."""
    return [
        {
            "name": SEARCH,
            "title": "Search the tool catalogue",
            "description": (
                "Find tools of this server by keywords (ranked by matches in tool names, titles, tags and "
                f"descriptions). This server has {len(tool_table())} tools; search first, then describe_tool "
                "for a tool's input schema, then call_tool."
            ),
            "inputSchema": {
                "type": "object",
                "properties": {
                    "query": {
                        "type": "string",
                        "description": "Keywords, e.g. 'list issues repository'",
                    },
                    "limit": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": MAX_RESULTS,
                        "default": 10,
                    },
                },
                "required": ["query"],
            },
            "outputSchema": {
                "type": "object",
                "properties": {
                    "tools": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "name": {"type": "string"},
                                "title": {"type": "string"},
                                "summary": {"type": "string"},
                                "score": {"type": "number"},
                            },
                            "required": ["name", "summary", "score"],
                        },
                    },
                    "matches": {
                        "type": "integer",
                        "description": "How many tools matched at least one keyword",
                    },
                },
                "required": ["tools", "matches"],
            },
            "annotations": {"title": "Search the tool catalogue", **_READ_ONLY},
        },
        {
            "name": DESCRIBE,
            "title": "Describe one tool",
            "description": "The full definition of one tool found with search_tools: description, inputSchema, outputSchema.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "name": {
                        "type": "string",
                        "description": "A tool name returned by search_tools",
                    }
                },
                "required": ["name"],
            },
            "annotations": {"title": "Describe one tool", **_READ_ONLY},
        },
        {
            "name": CALL,
            "title": "Call one tool",
            "description": (
                "Run one tool by name. `arguments` must match the tool's inputSchema (see describe_tool); "
                "invalid arguments come back as an error listing each problem."
            ),
            "inputSchema": {
                "type": "object",
                "properties": {
                    "name": {
                        "type": "string",
                        "description": "A tool name returned by search_tools",
                    },
                    "arguments": {
                        "type": "object",
                        "description": "The tool's arguments",
                        "default": {},
                    },
                },
                "required": ["name"],
            },
            # It runs whichever tool it is given: what the most dangerous of them may do.
            "annotations": {
                "title": "Call one tool",
                "readOnlyHint": False,
                "destructiveHint": True,
                "idempotentHint": False,
                "openWorldHint": True,
            },
        },
    ]


Answer = types.CallToolResult | types.InputRequiredResult
RunTool = Callable[[str, dict[str, Any]], Awaitable[Answer]]


def meta_tools() -> list[types.Tool]:
    return [types.Tool.model_validate(tool) for tool in _meta_tool_dicts()]


@resets
@cache
def _validator(name: str) -> Any:
    # Advertised without additionalProperties/minLength (every client accepts them so); checked with them.
    schema = next(t for t in _meta_tool_dicts() if t["name"] == name)["inputSchema"]
    strict = {**schema, "additionalProperties": False}
    if name == SEARCH:
        strict["properties"] = {**schema["properties"], "query": {"type": "string", "minLength": 1}}
    return patterns.validator(strict)


def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=message)], is_error=True
    )


def _result(value: dict[str, Any]) -> types.CallToolResult:
    value = redact.clean_value(
        value
    )  # spec text: cleaned before its JSON mirror, like every result
    text = json.dumps(value, ensure_ascii=False)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], structured_content=value
    )


async def call_meta(name: str, arguments: dict[str, Any], run_tool: RunTool) -> Answer:
    """Answer one meta-tool call; `run_tool` runs a catalogue tool exactly as tools/call would."""
    problems = messages.problems(_validator(name), arguments)
    if problems:
        return _error("Invalid arguments:\n" + "\n".join(problems))
    if name == SEARCH:
        found = search(arguments["query"], arguments.get("limit", 10))
        return _result({"tools": found, "matches": _match_count(arguments["query"])})
    target = arguments["name"]
    entry, refusal = policy.lookup("tool", target)
    if target not in tool_table() or entry is None or refusal is not None:  # hidden stays hidden
        hints = ", ".join(hit["name"] for hit in search(target, 3))
        return _error(
            f"Unknown tool: {target}." + (f" Closest: {hints}." if hints else " Use search_tools.")
        )
    if name == DESCRIBE:
        return _result(tool_table()[target]["tool"])
    return await run_tool(target, dict(arguments.get("arguments") or {}))


# -- ranked keyword search ------------------------------------------------------

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def words(text: str) -> list[str]:
    """Lower-case words of `text`, camelCase and snake_case split, plural `s` dropped."""
    out = []
    for word in _WORD.findall(text):
        word = word.lower()
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        out.append(word)
    return out


@dataclass(frozen=True, slots=True)
class _Document:
    name: str
    title: str
    summary: str
    fields: dict[str, Counter[str]]


@settings.per_settings  # the settings' hidden tools are left out; the caller's scopes at `search`
def _index() -> tuple[list[_Document], dict[str, float]]:
    """Word counts per field of every tool, and each word's inverse document frequency."""
    documents = []
    for name, entry in tool_table().items():
        registered = registry().get("tool", name)
        if registered is None or policy.settings_refusal(registered) is not None:
            continue
        tool = entry["tool"]
        description = tool.get("description") or ""
        fields = {
            "name": Counter(words(name)),
            "title": Counter(words(tool.get("title") or "")),
            "tags": Counter(w for tag in entry.get("tags", ()) for w in words(tag)),
            "description": Counter(words(description)),
        }
        summary = (description.strip().splitlines() or [""])[0][:200]
        documents.append(_Document(name, tool.get("title") or "", summary, fields))
    frequency: Counter[str] = Counter()
    for document in documents:
        frequency.update({w for counts in document.fields.values() for w in counts})
    total = len(documents)
    idf = {w: math.log(1 + (total - n + 0.5) / (n + 0.5)) for w, n in frequency.items()}
    return documents, idf


def _in_scope(name: str) -> bool:
    """The caller's scopes and enabled toolsets allow the catalogue tool `name` (its settings
    were checked at `_index`)."""
    entry = registry().get("tool", name)
    return (
        entry is not None and not policy.toolset_refusal(entry) and not policy.scope_refusal(entry)
    )


def _score(document: _Document, terms: list[str], idf: dict[str, float]) -> float:
    score, matched = 0.0, 0
    for term in terms:
        weight = sum(
            FIELD_WEIGHTS[f] * c / (c + 1.2)
            for f, counts in document.fields.items()
            if (c := counts[term])
        )
        if weight:
            matched += 1
            score += idf.get(term, 0.0) * weight
    # Tools matching every keyword rank above tools matching one keyword many times.
    return score * (matched / len(terms)) ** 2 if terms else 0.0


def search(query: str, limit: int) -> list[dict[str, Any]]:
    """The best `limit` tools for `query`, best first; ties by name."""
    terms = list(dict.fromkeys(words(query)))
    documents, idf = _index()
    documents = [d for d in documents if _in_scope(d.name)]
    scored = [(s, d) for d in documents if (s := _score(d, terms, idf)) > 0]
    scored.sort(key=lambda pair: (-pair[0], pair[1].name))
    return [
        {
            "name": d.name,
            **({"title": d.title} if d.title else {}),
            "summary": d.summary,
            "score": round(s, 3),
        }
        for s, d in scored[:limit]
    ]


def _match_count(query: str) -> int:
    terms = set(words(query))
    documents, _ = _index()
    return sum(
        1
        for d in documents
        if _in_scope(d.name) and any(counts[t] for counts in d.fields.values() for t in terms)
    )
