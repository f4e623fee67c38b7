# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""The user's confirmation of an OpenAPI tool's call before its upstream request.

A tool of `PROJECT.confirm_tools` (mcpgen.toml: `[tools.X] confirm = true`, or `[options]
confirm = ["DELETE"]` / `["destructive"]`) asks the user through elicitation what it is
about to do: the method, the path with its arguments filled in, the other arguments
(redacted, like every elicitation message). Only an accept with `confirmed` true lets the
request go; a decline, a cancel or `confirmed` false is an isError result. A client that
cannot be asked (no elicitation capability, or a stateless 2025-11-25 HTTP request with no
channel back) gets an isError refusal that says how to enable the call. Both eras go
through `tool_context`: a 2025-11-25 request on the call's stream, a 2026-07-28
input-required round.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from mcp import types

from . import audit, settings, tool_context

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "confirmed": {
            "type": "boolean",
            "title": "Confirm",
            "description": "Send this request to the API",
        }
    },
    "required": ["confirmed"],
}
NOT_CONFIRMED = "not confirmed by the user"


def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=message)], is_error=True
    )


def describe(route: Mapping[str, Any], arguments: Mapping[str, Any]) -> tuple[str, str]:
    """("METHOD /path/with/values", the message asking the user)."""
    path = route["path"]
    rest: dict[str, Any] = {}
    in_path = {p["argument"]: p["name"] for p in route["params"] if p["in"] == "path"}
    for argument, value in arguments.items():
        if argument in in_path and value is not None:
            path = path.replace("{" + in_path[argument] + "}", quote(str(value), safe=""))
        elif value is not None:
            rest[argument] = value
    action = f"{route['method'].upper()} {path}"
    message = f"Allow this request to the API?\n{action}"
    if rest:
        shown = json.dumps(rest, ensure_ascii=False, sort_keys=True, indent=2)
        message += f"\nwith arguments:\n{shown}"
    return action, message


def decision(answer: types.ElicitResult) -> bool:
    """Only an accept whose `confirmed` is true confirms."""
    return answer.action == "accept" and (answer.content or {}).get("confirmed") is True


def refusal(name: str, action: str, why: str) -> str:
    sessions = settings.current().variable("HTTP_SESSIONS")
    return (
        f"Tool {name} must be confirmed by the user before it sends {action}, but {why}. "
        "To call it: use a client that supports elicitation (over HTTP with protocol "
        f"2025-11-25, run the server with {sessions}=1), or set `[tools.{name}] confirm = "
        "false` in mcpgen.toml and regenerate."
    )


async def check(
    name: str, route: Mapping[str, Any], arguments: Mapping[str, Any]
) -> types.CallToolResult | types.InputRequiredResult | None:
    """None when the user confirmed the call; else the call's answer (an isError result, or
    on 2026-07-28 the InputRequiredResult that asks)."""
    action, message = describe(route, arguments)
    request = tool_context.request.get()
    if request is None:
        return _error(refusal(name, action, "it was called outside a client's request"))
    ctx, params = request
    rounds = tool_context.Rounds(params)
    session = tool_context.session(ctx, rounds)
    try:
        answer = await session.elicit_form(message, SCHEMA, related_request_id=ctx.request_id)
    except tool_context.InputRequired as needed:
        audit.mark("input_required")
        return rounds.result(needed)
    except tool_context.ClientUnsupported as exc:
        return _error(refusal(name, action, str(exc)))
    if decision(answer):
        return None
    audit.mark("not_confirmed")
    return _error(f"Tool {name}: {action} was {NOT_CONFIRMED} ({answer.action}); nothing was sent.")
