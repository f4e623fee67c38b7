"""The runtime settings table of the generated README: every setting a generated server reads,
with its meaning and default."""

from __future__ import annotations

from typing import Any

from mcpgen.ir import Project
from mcpgen.rendering.views import sends_bytes as _sends_bytes
from mcpgen.runtime import declared


def _runtime_env_vars(project: Project) -> list[dict[str, Any]]:
    """Settings the generated server reads, from the runtime's one declaration of them."""
    p = project.env_prefix
    openapi = project.source_kind == "openapi"
    applies = {
        "all": True,
        "openapi": openapi,
        "python": not openapi,
        "uploads": openapi and any(f.file for t in project.tools if t.route and t.route.body for f in t.route.body.fields),
        "sends_bytes": openapi and _sends_bytes(project),
        "streams": openapi and any(t.route and t.route.response_stream for t in project.tools),
        "code": project.tool_mode == "code",
        "toolsets": bool(project.toolsets),
        "project": False,  # with the project's own variables (project.env_vars)
    }
    shown = {"prefix": p, "page_size": project.page_size, "max_response_chars": project.max_response_chars}
    return [
        {
            "name": f"{p}_{setting.name}",
            "description": setting.meaning,
            "default": setting.default.format(**shown) if setting.default is not None else None,
        }
        for setting in declared.SETTINGS
        if applies[setting.scope]
    ]
