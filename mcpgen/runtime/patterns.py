# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""Spec patterns matched in linear time, so no argument can stall the server.

A spec's `pattern: ^(a+)+$` makes Python's backtracking `re` take seconds on a 27-character
argument, holding the GIL and so the event loop (pings included); a thread does not help.
`validator(schema)` is jsonschema's Draft 2020-12 validator whose `pattern`,
`patternProperties` and `additionalProperties` match with RE2, whose time grows linearly
with the input. RE2 has no lookaround or backreferences: a pattern it cannot compile is
matched with `re`, on strings of at most `FALLBACK_MAX_CHARS` characters only (a longer one
fails the check, saying why). That bounds polynomial backtracking, not exponential; such
patterns are rare in specs (lookaheads for password rules). Left to jsonschema's `re`:
`unevaluatedProperties` next to `patternProperties`, which no generated schema uses.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

import jsonschema
import re2
from jsonschema import ValidationError

FALLBACK_MAX_CHARS = 256
_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # a pattern RE2 rejects is expected here, not worth a stderr line

Search = Callable[[str], bool | None]


@lru_cache(maxsize=4096)
def search(pattern: str) -> Search:
    """`pattern`'s search: True/False, or None when the string is too long to check with the
    backtracking fallback. Raises `re.error` if neither engine can compile it."""
    try:
        compiled = re2.compile(pattern, options=_OPTIONS)
    except re2.error:
        # Lookaround or backreferences: backtracking `re`, on bounded input only.
        fallback = re.compile(pattern)

        def bounded(text: str) -> bool | None:
            return bool(fallback.search(text)) if len(text) <= FALLBACK_MAX_CHARS else None

        return bounded
    return lambda text: compiled.search(text) is not None


def _matches(pattern: str, text: str) -> bool | None:
    return search(pattern)(text)


def _too_long(text: str, pattern: str) -> str:
    return (
        f"{len(text):,} characters are too many to check against {pattern!r} (this server "
        f"checks at most {FALLBACK_MAX_CHARS} against a pattern with lookaround or backreferences)"
    )


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "string"):
        return
    found = _matches(pattern, instance)
    if found is None:
        yield ValidationError(_too_long(instance, pattern))
    elif not found:
        yield ValidationError(f"{_shown(instance)} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, properties: dict[str, Any], instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in properties.items():
        for key, value in instance.items():
            if _matches(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional(instance: dict[str, Any], schema: Any) -> list[str]:
    """Keys neither `properties` nor a `patternProperties` pattern covers."""
    named = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    return [
        key for key in instance if key not in named and not any(_matches(p, key) for p in patterns)
    ]


def _additional_properties(
    validator: Any, allowed: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    """As jsonschema's, with the keys' patterns matched here."""
    if not validator.is_type(instance, "object"):
        return
    extras = _additional(instance, schema)
    if validator.is_type(allowed, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], allowed, path=extra)
    elif not allowed and extras:
        joined = ", ".join(repr(each) for each in sorted(extras))
        if "patternProperties" in schema:
            verb = "does" if len(extras) == 1 else "do"
            patterns = ", ".join(repr(each) for each in sorted(schema["patternProperties"]))
            yield ValidationError(f"{joined} {verb} not match any of the regexes: {patterns}")
        else:
            verb = "was" if len(extras) == 1 else "were"
            yield ValidationError(
                f"Additional properties are not allowed ({joined} {verb} unexpected)"
            )


def _shown(text: str, limit: int = 200) -> str:
    """An argument quoted in a message: long ones cut (the message is the model's to read)."""
    return (
        repr(text) if len(text) <= limit else repr(text[:limit]) + f"… ({len(text):,} characters)"
    )


_extend: Any = jsonschema.validators.extend  # untyped in types-jsonschema
Validator = _extend(
    jsonschema.Draft202012Validator,
    {
        "pattern": _pattern,
        "patternProperties": _pattern_properties,
        "additionalProperties": _additional_properties,
    },
)


def validator(schema: dict[str, Any]) -> Any:
    """A Draft 2020-12 validator of `schema` whose patterns run in bounded time."""
    return Validator(schema)
