"""Fixture tools the MCP conformance suite calls by fixed name.

`mcpgen from-python tests/conformance/fixtures.py` turns this module into the server the
suite runs against (tests/conformance/test_conformance.py), so the suite checks generated
code, not a hand-written stand-in. Names and behaviour follow the scenarios of
`@modelcontextprotocol/conformance` (tools-call-simple-text, tools-call-error,
json-schema-2020-12, tools-call-image/-audio/-embedded-resource/-mixed-content,
tools-call-with-logging/-progress/-sampling/-elicitation,
elicitation-sep1034-defaults, elicitation-sep1330-enums). The tools that log, report
progress, sample or elicit take the SDK's `Context` the way an `MCPServer` user writes them.
The functions outside `__all__` are bound as prompts and resources by `conformance.toml`,
appended to the generated project's mcpgen.toml.
"""

from __future__ import annotations

import base64
import io
import json
import wave
from typing import Literal

import anyio
from mcp import types
from mcp.server.mcpserver import Audio, Context
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

__all__ = [
    "json_schema_2020_12_tool",
    "test_audio_content",
    "test_elicitation",
    "test_elicitation_sep1034_defaults",
    "test_elicitation_sep1330_enums",
    "test_embedded_resource",
    "test_error_handling",
    "test_image_content",
    "test_multiple_content_types",
    "test_sampling",
    "test_simple_text",
    "test_tool_with_logging",
    "test_tool_with_progress",
]


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


async def test_tool_with_logging(ctx: Context) -> str:
    """Sends three info log messages while it runs."""
    await ctx.info("Tool execution started")
    await anyio.sleep(0.05)
    await ctx.info("Tool processing data")
    await anyio.sleep(0.05)
    await ctx.info("Tool execution completed")
    return "Logging test completed"


async def test_tool_with_progress(ctx: Context) -> str:
    """Reports progress 0, 50 and 100 of 100 (when the request carries a progressToken)."""
    for done in (0, 50, 100):
        await ctx.report_progress(done, 100, f"{done}% done")
        if done < 100:
            await anyio.sleep(0.05)
    return "Progress test completed"


async def test_sampling(prompt: str, ctx: Context) -> str:
    """Asks the client's model to answer the prompt.

    Args:
        prompt: The prompt to send to the LLM.
    """
    message = types.SamplingMessage(role="user", content=types.TextContent(type="text", text=prompt))
    result = await ctx.session.create_message(messages=[message], max_tokens=100)
    text = result.content.text if isinstance(result.content, types.TextContent) else str(result.content)
    return f"LLM response: {text}"


class UserInfo(BaseModel):
    username: str = Field(description="User's response")
    email: str = Field(description="User's email address")


async def test_elicitation(message: str, ctx: Context) -> str:
    """Asks the user for a name and an email address.

    Args:
        message: The message to show the user.
    """
    result = await ctx.elicit(message, UserInfo)
    content = result.data.model_dump() if result.action == "accept" else None
    return f"User response: action={result.action}, content={json.dumps(content)}"


class Defaults(BaseModel):
    name: str = "John Doe"
    age: int = 30
    score: float = 95.5
    status: Literal["active", "inactive", "pending"] = "active"
    verified: bool = True


async def test_elicitation_sep1034_defaults(ctx: Context) -> str:
    """Asks for five values, each with a default (SEP-1034)."""
    result = await ctx.elicit("Please review your settings", Defaults)
    content = result.data.model_dump() if result.action == "accept" else None
    return f"Elicitation completed: action={result.action}, content={json.dumps(content)}"


_ENUMS: types.ElicitRequestedSchema = {
    "type": "object",
    "properties": {
        "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {
            "type": "string",
            "oneOf": [
                {"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"},
                {"const": "value3", "title": "Third Option"},
            ],
        },
        "legacyEnum": {
            "type": "string",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        },
        "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
        "titledMulti": {
            "type": "array",
            "items": {
                "anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                    {"const": "value3", "title": "Third Choice"},
                ]
            },
        },
    },
}


async def test_elicitation_sep1330_enums(ctx: Context) -> str:
    """Asks for choices in every enum form of SEP-1330 (a raw requested schema)."""
    result = await ctx.session.elicit_form("Please choose", _ENUMS, related_request_id=ctx.request_id)
    return f"Elicitation completed: action={result.action}, content={json.dumps(result.content)}"


# A 1x1 transparent PNG.
_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


def _wav() -> bytes:
    """A tenth of a second of silence, 8 kHz mono."""
    out = io.BytesIO()
    with wave.open(out, "wb") as sound:
        sound.setnchannels(1)
        sound.setsampwidth(1)
        sound.setframerate(8000)
        sound.writeframes(b"\x80" * 800)
    return out.getvalue()


def test_image_content() -> bytes:
    """Returns a PNG image (bytes, sent as image content by their magic number)."""
    return _PNG


def test_audio_content() -> Audio:
    """Returns a WAV sound (the SDK's Audio helper)."""
    return Audio(data=_wav(), format="wav")


def test_embedded_resource() -> types.EmbeddedResource:
    """Returns an embedded text resource."""
    resource = types.TextResourceContents(
        uri="test://embedded-resource", mime_type="text/plain", text="This is an embedded resource content."
    )
    return types.EmbeddedResource(type="resource", resource=resource)


def test_multiple_content_types() -> list[str | bytes | types.EmbeddedResource]:
    """Returns text, an image and an embedded resource."""
    resource = types.TextResourceContents(
        uri="test://mixed-content-resource", mime_type="application/json", text='{"test":"data","value":123}'
    )
    return ["Multiple content types test:", _PNG, types.EmbeddedResource(type="resource", resource=resource)]


def watched_resource() -> str:
    """A resource clients may subscribe to (resources-subscribe, resources-unsubscribe)."""
    return "Watched resource content."


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
