"""End to end, from-python: tools that return images, audio, resources and mixed content.

A gallery module (a FILE target written to tmp) is generated once and served over stdio and
streamable HTTP; each test runs against the Python client in both eras (ClientSession +
initialize(): 2025-11-25, and mcp.Client auto: 2026-07-28) on both transports, and the
TypeScript clients (@modelcontextprotocol/sdk 1.x, @modelcontextprotocol/client 2.x) check
the same results as an application would: images arrive as images with their data intact,
audio as audio, resources and resource links as such with their annotations, mixed lists in
order, big binaries held to GALLERY_MAX_RESPONSE_BYTES, text redacted.
"""

from __future__ import annotations

import base64
import io
import os
import sys
import textwrap
import wave
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, ClientSession, StdioServerParameters, stdio_client, types
from mcp.client.stdio import get_default_environment

from mcpgen.api import generate_python
from mcpgen.options import Options
from tests.clients.harness import TS_PACKAGES, run_client, stdio_target
from tests.e2e.conftest import http_server
from tests.npm import ensure_installed

pytestmark = pytest.mark.anyio

PACKAGE = "gallery_mcp"
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01 a tiny fake jpeg body"
BLOB = b"\x00\x01\x02 no format anyone knows"
SECRET = "hunter2-gallery-secret"
MAX_BYTES = 10_000  # GALLERY_MAX_RESPONSE_BYTES: `poster` is bigger, `chart` far smaller
LAST_MODIFIED = "2026-12-01T10:00:00Z"


def wav() -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as sound:
        sound.setnchannels(1)
        sound.setsampwidth(1)
        sound.setframerate(8000)
        sound.writeframes(bytes(range(256)))
    return out.getvalue()


GALLERY = f'''\
    """Gallery: tools that return pictures, sounds and documents."""

    from __future__ import annotations

    import base64
    import os

    from mcp import types
    from mcp.server.mcpserver import Audio, Image

    PNG = {PNG!r}
    JPEG = {JPEG!r}
    WAV = {wav()!r}
    BLOB = {BLOB!r}
    SEEN = types.Annotations(audience=["user"], priority=0.8, last_modified={LAST_MODIFIED!r})


    def chart() -> bytes:
        """A PNG chart (bytes: an image by its magic number)."""
        return PNG


    def photo() -> Image:
        """A JPEG photo through the SDK's Image helper."""
        return Image(data=JPEG, format="jpeg")


    def beep() -> bytes:
        """A WAV sound (bytes)."""
        return WAV


    def jingle() -> Audio:
        """A WAV sound through the SDK's Audio helper."""
        return Audio(data=WAV, format="wav")


    def blob() -> bytes:
        """Bytes of no known format: an embedded blob resource."""
        return BLOB


    def badge() -> types.ImageContent:
        """An image block with annotations."""
        return types.ImageContent(type="image", data=base64.b64encode(PNG).decode(), mime_type="image/png",
                                  annotations=SEEN)


    def report_link() -> types.ResourceLink:
        """A link to a resource, annotated."""
        return types.ResourceLink(type="resource_link", uri="file:///reports/q4.pdf", name="q4-report",
                                  title="Q4 report", mime_type="application/pdf", size=1234, annotations=SEEN)


    def notes() -> types.EmbeddedResource:
        """An embedded text resource, annotated."""
        resource = types.TextResourceContents(uri="gallery://notes", mime_type="text/markdown", text="# Notes")
        return types.EmbeddedResource(type="resource", resource=resource, annotations=SEEN)


    def mixed() -> list[str | bytes | Audio | types.ContentBlock]:
        """Text, an image, a link, a sound and an embedded resource, in that order."""
        return [
            "The chart:",
            PNG,
            types.ResourceLink(type="resource_link", uri="gallery://data.csv", name="data", annotations=SEEN),
            Audio(data=WAV),
            types.EmbeddedResource(type="resource", resource=types.BlobResourceContents(
                uri="gallery://raw", mime_type="application/octet-stream", blob=base64.b64encode(BLOB).decode())),
        ]


    def poster(kib: int) -> list[str | bytes]:
        """A caption and a PNG of about KIB kibibytes."""
        return ["The poster:", PNG + bytes(kib * 1024), PNG]


    def poster_file(kib: int, folder: str) -> Image:
        """A PNG of about KIB kibibytes written to FOLDER, through Image(path=...)."""
        path = os.path.join(folder, f"poster-{{kib}}.png")
        with open(path, "wb") as file:
            file.write(PNG + bytes(kib * 1024))
        return Image(path=path)


    def leaky() -> list[str | bytes]:
        """A caption that carries a secret from the environment."""
        return ["token=" + os.environ["GALLERY_SECRET"], PNG]
'''
TOOLS = ["chart", "photo", "beep", "jingle", "blob", "badge", "report_link", "notes", "mixed", "poster", "poster_file",
         "leaky"]


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = tmp_path_factory.mktemp("gallery-source") / "gallery.py"
    source.write_text(textwrap.dedent(GALLERY))
    out = tmp_path_factory.mktemp("gallery") / "gallery-mcp"
    result = generate_python(str(source), Options(output=out, force=True))
    assert [tool.name for tool in result.project.tools] == TOOLS
    # A tool of your own (custom_tools.py) returns content the same way.
    (out / "src" / PACKAGE / "custom_tools.py").write_text(textwrap.dedent(f'''\
        from __future__ import annotations

        from .extensions import tool


        @tool()
        def custom_chart() -> list[str | bytes]:
            """A caption and a PNG, from custom_tools.py."""
            return ["custom:", {PNG!r}]
    '''))
    return out


def server_env(generated: Path) -> dict[str, str]:
    env = dict(get_default_environment())
    env.update(PYTHONPATH=str(generated / "src"), PYTHONUNBUFFERED="1", GALLERY_SECRET=SECRET,
               GALLERY_REDACT="GALLERY_SECRET", GALLERY_MAX_RESPONSE_BYTES=str(MAX_BYTES))
    return env


@pytest.fixture(scope="module")
def http_url(generated: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("gallery-log") / "http.log"
    with http_server(PACKAGE, server_env(generated), log) as port:
        yield f"http://127.0.0.1:{port}/mcp"


KINDS = ("stdio-handshake", "stdio-modern", "http-legacy", "http-modern")


@pytest.fixture(scope="module", params=KINDS)
async def client(request: pytest.FixtureRequest, generated: Path) -> AsyncIterator[Any]:
    kind = request.param
    if kind.startswith("stdio"):
        params = StdioServerParameters(command=sys.executable, args=["-m", PACKAGE], env=server_env(generated))
        if kind == "stdio-handshake":
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                init = await session.initialize()
                assert init.protocol_version == "2025-11-25"
                await session.list_tools()
                yield session
            return
        async with Client(stdio_client(params), cache=None) as modern:
            assert modern.protocol_version == "2026-07-28"
            await modern.list_tools()
            yield modern
        return
    url = request.getfixturevalue("http_url")
    async with Client(url, mode="legacy" if kind == "http-legacy" else "auto", cache=None) as over_http:
        await over_http.list_tools()
        yield over_http


async def call(client: Any, name: str, arguments: dict[str, Any] | None = None) -> types.CallToolResult:
    result: types.CallToolResult = await client.call_tool(name, arguments or {})
    assert not result.is_error, result.content
    assert result.structured_content is None
    return result


def seen(annotations: types.Annotations | None) -> None:
    assert annotations is not None
    assert annotations.audience == ["user"] and annotations.priority == 0.8
    assert annotations.last_modified == LAST_MODIFIED


async def test_no_tool_declares_an_output_schema(client: Any) -> None:
    listed = await client.list_tools()
    assert [tool.name for tool in listed.tools] == [*TOOLS, "custom_chart"]
    assert all(tool.output_schema is None for tool in listed.tools)


@pytest.mark.parametrize(("tool", "kind", "media", "data"), [
    ("chart", "image", "image/png", PNG),
    ("photo", "image", "image/jpeg", JPEG),
    ("beep", "audio", "audio/wav", wav()),
    ("jingle", "audio", "audio/wav", wav()),
])
async def test_images_and_sounds_arrive_as_such(client: Any, tool: str, kind: str, media: str, data: bytes) -> None:
    (block,) = (await call(client, tool)).content
    assert isinstance(block, types.ImageContent if kind == "image" else types.AudioContent)
    assert block.type == kind and block.mime_type == media
    assert base64.b64decode(block.data) == data


async def test_a_custom_tool_returns_content(client: Any) -> None:
    caption, image = (await call(client, "custom_chart")).content
    assert isinstance(caption, types.TextContent) and caption.text == "custom:"
    assert isinstance(image, types.ImageContent) and base64.b64decode(image.data) == PNG


async def test_unknown_bytes_arrive_as_an_embedded_blob(client: Any) -> None:
    (block,) = (await call(client, "blob")).content
    assert isinstance(block, types.EmbeddedResource) and isinstance(block.resource, types.BlobResourceContents)
    assert block.resource.mime_type == "application/octet-stream"
    assert block.resource.uri.startswith("ni:///sha-256;")
    assert base64.b64decode(block.resource.blob) == BLOB


async def test_blocks_keep_their_annotations(client: Any) -> None:
    (badge,) = (await call(client, "badge")).content
    assert isinstance(badge, types.ImageContent) and base64.b64decode(badge.data) == PNG
    seen(badge.annotations)
    (link,) = (await call(client, "report_link")).content
    assert isinstance(link, types.ResourceLink)
    assert (link.uri, link.name, link.title, link.mime_type, link.size) == (
        "file:///reports/q4.pdf", "q4-report", "Q4 report", "application/pdf", 1234)
    seen(link.annotations)
    (notes,) = (await call(client, "notes")).content
    assert isinstance(notes, types.EmbeddedResource) and isinstance(notes.resource, types.TextResourceContents)
    assert (notes.resource.uri, notes.resource.mime_type, notes.resource.text) == (
        "gallery://notes", "text/markdown", "# Notes")
    seen(notes.annotations)


async def test_a_mixed_list_arrives_in_order(client: Any) -> None:
    text, image, link, audio, resource = (await call(client, "mixed")).content
    assert isinstance(text, types.TextContent) and text.text == "The chart:"
    assert isinstance(image, types.ImageContent) and base64.b64decode(image.data) == PNG
    assert isinstance(link, types.ResourceLink) and link.uri == "gallery://data.csv"
    seen(link.annotations)
    assert isinstance(audio, types.AudioContent) and base64.b64decode(audio.data) == wav()
    assert isinstance(resource, types.EmbeddedResource) and isinstance(resource.resource, types.BlobResourceContents)
    assert base64.b64decode(resource.resource.blob) == BLOB


async def test_a_binary_over_the_byte_limit_is_left_out_with_a_note(client: Any) -> None:
    caption, small, note = (await call(client, "poster", {"kib": 20})).content
    assert isinstance(caption, types.TextContent) and caption.text == "The poster:"
    assert isinstance(small, types.ImageContent) and base64.b64decode(small.data) == PNG  # the one that fits
    assert isinstance(note, types.TextContent)
    assert note.text.startswith(f"[image/png of {len(PNG) + 20 * 1024:,} bytes left out")
    assert f"{MAX_BYTES:,} bytes (GALLERY_MAX_RESPONSE_BYTES)" in note.text
    caption, big, small = (await call(client, "poster", {"kib": 5})).content  # within the limit: whole
    assert isinstance(big, types.ImageContent) and len(base64.b64decode(big.data)) == len(PNG) + 5 * 1024


async def test_an_image_file_over_the_byte_limit_is_not_read(client: Any, tmp_path: Path) -> None:
    (note,) = (await call(client, "poster_file", {"kib": 20, "folder": str(tmp_path)})).content
    assert isinstance(note, types.TextContent)
    assert note.text.startswith(f"[image/png of {len(PNG) + 20 * 1024:,} bytes left out")
    assert "(GALLERY_MAX_RESPONSE_BYTES)" in note.text
    (image,) = (await call(client, "poster_file", {"kib": 2, "folder": str(tmp_path)})).content
    assert isinstance(image, types.ImageContent) and len(base64.b64decode(image.data)) == len(PNG) + 2048


async def test_text_beside_an_image_is_redacted(client: Any) -> None:
    text, image = (await call(client, "leaky")).content
    assert isinstance(text, types.TextContent) and text.text == "token=[redacted]"
    assert isinstance(image, types.ImageContent)


# -- TypeScript clients ---------------------------------------------------------------

TS_CALLS = [{"name": name, "arguments": {}, "keepContent": True} for name in ("chart", "beep", "badge", "mixed")]


@pytest.mark.parametrize("sdk", ["ts-v1", "ts-v2"])
@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_typescript_clients_receive_the_content(sdk: str, transport: str, generated: Path,
                                                 request: pytest.FixtureRequest) -> None:
    ensure_installed(*TS_PACKAGES)
    target = stdio_target(PACKAGE) if transport == "stdio" else [request.getfixturevalue("http_url")]
    env = {**server_env(generated), "PATH": os.environ.get("PATH", "")}
    report = run_client(sdk, TS_CALLS, target, env)
    assert report["listError"] is None and report["tools"] == len(TOOLS) + 1
    calls = {c["name"]: c for c in report["calls"]}
    for entry in calls.values():  # no client error: nothing to validate against a missing outputSchema
        assert entry["ok"] and entry["isError"] is False and entry["structured"] is False, entry
    (image,) = calls["chart"]["content"]
    assert image["type"] == "image" and image["mimeType"] == "image/png" and base64.b64decode(image["data"]) == PNG
    (audio,) = calls["beep"]["content"]
    assert audio["type"] == "audio" and audio["mimeType"] == "audio/wav" and base64.b64decode(audio["data"]) == wav()
    (badge,) = calls["badge"]["content"]
    assert badge["annotations"] == {"audience": ["user"], "priority": 0.8, "lastModified": LAST_MODIFIED}
    assert calls["mixed"]["contentTypes"] == ["text", "image", "resource_link", "audio", "resource"]
    link = calls["mixed"]["content"][2]
    assert link["uri"] == "gallery://data.csv" and link["annotations"]["lastModified"] == LAST_MODIFIED
    assert base64.b64decode(calls["mixed"]["content"][4]["resource"]["blob"]) == BLOB
