"""What `ListedTools` relies on: every generated tool (each sample's `tools.json`, and GitHub's)
is sent as it is by the SDK's own tools/list path in every protocol version, so the server may
send it without the SDK re-validating and re-dumping it on every request."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp_types import methods
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS

from tests.golden.cases import CASES, Case

GOLDEN = Path(__file__).parent
FIELDS = {"resultType": "complete", "ttlMs": 0, "cacheScope": "public"}  # what 2026-07-28 requires


def _tools(case: Case) -> list[dict[str, object]]:
    (listed,) = (GOLDEN / case.name / "src").glob("*/tools.json")
    return [entry["tool"] for entry in json.loads(listed.read_text("utf-8"))]


@pytest.mark.parametrize("version", KNOWN_PROTOCOL_VERSIONS)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_sdk_sends_generated_tools_as_they_are(case: Case, version: str) -> None:
    tools = _tools(case)
    assert tools
    sent = methods.serialize_server_result("tools/list", version, {"tools": tools, **FIELDS})
    assert sent["tools"] == tools
