# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""Pagination of list results: bounded pages behind opaque, validated cursors.

A cursor encodes the offset of the next page and a digest of the whole list, so a
cursor from another list (or from an older build of this server) is refused with
-32602 rather than silently returning the wrong page.

A list whose whole JSON fits `ONE_PAGE_BYTES` (`PREFIX_ONE_PAGE_BYTES`) is one page: some
clients read only the first page (google-adk's `McpToolset`, other simple agents), and
those see every tool. Past it, a page holds up to the configured number of items, more
when the list would otherwise need over `PAGES_TARGET` pages (TypeScript clients - Claude
Desktop, VS Code, Cursor, the Inspector - stop listing after 64), and never more than
`MAX_PAGE_BYTES` of JSON beyond its first item. mcpgen counts the pages of the generated tools the same way at
generation and warns when they exceed 64 (`mcpgen.lint.page_count`).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import math
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")
PAGES_TARGET = 48  # below the clients' 64, with room for custom tools
MAX_PAGE_BYTES = 2_000_000
ONE_PAGE_BYTES = 8_000_000  # a list served whole (GitHub 3.35 MB, Stripe 4.8 MB); 0: paged


def digest(keys: Sequence[str]) -> str:
    """A short fingerprint of a list, by its items' stable keys."""
    return hashlib.sha256("\n".join(keys).encode("utf-8")).hexdigest()[:16]


def _encode(offset: int, fingerprint: str) -> str:
    return (
        base64.urlsafe_b64encode(f"{offset}:{fingerprint}".encode("ascii"))
        .decode("ascii")
        .rstrip("=")
    )


def _decode(cursor: str, fingerprint: str, total: int) -> int:
    """The offset a cursor points to; MCPError(INVALID_PARAMS) for anything this server did not issue."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("ascii")
        offset_text, _, cursor_fingerprint = raw.partition(":")
        offset = int(offset_text)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        offset, cursor_fingerprint = -1, ""
    if (
        cursor_fingerprint != fingerprint
        or not 0 < offset < total
        or _encode(offset, fingerprint) != cursor
    ):
        from mcp import MCPError, types  # here: mcpgen's lint imports this module, not the SDK

        raise MCPError(
            code=types.INVALID_PARAMS,
            message="Invalid cursor: not one this server issued for this list",
        )
    return offset


def page(
    items: Sequence[T],
    fingerprint: str,
    cursor: str | None,
    size: int,
    weights: Sequence[int] | None = None,
    one_page_bytes: int = 0,
) -> tuple[list[T], str | None]:
    """One page of `items` (whose `digest` is `fingerprint`) from `cursor`, and the next page's cursor.

    `weights`: each item's size in bytes, when pages are bounded by bytes too; a list whose
    weights add up to at most `one_page_bytes` is served whole."""
    start = 0 if cursor is None else _decode(cursor, fingerprint, len(items))
    end = page_end(start, len(items), size, weights, one_page_bytes)
    return list(items[start:end]), (_encode(end, fingerprint) if end < len(items) else None)


def page_end(
    start: int, total: int, size: int, weights: Sequence[int] | None, one_page_bytes: int = 0
) -> int:
    """Where the page that begins at `start` ends (exclusive)."""
    if start == 0 and weights is not None and sum(weights) <= one_page_bytes:
        return total
    count = max(1, size, math.ceil(total / PAGES_TARGET))
    end = min(total, start + count)
    if weights is None:
        return end
    used = weights[start] if start < total else 0
    for index in range(start + 1, end):
        used += weights[index]
        if used > MAX_PAGE_BYTES:
            return index
    return end
