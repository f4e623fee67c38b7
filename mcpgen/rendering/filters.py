"""The escaping filters: the only way spec text reaches generated files. Each turns a value
into text that is safe where the template puts it (a Python literal, a docstring, a name, TOML,
Markdown, JSON), or refuses it."""

from __future__ import annotations

import json
import keyword
import math
import re
from typing import Any

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_ANNOTATION = re.compile(r"^[^\W\d][\w\[\], |.]*$")  # \w: Unicode identifiers too (model classes)


def pyrepr(value: Any) -> str:
    """A Python literal for JSON-like data; anything else is refused rather than guessed."""
    if isinstance(value, str):
        return repr(value)
    if value is None or isinstance(value, (bool, int)):
        return repr(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else f'float("{value}")'
    if isinstance(value, (list, tuple)):
        items = ", ".join(pyrepr(v) for v in value)
        if isinstance(value, tuple):
            return f"({items},)" if len(value) == 1 else f"({items})"
        return f"[{items}]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{pyrepr(k)}: {pyrepr(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"pyrepr: unsupported value of type {type(value).__name__}")


def docstring(text: Any) -> str:
    """Text safe inside a triple-quoted docstring: no escape, quote or control character survives."""
    text = _CONTROL.sub("", str(text or "")).replace("\r\n", "\n").replace("\r", "\n")
    text = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    text = "\n".join(line.rstrip() for line in text.strip().splitlines())
    # A last `"` would run into the closing quotes, unless it is escaped already (text
    # ending in three quotes): backslashes are doubled above, so an odd run before it escapes it.
    if text.endswith('"') and (len(text) - 1 - len(text[:-1].rstrip("\\"))) % 2 == 0:
        text = text[:-1] + '\\"'
    return text or "(no description)"


def ident(value: Any) -> str:
    text = str(value)
    if not text.isidentifier():
        raise ValueError(f"not a Python identifier: {text!r}")
    return text


def dotted(value: Any) -> str:
    """A module path of identifiers (Unicode ones too: model modules are named from schemas)."""
    text = str(value)
    if not all(part.isidentifier() and not keyword.iskeyword(part) for part in text.split(".")):
        raise ValueError(f"not a dotted module name: {text!r}")
    return text


def annotation(value: Any) -> str:
    text = str(value)
    if not _ANNOTATION.match(text):
        raise ValueError(f"not a type annotation: {text!r}")
    return text


def tomlstr(value: Any) -> str:
    """A TOML basic string (JSON's escapes are a subset of TOML's)."""
    return json.dumps(str(value), ensure_ascii=True)


def comment(value: Any) -> str:
    return " ".join(_CONTROL.sub("", str(value)).split())


def md(value: Any) -> str:
    """Prose for README.md: code fences neutralised so text cannot open a block."""
    return _CONTROL.sub("", str(value)).replace("```", "ʼʼʼ").strip()


def mdcell(value: Any) -> str:
    if value is None or value == "":
        return ""
    text = " ".join(_CONTROL.sub("", str(value)).split()).replace("|", "\\|").replace("`", "'")
    return text if len(text) <= 160 else text[:159] + "…"


def json_document(value: Any) -> str:
    """Strict JSON: a NaN or infinity (which sources drop with a warning) is a bug, not output."""
    return json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)


def json_lines(items: list[Any]) -> str:
    """A JSON array, one compact item per line: half the bytes of indented JSON (the
    server loads it at start-up) while diffs still show which item changed. Strict JSON."""
    return "[\n" + ",\n".join(
        json.dumps(i, ensure_ascii=False, separators=(",", ":"), allow_nan=False) for i in items
    ) + "\n]"
