"""`content`: a Python tool's value as MCP content blocks (magic numbers, the SDK's helpers,
`mcp.types` blocks, mixed lists), and those blocks held to the response limits."""

from __future__ import annotations

import base64
import hashlib
import io
import wave
from pathlib import Path

import pytest
from mcp import types
from mcp.server.mcpserver import Audio, Image

from mcpgen.runtime import content
from mcpgen.runtime.project import Project

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)
TOOL = {"name": "draw", "inputSchema": {"type": "object", "properties": {"limit": {}}}}


def wav() -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as sound:
        sound.setnchannels(1)
        sound.setsampwidth(1)
        sound.setframerate(8000)
        sound.writeframes(b"\x80" * 80)
    return out.getvalue()


# Real headers of each format (the first bytes a file of that type starts with).
MAGIC = [
    (PNG, "image/png"),
    (b"\xff\xd8\xff\xe0\x00\x10JFIF\x00", "image/jpeg"),
    (b"GIF89a\x01\x00\x01\x00", "image/gif"),
    (b"GIF87a\x01\x00\x01\x00", "image/gif"),
    (b"RIFF\x24\x00\x00\x00WEBPVP8 ", "image/webp"),
    (b"\x00\x00\x00\x1cftypavif\x00\x00\x00\x00", "image/avif"),
    (b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00", "image/heic"),
    (wav(), "audio/wav"),
    (b"ID3\x04\x00\x00\x00\x00\x00\x00", "audio/mpeg"),
    (b"\xff\xfb\x90\x64\x00", "audio/mpeg"),  # an MPEG-1 layer III frame, no ID3 tag
    (b"\xff\xf1\x50\x80\x00", "audio/aac"),  # ADTS
    (b"OggS\x00\x02\x00\x00", "audio/ogg"),
    (b"fLaC\x00\x00\x00\x22", "audio/flac"),
    (b"FORM\x00\x00\x00\x00AIFF", "audio/aiff"),
    (b"MThd\x00\x00\x00\x06", "audio/midi"),
    (b"\x00\x00\x00\x20ftypM4A \x00\x00\x00\x00", "audio/mp4"),
    (b"%PDF-1.7\n", "application/pdf"),
    (b"PK\x03\x04\x14\x00", "application/zip"),
    (b"\x1f\x8b\x08\x00", "application/gzip"),
]


@pytest.mark.parametrize(("data", "media"), MAGIC, ids=[m for _, m in MAGIC])
def test_magic_numbers_name_the_media_type(data: bytes, media: str) -> None:
    assert content.sniff(data) == media


@pytest.mark.parametrize("data", [b"", b"hello world", b"RIFF\x00\x00\x00\x00XXXX", b"\xff\xd8", b"\x00" * 32, b"\xff"])
def test_unknown_or_short_data_has_no_media_type(data: bytes) -> None:
    assert content.sniff(data) is None


def test_bytes_become_image_audio_or_an_embedded_blob() -> None:
    (image,) = content.as_blocks(PNG) or []
    assert isinstance(image, types.ImageContent)
    assert image.mime_type == "image/png" and base64.b64decode(image.data) == PNG
    (audio,) = content.as_blocks(bytearray(wav())) or []
    assert isinstance(audio, types.AudioContent) and audio.mime_type == "audio/wav"
    assert base64.b64decode(audio.data) == wav()
    data = b"\x00\x01 not a known format"
    (blob,) = content.as_blocks(memoryview(data)) or []
    assert isinstance(blob, types.EmbeddedResource) and isinstance(blob.resource, types.BlobResourceContents)
    assert blob.resource.mime_type == "application/octet-stream"
    assert base64.b64decode(blob.resource.blob) == data
    # Named by its RFC 6920 hash URI: the same data, the same name; it has no address to read.
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).decode().rstrip("=")
    assert blob.resource.uri == f"ni:///sha-256;{digest}"
    (pdf,) = content.as_blocks(b"%PDF-1.7\n...") or []
    assert isinstance(pdf, types.EmbeddedResource) and pdf.resource.mime_type == "application/pdf"


def test_the_sdk_helpers(tmp_path: Path) -> None:
    (image,) = content.as_blocks(Image(data=PNG)) or []
    assert isinstance(image, types.ImageContent) and image.mime_type == "image/png"
    jpeg = tmp_path / "photo.jpg"
    jpeg.write_bytes(b"\xff\xd8\xff\xe0 fake jpeg")
    (photo,) = content.as_blocks(Image(path=jpeg)) or []
    assert isinstance(photo, types.ImageContent) and photo.mime_type == "image/jpeg"
    assert base64.b64decode(photo.data) == jpeg.read_bytes()
    (audio,) = content.as_blocks(Audio(data=wav(), format="wav")) or []
    assert isinstance(audio, types.AudioContent) and audio.mime_type == "audio/wav"


def test_a_helper_file_over_the_byte_limit_is_not_read(tmp_path: Path) -> None:
    big = tmp_path / "big.png"
    big.write_bytes(PNG + b"\x00" * 5000)
    (note,) = content.as_blocks(Image(path=big), 1000, "PETSTORE_MAX_RESPONSE_BYTES") or []
    assert isinstance(note, types.TextContent)
    assert f"image/png of {len(PNG) + 5000:,} bytes left out" in note.text
    assert "1,000 bytes (PETSTORE_MAX_RESPONSE_BYTES)" in note.text


def test_content_blocks_pass_through_with_annotations_and_meta() -> None:
    annotations = types.Annotations(audience=["user"], priority=0.25, last_modified="2026-12-01T10:00:00Z")
    blocks = [
        types.ImageContent(type="image", data=base64.b64encode(PNG).decode(), mime_type="image/png",
                           annotations=annotations, _meta={"x": 1}),
        types.ResourceLink(type="resource_link", uri="file:///report.pdf", name="report", mime_type="application/pdf",
                           annotations=annotations),
        types.EmbeddedResource(type="resource", annotations=annotations, resource=types.TextResourceContents(
            uri="test://doc", mime_type="text/markdown", text="# Doc")),
        types.TextContent(type="text", text="hi", annotations=annotations),
        types.AudioContent(type="audio", data=base64.b64encode(wav()).decode(), mime_type="audio/wav"),
    ]
    for block in blocks:
        assert content.as_blocks(block) == [block]
        assert content.as_blocks(block)[0] is block  # type: ignore[index]
    assert content.as_blocks(blocks) == blocks
    assert content.as_blocks(tuple(blocks)) == blocks


def test_mixed_lists_keep_their_order_strings_becoming_text() -> None:
    link = types.ResourceLink(type="resource_link", uri="test://x", name="x")
    blocks = content.as_blocks(["Here is the chart:", PNG, link, "and the sound:", Audio(data=wav())])
    assert blocks is not None
    assert [b.type for b in blocks] == ["text", "image", "resource_link", "text", "audio"]
    assert blocks[0] == types.TextContent(type="text", text="Here is the chart:")
    assert blocks[2] is link


@pytest.mark.parametrize(
    "value",
    ["text", ["a", "b"], [], {"image": "no"}, [1, PNG], {"data": PNG}, None, 3, [["nested"], PNG]],
)
def test_json_data_is_not_content(value: object) -> None:
    assert content.as_blocks(value) is None


def test_decoded_size_without_decoding() -> None:
    for n in range(20):
        data = bytes(range(n))
        assert content.decoded_size(base64.b64encode(data).decode()) == n


# -- limits -------------------------------------------------------------------------


def image(size: int) -> types.ImageContent:
    return types.ImageContent(type="image", data=base64.b64encode(PNG + b"\x00" * (size - len(PNG))).decode(),
                              mime_type="image/png")


def test_blocks_within_the_limits_are_unchanged(project: Project) -> None:
    blocks = [types.TextContent(type="text", text="caption"), image(500)]
    assert content.fit(blocks, 1000, 1000, TOOL, "PETSTORE_MAX_RESPONSE_BYTES") == blocks


def test_binary_past_the_byte_limit_is_replaced_by_a_note(project: Project) -> None:
    blocks = [image(600), types.TextContent(type="text", text="between"), image(600), image(300)]
    fitted = content.fit(blocks, 1000, 1000, TOOL, "PETSTORE_MAX_RESPONSE_BYTES")
    # The first and the last fit (900 bytes); the second would make it 1,200: a note instead.
    assert [b.type for b in fitted] == ["image", "text", "image", "text"]
    assert fitted[0] == blocks[0] and fitted[2] == blocks[3]
    assert isinstance(fitted[3], types.TextContent)
    assert fitted[3].text.startswith("[image/png of 600 bytes left out")
    assert "1,000 bytes (PETSTORE_MAX_RESPONSE_BYTES)" in fitted[3].text


def test_a_huge_blob_resource_is_left_out(project: Project) -> None:
    blob = content.from_bytes(b"\x00" * 50_000)
    fitted = content.fit([blob], 1000, 10_000, TOOL, "PETSTORE_MAX_RESPONSE_BYTES")
    assert len(fitted) == 1 and isinstance(fitted[0], types.TextContent)
    assert "application/octet-stream of 50,000 bytes left out" in fitted[0].text


def test_text_shares_the_character_limit(project: Project) -> None:
    resource = types.EmbeddedResource(type="resource", resource=types.TextResourceContents(
        uri="test://doc", mime_type="text/plain", text="y" * 800))
    blocks = [types.TextContent(type="text", text="x" * 600), resource, types.TextContent(type="text", text="z" * 10)]
    fitted = content.fit(blocks, 1000, 1000, TOOL, "PETSTORE_MAX_RESPONSE_BYTES")
    assert fitted[0] == blocks[0]
    assert isinstance(fitted[1], types.EmbeddedResource) and isinstance(fitted[1].resource, types.TextResourceContents)
    assert fitted[1].resource.text == "y" * 400 and fitted[1].resource.uri == "test://doc"
    texts = [b.text for b in fitted if isinstance(b, types.TextContent)]
    assert "z" * 10 not in texts  # nothing left for it
    assert any(t.startswith("[Response truncated: showing the first 400 of 800 characters") and "`limit`" in t
               for t in texts)


def test_text_is_redacted_before_it_is_cut(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_API_KEY", "s3cr3t-token-value")
    blocks = [types.TextContent(type="text", text="key=s3cr3t-token-value\x00!")]
    (block,) = content.fit(blocks, 1000, 1000, TOOL, "PETSTORE_MAX_RESPONSE_BYTES")
    assert isinstance(block, types.TextContent)
    assert block.text == "key=[redacted]!"


def test_resource_link_text_is_redacted(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    from mcpgen.runtime import redact

    monkeypatch.setenv("PETSTORE_API_KEY", "s3cr3t-token-value")
    link = types.ResourceLink(type="resource_link", uri="test://r", name="r", title="t s3cr3t-token-value",
                              description="d s3cr3t-token-value")
    cleaned = redact.clean_result(types.CallToolResult(content=[link])).content[0]
    assert isinstance(cleaned, types.ResourceLink)
    assert (cleaned.title, cleaned.description, cleaned.uri) == ("t [redacted]", "d [redacted]", "test://r")
