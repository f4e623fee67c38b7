# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""The request's `Context` for Python tools that take one, as `MCPServer` injects it.

A function of the source module may take a parameter annotated with the SDK's own
`mcp.server.mcpserver.Context` (see `functions.context_parameter`). It gets a real
`Context` built from the request's `ServerRequestContext`, like MCPServer's, with two
parts of this server in place of MCPServer's:

- its session is a `_Session` in front of the SDK's: log data, progress messages,
  elicitation messages and sampling texts are redacted like results before they leave;
  logging honours `logging/setLevel` (2025-11-25); elicitation and sampling are asked for
  the way the request's protocol revision wants (below), and only of a client that
  declared the capability.
- `read_resource` reads this server's own resources through `resources.read_resource`,
  the guarded path of every resources/read (access settings, limits, its own audit line).

2025-11-25 (handshake): elicitation/create and sampling/createMessage are requests to the
client on the call's own stream, answered while the function waits; over HTTP that needs
sessions (`PREFIX_HTTP_SESSIONS=1`), since a stateless request has no channel back.

2026-07-28: a server asks nothing of the client mid-request. The function's first question
without an answer stops it (`InputRequired`, a BaseException, so `except Exception` in the
function does not swallow it); the call is answered with an `InputRequiredResult` that holds
the question and, as `requestState`, the answers so far (sealed by the SDK's
`RequestStateBoundary`: AES-GCM under `PREFIX_REQUEST_STATE_KEY`, or a per-process key).
The client asks the user and calls again with the answer; the function runs again from
the start and each question, in order, gets its answer. Work before a question therefore
runs once per round: make it idempotent, or ask first. Progress and log notifications ride
the request's own stream (SSE responses only), logs only when the request asked for them.
"""

from __future__ import annotations

import base64
import contextvars
import dataclasses
import json
import logging
import warnings
from typing import Any, TypeVar, cast

import anyio
from mcp import MCPError, types
from mcp.server import ServerRequestContext
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp.shared.message import ServerMessageMetadata
from mcp.types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel

from . import redact, settings
from .project import current

log = logging.getLogger(__name__)

__all__ = [
    "ClientUnsupported",
    "InputRequired",
    "Rounds",
    "ensure_can_ask",
    "request",
    "session",
    "set_level",
]

R = TypeVar("R", bound=BaseModel)
# The request being served, with its params: set around each tools/call (see app.call_tool).
request: contextvars.ContextVar[tuple[ServerRequestContext, types.CallToolRequestParams] | None] = (
    contextvars.ContextVar("tool_request", default=None)
)
LEVELS: tuple[types.LoggingLevel, ...] = (
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
)
_LEVEL_KEY = "mcpgen.log_level"  # in the SDK connection's per-connection `state`
_STATE_KEY = "mcpgen.answers"  # in the (sealed) requestState
MAX_ROUNDS = 10  # questions of one call, as many rounds as the SDK clients drive by default


class InputRequired(BaseException):
    """The function asked the client something not answered yet (2026-07-28): the call's
    answer is an `InputRequiredResult` holding `request` under `key`."""

    def __init__(self, key: str, input_request: types.InputRequest) -> None:
        super().__init__(key)
        self.key = key
        self.input_request = input_request


class ClientUnsupported(RuntimeError):
    """The client cannot be asked this (no such capability, or no channel back to it)."""


class Rounds:
    """One call's answers: those of earlier rounds (from the unsealed requestState) and
    this round's `inputResponses`; questions are keyed by their order in the function."""

    def __init__(self, params: types.CallToolRequestParams) -> None:
        self.answers: dict[str, Any] = {}
        state = params.request_state
        if state:
            try:
                earlier = json.loads(state).get(_STATE_KEY, {})
            except (ValueError, AttributeError):  # sealed, so ours; a changed format is stale
                earlier = {}
            if isinstance(earlier, dict):
                self.answers.update(earlier)
        for key, response in (params.input_responses or {}).items():
            self.answers[key] = response.model_dump(by_alias=True, mode="json", exclude_none=True)
        self.asked = 0

    def next_key(self) -> str:
        self.asked += 1
        if self.asked > MAX_ROUNDS:
            raise ClientUnsupported(f"a tool may ask the client at most {MAX_ROUNDS} times")
        return f"input-{self.asked}"

    def result(self, needed: InputRequired) -> types.InputRequiredResult:
        state = json.dumps({_STATE_KEY: self.answers}, ensure_ascii=False)
        return types.InputRequiredResult(
            input_requests={needed.key: needed.input_request}, request_state=state
        )


def make(ctx: ServerRequestContext, rounds: Rounds) -> Any:
    """The `Context` a function's context parameter gets for this request."""
    from mcp.server.mcpserver.context import Context  # the function's module imported it

    session = _Session(ctx, rounds)
    inner = dataclasses.replace(ctx, session=cast(Any, session))
    return Context(request_context=inner, mcp_server=cast(Any, _OwnResources()))


def session(ctx: ServerRequestContext, rounds: Rounds) -> Any:
    """The request's session with this server's rules (what `make`'s Context asks through)."""
    return _Session(ctx, rounds)


def _modern(ctx: ServerRequestContext) -> bool:
    return ctx.protocol_version in MODERN_PROTOCOL_VERSIONS


class _Session:
    """The SDK's `ServerSession` for one request, with this server's rules in front."""

    def __init__(self, ctx: ServerRequestContext, rounds: Rounds) -> None:
        self._ctx = ctx
        self._session = ctx.session
        self._rounds = rounds

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Sent only when the request carried a progressToken (the SDK's rule)."""
        text = redact.clean_text(message) if message is not None else None
        await self._session.report_progress(progress, total, text)

    async def send_log_message(
        self,
        level: types.LoggingLevel,
        data: Any,
        logger: str | None = None,
        related_request_id: types.RequestId | None = None,
    ) -> None:
        """2026-07-28: only at the level the request's `_meta` asked for, on its stream (the
        SDK's rule); 2025-11-25: at the `logging/setLevel` level and above (all if unset)."""
        if not _modern(self._ctx) and not _allowed(self._session, level):
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await self._session.send_log_message(
                level,
                redact.clean_value(data),
                logger=logger,
                related_request_id=(
                    related_request_id if related_request_id is not None else self._ctx.request_id
                ),
            )

    async def elicit_form(
        self,
        message: str,
        requested_schema: types.ElicitRequestedSchema,
        related_request_id: types.RequestId | None = None,
    ) -> types.ElicitResult:
        params = types.ElicitRequestFormParams(
            message=redact.clean_text(message), requested_schema=requested_schema
        )
        request = types.ElicitRequest(params=params)
        return await self._ask(
            "elicitation (form)", request, types.ElicitResult, related_request_id
        )

    elicit = elicit_form

    async def elicit_url(
        self,
        message: str,
        url: str,
        elicitation_id: str,
        related_request_id: types.RequestId | None = None,
    ) -> types.ElicitResult:
        params = types.ElicitRequestURLParams(
            message=redact.clean_text(message), url=url, elicitation_id=elicitation_id
        )
        request = types.ElicitRequest(params=params)
        return await self._ask("elicitation (url)", request, types.ElicitResult, related_request_id)

    async def create_message(
        self,
        messages: list[types.SamplingMessage],
        *,
        max_tokens: int,
        related_request_id: types.RequestId | None = None,
        **options: Any,
    ) -> types.CreateMessageResult | types.CreateMessageResultWithTools:
        """Sampling, with the texts sent to the client's model redacted."""
        params = types.CreateMessageRequestParams(
            messages=[_clean_sampling(m) for m in messages], max_tokens=max_tokens, **options
        )
        request = types.CreateMessageRequest(params=params)
        tools = params.tools is not None or params.tool_choice is not None
        result_type: type[types.CreateMessageResult | types.CreateMessageResultWithTools] = (
            types.CreateMessageResultWithTools if tools else types.CreateMessageResult
        )
        return await self._ask("sampling", request, result_type, related_request_id)

    async def _ask(
        self, what: str, input_request: Any, result_type: type[R], related: types.RequestId | None
    ) -> R:
        ensure_can_ask(self._ctx, what)
        if _modern(self._ctx):
            key = self._rounds.next_key()
            answer = self._rounds.answers.get(key)
            if answer is None:
                raise InputRequired(key, input_request)
            return result_type.model_validate(answer)
        # Unnamed, the request belongs to this call: it goes out on the call's own response
        # stream. The SDK would send it on the standalone GET stream, which a client opens
        # after initialize and may not have yet: the request was lost and the call hung.
        metadata = ServerMessageMetadata(
            related_request_id=related if related is not None else self._ctx.request_id
        )
        return await self._session.send_request(input_request, result_type, metadata=metadata)


def ensure_can_ask(ctx: ServerRequestContext, what: str) -> None:
    """Raises ClientUnsupported unless the request's client can be asked `what` (`sampling`,
    `elicitation (form)`, `elicitation (url)`): it declared the capability and, on 2025-11-25,
    there is a channel back to it."""
    if not _modern(ctx) and not ctx.session.can_send_request:
        # A stateless HTTP request: no channel back, nor the capabilities of initialize.
        raise ClientUnsupported(
            f"{what} needs a channel back to a 2025-11-25 client, which a stateless HTTP "
            f"request lacks: run the server with {settings.current().variable('HTTP_SESSIONS')}"
            f"=1 and {settings.current().variable('HTTP_RESPONSE')}=sse"
        )
    if not _declared(ctx.session.client_capabilities, what):
        raise ClientUnsupported(f"the client does not support {what}")


def _declared(capabilities: types.ClientCapabilities | None, what: str) -> bool:
    if capabilities is None:
        return False
    if what == "sampling":
        return capabilities.sampling is not None
    elicitation = capabilities.elicitation
    if elicitation is None:
        return False
    if what == "elicitation (url)":
        return elicitation.url is not None
    # An empty elicitation object is form mode (as before modes existed).
    return elicitation.form is not None or elicitation.url is None


def _clean_sampling(message: types.SamplingMessage) -> types.SamplingMessage:
    content: Any = message.content
    if isinstance(content, types.TextContent):
        return message.model_copy(
            update={"content": content.model_copy(update={"text": redact.clean_text(content.text)})}
        )
    return message


def _connection_state(session: Any) -> dict[str, Any] | None:
    """The SDK connection's per-connection scratch state (one stdio process, one HTTP
    session; a stateless HTTP request is a connection of its own)."""
    state = getattr(getattr(session, "_connection", None), "state", None)
    return state if isinstance(state, dict) else None


def _allowed(session: Any, level: types.LoggingLevel) -> bool:
    state = _connection_state(session)
    minimum = state.get(_LEVEL_KEY) if state is not None else None
    if minimum not in LEVELS:
        return True
    return LEVELS.index(level) >= LEVELS.index(minimum)


async def set_level(
    ctx: ServerRequestContext, params: types.SetLevelRequestParams
) -> types.EmptyResult:
    """logging/setLevel (2025-11-25): this connection's log messages at that level and up."""
    state = _connection_state(ctx.session)
    if state is not None:
        state[_LEVEL_KEY] = params.level
    return types.EmptyResult()


class _OwnResources:
    """What `Context.read_resource` needs of an `MCPServer`: this server's resources, each
    read through the guarded resources/read path."""

    async def read_resource(self, uri: Any, context: Any) -> list[Any]:
        from mcp.server.lowlevel.helper_types import ReadResourceContents
        from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError

        text = str(uri)
        if not current().has_resources:
            raise ResourceNotFoundError(f"Unknown resource: {text}")
        from . import resources

        found: list[types.ReadResourceResult] = []
        failed: list[MCPError] = []

        async def read() -> None:
            params = types.ReadResourceRequestParams(uri=text)
            try:
                found.append(await resources.read_resource(context.request_context, params))
            except MCPError as exc:
                failed.append(exc)

        # A task of its own: the read's audit line does not replace the tool call's.
        async with anyio.create_task_group() as group:
            group.start_soon(read)
        if failed:
            if failed[0].code == resources.RESOURCE_NOT_FOUND:
                raise ResourceNotFoundError(failed[0].message)
            raise ResourceError(failed[0].message)
        contents: list[ReadResourceContents] = []
        for item in found[0].contents:
            if isinstance(item, types.BlobResourceContents):
                data: str | bytes = base64.b64decode(item.blob)
            else:
                data = item.text
            contents.append(ReadResourceContents(content=data, mime_type=item.mime_type))
        return contents
