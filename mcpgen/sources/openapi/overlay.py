"""OpenAPI Overlays (the OpenAPI Initiative's Overlay Specification 1.0 and 1.1): a spec's
fixes kept in files of their own, applied to the document as loaded, before anything reads it.

Each action's `target` is an RFC 9535 JSONPath (jsonpath-rfc9535, the strict implementation);
`update` merges into the selected objects (objects recursively, arrays concatenated, other
values replaced), is appended to selected arrays and replaces selected primitives; `remove`
takes the selected nodes out of their map or array; 1.1's `copy` takes the update from the
document itself. Overlays apply in the order given, their actions in document order, each on
the result of the last. An action whose target selects nothing is a warning at the action: the
spec changed under it. A malformed overlay is an error at its place in the overlay file.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jsonpath_rfc9535 as jsonpath

from mcpgen.diagnostics import Diagnostics, GenerationError, Topic
from mcpgen.sources.openapi.document import load_document

_VERSION = re.compile(r"^1\.[01]\.\d+$")
_TOP_KEYS = frozenset({"overlay", "info", "extends", "actions"})
_INFO_KEYS = frozenset({"title", "version", "description"})
_ACTION_KEYS = frozenset({"target", "description", "update", "remove", "copy"})
_STALE_HINT = "the spec changed under this action: update its target, or remove the action"


def apply_overlays(document: Any, overlays: Sequence[Path], diagnostics: Diagnostics) -> Any:
    """`document` with every overlay applied; their notes join `diagnostics` (each located in
    its overlay file). Raises GenerationError, with everything noted so far, on a bad overlay."""
    for path in overlays:
        notes = Diagnostics(file=str(path))
        try:
            actions = _actions(load_document(path, notes), notes)
        except GenerationError:
            raise GenerationError([*diagnostics.items, *notes.items]) from None
        if notes.has_errors:
            raise GenerationError([*diagnostics.items, *notes.items])
        for index, action in enumerate(actions):
            document = _apply(document, action, f"/actions/{index}", notes)
        applied = len(actions)
        notes.info(f"overlay applied: {applied} action{'s' if applied != 1 else ''}")
        diagnostics.items.extend(notes.items)
    return document


def _actions(overlay: Any, notes: Diagnostics) -> list[dict[str, Any]]:
    """The overlay's actions, each checked against the Overlay schema (errors into `notes`)."""
    if not isinstance(overlay, dict):
        notes.error("an overlay is a mapping", "", "an Overlay document starts with `overlay: 1.0.0`, `info` and `actions`")
        return []
    _unknown(overlay, _TOP_KEYS, "", notes)
    version = overlay.get("overlay")
    if not isinstance(version, str) or not _VERSION.match(version):
        notes.error(f"`overlay` is {version!r}: expected a version 1.0.x or 1.1.x", "/overlay", 'write `overlay: "1.0.0"`')
    info = overlay.get("info")
    if not isinstance(info, dict) or not all(isinstance(info.get(k), str) for k in ("title", "version")):
        notes.error("`info` needs a string `title` and `version`", "/info")
    else:
        _unknown(info, _INFO_KEYS, "/info", notes)
        if not isinstance(info.get("description", ""), str):
            notes.error("`info.description` is a string", "/info/description")
    if "extends" in overlay and not isinstance(overlay["extends"], str):
        notes.error("`extends` is a URL", "/extends")
    actions = overlay.get("actions")
    if not isinstance(actions, list) or not actions:
        notes.error("`actions` is a list of at least one action", "/actions")
        return []
    checked: list[dict[str, Any]] = []
    for index, action in enumerate(actions):
        where = f"/actions/{index}"
        if not isinstance(action, dict):
            notes.error("an action is a mapping with a `target`", where)
            continue
        _unknown(action, _ACTION_KEYS, where, notes)
        if action in actions[:index]:
            notes.error(f"the same action as /actions/{actions.index(action)}", where, "take one of them out")
            continue
        if "copy" in action and isinstance(version, str) and version.startswith("1.0."):
            notes.error("`copy` is an Overlay 1.1 action", f"{where}/copy", 'write `overlay: "1.1.0"` to use it')
            continue
        target = action.get("target")
        if not isinstance(target, str) or not target.startswith("$"):
            notes.error(f"`target` is {target!r}: expected a JSONPath starting with `$`", f"{where}/target")
            continue
        problems = [(key, _compile_problem(action[key])) for key in ("target", "copy") if key in action]
        for key, problem in problems:
            if problem:
                notes.error(f"invalid JSONPath: {problem}", f"{where}/{key}", "see RFC 9535 for the syntax")
        if any(problem for _, problem in problems):
            continue
        if "remove" in action and not isinstance(action["remove"], bool):
            notes.error("`remove` is true or false", f"{where}/remove")
            continue
        if "description" in action and not isinstance(action["description"], str):
            notes.error("`description` is a string", f"{where}/description")
        checked.append(action)
    return checked


def _unknown(node: dict[str, Any], known: frozenset[str], where: str, notes: Diagnostics) -> None:
    for key in node:
        if not (isinstance(key, str) and key.startswith("x-")) and key not in known:
            notes.error(f"unknown key {key!r}", f"{where}/{key}", f"known keys: {', '.join(sorted(known))}")


def _compile_problem(query: Any) -> str | None:
    if not isinstance(query, str):
        return f"{query!r} is not a string"
    try:
        jsonpath.compile(query)
    except jsonpath.JSONPathError as exc:
        return str(exc)
    return None


def _apply(document: Any, action: dict[str, Any], where: str, notes: Diagnostics) -> Any:
    nodes = jsonpath.find(action["target"], document)
    if not nodes:
        message = f"overlay target {action['target']!r} matches nothing in the spec"
        notes.warning(message, f"{where}/target", _STALE_HINT, topic=Topic.STALE_OVERLAY)
        return document
    locations: list[tuple[Any, ...]] = [tuple(node.location) for node in nodes]
    if action.get("remove") is True:
        if () in locations:
            notes.warning("the document itself cannot be removed", f"{where}/target")
            return document
        # The deepest and last first, so an array's remaining indexes stay right.
        for location in sorted(locations, key=lambda loc: (len(loc), loc[-1] if isinstance(loc[-1], int) else -1), reverse=True):
            parent, key = _at(document, location[:-1]), location[-1]
            if isinstance(parent, list) or key in parent:
                del parent[key]
        return document
    if "copy" in action:
        found = jsonpath.find(action["copy"], document)
        if len(found) != 1:
            notes.warning(f"`copy` selects {len(found)} nodes, not one: the action is skipped", f"{where}/copy")
            return document
        update = found[0].value
    elif "update" in action:
        update = action["update"]
    else:
        notes.warning("an action with neither `update`, `copy` nor `remove: true` changes nothing", where)
        return document
    for location in locations:
        current = _at(document, location)
        if isinstance(current, dict) and not isinstance(update, dict):
            notes.warning("the target is an object: `update` must be an object to merge", f"{where}/update")
            return document
        merged = _merged(current, update)
        if not location:
            document = merged
        else:
            _at(document, location[:-1])[location[-1]] = merged
    return document


def _at(document: Any, location: tuple[Any, ...]) -> Any:
    node = document
    for step in location:
        node = node[step]
    return node


def _merged(target: Any, update: Any) -> Any:
    """`update` applied to `target`: objects merged key by key, recursively; arrays concatenated
    with an array, or given one more item; anything else replaced. `update` is never shared."""
    if update is None and isinstance(target, (dict, list)):
        return target  # a placeholder (`components:` with nothing under it): nothing to merge
    if isinstance(target, dict) and isinstance(update, dict):
        for key, value in update.items():
            target[key] = _merged(target[key], value) if key in target else copy.deepcopy(value)
        return target
    if isinstance(target, list):
        target.extend(copy.deepcopy(update) if isinstance(update, list) else [copy.deepcopy(update)])
        return target
    return copy.deepcopy(update)
