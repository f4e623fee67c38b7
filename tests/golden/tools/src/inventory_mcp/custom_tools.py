"""Your own tools, served beside the generated ones.

mcpgen created this file once and never changes it: `mcpgen regenerate` leaves it alone.
Decorate a typed function with `@tool()`: its parameters become the inputSchema, its
return annotation the outputSchema, its docstring the description. Arguments are
validated strictly against the signature before the function runs; what it raises
reaches the client as a tool error. A name already used by a generated tool stops the
server at start-up.
"""

from __future__ import annotations

from .extensions import tool

__all__ = ["tool"]

# Example: uncomment to serve it.
#
# @tool(title="Echo", read_only=True)
# async def echo(text: str, times: int = 1) -> str:
#     """Repeat TEXT."""
#     return " ".join([text] * times)
