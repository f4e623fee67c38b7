"""A 2xx answer with an empty body is a success, whatever content the spec declared for it
(Jira's `assignIssue`, AWS IoT Events deletes: `204` with a JSON schema). Reporting an error
would tell the model that a call which worked failed, and it might repeat it."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from mcpgen.runtime import project as runtime_project
from mcpgen.runtime import settings
from mcpgen.runtime.project import Project

from .conftest import wire_tool
from .test_guarded import Recorder, call, served

__all__ = ["served"]  # a fixture, used by name

OUTPUT = {"type": "object", "properties": {"id": {"type": "integer"}, "status": {"type": "string"}}}


@pytest.mark.parametrize("status", [200, 201, 202, 204])
def test_an_empty_2xx_is_success_saying_the_api_returned_no_content(
    served: Recorder, project: Project, tmp_path: Path, status: int
) -> None:
    tools = [wire_tool("assignIssue", output=OUTPUT), wire_tool("deleteThing")]
    entries = [{"tool": tool, "wrapsResult": False, "http": {"path": "/" + tool["name"]}} for tool in tools]
    (tmp_path / project.package / "tools.json").write_text(json.dumps(entries))
    runtime_project.install(dataclasses.replace(runtime_project.current()))
    settings._parsed.clear()
    served.answers = {"/assignIssue": (status, "application/json", b""), "/deleteThing": (status, "", b"")}

    typed = call("assignIssue")
    assert not typed.is_error, typed
    assert typed.structured_content == {}  # what the outputSchema accepts: clients check it
    assert "the API returned no content" in typed.content[0].text  # type: ignore[union-attr]
    assert typed.content[0].text.startswith(f"HTTP {status} ")  # type: ignore[union-attr]
    untyped = call("deleteThing")
    assert not untyped.is_error and untyped.structured_content is None
    assert "the API returned no content" in untyped.content[0].text  # type: ignore[union-attr]
    assert [path for path, _ in served.sent] == ["/assignIssue", "/deleteThing"]  # sent once each
