# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""Tool results that are MCP content, not JSON data: images, audio, resources, mixed lists.

A Python tool's value is sent as content blocks, annotations (`audience`, `priority`,
`lastModified`) and `_meta` kept, when it is one of:

- `bytes` (or `bytearray`, `memoryview`): an image or audio block when its first bytes say
  which (PNG, JPEG, GIF, WebP, AVIF, HEIC, WAV, MP3, AAC, OGG, FLAC, AIFF, MIDI, M4A);
  anything else an embedded blob resource (`application/pdf`, `application/zip`,
  `application/gzip` when recognised, else `application/octet-stream`) named by the RFC 6920
  hash URI of its data (`ni:///sha-256;...`), since it has no address to read it from;
- the SDK's helpers `mcp.server.mcpserver.Image` / `Audio`;
- an `mcp.types` content block: `TextContent`, `ImageContent`, `AudioContent`,
  `EmbeddedResource`, `ResourceLink`;
- a list or tuple of these, strings among them sent as text blocks (a list of strings alone
  is JSON data).

Such a result has no structuredContent, and the tool no outputSchema (mcpgen declares none
for these return types). Limits: the text of all text blocks and embedded text resources
together is held to `PREFIX_MAX_RESPONSE_CHARS` (cut, with a note); binary data (image,
audio, blob), which cannot be cut, to `PREFIX_MAX_RESPONSE_BYTES` decoded bytes in all: a
block past what is left is replaced by a text note naming its type, size and the limit.
"""

from __future__ import annotations

import base64
import hashlib
import os
import sys
import types as types_module
import typing
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from mcp import types

from . import redact, results

__all__ = ["as_blocks", "fit", "returns_content", "sniff"]

BLOCKS = (
    types.TextContent,
    types.ImageContent,
    types.AudioContent,
    types.EmbeddedResource,
    types.ResourceLink,
)
_HELPERS = "mcp.server.mcpserver.utilities.types"  # where the SDK's Image and Audio live
_BINARY = (bytes, bytearray, memoryview)

# (offset, magic, mime type), first match wins; RIFF and ftyp containers are told apart below.
_MAGIC: tuple[tuple[int, bytes, str], ...] = (
    (0, b"\x89PNG\r\n\x1a\n", "image/png"),
    (0, b"\xff\xd8\xff", "image/jpeg"),
    (0, b"GIF87a", "image/gif"),
    (0, b"GIF89a", "image/gif"),
    (0, b"fLaC", "audio/flac"),
    (0, b"OggS", "audio/ogg"),
    (0, b"ID3", "audio/mpeg"),
    (0, b"MThd", "audio/midi"),
    (0, b"%PDF-", "application/pdf"),
    (0, b"PK\x03\x04", "application/zip"),
    (0, b"\x1f\x8b", "application/gzip"),
)
_RIFF = {b"WEBP": "image/webp", b"WAVE": "audio/wav", b"AVI ": "video/x-msvideo"}
_FORM = {b"AIFF": "audio/aiff", b"AIFC": "audio/aiff"}
_FTYP = {
    b"avif": "image/avif",
    b"avis": "image/avif",
    b"heic": "image/heic",
    b"heix": "image/heic",
    b"mif1": "image/heif",
    b"M4A ": "audio/mp4",
    b"M4B ": "audio/mp4",
}


def sniff(data: bytes) -> str | None:
    """The media type the first bytes of `data` announce, or None."""
    head = bytes(data[:16])
    if head[:4] == b"RIFF" and len(head) >= 12:
        return _RIFF.get(head[8:12])
    if head[:4] == b"FORM" and len(head) >= 12:
        return _FORM.get(head[8:12])
    if head[4:8] == b"ftyp":
        return _FTYP.get(head[8:12])
    for offset, magic, media in _MAGIC:
        if head[offset : offset + len(magic)] == magic:
            return media
    # MPEG audio frame sync: 11 bits set; layer bits say MP3 (layer III) or AAC (ADTS, layer 0).
    if len(head) >= 2 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0:
        layer = (head[1] >> 1) & 0b11
        if layer == 0b01:
            return "audio/mpeg"
        if layer == 0b00 and head[1] & 0xF6 == 0xF0:
            return "audio/aac"
    return None


_CONTENT_TYPES = ("TextContent", "ImageContent", "AudioContent", "EmbeddedResource", "ResourceLink")


def returns_content(annotation: Any, depth: int = 0) -> bool:
    """Whether a return annotation may hold content: bytes, an `mcp.types` content block or
    the SDK's Image/Audio, alone, in a union, or as the items of a list, tuple or sequence.
    Such a tool declares no outputSchema (mcpgen's from-python, and `@tool()`)."""
    if depth > 8:
        return False
    if annotation in _BINARY:
        return True
    if isinstance(annotation, type):
        module = getattr(annotation, "__module__", "")
        if annotation.__name__ in _CONTENT_TYPES and module.startswith(("mcp.", "mcp_types")):
            return True
        return module == _HELPERS and annotation.__name__ in ("Image", "Audio")
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return returns_content(typing.get_args(annotation)[0], depth + 1)
    if origin in (typing.Union, types_module.UnionType, list, tuple, Sequence, Iterable):
        args = [arg for arg in typing.get_args(annotation) if arg is not Ellipsis]
        return any(returns_content(arg, depth + 1) for arg in args)
    return False


def _is_block(value: Any) -> bool:
    if isinstance(value, (*BLOCKS, *_BINARY)):
        return True
    helpers = sys.modules.get(_HELPERS)  # imported by the tool's module if it uses them
    return helpers is not None and isinstance(value, (helpers.Image, helpers.Audio))


def as_blocks(
    value: Any, max_file_bytes: int | None = None, variable: str = ""
) -> list[types.ContentBlock] | None:
    """`value` as content blocks, or None when it is JSON data (see the module docstring).
    An SDK Image/Audio made from a file larger than `max_file_bytes` (the setting
    `variable`) is not read: a note takes its place."""
    limit = (max_file_bytes, variable)
    if _is_block(value):
        return [_block(value, limit)]
    if isinstance(value, (list, tuple)) and value:
        items = list(value)
        if any(_is_block(v) for v in items) and all(
            isinstance(v, str) or _is_block(v) for v in items
        ):
            return [
                (types.TextContent(type="text", text=v) if isinstance(v, str) else _block(v, limit))
                for v in items
            ]
    return None


def _block(value: Any, limit: tuple[int | None, str]) -> types.ContentBlock:
    if isinstance(value, BLOCKS):
        return value
    if isinstance(value, _BINARY):
        return from_bytes(bytes(value))
    path, (max_file_bytes, variable) = getattr(value, "path", None), limit
    if path is not None and max_file_bytes is not None:
        size = os.path.getsize(path)
        if size > max_file_bytes:
            kind = getattr(value, "_mime_type", "file")
            note = _left_out(kind, size, max_file_bytes, variable)
            return types.TextContent(type="text", text=note)
    if hasattr(value, "to_image_content"):
        image: types.ImageContent = value.to_image_content()
        return image
    audio: types.AudioContent = value.to_audio_content()
    return audio


def from_bytes(data: bytes) -> types.ContentBlock:
    """An image or audio block when `data` says it is one, else an embedded blob resource."""
    encoded = base64.b64encode(data).decode("ascii")
    media = sniff(data)
    if media is not None and media.startswith("image/"):
        return types.ImageContent(type="image", data=encoded, mime_type=media)
    if media is not None and media.startswith("audio/"):
        return types.AudioContent(type="audio", data=encoded, mime_type=media)
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).decode("ascii").rstrip("=")
    resource = types.BlobResourceContents(
        uri=f"ni:///sha-256;{digest}", mime_type=media or "application/octet-stream", blob=encoded
    )
    return types.EmbeddedResource(type="resource", resource=resource)


def decoded_size(data: str) -> int:
    """Bytes a base64 text stands for, without decoding it."""
    padding = 2 if data.endswith("==") else 1 if data.endswith("=") else 0
    return len(data) * 3 // 4 - padding


def _left_out(kind: str, size: int, limit: int, variable: str) -> str:
    shown = f" ({variable})" if variable else ""
    return (
        f"[{kind} of {size:,} bytes left out: over what is left of the response limit of "
        f"{limit:,} bytes{shown}. Ask for less, if the tool allows it.]"
    )


def fit(
    blocks: list[types.ContentBlock],
    max_chars: int,
    max_bytes: int,
    tool: Mapping[str, Any],
    bytes_variable: str,
) -> list[types.ContentBlock]:
    """`blocks` within the limits: text cut at what is left of `max_chars` (its secrets
    redacted first, so a cut cannot leave half of one), each binary block kept whole while
    the binary data so far fits `max_bytes`, else replaced by a note."""
    chars, data = max_chars, max_bytes
    fitted: list[types.ContentBlock] = []
    notes: list[str] = []
    for block in blocks:
        if isinstance(block, types.TextContent):
            text, note = results.clip_text(redact.clean_text(block.text), max(chars, 0), tool)
            chars -= len(text)
            if text or not note:
                fitted.append(block.model_copy(update={"text": text}))
            notes += [note] if note else []
        elif isinstance(block, (types.ImageContent, types.AudioContent)):
            size = decoded_size(block.data)
            if size > data:
                notes.append(_left_out(block.mime_type, size, max_bytes, bytes_variable))
            else:
                data -= size
                fitted.append(block)
        elif isinstance(block, types.EmbeddedResource):
            resource = block.resource
            if isinstance(resource, types.TextResourceContents):
                text, note = results.clip_text(
                    redact.clean_text(resource.text), max(chars, 0), tool
                )
                chars -= len(text)
                cut = resource.model_copy(update={"text": text})
                fitted.append(block.model_copy(update={"resource": cut}))
                notes += [note] if note else []
            else:
                size = decoded_size(resource.blob)
                if size > data:
                    kind = resource.mime_type or "resource"
                    notes.append(_left_out(kind, size, max_bytes, bytes_variable))
                else:
                    data -= size
                    fitted.append(block)
        else:  # a resource link: a few fields, no data
            fitted.append(block)
    return fitted + [types.TextContent(type="text", text=n) for n in notes]
