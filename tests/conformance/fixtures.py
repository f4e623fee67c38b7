"""Fixture tools the MCP conformance suite calls by fixed name.

`mcpgen from-python tests/conformance/fixtures.py` turns this module into the server the
suite runs against (tests/conformance/test_conformance.py), so the suite checks generated
code, not a hand-written stand-in. Names and behaviour follow the scenarios of
`@modelcontextprotocol/conformance` (tools-call-simple-text, tools-call-error,
json-schema-2020-12, tools-call-with-logging/-progress/-sampling/-elicitation,
elicitation-sep1034-defaults, elicitation-sep1330-enums). The tools that log, report
progress, sample or elicit take the SDK's `Context` the way an `MCPServer` user writes them.
The functions outside `__all__` are bound as prompts and resources by `conformance.toml`,
appended to the generated project's mcpgen.toml.
"""

from __future__ import annotations

import base64
import json
from typing import Literal

import anyio
from mcp import types
from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

__all__ = [
    "json_schema_2020_12_tool",
    "test_elicitation",
    "test_elicitation_sep1034_defaults",
    "test_elicitation_sep1330_enums",
    "test_error_handling",
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
