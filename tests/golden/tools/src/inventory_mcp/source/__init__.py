"""A copy of the module the tools come from, so the package runs on its own."""
