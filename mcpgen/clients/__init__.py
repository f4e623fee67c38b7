"""Client rules: which MCP client rejects what (lint), and profiles that rewrite tools/list to suit one."""
