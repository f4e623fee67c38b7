"""Fixture tools the MCP conformance suite calls by fixed name.

`mcpgen from-python tests/conformance/fixtures.py` turns this module into the server the
suite runs against (tests/conformance/test_conformance.py), so the suite checks generated
code, not a hand-written stand-in. Names and behaviour follow the scenarios of
`@modelcontextprotocol/conformance` (tools-call-simple-text, tools-call-error,
json-schema-2020-12). The functions outside `__all__` are bound as prompts and resources by
`conformance.toml`, appended to the generated project's mcpgen.toml.
"""

from __future__ import annotations

import base64
import json

from mcp import types
from typing_extensions import TypedDict

__all__ = ["json_schema_2020_12_tool", "test_error_handling", "test_simple_text"]


class address(TypedDict, total=False):  # lowercase: the suite looks for `$defs.address`
    """A postal address."""

    street: str
    city: str


def test_simple_text() -> str:
    """Returns a fixed text."""
    return "This is a simple text response for testing."


def test_error_handling() -> str:
    """Always fails, so the client sees a tool error."""
    raise RuntimeError("This tool intentionally returns an error for testing")


def json_schema_2020_12_tool(name: str | None = None, address: address | None = None) -> str:
    """Tool with JSON Schema 2020-12 features."""
    where = ", ".join(v for v in (address or {}).values())
    return f"{name or 'nobody'} at {where or 'nowhere'}"


# A 1x1 transparent PNG.
_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


def static_text() -> str:
    """A static text resource."""
    return "This is the content of the static text resource."


def static_binary() -> bytes:
    """A static binary resource (a PNG image)."""
    return _PNG


def template_data(id: str) -> str:  # `id`, a builtin's name: the suite's template variable is `{id}`
    """Data for one ID."""
    return json.dumps({"id": id, "templateTest": True, "data": f"Data for ID: {id}"}, separators=(",", ":"))


def prompt_with_embedded_resource(resourceUri: str) -> list[types.PromptMessage]:  # camelCase: the suite's name
    """A prompt that embeds the resource it is given.

    Args:
        resourceUri: URI of the resource to embed.
    """
    resource = types.TextResourceContents(
        uri=resourceUri, mime_type="text/plain", text="Embedded resource content for testing."
    )
    return [
        types.PromptMessage(role="user", content=types.EmbeddedResource(type="resource", resource=resource)),
        types.PromptMessage(role="user", content=types.TextContent(type="text", text="Please process the embedded resource above.")),
    ]


def prompt_with_image() -> list[types.PromptMessage]:
    """A prompt carrying an image."""
    image = types.ImageContent(type="image", data=base64.b64encode(_PNG).decode("ascii"), mime_type="image/png")
    return [
        types.PromptMessage(role="user", content=image),
        types.PromptMessage(role="user", content=types.TextContent(type="text", text="Please analyze the image above.")),
    ]
