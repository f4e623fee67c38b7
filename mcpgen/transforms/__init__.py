"""IR to IR passes from mcpgen.toml: per-tool overrides, route rules to resources, prompts."""
