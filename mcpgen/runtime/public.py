# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""The runtime's public surface: what your `hooks.py`, `custom_tools.py` and other code of
yours may import (`from .runtime.public import principal`). Everything else in `runtime/`
is the server's own and may change between mcpgen releases without notice.

- `tool(...)`: register a function of `custom_tools.py` as a tool (`scopes=` for OAuth);
- `current_tool`: the name of the tool being called (a context variable);
- `principal()` / `Principal`: the OAuth caller of the request being served, or None;
- `resource_updated(uri)`: tell subscribed clients that a resource changed.
"""

from __future__ import annotations

from .extensions import current_tool, tool
from .principal import Principal, principal
from .subscriptions import resource_updated

__all__ = ["Principal", "current_tool", "principal", "resource_updated", "tool"]
