"""Contract tests: every tool called in-process against a stub upstream.

The arguments are synthesised from each tool's inputSchema and the stub's answers from
its outputSchema (spec examples first); both live in `tool_cases.json`. A tool whose
arguments could not be synthesised with confidence (a `pattern` without an example, ...)
is still checked by tools/list and by the invalid-arguments test.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from mcp import Client

from petstore_mcp.catalog import tool_table

from .conftest import DATA, ENV_PREFIX, TOOL_CASES, case_id, text_of
from .stub_upstream import StubUpstream

pytestmark = pytest.mark.anyio

CALLABLE = [
    c for c in TOOL_CASES.values() if c["arguments"] is not None and c["response"] is not None
]
REJECTED = [c for c in TOOL_CASES.values() if c["invalidArguments"] is not None]


@pytest.fixture(scope="module")
def stub_server() -> Iterator[StubUpstream]:
    upstream = StubUpstream()
    upstream.start()
    yield upstream
    upstream.stop()


@pytest.fixture
def stub(stub_server: StubUpstream, monkeypatch: pytest.MonkeyPatch) -> StubUpstream:
    """The stub as the server's upstream, with every credential set; no requests yet."""
    monkeypatch.setenv(f"{ENV_PREFIX}_BASE_URL", stub_server.origin)
    monkeypatch.setenv(f"{ENV_PREFIX}_TIMEOUT", "30")
    monkeypatch.delenv(f"{ENV_PREFIX}_RATE_LIMIT", raising=False)
    for name, value in DATA["credentials"].items():
        monkeypatch.setenv(name, value)
    stub_server.requests.clear()
    return stub_server


def route_pattern(path: str) -> re.Pattern[str]:
    """`/pet/{petId}` -> a pattern for the request path the server may send."""
    parts = re.split(r"\{[^}]*\}", path)
    return re.compile("[^/]+".join(re.escape(part) for part in parts))


@pytest.mark.parametrize("case", CALLABLE, ids=case_id)
async def test_call_reaches_its_route(
    case: dict[str, Any], stub: StubUpstream, client: Client
) -> None:
    stub.answer_with(case["response"])
    result = await client.call_tool(case["name"], case["arguments"])  # checks outputSchema too
    assert not result.is_error, text_of(result)
    [request] = stub.requests
    assert request.method == case["http"]["method"].upper()
    assert route_pattern(case["http"]["path"]).fullmatch(request.path), request.path
    entry = tool_table()[case["name"]]
    if "json" in case["response"] and "outputSchema" in entry["tool"]:
        body = case["response"]["json"]
        assert result.structured_content == ({"result": body} if entry["wrapsResult"] else body)


@pytest.mark.parametrize("status", [400, 404])
@pytest.mark.parametrize("case", CALLABLE, ids=case_id)
async def test_upstream_4xx_is_a_tool_error(
    case: dict[str, Any], status: int, stub: StubUpstream, client: Client
) -> None:
    stub.answer_with(
        {"status": status, "contentType": "application/json", "json": {"message": "stub"}}
    )
    result = await client.call_tool(case["name"], case["arguments"])
    assert result.is_error
    assert str(status) in text_of(result)
    assert len(stub.requests) == 1


@pytest.mark.parametrize("case", REJECTED, ids=case_id)
async def test_invalid_arguments_never_reach_the_upstream(
    case: dict[str, Any], stub: StubUpstream, client: Client
) -> None:
    result = await client.call_tool(case["name"], case["invalidArguments"])
    assert result.is_error
    assert stub.requests == []
