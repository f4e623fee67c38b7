"""from-python: a function that returns MCP content (bytes, images, audio, resources, mixed
lists) gets no outputSchema, since its result carries no structuredContent a client could
check against one; data return types keep theirs."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Annotated, Any, Optional, Union

import pytest
from mcp import types
from mcp.server.mcpserver import Audio, Image

from mcpgen.diagnostics import Diagnostics
from mcpgen.runtime.content import returns_content
from mcpgen.sources.python import parse_python


@pytest.mark.parametrize(
    "annotation",
    [
        bytes,
        bytearray,
        memoryview,
        Image,
        Audio,
        types.ImageContent,
        types.AudioContent,
        types.TextContent,
        types.EmbeddedResource,
        types.ResourceLink,
        types.ContentBlock,
        list[types.ContentBlock],
        list[str | bytes],
        tuple[str, Image],
        tuple[Image, ...],
        Optional[bytes],  # noqa: UP045 - both spellings
        Union[dict[str, int], Image],  # noqa: UP007
        Annotated[bytes, "a png"],
        list[Annotated[Image, "chart"]],
    ],
)
def test_content_annotations(annotation: Any) -> None:
    assert returns_content(annotation)


@pytest.mark.parametrize("annotation", [str, int, dict[str, Any], list[str], list[dict[str, bytes]], Any, None])
def test_data_annotations(annotation: Any) -> None:
    assert not returns_content(annotation)


def test_content_returning_functions_have_no_output_schema(tmp_path: Path) -> None:
    module = tmp_path / "drawing.py"
    module.write_text(textwrap.dedent('''\
        """Drawing tools."""

        from __future__ import annotations

        from mcp import types
        from mcp.server.mcpserver import Image


        def chart(points: int) -> bytes:
            """A PNG chart."""
            return b""


        def photo() -> Image:
            """A photo."""
            return Image(data=b"")


        def report() -> list[str | types.ContentBlock]:
            """Text and attachments."""
            return []


        def stats() -> dict[str, int]:
            """Counts."""
            return {}
    '''))
    diagnostics = Diagnostics(file=str(module))
    project = parse_python(str(module), name=None, include=[], exclude=[], max_name_length=64,
                           diagnostics=diagnostics)
    schemas = {tool.name: tool.output_schema for tool in project.tools}
    assert schemas["chart"] is None and schemas["photo"] is None and schemas["report"] is None
    assert schemas["stats"] is not None and schemas["stats"]["type"] == "object"
    assert not [d for d in diagnostics.items if "skipped" in d.message]
