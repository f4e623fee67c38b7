"""The confirmation of an OpenAPI call (runtime/confirm.py): what the user is shown, which
answers confirm, and the refusal's how-to-enable text; on 2026-07-28 the nonce: issued by the
server only, used once, bound to the tool's arguments and the caller, kept in a bounded record.
End to end: tests/e2e/test_confirm.py."""

from __future__ import annotations

import json
import time

import pytest
from mcp import types

from mcpgen.runtime import confirm, principal, tool_context
from mcpgen.runtime.principal import Principal
from mcpgen.runtime.project import Project
from mcpgen.runtime.state import state as state_of_server

ROUTE = {
    "method": "DELETE",
    "path": "/pet/{petId}",
    "params": [
        {"in": "path", "name": "petId", "argument": "petId"},
        {"in": "header", "name": "X-Reason", "argument": "X-Reason"},
    ],
}


def test_the_user_sees_the_method_the_filled_path_and_the_other_arguments() -> None:
    action, message = confirm.describe(ROUTE, {"petId": "a/b c", "X-Reason": "adopted", "gone": None})
    assert action == "DELETE /pet/a%2Fb%20c"
    assert message.startswith("Allow this request to the API?\nDELETE /pet/a%2Fb%20c\nwith arguments:")
    assert '"X-Reason": "adopted"' in message and "gone" not in message
    assert confirm.describe(ROUTE, {"petId": 7}) == ("DELETE /pet/7", "Allow this request to the API?\nDELETE /pet/7")


@pytest.mark.parametrize(
    ("action", "content", "confirmed"),
    [
        ("accept", {"confirmed": True}, True),
        ("accept", {"confirmed": False}, False),
        ("accept", {}, False),
        ("accept", None, False),
        ("accept", {"confirmed": "true"}, False),  # only the boolean
        ("decline", None, False),
        ("cancel", None, False),
    ],
)
def test_only_an_accept_with_confirmed_true_confirms(action: str, content: dict[str, bool] | None, confirmed: bool) -> None:
    answer = types.ElicitResult(action=action, content=content)  # type: ignore[arg-type]
    assert confirm.decision(answer) is confirmed


def test_the_refusal_says_how_to_enable_the_call(project: Project) -> None:
    shown = confirm.refusal("deletePet", "DELETE /pet/1", "the client does not support elicitation (form)")
    assert "Tool deletePet must be confirmed by the user before it sends DELETE /pet/1" in shown
    assert "use a client that supports elicitation" in shown
    assert "`[tools.deletePet] confirm = false` in mcpgen.toml and regenerate" in shown
    assert f"{project.env_prefix}_HTTP_SESSIONS=1" in shown


def test_the_form_asks_for_one_boolean() -> None:
    assert confirm.SCHEMA["required"] == ["confirmed"]
    assert confirm.SCHEMA["properties"]["confirmed"]["type"] == "boolean"


@pytest.mark.anyio
async def test_outside_a_request_the_call_is_refused(project: Project) -> None:
    result = await confirm.check("deletePet", ROUTE, {"petId": 1})
    assert isinstance(result, types.CallToolResult) and result.is_error
    first = result.content[0]
    assert isinstance(first, types.TextContent) and "outside a client's request" in first.text


# -- 2026-07-28: a server-issued, single-use nonce bound to the tool, its arguments and the caller ----


class _Session:
    can_send_request = False  # a 2026-07-28 request: no channel back, and none needed
    client_capabilities = types.ClientCapabilities(elicitation=types.ElicitationCapability())


class _Ctx:
    protocol_version = "2026-07-28"
    request_id = 1
    session = _Session()


YES = types.ElicitResult(action="accept", content={"confirmed": True})


async def _call(
    arguments: dict[str, object], state: str | None = None, answer: types.ElicitResult | None = YES
) -> types.CallToolResult | types.InputRequiredResult | None:
    """One round of deletePet as its handler sees it (requestState already unsealed)."""
    responses = {confirm.QUESTION: answer, "input-1": answer} if answer is not None else None
    params = types.CallToolRequestParams(
        name="deletePet", arguments=arguments, request_state=state, input_responses=responses
    )
    token = tool_context.request.set((_Ctx(), params))  # type: ignore[arg-type]
    try:
        return await confirm.check("deletePet", ROUTE, arguments)
    finally:
        tool_context.request.reset(token)


async def _asked(arguments: dict[str, object]) -> str:
    first = await _call(arguments, answer=None)
    assert isinstance(first, types.InputRequiredResult) and first.request_state is not None
    assert first.input_requests is not None and list(first.input_requests) == [confirm.QUESTION]
    return first.request_state


def _text(result: object) -> str:
    assert isinstance(result, types.CallToolResult) and result.is_error
    first = result.content[0]
    assert isinstance(first, types.TextContent)
    return first.text


@pytest.mark.anyio
async def test_an_answer_on_the_first_request_is_ignored_and_the_user_asked(project: Project) -> None:
    for state in (None, "", json.dumps({"mcpgen.answers": {"input-1": {"action": "accept"}}})):
        result = await _call({"petId": 1}, state=state)
        assert isinstance(result, types.InputRequiredResult), result
    issued = json.loads(await _asked({"petId": 1}))["mcpgen.confirm"]
    assert len(issued["nonce"]) >= 20 and issued["exp"] > time.time()


@pytest.mark.anyio
async def test_a_confirmation_is_used_once(project: Project) -> None:
    state = await _asked({"petId": 1})
    assert await _call({"petId": 1}, state=state) is None  # confirmed: the request may go
    for _ in range(4):
        assert "already used" in _text(await _call({"petId": 1}, state=state))
    assert state_of_server().used_confirmations  # recorded until it expires
    # A new question gets a new nonce, good once.
    again = await _asked({"petId": 1})
    assert again != state and await _call({"petId": 1}, state=again) is None


@pytest.mark.anyio
async def test_a_decline_uses_the_confirmation_too(project: Project) -> None:
    state = await _asked({"petId": 1})
    assert "not confirmed by the user (decline)" in _text(
        await _call({"petId": 1}, state=state, answer=types.ElicitResult(action="decline"))
    )
    assert "already used" in _text(await _call({"petId": 1}, state=state))


@pytest.mark.anyio
async def test_a_confirmation_is_bound_to_the_arguments_and_the_caller(project: Project) -> None:
    state = await _asked({"petId": 1, "X-Reason": "adopted"})
    for other in ({"petId": 2, "X-Reason": "adopted"}, {"petId": 1}, {"petId": 1, "X-Reason": "x"}):
        assert "given for another call" in _text(await _call(other, state=state))
    bob = Principal("bob", "test-client", frozenset(), issuer="https://as.example")
    held = principal.caller.set(bob)
    try:
        assert "given for another call" in _text(await _call({"petId": 1, "X-Reason": "adopted"}, state=state))
        bobs = await _asked({"petId": 1})
    finally:
        principal.caller.reset(held)
    assert "given for another call" in _text(await _call({"petId": 1}, state=bobs))  # not bob now
    # Key order is not a different call (canonical JSON); the refusals above used nothing.
    assert await _call({"X-Reason": "adopted", "petId": 1}, state=state) is None


@pytest.mark.anyio
async def test_an_expired_confirmation_asks_again(project: Project) -> None:
    state = json.loads(await _asked({"petId": 1}))
    state["mcpgen.confirm"]["exp"] = time.time() - 1
    assert isinstance(await _call({"petId": 1}, state=json.dumps(state)), types.InputRequiredResult)


@pytest.mark.anyio
async def test_the_record_of_used_confirmations_is_bounded(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(confirm, "MAX_USED", 2)
    states = [await _asked({"petId": n}) for n in range(3)]
    assert await _call({"petId": 0}, state=states[0]) is None
    assert await _call({"petId": 1}, state=states[1]) is None
    assert "2 confirmations are in use at once" in _text(await _call({"petId": 2}, state=states[2]))
    for nonce in state_of_server().used_confirmations:  # expired entries make room
        state_of_server().used_confirmations[nonce] = time.time() - 1
    assert await _call({"petId": 2}, state=states[2]) is None
    assert len(state_of_server().used_confirmations) == 1


@pytest.mark.anyio
async def test_a_client_without_elicitation_is_refused(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_Session, "client_capabilities", types.ClientCapabilities())
    assert "the client does not support elicitation (form)" in _text(await _call({"petId": 1}))
