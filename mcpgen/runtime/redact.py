# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""Credentials never leave the server, control characters never reach the model.

`secret_values()` is the one list of secrets: credential code, error texts, the audit log
and every log line read it from here; `remember_secret()` adds one obtained at run time. `clean_result()` is applied to every
tool result: secrets and credential header values become `[redacted]`, and control
characters other than newline and tab are stripped from text and structured strings.
"""

from __future__ import annotations

import base64
import logging
import re
from functools import cache
from typing import Any
from urllib.parse import quote

from mcp import types

from . import settings
from .project import current, resets

REDACTED = "[redacted]"
_SHORTEST_SECRET = 4  # shorter values would redact ordinary words
# C0 and C1 controls except tab and newline, DEL, and bidirectional overrides.
# Lone surrogates too (JSON's escaped "\ud800" parses to one): no UTF-8 encoder can send them.
_SURROGATE = re.compile("[\ud800-\udfff]")
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


_learned: set[str] = set()  # secrets obtained at run time (e.g. an OAuth access token)


def remember_secret(value: str) -> None:
    """Redact `value` from now on too: for credentials that never sat in an env var."""
    if len(value) >= _SHORTEST_SECRET and value not in _learned:
        _learned.add(value)
        _known.clear()


_known: dict[int, tuple[settings.Settings, tuple[str, ...]]] = {}


def secret_values() -> tuple[str, ...]:
    """Every secret value, with the encoded forms it may travel in; longest first. Worked
    out once per environment (the settings object changes with it)."""
    now = settings.current()
    known = _known.get(0)
    if known is None or known[0] is not now:
        _known[0] = known = (now, _configured_values())
    return known[1]


def _configured_values() -> tuple[str, ...]:
    values: set[str] = set(_learned)
    now = settings.current()
    for value in now.secrets.values():
        if len(value) >= _SHORTEST_SECRET:
            values.update({value, quote(value, safe=""), quote(value)})
    for name in current().secret_env_vars:  # HTTP Basic sends base64("user:password")
        if name.endswith("_PASSWORD"):
            user = now.credential(name[: -len("_PASSWORD")] + "_USERNAME") or ""
            password = now.credential(name) or ""
            if password:
                values.add(base64.b64encode(f"{user}:{password}".encode()).decode("ascii"))
    return tuple(sorted(values, key=lambda v: (-len(v), v)))


@resets
@cache
def _credential_field() -> re.Pattern[str]:
    """`Authorization: Bearer x`, `"X-API-Key": "x"`, `api_key=x`: the name kept, the value hidden."""
    names = ["authorization", "proxy-authorization", "x-api-key", "api[-_]?key", "access[-_]?token"]
    names += [re.escape(n) for n in current().credential_names]
    return re.compile(
        r"(?i)(?<![A-Za-z0-9_-])(" + "|".join(names) + r")([\"']?\s*[:=]\s*[\"']?)"
        r"((?:(?:bearer|basic|token|digest)\s+)?[^\s\"',;&}\]]+)"
    )


def redact_text(text: str) -> str:
    """`text` with every configured secret and credential header value replaced."""
    for secret in secret_values():
        if secret in text:
            text = text.replace(secret, REDACTED)
    return _credential_field().sub(lambda m: m.group(1) + m.group(2) + REDACTED, text)


def strip_controls(text: str) -> str:
    return _CONTROL.sub("", text)


def clean_text(text: str) -> str:
    # Stripped first, so that `se\x00cret` cannot slip past redaction and become `secret`.
    return redact_text(strip_controls(text))


def clean_value(value: Any) -> Any:
    """Strings anywhere in JSON data cleaned; object keys kept (a schema may require them)."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, list):
        return [clean_value(v) for v in value]
    if isinstance(value, dict):
        return {_SURROGATE.sub("", k): clean_value(v) for k, v in value.items()}
    return value


def clean_result(result: types.CallToolResult) -> types.CallToolResult:
    """A tool result as it may leave the server: its text cleaned. Structured content is
    cleaned where it is built (json_result, error_result, dynamic mode), before its JSON text
    mirror is made, so it is not walked a second time here."""
    content: list[Any] = []
    for item in result.content:
        if isinstance(item, types.TextContent):
            item = item.model_copy(update={"text": clean_text(item.text)})
        elif isinstance(item, types.EmbeddedResource) and isinstance(
            item.resource, types.TextResourceContents
        ):
            resource = item.resource.model_copy(update={"text": clean_text(item.resource.text)})
            item = item.model_copy(update={"resource": resource})
        content.append(item)
    return result.model_copy(update={"content": content})


class RedactingFilter(logging.Filter):
    """Rewrites each log record's message with secrets redacted (tracebacks included)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact_text(record.exc_text)
        record.msg, record.args = redact_text(message), None
        return True


def install_log_filter() -> None:
    """Redact every line the root logger's handlers write (stderr)."""
    for handler in logging.getLogger().handlers:
        handler.addFilter(RedactingFilter())
