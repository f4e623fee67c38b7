# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""Every entry this server exposes, registered once: what each is and what access it needs.

An entry is a tool (generated or from `custom_tools.py`), a dynamic-mode or code-mode meta
tool, the toolsets meta tool (`enable_toolsets`, of a server whose tools are in toolsets), a
resource, a resource template or a prompt. Completions complete a prompt's arguments or a
template's variables, so a completion's target is the prompt or template entry itself. Each
entry carries what the access policy (`policy`) decides on:

- its name, which every access setting addresses (`PREFIX_TOOLS_ALLOW`, `_TOOLS_DENY`,
  `_RATE_LIMIT_<NAME>`): a resource made from an operation is named like the operation's
  tool, so one name (and one rate-limit bucket) covers both ways of reaching it;
- the OAuth scopes it needs: alternatives, one of which the caller must hold all of. Stated
  in the data file (`tools.json`, `resources.json`: from the operation's security
  requirements or `mcpgen.toml`), else a resource needs what its operation's tool needs,
  else the project's `default_scopes` apply (prompts and meta tools included);
- whether read-only mode keeps it (a tool's `readOnlyHint`; a resource is a read unless its
  operation's tool says otherwise; prompts and meta tools only read);
- whether a call must be confirmed by the user first (`confirm`);
- the toolsets a tool belongs to (`PREFIX_TOOLSETS`, `enable_toolsets`): () for one in none,
  which is always served.

Built once per project from its data files and the user's custom tools; nothing here
imports a request handler, so every handler can ask it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal
from urllib.parse import unquote

from . import extensions
from .catalog import tool_table
from .project import current, resets

Kind = Literal["tool", "meta tool", "resource", "resource template", "prompt"]
KINDS: tuple[Kind, ...] = ("tool", "meta tool", "resource", "resource template", "prompt")
# Dynamic mode's meta tools (see `dynamic`), which stand in for the catalogue.
SEARCH, DESCRIBE, CALL = "search_tools", "describe_tool", "call_tool"
META_TOOL_NAMES = frozenset({SEARCH, DESCRIBE, CALL})
# Code mode's tools (see `code_mode`): a search returning typed signatures, and an execute.
CODE_SEARCH, EXECUTE = "search", "execute"
CODE_TOOL_NAMES = frozenset({CODE_SEARCH, EXECUTE})
# The toolsets meta tool (see `toolset_tool`): lists the toolsets, enables more.
ENABLE_TOOLSETS = "enable_toolsets"
TOOLSET_TOOL_NAMES = frozenset({ENABLE_TOOLSETS})
Scopes = tuple[tuple[str, ...], ...]


@dataclass(frozen=True, slots=True)
class Entry:
    kind: Kind
    name: str
    scopes: Scopes  # alternatives, one of which a caller must hold all of; (): none needed
    read_only: bool  # PREFIX_READ_ONLY=1 keeps it
    confirm: bool = False  # the user confirms each call before it is sent (`confirm`)
    toolsets: tuple[str, ...] = ()  # a tool's toolsets; (): in none, always served

    @property
    def bucket(self) -> str:
        """The per-entry rate-limit key: the name, shared by a tool and its resource."""
        return self.name


class Registry:
    """The entries of one server, looked up by kind and name."""

    def __init__(self, entries: Iterable[Entry]) -> None:
        self.entries = tuple(entries)
        self._by_key = {(entry.kind, entry.name): entry for entry in self.entries}
        self.names = tuple(sorted({entry.name for entry in self.entries}))

    def get(self, kind: Kind, name: str | None) -> Entry | None:
        return None if name is None else self._by_key.get((kind, name))

    def of_kind(self, *kinds: Kind) -> list[Entry]:
        return [entry for entry in self.entries if entry.kind in kinds]

    def tool(self, name: str | None) -> Entry | None:
        """How a tools/call names its tool: a meta tool, a tool, or nothing served."""
        return self.get("meta tool", name) or self.get("tool", name)

    def all_scopes(self) -> list[str]:
        """Every scope some entry needs, for the OAuth metadata's `scopes_supported`."""
        return sorted({s for entry in self.entries for a in entry.scopes for s in a})


@resets
@cache
def resource_data() -> list[dict[str, Any]]:
    """Every entry of `resources.json` (resources and templates), as generated."""
    if not current().has_resources:
        return []
    entries: list[dict[str, Any]] = current().read_json("resources.json")
    return entries


@resets
@cache
def prompt_data() -> dict[str, dict[str, Any]]:
    """Prompt name -> its entry of `prompts.json`: {"prompt": MCP Prompt as listed,
    "messages": [...], "call": [module, function, is_async] | None}."""
    if not current().has_prompts:
        return {}
    entries: list[dict[str, Any]] = current().read_json("prompts.json")
    return {entry["prompt"]["name"]: entry for entry in entries}


def _stated(data: dict[str, Any]) -> Scopes | None:
    if "scopes" not in data:
        return None
    return tuple(tuple(alternative) for alternative in data["scopes"])


@resets
@cache
def registry() -> Registry:
    """This server's entries, built on first use from its data files and custom tools."""
    project = current()
    default: Scopes = (tuple(project.default_scopes),) if project.default_scopes else ()
    confirmed = set(project.confirm_tools)
    entries: list[Entry] = []
    tools: dict[str, Entry] = {}
    wire = [(name, data) for name, data in tool_table().items()]
    wire += [(name, custom.entry) for name, custom in extensions.custom_tools().items()]
    for name, data in wire:
        annotations = data["tool"].get("annotations", {})
        scopes = _stated(data)
        tools[name] = Entry(
            "tool",
            name,
            default if scopes is None else scopes,
            bool(annotations.get("readOnlyHint")),
            name in confirmed,
            tuple(data.get("toolsets", ())),
        )
    entries += tools.values()
    if project.tool_mode == "dynamic":
        entries += [Entry("meta tool", name, default, True) for name in sorted(META_TOOL_NAMES)]
    if project.tool_mode == "code":  # execute runs operations, each checked itself: read-only too
        entries += [Entry("meta tool", name, default, True) for name in sorted(CODE_TOOL_NAMES)]
    if project.toolsets:  # it changes which tools are listed, never the API's data: read-only
        entries.append(Entry("meta tool", ENABLE_TOOLSETS, default, True))
    for data in resource_data():
        name = data["name"]
        operation = tools.get(name)
        scopes = _stated(data)
        if scopes is None:
            scopes = operation.scopes if operation is not None else default
        kind: Kind = "resource" if "uri" in data else "resource template"
        read_only = (
            operation.read_only if operation is not None else bool(data.get("readOnly", True))
        )
        entries.append(Entry(kind, name, scopes, read_only))
    for name, data in prompt_data().items():
        scopes = _stated(data)
        entries.append(Entry("prompt", name, default if scopes is None else scopes, True))
    return Registry(entries)


@resets
@cache
def _fixed() -> dict[str, dict[str, Any]]:
    return {data["uri"]: data for data in resource_data() if "uri" in data}


@resets
@cache
def _templates() -> list[tuple[re.Pattern[str], dict[str, Any]]]:
    return [(re.compile(d["pattern"]), d) for d in resource_data() if "uriTemplate" in d]


def resource_at(uri: str) -> tuple[dict[str, Any], dict[str, str]] | None:
    """The `resources.json` entry serving `uri` and the tool arguments its template variables
    carry (None: no resource or template serves it)."""
    if uri in _fixed():
        return _fixed()[uri], {}
    for pattern, data in _templates():
        found = pattern.fullmatch(uri)
        if found:
            return data, {
                arg: unquote(value)
                for arg, value in zip(data["variables"], found.groups(), strict=True)
            }
    return None


def resource_entry(data: Mapping[str, Any]) -> Entry | None:
    """The registry entry of one `resources.json` entry."""
    kind: Kind = "resource" if "uri" in data else "resource template"
    return registry().get(kind, data.get("name"))


def requested(method: str, params: Any) -> list[Entry]:
    """The entries one JSON-RPC request names, as it came off the wire (for the HTTP gate,
    which answers 403 insufficient_scope before the request reaches its handler): a tool (and
    the catalogue tool dynamic mode's call_tool names), a resource or template by URI, a
    prompt, a completion's target."""
    if not isinstance(params, dict):
        return []
    found: list[Entry | None] = []
    if method == "tools/call":
        found.append(registry().tool(_text(params.get("name"))))
        arguments = params.get("arguments")
        if found[0] is not None and found[0].name == CALL and isinstance(arguments, dict):
            found.append(registry().get("tool", _text(arguments.get("name"))))
    elif method in ("resources/read", "resources/subscribe"):
        matched = resource_at(params["uri"]) if isinstance(params.get("uri"), str) else None
        found.append(resource_entry(matched[0]) if matched is not None else None)
    elif method == "prompts/get":
        found.append(registry().get("prompt", _text(params.get("name"))))
    elif method == "completion/complete":
        found.append(completion_target(params.get("ref")))
    return [entry for entry in found if entry is not None]


def completion_target(ref: Any) -> Entry | None:
    """The prompt or resource template a completion's `ref` names (a wire dict or the SDK's model)."""
    wire = ref if isinstance(ref, dict) else getattr(ref, "model_dump", dict)()
    if wire.get("type") == "ref/resource":
        uri = wire.get("uri")
        name = next((d["name"] for d in resource_data() if d.get("uriTemplate") == uri), None)
        return registry().get("resource template", name)
    if wire.get("type") == "ref/prompt":
        return registry().get("prompt", _text(wire.get("name")))
    return None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
