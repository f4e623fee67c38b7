"""Values strict JSON cannot carry: NaN and the infinities (Python's json writes them as
`NaN`/`Infinity`, which no JSON parser of a client reads) and integers too long for Python to
turn into text (more digits than `sys.get_int_max_str_digits()`). Sources drop them, with a
warning each, before they reach a schema, a model or tools.json.
"""

from __future__ import annotations

import math
from typing import Any

from mcpgen.diagnostics import join_pointer

_LONG_INT_BITS = 3_000  # below this many bits an int has fewer than 904 digits: never too long


def problem(value: Any) -> str | None:
    """Why `value` (one scalar) cannot be written as strict JSON; None if it can."""
    if isinstance(value, float) and not math.isfinite(value):
        spelled = "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"
        return f"{spelled} is not a JSON number"
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > _LONG_INT_BITS:
        try:
            str(value)
        except ValueError:
            return f"an integer of about {int(value.bit_length() * math.log10(2)) + 1:,} digits is too long to write"
    return None


def drop_unencodable(value: Any, pointer: str = "") -> tuple[Any, list[tuple[str, str]]]:
    """`value` without the scalars strict JSON cannot carry (each dropped from its object or
    array), and (JSON pointer, reason) for each one dropped. Iterative: documents nest deeply.
    `value` is changed in place; the result is `value` itself, or None if it was such a scalar."""
    dropped: list[tuple[str, str]] = []
    reason = problem(value)
    if reason is not None:
        return None, [(pointer, reason)]
    stack: list[tuple[Any, str]] = [(value, pointer)]
    while stack:
        node, here = stack.pop()
        if isinstance(node, dict):
            for key in list(node):
                reason = problem(node[key])
                if reason is not None:
                    dropped.append((join_pointer(here, key), reason))
                    del node[key]
                elif isinstance(node[key], (dict, list)):
                    stack.append((node[key], join_pointer(here, key)))
        elif isinstance(node, list):
            keep = []
            for index, item in enumerate(node):
                reason = problem(item)
                if reason is not None:
                    dropped.append((join_pointer(here, index), reason))
                    continue
                keep.append(item)
                if isinstance(item, (dict, list)):
                    stack.append((item, join_pointer(here, index)))
            node[:] = keep
    return value, sorted(dropped)
