"""Fixture tools the MCP conformance suite calls by fixed name.

`mcpgen from-python tests/conformance/fixtures.py` turns this module into the server the
suite runs against (tests/conformance/test_conformance.py), so the suite checks generated
code, not a hand-written stand-in. Names and behaviour follow the scenarios of
`@modelcontextprotocol/conformance` (tools-call-simple-text, tools-call-error,
json-schema-2020-12).
"""

from __future__ import annotations

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
