"""The confirmation of an OpenAPI call (runtime/confirm.py): what the user is shown, which
answers confirm, and the refusal's how-to-enable text. End to end: tests/e2e/test_confirm.py."""

from __future__ import annotations

import pytest
from mcp import types

from mcpgen.runtime import confirm
from mcpgen.runtime.project import Project

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
