"""mcpgen: turn an OpenAPI description or a Python module into a standalone MCP server package."""

__version__ = "0.1.0"
