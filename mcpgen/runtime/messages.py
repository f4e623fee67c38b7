# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""Validation errors in plain words: which argument, what was expected, what was given.

jsonschema's own messages read like Python (`'abc' is not of type 'integer'`); a model (or a
person) fixing a call needs `petId: expected an integer, got the text "abc"`.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema

MAX_SHOWN = 60  # characters of a given value quoted in a message
MAX_LISTED = 10  # allowed values or known names listed
_KINDS = {
    "string": "text",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "object": "an object",
    "array": "a list",
    "null": "null",
}


def problems(
    validator: jsonschema.protocols.Validator, instance: Any, root: str = "(arguments)"
) -> list[str]:
    """Every error as `where: what`, in a stable order (by location, then message)."""
    lines: list[str] = []
    for error in validator.iter_errors(instance):
        if error.validator == "required":  # one error per missing member: name each
            lines += _missing(error, root)
        else:
            lines.append(describe(error, root))
    return sorted(dict.fromkeys(lines))


def describe(error: jsonschema.ValidationError, root: str = "(arguments)") -> str:
    """One error: `petId: expected an integer, got the text "abc"`."""
    where = _where(error, root)
    keyword, expected, value = str(error.validator), error.validator_value, error.instance
    if keyword == "required":
        return "\n".join(_missing(error, root))
    if keyword == "additionalProperties" and isinstance(value, dict):
        known = sorted(error.schema.get("properties", {})) if isinstance(error.schema, dict) else []
        extra = sorted(k for k in value if k not in known)
        takes = f" (known: {', '.join(known[:MAX_LISTED])})" if known else ""
        return f"{where}: unknown {', '.join(_shown(k) for k in extra[:MAX_LISTED])}{takes}"
    text = _expectation(keyword, expected, value)
    if text is None:
        return f"{where}: {error.message}"
    return f"{where}: expected {text}, got {given(value)}"


def _where(error: jsonschema.ValidationError, root: str) -> str:
    return ".".join(str(part) for part in error.absolute_path) or root


def _missing(error: jsonschema.ValidationError, root: str) -> list[str]:
    value, names = error.instance, error.validator_value
    where = ".".join(str(part) for part in error.absolute_path)
    if not isinstance(value, dict) or not isinstance(names, list):
        return [f"{where or root}: {error.message}"]
    absent = [name for name in names if isinstance(name, str) and name not in value]
    return [f"{where + '.' if where else ''}{name}: required, but not given" for name in absent]


def _expectation(keyword: str, expected: Any, value: Any) -> str | None:
    if keyword == "type":
        kinds = expected if isinstance(expected, list) else [expected]
        return " or ".join(_KINDS.get(str(kind), str(kind)) for kind in kinds)
    if keyword == "enum" and isinstance(expected, list):
        shown = ", ".join(_shown(v) for v in expected[:MAX_LISTED])
        more = f" (and {len(expected) - MAX_LISTED} more)" if len(expected) > MAX_LISTED else ""
        return f"one of {shown}{more}"
    if keyword == "const":
        return _shown(expected)
    bounds = {
        "minimum": ">=",
        "maximum": "<=",
        "exclusiveMinimum": ">",
        "exclusiveMaximum": "<",
    }
    if keyword in bounds:
        return f"a number {bounds[keyword]} {expected}"
    sizes = {
        "minLength": ("at least", "characters"),
        "maxLength": ("at most", "characters"),
        "minItems": ("at least", "items"),
        "maxItems": ("at most", "items"),
        "minProperties": ("at least", "members"),
        "maxProperties": ("at most", "members"),
    }
    if keyword in sizes:
        word, unit = sizes[keyword]
        return f"{word} {expected} {unit}"
    if keyword == "pattern":
        return f"text matching {_shown(expected)}"
    if keyword == "multipleOf":
        return f"a multiple of {expected}"
    if keyword == "uniqueItems":
        return "a list without repeated items"
    if keyword in ("anyOf", "oneOf"):
        return "a value of one of the allowed shapes"
    return None


def given(value: Any) -> str:
    """What a value is, in words, quoted short: `the text "abc"`, `the number 3`, `a list of 2`."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, str):
        return f"the text {_shown(value)}"
    if isinstance(value, (int, float)):
        return f"the number {_shown(value)}"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return f"an object with {len(value)} member{'s' if len(value) != 1 else ''}"
    return type(value).__name__


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 1] + "…"
