"""A generated project on disk: mcpgen.toml, the manifest, syncing without losing user edits, change reports."""
