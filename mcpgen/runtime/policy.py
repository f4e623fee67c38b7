# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""The one access decision: may this caller see and use this entry?

Every list filter (tools, meta tools, resources, templates, prompts, dynamic mode's search)
and every gate (tools/call, resources/read, resources/subscribe, prompts/get,
completion/complete, the HTTP gate's 403 insufficient_scope) asks `refusal(entry)`, for an
entry of the registry (`registry`); nothing else decides. In order:

1. the settings, whoever calls: `PREFIX_READ_ONLY=1` hides what is not read-only (meta tools
   only read the catalogue or dispatch to a tool that is checked itself);
   `PREFIX_TOOLS_ALLOW` / `PREFIX_TOOLS_DENY` are glob patterns over every entry's name;
2. the toolsets enabled for the request (`toolsets`): a tool in toolsets none of which is
   enabled is hidden, and `enable_toolsets` is served only where enabling is kept;
3. the OAuth caller's scopes (`principal`): one of the entry's scope alternatives, all of it.

A refused entry is hidden: not listed, and a request naming it is answered like one naming
nothing served, with the reason. Rate limits (`guard`) and the audit line (`audit`) follow in
`guarded`, which every request handler goes through.
"""

from __future__ import annotations

import fnmatch
import functools
from collections import OrderedDict
from collections.abc import Callable
from typing import TypeVar

from . import settings, toolsets
from .principal import principal
from .registry import ENABLE_TOOLSETS, Entry, Kind, registry

T = TypeVar("T")


def refusal(entry: Entry) -> str | None:
    """Why `entry` is hidden from and refused to the caller; None: it may be used."""
    return settings_refusal(entry) or toolset_refusal(entry) or scope_refusal(entry)


def allowed(entry: Entry) -> bool:
    return refusal(entry) is None


def settings_refusal(entry: Entry) -> str | None:
    """Why the settings hide `entry`, whoever calls."""
    current = settings.current()
    kind, name = entry.kind, entry.name
    if current.read_only and not entry.read_only:
        return f"{kind} {name!r} is not read-only and this server runs with {current.variable('READ_ONLY')}=1"
    if current.tools_allow and not any(fnmatch.fnmatchcase(name, p) for p in current.tools_allow):
        return f"{kind} {name!r} is not in {current.variable('TOOLS_ALLOW')}"
    if any(fnmatch.fnmatchcase(name, p) for p in current.tools_deny):
        return f"{kind} {name!r} is in {current.variable('TOOLS_DENY')}"
    return None


def toolset_refusal(entry: Entry) -> str | None:
    """Why the toolsets enabled for this request hide `entry`; None: they do not."""
    if entry.kind == "meta tool" and entry.name == ENABLE_TOOLSETS and not toolsets.dynamic():
        variable = settings.current().variable("TOOLSETS_DYNAMIC")
        return f"meta tool {entry.name!r} needs {variable}=1 and a connection that keeps state"
    on = toolsets.enabled()
    if (
        entry.kind != "tool"
        or not entry.toolsets
        or on is None
        or not on.isdisjoint(entry.toolsets)
    ):
        return None
    how = settings.current().variable("TOOLSETS") + (
        f" or {ENABLE_TOOLSETS}" if toolsets.dynamic() else ""
    )
    named = ", ".join(repr(name) for name in entry.toolsets)
    return f"tool {entry.name!r} is in toolset {named}, not enabled ({how})"


def scope_refusal(entry: Entry) -> str | None:
    """Why the caller's scopes do not allow `entry`; None: they do, or no OAuth caller."""
    caller = principal()
    if caller is None or not entry.scopes:
        return None
    if any(set(alternative) <= caller.scopes for alternative in entry.scopes):
        return None
    return f"{entry.kind} {entry.name!r} needs scope {' '.join(entry.scopes[0])!r}"


def lookup(kind: Kind, name: str | None) -> tuple[Entry | None, str | None]:
    """The entry of `kind` named `name` and why it is refused (None, None: no such entry)."""
    entry = registry().get(kind, name)
    return entry, (None if entry is None else refusal(entry))


def visible(*kinds: Kind) -> list[Entry]:
    """The entries of these kinds the caller may see, in the registry's order."""
    return [entry for entry in registry().of_kind(*kinds) if allowed(entry)]


def names_addressed() -> list[str]:
    """Every name the access settings and per-entry rate limits may address."""
    return list(registry().names)


settings.served_tools(names_addressed)


def per_caller(function: Callable[[], T]) -> Callable[[], T]:
    """A no-argument function's value per settings, per caller's scopes and per enabled
    toolsets (a few kept): what a caller may see depends on nothing else."""
    memo: OrderedDict[
        tuple[int, frozenset[str] | None, frozenset[str] | None, bool], tuple[settings.Settings, T]
    ]
    memo = OrderedDict()

    @functools.wraps(function)
    def wrapper() -> T:
        now = settings.current()
        caller = principal()
        scopes = caller.scopes if caller is not None else None
        key = (id(now), scopes, toolsets.enabled(), toolsets.dynamic())
        found = memo.get(key)
        if found is None or found[0] is not now:
            found = (now, function())
            memo[key] = found
            while len(memo) > 64:
                memo.popitem(last=False)
        return found[1]

    return wrapper
