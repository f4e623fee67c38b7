# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""Audit log: one JSON line per request that runs an entry, on stderr (stdout carries the
stdio protocol): tool calls, resource reads, prompt gets and completions (see `guarded`).

`{"event": "tool_call", "kind": "tool", "tool": ..., "outcome": "ok" | "error" |
"rate_limited" | "refused", "duration_ms": ..., "upstream_status": 200 | "ConnectError" | null,
"arguments": {...}}`. The other kinds name their entry the same way: `"event":
"resource_read", "kind": "resource", "resource": name, "uri": ...`, `"event": "prompt_get",
"kind": "prompt", "prompt": name`, `"event": "completion", "kind": "completion",
"completion": prompt name or template URI`.
Arguments are logged with the values of sensitive-looking names (password, token, key, ...)
and every configured secret replaced by `[redacted]`, long strings cut.
`PREFIX_AUDIT_LOG`: `full` (default), `minimal` (no arguments) or `off`.
"""

from __future__ import annotations

import contextvars
import json
import logging
import re
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cache
from typing import Any, Literal

from . import settings, telemetry
from .principal import principal
from .project import current
from .redact import REDACTED, clean_text, redact_text

_SENSITIVE = re.compile(
    r"(?i)(pass(word|wd|phrase)?|secret|token|api[-_]?key|authoriz|credential|cookie|session|private|signature|otp|pin$)"
)
MAX_VALUE = 200  # characters of one logged string: an argument, the tool name, the detail
MAX_KEY = 64  # characters of one logged object key
MAX_ITEMS = 20  # items of one logged list or object
MAX_DEPTH = 8  # levels of nesting logged
MAX_NODES = 200  # values logged of one call's arguments, all levels together
_SLACK = 4_000  # characters redacted beyond the cut: a secret straddling it is still found


Kind = Literal["tool", "resource", "prompt", "completion"]
EVENTS: dict[str, str] = {
    "tool": "tool_call",
    "resource": "resource_read",
    "prompt": "prompt_get",
    "completion": "completion",
}


@dataclass
class ToolCall:
    tool: str | None  # the entry's name (None: a resource URI no entry serves)
    arguments: Any
    kind: Kind = "tool"
    fields: dict[str, str] = field(default_factory=dict)  # more to log, e.g. a resource's URI
    started: float = field(default_factory=time.perf_counter)
    upstream_status: int | str | None = None
    outcome: str | None = None  # set early by a step that knows better than the result
    principal: dict[str, Any] | None = None  # the OAuth caller (see `oauth.Principal.audit`)


_current: contextvars.ContextVar[ToolCall | None] = contextvars.ContextVar(
    "audit_call", default=None
)


def mode() -> settings.AuditMode:
    return settings.current().audit_log


@cache
def _logger() -> logging.Logger:
    """Its own stderr handler: audit lines do not depend on --log-level."""
    logger = logging.getLogger(f"{current().package}.audit")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    return logger


def begin(name: str | None, arguments: Any, kind: Kind = "tool", **fields: str) -> ToolCall:
    caller = principal()
    call = ToolCall(name, arguments, kind, fields, principal=caller.audit() if caller else None)
    _current.set(call)
    return call


def open_call() -> ToolCall | None:
    """The request whose audit line is open (code mode nests operation calls in an execute)."""
    return _current.get()


def reopen(call: ToolCall | None) -> None:
    """Make `call` the open one again, after a nested request wrote its own line."""
    _current.set(call)


def note_upstream(status: int | str) -> None:
    """The upstream's final status code (or the name of the error that replaced it)."""
    call = _current.get()
    if call is not None:
        call.upstream_status = status


def mark(outcome: str) -> None:
    call = _current.get()
    if call is not None:
        call.outcome = outcome


def finish(call: ToolCall, outcome: str, detail: str | None = None) -> None:
    if mode() == "off":
        return
    line: dict[str, Any] = {
        "time": datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
        "event": EVENTS[call.kind],
        "kind": call.kind,
        call.kind: _short(clean_text(call.tool)) if call.tool is not None else None,
        **{key: _short(value) for key, value in call.fields.items()},
        "outcome": call.outcome or outcome,
        "duration_ms": round((time.perf_counter() - call.started) * 1000, 1),
        "upstream_status": (
            _short(call.upstream_status)
            if isinstance(call.upstream_status, str)
            else call.upstream_status
        ),
    }
    line.update(telemetry.ids())  # the request's span: find its trace from the log line
    if call.principal is not None:
        line["principal"] = safe_arguments(call.principal)  # sizes bounded like arguments
    if detail:
        line["detail"] = _short(detail)
    if mode() == "full":
        line["arguments"] = safe_arguments(call.arguments)
    _logger().info(json.dumps(line, ensure_ascii=True, default=str))


def safe_arguments(value: Any, key: str = "") -> Any:
    """A copy fit for a log: sensitive names hidden, secrets redacted, sizes bounded (each
    string and key, items per level, levels, and values in all)."""
    return _safe(value, key, 0, [MAX_NODES])


def _safe(value: Any, key: str, depth: int, budget: list[int]) -> Any:
    if key and _SENSITIVE.search(key):
        return REDACTED
    budget[0] -= 1
    if budget[0] < 0 or (depth >= MAX_DEPTH and isinstance(value, (dict, list))):
        return "…"
    if isinstance(value, str):
        return _short(value)
    if isinstance(value, bool) or value is None or isinstance(value, float):
        return value
    if isinstance(value, int):  # a huge one would print as a huge line (or not at all)
        return value if value.bit_length() <= 64 else f"<integer of {value.bit_length()} bits>"
    if isinstance(value, dict):
        items = list(value.items())
        out: dict[str, Any] = {}
        for k, v in items[:MAX_ITEMS]:
            name = str(k)
            out[_short(name, MAX_KEY)] = _safe(v, name[: MAX_KEY + _SLACK], depth + 1, budget)
        if len(items) > MAX_ITEMS:
            out["…"] = f"{len(items) - MAX_ITEMS} more"
        return out
    if isinstance(value, list):
        shown = [_safe(v, key, depth + 1, budget) for v in value[:MAX_ITEMS]]
        return shown + ([f"… {len(value) - MAX_ITEMS} more"] if len(value) > MAX_ITEMS else [])
    return _short(str(value))


def _short(text: str, limit: int = MAX_VALUE) -> str:
    """`text` redacted and cut to `limit` characters (redacted before the cut, so that no
    half of a secret stays), with a note of its full length."""
    shown = redact_text(text[: limit + _SLACK])
    if len(shown) <= limit and len(text) <= limit + _SLACK:
        return shown
    cut = shown[:limit]
    marker = shown.find(REDACTED, max(0, limit - len(REDACTED) + 1))
    if 0 <= marker < limit:  # not half a marker
        cut = shown[: marker + len(REDACTED)]
    return cut + f"… [{len(text):,} characters]"
