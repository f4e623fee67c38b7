"""The fake Messages API that Claude Code runs against: both answer shapes, tool_use then text."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest

from .fake_model import FakeModel, tool_names, tool_results

TOOL = "mcp__petstore__getPetById"
OFFER = {"model": "claude-test", "max_tokens": 10, "tools": [{"name": TOOL, "input_schema": {"type": "object"}}]}


@pytest.fixture
def model() -> Iterator[FakeModel]:
    fake = FakeModel(reply="done", call=TOOL, call_input={"petId": 1}).start()
    yield fake
    fake.stop()


def _post(model: FakeModel, path: str, body: dict[str, Any]) -> tuple[str, bytes]:
    answer = httpx2.post(model.origin + path, json=body, headers={"x-api-key": "sk-ant-fake"}, timeout=10)
    answer.raise_for_status()
    return answer.headers["Content-Type"], answer.content


def _events(data: bytes) -> list[dict[str, Any]]:
    events = []
    for block in data.decode().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if line)
        if lines:
            event = json.loads(lines["data"])
            assert event["type"] == lines["event"]
            events.append(event)
    return events


def test_a_request_offering_the_tool_gets_a_tool_use_then_text_once_answered(model: FakeModel) -> None:
    asked = {**OFFER, "messages": [{"role": "user", "content": "pet 1?"}]}
    kind, data = _post(model, "/v1/messages", asked)
    assert kind == "application/json"
    first = json.loads(data)
    assert first["stop_reason"] == "tool_use"
    (use,) = first["content"]
    assert (use["type"], use["name"], use["input"]) == ("tool_use", TOOL, {"petId": 1})

    answered = {**OFFER, "messages": [*asked["messages"], {"role": "assistant", "content": first["content"]},
                                      {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use["id"],
                                                                    "content": "Rex"}]}]}
    second = json.loads(_post(model, "/v1/messages", answered)[1])
    assert (second["stop_reason"], second["content"]) == ("end_turn", [{"type": "text", "text": "done"}])
    assert [tool_names(body) for body in model.messages] == [[TOOL], [TOOL]]
    assert tool_results(model.messages[1])[0]["content"] == "Rex"


def test_a_streamed_answer_is_the_api_s_event_sequence(model: FakeModel) -> None:
    kind, data = _post(model, "/v1/messages", {**OFFER, "stream": True, "messages": [{"role": "user", "content": "?"}]})
    assert kind == "text/event-stream"
    events = _events(data)
    assert [e["type"] for e in events] == ["message_start", "content_block_start", "content_block_delta",
                                           "content_block_stop", "message_delta", "message_stop"]
    assert events[1]["content_block"]["type"] == "tool_use"
    assert json.loads(events[2]["delta"]["partial_json"]) == {"petId": 1}
    assert events[4]["delta"]["stop_reason"] == "tool_use"

    text = _events(_post(model, "/v1/messages", {"stream": True, "messages": []})[1])
    assert text[2]["delta"] == {"type": "text_delta", "text": "done"}


def test_count_tokens_answers_and_other_paths_are_404(model: FakeModel) -> None:
    assert "input_tokens" in json.loads(_post(model, "/v1/messages/count_tokens", OFFER)[1])
    with pytest.raises(httpx2.HTTPStatusError) as refused:
        _post(model, "/v1/complete", {})
    assert refused.value.response.status_code == 404
    model.reset()
    assert model.messages == [] and model.requests == []
