"""Pagination of list results: fixed-size pages behind opaque, validated cursors.

A cursor encodes the offset of the next page and a digest of the whole list, so a
cursor from another list (or from an older build of this server) is refused with
-32602 rather than silently returning the wrong page.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Sequence
from typing import TypeVar

from mcp import MCPError, types

T = TypeVar("T")


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
        raise MCPError(
            code=types.INVALID_PARAMS,
            message="Invalid cursor: not one this server issued for this list",
        )
    return offset


def page(
    items: Sequence[T], fingerprint: str, cursor: str | None, size: int
) -> tuple[list[T], str | None]:
    """One page of `items` (whose `digest` is `fingerprint`) from `cursor`, and the next page's cursor."""
    start = 0 if cursor is None else _decode(cursor, fingerprint, len(items))
    end = start + max(1, size)
    return list(items[start:end]), (_encode(end, fingerprint) if end < len(items) else None)
