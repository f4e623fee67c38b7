# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""Credentials never leave the server, control characters never reach the model.

`secret_values()` is the one list of secrets: credential code, error texts, the audit log
and every log line read it from here; `remember_secret()` adds one obtained at run time. `clean_result()` is applied to every
tool result: secrets and credential header values become `[redacted]`, and control
characters other than newline and tab are stripped from text and structured strings.
"""

from __future__ import annotations

import base64
import bisect
import json
import logging
import re
from functools import cache
from typing import Any
from urllib.parse import quote, quote_plus, unquote, urlsplit

from mcp import types

from . import settings
from .project import current, resets
from .state import state

REDACTED = "[redacted]"
_SHORTEST_SECRET = 4  # shorter values would redact ordinary words
# C0 and C1 controls except tab and newline, DEL, and bidirectional overrides.
# Lone surrogates too (JSON's escaped "\ud800" parses to one): no UTF-8 encoder can send them.
_SURROGATE = re.compile("[\ud800-\udfff]")
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def remember_secret(value: str) -> None:
    """Redact `value` from now on too: for credentials that never sat in an env var (kept in
    the server's state: `state.learned_secrets`)."""
    learned = state().learned_secrets
    if len(value) >= _SHORTEST_SECRET and value not in learned:
        learned.add(value)
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


def encoded_forms(value: str) -> set[str]:
    """`value` as it may travel: raw, percent- and form-encoded, as JSON string content
    (`\\u00e9`, `\\/`), in base64. Escapes written another way (`\\u0073ecret`) are
    decoded before matching instead (see `redact_text`)."""
    escaped = json.dumps(value)[1:-1]
    forms = {value, quote(value, safe=""), quote(value), quote_plus(value), escaped}
    forms |= {json.dumps(value, ensure_ascii=False)[1:-1], escaped.replace("/", "\\/")}
    forms.add(base64.b64encode(value.encode()).decode("ascii"))
    return forms


def _configured_values() -> tuple[str, ...]:
    now = settings.current()
    plain = set(state().learned_secrets) | {
        v for v in now.secrets.values() if len(v) >= _SHORTEST_SECRET
    }
    for url in [now.base_url or "", *now.credentials.values()]:  # https://user:pw@host
        plain |= _userinfo_secrets(url)
    values: set[str] = set()
    for value in plain:
        values |= encoded_forms(value)
    for name in current().secret_env_vars:  # HTTP Basic sends base64("user:password")
        if name.endswith("_PASSWORD"):
            user = now.credential(name[: -len("_PASSWORD")] + "_USERNAME") or ""
            password = now.credential(name) or ""
            if password:
                values.add(base64.b64encode(f"{user}:{password}".encode()).decode("ascii"))
    return tuple(sorted(values, key=lambda v: (-len(v), v)))


def _userinfo_secrets(url: str) -> set[str]:
    """A URL's password, and the Basic credentials an HTTP client makes of its userinfo."""
    if "@" not in url or "://" not in url:
        return set()
    try:
        parts = urlsplit(url.strip())
        user, password = parts.username or "", parts.password
    except ValueError:
        return set()
    if not password:
        return set()
    found = {
        password,
        unquote(password),
        f"{user}:{password}",
        f"{unquote(user)}:{unquote(password)}",
    }
    found.add(base64.b64encode(f"{unquote(user)}:{unquote(password)}".encode()).decode("ascii"))
    return {v for v in found if len(v) >= _SHORTEST_SECRET}


@resets
@cache
def _credential_field() -> re.Pattern[str]:
    """`Authorization: Bearer x`, `"X-API-Key": "x"`, `api_key=x`: the name kept, the value hidden.
    A value already `[redacted]` (or another bracketed one) is taken whole: no `[redacted]]`."""
    names = ["authorization", "proxy-authorization", "x-api-key", "api[-_]?key", "access[-_]?token"]
    names += [re.escape(n) for n in current().credential_names]
    return re.compile(
        r"(?i)(?<![A-Za-z0-9_-])(" + "|".join(names) + r")([\"']?\s*[:=]\s*[\"']?)"
        r"((?:(?:bearer|basic|token|digest)\s+)?(?:\[[^\]\s]*\]|[^\s\"',;&}\[\]]+))"
    )


# `scheme://user:password@`: the userinfo of a URL in any text is hidden.
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^\s/?#@\"'<>\\]+@")


def redact_text(text: str) -> str:
    """`text` with every configured secret and credential header value replaced, also where
    the secret is written with JSON or Python string escapes (`\\/`, `\\u0073`, `\\x73`), ASCII
    percent-escapes or control characters inside it: those are decoded (up to three levels,
    JSON inside JSON) to find the secret, and the secret's whole written form is replaced."""
    text = redact_secrets(text)
    text = _USERINFO.sub(lambda m: m.group(1) + REDACTED + "@", text)
    return _credential_field().sub(lambda m: m.group(1) + m.group(2) + REDACTED, text)


def shown_url(url: str) -> str:
    """`url` fit for a message: its userinfo (`user:password@`) left out."""
    return _USERINFO.sub(lambda m: m.group(1), url)


def redact_secrets(text: str) -> str:
    """`text` with every secret replaced, however escaped (see `redact_text`)."""
    secrets = secret_values()
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return _redact_decoded(text, secrets) if secrets else text


# One written character of the decoded view: a JSON/Python escape, an ASCII percent-escape,
# or a control character (decoded to nothing, as `strip_controls` would remove it).
_UNIT = re.compile(
    r"\\u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})"
    r"|\\u([0-9a-fA-F]{4})|\\x([0-9a-fA-F]{2})|\\([\"\\/bfnrt])|%([0-7][0-9a-fA-F])"
    "|([\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069])"
)
_SIMPLE = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_LEVELS = 3


def _unit(match: re.Match[str]) -> str:
    high, low, code, byte, simple, percent, _control = match.groups()
    if high is not None:
        return chr(0x10000 + ((int(high, 16) - 0xD800) << 10) + int(low, 16) - 0xDC00)
    number = code or byte or percent
    if number is not None:
        char = chr(int(number, 16))
        return "" if _CONTROL.fullmatch(char) else char
    if simple is not None:
        return _SIMPLE.get(simple, simple)
    return ""


class _View:
    """`text` decoded one level, and where each decoded character was written in `text`."""

    def __init__(self, text: str) -> None:
        pieces: list[str] = []
        # Per segment: decoded start, written start, written end, literal (1:1) or one unit.
        self.starts: list[int] = []
        self.segments: list[tuple[int, int, bool]] = []
        decoded = written = 0
        for match in _UNIT.finditer(text):
            if match.start() > written:
                self.starts.append(decoded)
                self.segments.append((written, match.start(), True))
                pieces.append(text[written : match.start()])
                decoded += match.start() - written
            char = _unit(match)
            self.starts.append(decoded)
            self.segments.append((match.start(), match.end(), False))
            pieces.append(char)
            decoded += len(char)
            written = match.end()
        if written < len(text):
            self.starts.append(decoded)
            self.segments.append((written, len(text), True))
            pieces.append(text[written:])
        self.text = "".join(pieces)

    def span(self, index: int) -> tuple[int, int]:
        """Where decoded character `index` was written."""
        k = bisect.bisect_right(self.starts, index) - 1
        start, end, literal = self.segments[k]
        if literal:
            at = start + index - self.starts[k]
            return at, at + 1
        return start, end


def _redact_decoded(text: str, secrets: tuple[str, ...]) -> str:
    if "\\" not in text and "%" not in text and not _CONTROL.search(text):
        return text
    spans: list[tuple[int, int]] = []
    views: list[_View] = []
    current_text = text
    for _ in range(_LEVELS):
        view = _View(current_text)
        if view.text == current_text:
            break
        views.append(view)
        taken: list[tuple[int, int]] = []
        for secret in secrets:  # longest first
            found = view.text.find(secret)
            while found != -1:
                end = found + len(secret)
                if not any(a < end and found < b for a, b in taken):
                    taken.append((found, end))
                found = view.text.find(secret, end)
        for start, end in taken:
            first, last = start, end - 1
            for outer in reversed(views):  # back through each level to the written text
                first, last = outer.span(first)[0], outer.span(last)[1] - 1
            spans.append((first, last + 1))
        current_text = view.text
    if not spans:
        return text
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    for start, end in reversed(merged):
        text = text[:start] + REDACTED + text[end:]
    return text


def strip_controls(text: str) -> str:
    return _CONTROL.sub("", text)


def clean_text(text: str) -> str:
    # Stripped first, so that `se\x00cret` cannot slip past redaction and become `secret`.
    return redact_text(strip_controls(text))


def clean_value(value: Any) -> Any:
    """Strings anywhere in JSON data cleaned. Object keys keep their characters (a schema may
    require them) but not a secret: an upstream may echo one as a key too."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, list):
        return [clean_value(v) for v in value]
    if isinstance(value, dict):
        cleaned: dict[str, Any] = {}
        for key, item in value.items():
            key = redact_secrets(_SURROGATE.sub("", key))
            while key in cleaned:  # two keys redacted alike: both kept
                key += "'"
            cleaned[key] = clean_value(item)
        return cleaned
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
        elif isinstance(item, types.ResourceLink):  # text a model reads, beside the URI
            shown = {k: clean_text(v) for k in ("title", "description") if (v := getattr(item, k))}
            item = item.model_copy(update=shown)
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
