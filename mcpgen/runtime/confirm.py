# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""The user's confirmation of an OpenAPI tool's call before its upstream request.

A tool of `PROJECT.confirm_tools` (mcpgen.toml: `[tools.X] confirm = true`, or `[options]
confirm = ["DELETE"]` / `["destructive"]`) asks the user through elicitation what it is
about to do: the method, the path with its arguments filled in, the other arguments
(redacted, like every elicitation message). Only an accept with `confirmed` true lets the
request go; a decline, a cancel or `confirmed` false is an isError result. A client that
cannot be asked (no elicitation capability, or a stateless 2025-11-25 HTTP request with no
channel back) gets an isError refusal that says how to enable the call. Dynamic mode's
`call_tool` asks the same way (its confirmation bound to the tool it names).

2025-11-25: the question is a request to the client on the call's own stream, answered
while the call waits (`tool_context`); no answer can come from anywhere else.

2026-07-28: the call is answered with an `InputRequiredResult` whose sealed `requestState`
(the SDK's `RequestStateBoundary`, itself bound to the tool, its arguments and the SDK's
principal) carries a server-issued single-use nonce, its expiry (`TTL`) and a digest of
what it confirms: the tool, its arguments as canonical JSON, and the caller (the OAuth
principal's issuer, subject and client; none over stdio or with a static token). The
answer counts only on a later round that carries that state and the same digest, and
only once: the nonce is recorded as used (on Redis when `PREFIX_REDIS_URL` is set, for
every replica; else in this process, at most `MAX_USED` at once, which refuses further
confirmations until some expire). An answer the client sends without a server-issued
nonce (on its first request) is ignored and the user is asked. Without Redis, replicas
sharing `PREFIX_REQUEST_STATE_KEY` each record their own uses, so one confirmation could
be used once per replica; with Redis unreachable, `PREFIX_REDIS_FAILURE=open` falls back
to this process's record and `closed` refuses the call.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from mcp import types
from mcp.types.version import MODERN_PROTOCOL_VERSIONS

from . import audit, principal, redact, settings, shared, telemetry, tool_context
from .state import state

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
QUESTION = "confirm"  # the key of the 2026-07-28 input request
TTL = 600.0  # seconds a 2026-07-28 confirmation stays valid (the SDK's requestState lifetime)
MAX_USED = 10_000  # used nonces this process keeps until they expire
_STATE_KEY = "mcpgen.confirm"  # in the (sealed) requestState


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
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return await _round(name, arguments, action, message, ctx, params)
    rounds = tool_context.Rounds(params)
    session = tool_context.session(ctx, rounds)
    try:
        answer = await session.elicit_form(message, SCHEMA, related_request_id=ctx.request_id)
    except tool_context.ClientUnsupported as exc:
        return _error(refusal(name, action, str(exc)))
    return _answered(name, action, answer)


def _answered(name: str, action: str, answer: types.ElicitResult) -> types.CallToolResult | None:
    if decision(answer):
        telemetry.event("mcpgen.confirmation", **{"mcpgen.confirmation.answer": "confirmed"})
        return None
    telemetry.event("mcpgen.confirmation", **{"mcpgen.confirmation.answer": answer.action})
    telemetry.outcome("not_confirmed", "not_confirmed")
    audit.mark("not_confirmed")
    return _error(f"Tool {name}: {action} was {NOT_CONFIRMED} ({answer.action}); nothing was sent.")


def binding(name: str, arguments: Mapping[str, Any]) -> str:
    """The digest of what a confirmation confirms: the tool, its exact arguments (canonical
    JSON) and the caller (the OAuth principal, when there is one)."""
    caller = principal.principal()
    who = None if caller is None else [caller.issuer, caller.subject, caller.client_id]
    canonical = json.dumps(
        [name, arguments, who], sort_keys=True, separators=(",", ":"), ensure_ascii=True
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def _issued(request_state: str | None) -> dict[str, Any] | None:
    """The nonce this server issued, from the (unsealed, so server-minted) requestState."""
    if not request_state:
        return None
    try:
        issued = json.loads(request_state).get(_STATE_KEY)
    except (ValueError, AttributeError):
        return None
    if not isinstance(issued, dict):
        return None
    if not all(isinstance(issued.get(k), str) for k in ("nonce", "for")):
        return None
    return issued if isinstance(issued.get("exp"), float | int) else None


async def _round(
    name: str,
    arguments: Mapping[str, Any],
    action: str,
    message: str,
    ctx: Any,
    params: types.CallToolRequestParams,
) -> types.CallToolResult | types.InputRequiredResult | None:
    """2026-07-28: ask with a fresh nonce, or take the answer to the nonce this server issued."""
    try:
        tool_context.ensure_can_ask(ctx, "elicitation (form)")
    except tool_context.ClientUnsupported as exc:
        return _error(refusal(name, action, str(exc)))
    digest = binding(name, arguments)
    issued = _issued(params.request_state)
    response = (params.input_responses or {}).get(QUESTION)
    if issued is None or response is None or not time.time() < issued["exp"]:
        # The first round (an answer sent with it is not one to our question), or no answer yet.
        return _ask(digest, message)
    if issued["for"] != digest:
        audit.mark("not_confirmed")
        return _error(
            f"Tool {name}: this confirmation was given for another call (tool, arguments or "
            "caller differ); nothing was sent. Call the tool again to be asked."
        )
    used = await _use(issued["nonce"], float(issued["exp"]))
    if used is not None:
        audit.mark("not_confirmed")
        return _error(f"Tool {name}: {action} not sent: {used}.")
    answer = response if isinstance(response, types.ElicitResult) else None
    if answer is None:
        try:
            answer = types.ElicitResult.model_validate(
                response.model_dump(by_alias=True, mode="json", exclude_none=True)
            )
        except ValueError:
            answer = types.ElicitResult(action="cancel")
    return _answered(name, action, answer)


def _ask(digest: str, message: str) -> types.InputRequiredResult:
    issued = {"nonce": secrets.token_urlsafe(16), "exp": time.time() + TTL, "for": digest}
    question = types.ElicitRequest(
        params=types.ElicitRequestFormParams(
            message=redact.clean_text(message), requested_schema=SCHEMA
        )
    )
    telemetry.event("mcpgen.confirmation", **{"mcpgen.confirmation.answer": "asked"})
    audit.mark("input_required")
    return types.InputRequiredResult(
        input_requests={QUESTION: question}, request_state=json.dumps({_STATE_KEY: issued})
    )


async def _use(nonce: str, expires: float) -> str | None:
    """Record the nonce as used: None the first time, else why the confirmation is refused."""
    current = settings.current()
    already = "this confirmation was already used (each one sends one request); call again"
    if current.redis_url:
        try:
            first = await shared.record_once(f"confirm:{nonce}", expires - time.time())
        except shared.Unavailable:
            if current.redis_failure == "closed":
                return (
                    "Redis, which records used confirmations for every replica, is unreachable "
                    f"({current.variable('REDIS_FAILURE')}=closed)"
                )
        else:
            return None if first else already
    used = state().used_confirmations
    now = time.time()
    if nonce in used and now < used[nonce]:
        return already
    if len(used) >= MAX_USED:
        for stale in [n for n, until in used.items() if not now < until]:
            del used[stale]
    if len(used) >= MAX_USED:
        return f"{MAX_USED} confirmations are in use at once; try again later"
    used[nonce] = expires
    return None
