# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""Code tool mode: two tools stand in for the whole API.

`search` ranks the operations by BM25 over their names, summaries, tags and parameter names
and returns each as a typed Python signature with its docstring. `execute` runs the model's
Python in a `pydantic-monty` sandbox (a separate interpreter in a worker process: no imports
but its own small standard library, no files, no network, no environment, no clock) where
the only callables reaching the outside are the API's operations. Each operation call
suspends the sandbox and is run by the host through `run_operation`, the same guarded path
as a direct tools/call: access settings and scopes, argument validation, rate limits,
confirmation, redaction, one audit line. Limits per execute: sandboxed seconds, heap bytes,
characters sent back, operation calls (`PREFIX_CODE_*`).
"""

from __future__ import annotations

import keyword
import math
import re
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from mcp import types

from . import messages, patterns, policy, sandbox, settings, tool_context
from .catalog import tool_table
from .dynamic import words
from .project import resets
from .registry import CODE_SEARCH, EXECUTE, registry

__all__ = ["CODE_SEARCH", "EXECUTE", "bm25", "call", "code_tools", "identifier", "signature"]
MAX_RESULTS = 20
SCRIPT = "execute.py"
# BM25F: a word of the name says more than one of the prose.
FIELD_WEIGHTS = {"name": 3.0, "tags": 2.0, "parameters": 1.5, "summary": 1.0}
K1, B = 1.2, 0.75
MAX_DOC = 400  # characters of an operation's description in its docstring
MAX_ARG_DOC = 160  # of a parameter's

Answer = types.CallToolResult | types.InputRequiredResult
RunOperation = Callable[[str, dict[str, Any]], Awaitable[Answer]]


def _tool_dicts() -> list[dict[str, Any]]:
    count = len(tool_table())
    return [
        {
            "name": CODE_SEARCH,
            "title": "Search the API's operations",
            "description": (
                f"Find operations of this API ({count} in all) by keywords. Each match comes back "
                "as a typed Python signature with its docstring (parameters, types, allowed "
                "values, the fields it returns), ready to call inside `execute`."
            ),
            "inputSchema": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "Keywords, e.g. 'list repo issues'"},
                    "limit": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": MAX_RESULTS,
                        "default": 5,
                    },
                },
                "required": ["query"],
            },
            "annotations": {
                "title": "Search the API's operations",
                "readOnlyHint": True,
                "destructiveHint": False,
                "idempotentHint": True,
                "openWorldHint": False,
            },
        },
        {
            "name": EXECUTE,
            "title": "Run Python against the API",
            "description": (
                "Run Python code in a sandbox where each operation found with `search` is a "
                "function: call it with keyword arguments; it returns the API's JSON as dicts and "
                "lists, and raises RuntimeError when the call fails. No imports beyond a small "
                "standard library, no files, network or clock. The value of the last expression "
                "is returned (structured when it is a dict), with what the code prints. Several "
                "calls in one execute save round trips."
            ),
            "inputSchema": {
                "type": "object",
                "properties": {"code": {"type": "string", "description": "Python source"}},
                "required": ["code"],
            },
            "annotations": {
                "title": "Run Python against the API",
                "readOnlyHint": False,
                "destructiveHint": True,
                "idempotentHint": False,
                "openWorldHint": True,
            },
        },
    ]


def code_tools() -> list[types.Tool]:
    return [types.Tool.model_validate(tool) for tool in _tool_dicts()]


@resets
@cache
def _validator(name: str) -> Any:
    schema = next(t for t in _tool_dicts() if t["name"] == name)["inputSchema"]
    strict = {**schema, "additionalProperties": False}
    first = "query" if name == CODE_SEARCH else "code"
    strict["properties"] = {**schema["properties"], first: {"type": "string", "minLength": 1}}
    return patterns.validator(strict)


def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=message)], is_error=True
    )


async def call(name: str, arguments: dict[str, Any], run_operation: RunOperation) -> Answer:
    """Answer a call of `search` or `execute`; `run_operation` runs one operation exactly as a
    direct tools/call would (its own access decision, limits, audit line)."""
    problems = messages.problems(_validator(name), arguments)
    if problems:
        return _error("Invalid arguments:\n" + "\n".join(problems))
    if name == CODE_SEARCH:
        return _search_result(arguments["query"], arguments.get("limit", 5))
    return await sandbox.run(arguments["code"], _bindings(), run_operation, _progress)


# -- names and signatures -------------------------------------------------------------------


def identifier(name: str) -> str:
    """The Python name of an operation or parameter: non-identifier characters as `_`, a
    leading digit or a keyword given a `_`."""
    text = re.sub(r"\W", "_", name, flags=re.ASCII) or "_"
    if text[0].isdigit():
        text = "_" + text
    return text + "_" if keyword.iskeyword(text) else text


@resets
@cache
def _operations() -> dict[str, str]:
    """Python name -> tool name of every operation (first wins on a clash, by tool name)."""
    found: dict[str, str] = {}
    for name in sorted(tool_table()):
        found.setdefault(identifier(name), name)
    return found


def _bindings() -> dict[str, str]:
    """Every operation, by Python name: one the caller may not call is refused where a direct
    tools/call of it would be, in `run_operation`, with the reason (and its audit line)."""
    return _operations()


_PRIMITIVES = {"string": "str", "integer": "int", "number": "float", "boolean": "bool"}


def _type(schema: Any, depth: int = 0) -> str:
    """A Python annotation for a JSON Schema, as far as one line can say it."""
    if not isinstance(schema, dict) or depth > 3:
        return "Any"
    if "enum" in schema:
        return "Literal[" + ", ".join(repr(v) for v in schema["enum"][:20]) + "]"
    if "const" in schema:
        return f"Literal[{schema['const']!r}]"
    if "$ref" in schema and isinstance(schema["$ref"], str):
        return schema["$ref"].rsplit("/", 1)[-1] or "dict[str, Any]"
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            parts = list(dict.fromkeys(_type(s, depth + 1) for s in schema[key]))
            return " | ".join(parts) or "Any"
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(_type({**schema, "type": k}, depth + 1) for k in kind) or "Any"
    if kind == "null":
        return "None"
    if kind == "array":
        return f"list[{_type(schema.get('items'), depth + 1)}]"
    if kind == "object":
        return "dict[str, Any]"
    return _PRIMITIVES.get(kind, "Any") if isinstance(kind, str) else "Any"


def _line(text: Any, limit: int) -> str:
    words_ = " ".join(str(text or "").split())
    return words_ if len(words_) <= limit else words_[: limit - 1] + "…"


def _returned(entry: dict[str, Any]) -> tuple[str, list[str]]:
    """The return annotation and a line per field of what an operation returns."""
    schema = entry["tool"].get("outputSchema")
    if not isinstance(schema, dict):
        return "Any", []
    if entry.get("wrapsResult"):
        schema = schema.get("properties", {}).get("result", {})
    if isinstance(schema, dict) and schema.get("type") == "array":
        items = schema.get("items")
        fields = _fields(items) if isinstance(items, dict) else []
        return _type(schema), (["a list; each item has:", *fields] if fields else [])
    return _type(schema), _fields(schema)


def _fields(schema: dict[str, Any]) -> list[str]:
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return []
    return [
        f"{key}: {_type(value)}"
        + (
            f" — {_line(value.get('description'), 80)}"
            if isinstance(value, dict) and value.get("description")
            else ""
        )
        for key, value in list(properties.items())[:25]
    ]


def signature(name: str) -> str:
    """The operation `name` as a Python stub: `def op(*, a: int, b: str | None = None) -> T:`
    and a docstring with its summary, parameters and returned fields."""
    entry = tool_table()[name]
    tool = entry["tool"]
    schema = tool.get("inputSchema") or {}
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    ordered = sorted(properties, key=lambda key: key not in required)
    params = []
    doc_args = []
    for key in ordered:
        value = properties[key]
        annotation = _type(value)
        shown = key if key.isidentifier() and not keyword.iskeyword(key) else None
        if shown is not None:
            optional = annotation if annotation.endswith("None") else f"{annotation} | None"
            params.append(
                f"{key}: {annotation}" if key in required else f"{key}: {optional} = None"
            )
        described = _line(value.get("description"), MAX_ARG_DOC) if isinstance(value, dict) else ""
        how = "" if shown is not None else f" (pass as **{{{key!r}: ...}})"
        need = "required" if key in required else "optional"
        doc_args.append(f"    {key} ({annotation}, {need}){how}: {described}".rstrip(": "))
    returns, fields = _returned(entry)
    head = (
        f"def {identifier(name)}("
        + ("*, " + ", ".join(params) if params else "")
        + f") -> {returns}:"
    )
    doc = [
        _line(tool.get("description") or tool.get("title") or name, MAX_DOC).replace('"""', "'''")
    ]
    if doc_args:
        doc += ["", "Args:", *(line.replace('"""', "'''") for line in doc_args)]
    if fields:
        doc += ["", "Returns:", *(f"    {f}".replace('"""', "'''") for f in fields)]
    annotations = tool.get("annotations") or {}
    if annotations.get("destructiveHint") and not annotations.get("readOnlyHint"):
        doc += ["", "Changes data (may ask the user to confirm)."]
    return head + '\n    """' + "\n    ".join(doc).replace("\n    \n", "\n\n") + '\n    """'


# -- BM25 search ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Document:
    name: str
    terms: dict[str, float]  # weighted term frequencies over the fields
    length: float


def bm25(
    documents: list[tuple[str, dict[str, list[str]]]], query: list[str], limit: int
) -> list[tuple[str, float]]:
    """BM25F over documents of named fields (`FIELD_WEIGHTS`), best first, ties by name; only
    documents matching at least one query word."""
    docs = []
    for name, fields in documents:
        terms: dict[str, float] = {}
        for field, tokens in fields.items():
            for token in tokens:
                terms[token] = terms.get(token, 0.0) + FIELD_WEIGHTS.get(field, 1.0)
        docs.append(_Document(name, terms, sum(terms.values())))
    if not docs:
        return []
    average = sum(d.length for d in docs) / len(docs) or 1.0
    frequency: Counter[str] = Counter(t for d in docs for t in d.terms)
    total = len(docs)
    scored = []
    for doc in docs:
        score = 0.0
        for term in dict.fromkeys(query):
            tf = doc.terms.get(term, 0.0)
            if not tf:
                continue
            idf = math.log(1 + (total - frequency[term] + 0.5) / (frequency[term] + 0.5))
            score += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * doc.length / average))
        if score > 0:
            scored.append((doc.name, score))
    scored.sort(key=lambda pair: (-pair[1], pair[0]))
    return scored[:limit]


@settings.per_settings
def _corpus() -> list[tuple[str, dict[str, list[str]]]]:
    """Each operation the settings leave, as BM25 fields."""
    out = []
    for name, entry in tool_table().items():
        registered = registry().get("tool", name)
        if registered is None or policy.settings_refusal(registered) is not None:
            continue
        tool = entry["tool"]
        properties = (tool.get("inputSchema") or {}).get("properties") or {}
        fields = {
            "name": words(name),
            "tags": [w for tag in entry.get("tags", ()) for w in words(tag)],
            "parameters": [w for key in properties for w in words(key)],
            "summary": words(f"{tool.get('title') or ''} {tool.get('description') or ''}"),
        }
        out.append((name, fields))
    return out


def search(query: str, limit: int) -> list[tuple[str, float]]:
    """The best `limit` operations the caller may call for `query`."""
    corpus = [
        doc
        for doc in _corpus()
        if (entry := registry().get("tool", doc[0])) is not None and policy.allowed(entry)
    ]
    return bm25(corpus, words(query), limit)


def _search_result(query: str, limit: int) -> types.CallToolResult:
    found = search(query, limit)
    if not found:
        text = f"No operation matches {query!r}; try other words."
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)],
            structured_content={"operations": []},
        )
    stubs = [signature(name) for name, _ in found]
    text = "\n\n".join(stubs)
    structured = {
        "operations": [
            {"name": identifier(name), "tool": name, "score": round(score, 3), "signature": stub}
            for (name, score), stub in zip(found, stubs, strict=True)
        ]
    }
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], structured_content=structured
    )


async def _progress(done: int, name: str) -> None:
    """A progress notification per operation call, to a client that sent a progressToken."""
    request = tool_context.request.get()
    meta = getattr(request[0], "meta", None) if request is not None else None
    if request is None or not meta or meta.get("progress_token") is None:
        return
    await request[0].session.report_progress(done, None, f"operation {done}: {name}")
