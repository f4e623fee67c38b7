# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""Sequential responses (OpenAPI 3.2 `itemSchema`): JSON Lines, JSON Text Sequences (RFC 7464)
and server-sent events, read item by item, never without bounds.

Each item is handed on as it is read (a tool call sends it as a progress notification);
reading stops at `PREFIX_STREAM_MAX_ITEMS` items, `PREFIX_STREAM_MAX_BYTES` bytes (counted
decoded), the call's deadline, a broken connection or the stream's end, whichever comes
first, and the result says which: `{"items": [...], "complete": bool, "note": str}`.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx2

OnItem = Callable[[int, Any], Awaitable[None]]  # (items so far, the item)
_RS = b"\x1e"  # RFC 7464's record separator


@dataclass(slots=True)
class Stream:
    """What was read: the items, whether the stream ended by itself, and why it stopped if not."""

    items: list[Any] = field(default_factory=list)
    complete: bool = False
    note: str = ""
    invalid: int = 0  # records that are not JSON (JSON Lines, JSON Seq), left out

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {"items": self.items, "complete": self.complete}
        notes = [self.note] if self.note else []
        if self.invalid:
            notes.append(f"{self.invalid} record(s) that are not JSON left out")
        if notes:
            out["note"] = "; ".join(notes)
        return out


class _Records:
    """Splits bytes into the format's records, keeping a partial one for the next chunk."""

    def __init__(self, fmt: str) -> None:
        self.fmt = fmt
        self.buffer = b""
        self.event: dict[str, Any] = {}
        self.data: list[str] = []

    def feed(self, chunk: bytes) -> list[Any]:
        """The items complete in what was read so far (`_Invalid` for a record that is not JSON)."""
        self.buffer += chunk
        if self.fmt == "json-seq":
            *records, self.buffer = self.buffer.split(_RS)
            return [_json(r) for r in records if r.strip()]
        *lines, self.buffer = self.buffer.split(b"\n")
        if self.fmt == "jsonl":
            return [_json(line) for line in lines if line.strip()]
        return [
            e
            for line in lines
            for e in self._sse_line(line.rstrip(b"\r").decode("utf-8", "replace"))
        ]

    def finish(self) -> list[Any]:
        """The last record, when the stream ends without a separator after it."""
        rest, self.buffer = self.buffer, b""
        if self.fmt == "sse":
            return [*self._sse_line(rest.decode("utf-8", "replace")), *self._sse_line("")]
        return [_json(rest)] if rest.strip() else []

    def _sse_line(self, line: str) -> list[Any]:
        """One line of an event stream (the WHATWG rules); an event when a blank line ends one."""
        if not line:
            if not self.data:
                self.event = {}
                return []
            event = {"data": "\n".join(self.data), **self.event}
            self.event, self.data = {}, []
            return [event]
        if line.startswith(":"):
            return []
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            self.data.append(value)
        elif name in ("event", "id"):
            self.event[name] = value
        elif name == "retry" and value.isdigit():
            self.event["retry"] = int(value)
        return []


class _Invalid:
    """A record that is not JSON."""


def _json(record: bytes) -> Any:
    try:
        return json.loads(record)
    except ValueError:
        return _Invalid()


async def read(
    response: httpx2.Response,
    fmt: str,
    on_item: OnItem | None,
    max_items: int,
    max_bytes: int,
    deadline: float,
) -> Stream:
    """Read a streamed response's items within the bounds (`deadline`: anyio's clock); the
    connection is closed when reading stops, whatever stopped it."""
    stream = Stream()
    size = 0

    async def take(items: list[Any]) -> bool:
        """Keep the items; False once the item limit is reached."""
        for item in items:
            if isinstance(item, _Invalid):
                stream.invalid += 1
                continue
            stream.items.append(item)
            if on_item is not None:
                await on_item(len(stream.items), item)
            if len(stream.items) >= max_items:
                stream.note = f"stopped after {max_items:,} items (the item limit)"
                return False
        return True

    records = _Records(fmt)
    try:
        with anyio.move_on_after(max(0.0, deadline - anyio.current_time())) as scope:
            async with contextlib.aclosing(response.aiter_bytes()) as chunks:
                async for chunk in chunks:
                    size += len(chunk)
                    if size > max_bytes:
                        keep = chunk[: len(chunk) - (size - max_bytes)]
                        if await take(records.feed(keep)):
                            stream.note = f"stopped after {max_bytes:,} bytes (the byte limit)"
                        break
                    if not await take(records.feed(chunk)):
                        break
                else:
                    stream.complete = await take(records.finish()) and not stream.note
        if scope.cancelled_caught:
            stream.note = f"stopped at the call's deadline, after {len(stream.items):,} items"
    except httpx2.HTTPError as exc:  # read timeout, a broken connection: what was read stands
        stream.note = f"the stream broke after {len(stream.items):,} items ({type(exc).__name__})"
    finally:
        with anyio.CancelScope(shield=True):
            await response.aclose()
    return stream
