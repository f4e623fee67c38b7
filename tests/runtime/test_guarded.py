"""`guarded`: every request that reaches the upstream or the user's code (tools/call, dynamic
mode's meta tools, resources/read for HTTP- and function-bound resources, prompts/get,
completion/complete) is access-checked, validated, rate-limited, cleaned and audited alike.

The handlers are called as the SDK calls them; `upstream.send` is replaced by a recorder
that answers from a table, so a test sees exactly which reads reached the upstream."""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
import httpx2
import pytest
from mcp import MCPError, types

from mcpgen.runtime import app, audit, completion, guarded, prompts, resources, settings, state, upstream
from mcpgen.runtime import project as runtime_project
from mcpgen.runtime.project import Project

from .conftest import HOOKS, wire_tool

T = TypeVar("T")
API_KEY = "k3y-that-must-never-show"
CONTROL = "Rex\x1b[31m red\x07 bell\x00 nul\u202e evil"
STRIPPED = "Rex[31m red bell nul evil"

NOTES = f'''
import os


def note(key: str) -> str:
    if key == "boom":
        raise RuntimeError("could not log in with " + os.environ["PETSTORE_API_KEY"])
    if key == "gone":
        raise KeyError(key)
    return "note " + key + " " + {CONTROL!r} + " " + os.environ["PETSTORE_API_KEY"]


def greet(who: str) -> str:
    return "Hello " + who + " " + os.environ["PETSTORE_API_KEY"] + "\\x07"
'''

COMPLETE = '''

def complete(ref: str, argument: str, value: str, context: dict[str, str]) -> list[str] | None:
    import os

    if argument == "secret":
        return ["the key " + os.environ["PETSTORE_API_KEY"] + "\\x00"]
    return None
'''

RESOURCES = [
    {
        "name": "getPet", "uriTemplate": "petstore://pet/{petId}", "pattern": "petstore://pet/([^/?#]+)",
        "variables": ["petId"], "completions": {"petId": ["1", "2"]},
        "schemas": {"petId": {"type": "integer", "minimum": 1}},
        "description": "A pet", "mimeType": "application/json", "readOnly": True, "http": {"path": "/pet/{petId}"},
    },
    {  # a route rule's resource: no tool of that name
        "name": "getInventory", "uri": "petstore://store/inventory", "description": "Inventory",
        "readOnly": True, "http": {"path": "/store/inventory"},
    },
    {  # a GET whose override says it is not read-only
        "name": "touchStore", "uri": "petstore://store/touch", "description": "Touch", "readOnly": False,
        "http": {"path": "/store/touch"},
    },
    {
        "name": "note", "uriTemplate": "petstore://notes/{key}", "pattern": "petstore://notes/([^/?#]+)",
        "variables": ["key"], "completions": {}, "description": "A note", "mimeType": "text/plain",
        "readOnly": True, "call": [".notes", "note", False],
    },
]

PROMPTS = [
    {"prompt": {"name": "greet", "arguments": [{"name": "who", "required": True}]}, "messages": [],
     "call": [".notes", "greet", False]},
    {"prompt": {"name": "plain", "arguments": [{"name": "who"}]},
     "messages": [{"role": "user", "text": "Hi {who}"}], "call": None},
]


class Recorder:
    """Stands in for `upstream.send`: records (path, arguments), answers from `answers`."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self.answers: dict[str, tuple[int, str, bytes]] = {}

    async def __call__(self, route: dict[str, Any], arguments: dict[str, Any], client: Any = None) -> httpx2.Response:
        path = route.get("path", "/")
        for name, value in arguments.items():
            path = path.replace("{" + name + "}", str(value))
        self.sent.append((path, dict(arguments)))
        status, media, body = self.answers.get(path, (200, "application/json", json.dumps({"path": path}).encode()))
        return httpx2.Response(status, headers={"content-type": media}, content=body)


class AuditLines(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[dict[str, Any]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(json.loads(record.getMessage()))


@pytest.fixture
def served(project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Recorder:
    """The `project` package with tools that call the upstream, resources, prompts and a
    completer; a recorder for the upstream, audit lines captured, fresh buckets."""
    package = tmp_path / project.package
    tools = [wire_tool("getPet", read_only=True), wire_tool("addPet"), wire_tool("describe_tool", read_only=True)]
    entries = [{"tool": tool, "wrapsResult": False, "http": {"path": "/" + tool["name"]}} for tool in tools]
    (package / "tools.json").write_text(json.dumps(entries))
    (package / "resources.json").write_text(json.dumps(RESOURCES))
    (package / "prompts.json").write_text(json.dumps(PROMPTS))
    (package / "notes.py").write_text(NOTES)
    (package / "hooks.py").write_text(HOOKS + COMPLETE)
    runtime_project.install(dataclasses.replace(project, has_resources=True, has_prompts=True))
    monkeypatch.setenv("PETSTORE_API_KEY", API_KEY)
    monkeypatch.setenv("PETSTORE_BASE_URL", "http://127.0.0.1:9/api")
    monkeypatch.setattr(state, "_state", [state.ServerState()])
    monkeypatch.setattr(settings, "_base_url_flag", [])
    settings._parsed.clear()
    recorder = Recorder()
    monkeypatch.setattr(upstream, "send", recorder)
    return recorder


@pytest.fixture
def lines(served: Recorder, monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    handler = AuditLines()
    logger = logging.getLogger("test_guarded.audit")
    logger.handlers[:] = [handler]
    logger.propagate = False
    logger.setLevel(logging.INFO)
    monkeypatch.setattr(audit, "_logger", lambda: logger)
    return handler.lines


def run(work: Callable[[], Awaitable[T]]) -> T:
    return anyio.run(work)


def read(uri: str) -> types.ReadResourceResult:
    params = types.ReadResourceRequestParams(uri=uri)
    return run(lambda: resources.read_resource(None, params))  # type: ignore[arg-type]  # no context needed


def read_error(uri: str) -> MCPError:
    with pytest.raises(MCPError) as caught:
        read(uri)
    return caught.value


def text(result: types.ReadResourceResult) -> str:
    (content,) = result.contents
    assert isinstance(content, types.TextResourceContents)
    return content.text


def call(name: str, arguments: dict[str, Any] | None = None) -> types.CallToolResult:
    params = types.CallToolRequestParams(name=name, arguments=arguments or {})
    return run(lambda: app.call_tool(None, params))  # type: ignore[arg-type]


def listed_templates() -> list[str]:
    found = run(lambda: resources.list_resource_templates(None, None))  # type: ignore[arg-type]
    return [t.uri_template for t in found.resource_templates]


def listed_resources() -> list[str]:
    found = run(lambda: resources.list_resources(None, None))  # type: ignore[arg-type]
    return [str(r.uri) for r in found.resources]


def complete(ref: types.PromptReference | types.ResourceTemplateReference, argument: str) -> types.CompleteResult:
    params = types.CompleteRequestParams(ref=ref, argument=types.CompletionArgument(name=argument, value=""))
    return run(lambda: completion.complete(None, params))  # type: ignore[arg-type]


def get_prompt(name: str, arguments: dict[str, str]) -> types.GetPromptResult:
    params = types.GetPromptRequestParams(name=name, arguments=arguments)
    return run(lambda: prompts.get_prompt(None, params))  # type: ignore[arg-type]


# -- resources: access -----------------------------------------------------------


def test_a_read_goes_upstream_and_writes_an_audit_line(served: Recorder, lines: list[dict[str, Any]]) -> None:
    assert json.loads(text(read("petstore://pet/7"))) == {"path": "/pet/7"}
    assert served.sent == [("/pet/7", {"petId": 7})]  # typed as the parameter schema says
    (line,) = lines
    assert (line["event"], line["kind"], line["resource"], line["uri"]) == (
        "resource_read", "resource", "getPet", "petstore://pet/7"
    )
    assert (line["outcome"], line["arguments"]) == ("ok", {"petId": "7"})


def test_denied_resource_is_hidden_and_refused(
    served: Recorder, lines: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PETSTORE_TOOLS_DENY", "getPet, getInventory")
    error = read_error("petstore://pet/1")
    assert error.code == resources.RESOURCE_NOT_FOUND
    assert error.message == "Resource not found: petstore://pet/1 (resource template 'getPet' is in PETSTORE_TOOLS_DENY)"
    assert read_error("petstore://store/inventory").code == resources.RESOURCE_NOT_FOUND
    assert served.sent == []
    assert "petstore://pet/{petId}" not in listed_templates()
    assert "petstore://store/inventory" not in listed_resources()
    assert [line["outcome"] for line in lines] == ["refused", "refused"]
    # The operation's tool and its resource share the name: one pattern hides both.
    with pytest.raises(MCPError, match="Unknown tool: getPet"):
        call("getPet")


def test_allow_list_addresses_resources_by_name(served: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_TOOLS_ALLOW", "getInventory")  # no tool has that name: a resource's is valid
    assert read("petstore://store/inventory").contents
    assert "not in PETSTORE_TOOLS_ALLOW" in read_error("petstore://notes/a").message
    assert listed_resources() == ["petstore://store/inventory"]


def test_read_only_keeps_resources_whose_operation_is_read_only(
    served: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PETSTORE_READ_ONLY", "1")
    assert read("petstore://pet/1").contents and read("petstore://notes/a").contents
    error = read_error("petstore://store/touch")
    assert "resource 'touchStore' is not read-only and this server runs with PETSTORE_READ_ONLY=1" in error.message
    assert served.sent == [("/pet/1", {"petId": 1})]


def test_unknown_resource_is_refused_and_audited(served: Recorder, lines: list[dict[str, Any]]) -> None:
    error = read_error("petstore://nowhere/1")
    assert (error.code, error.message) == (resources.RESOURCE_NOT_FOUND, "Resource not found: petstore://nowhere/1")
    assert [(line["resource"], line["uri"], line["outcome"]) for line in lines] == [
        (None, "petstore://nowhere/1", "refused")
    ]


# -- resources: rate limits --------------------------------------------------------


def test_per_entry_limit_stops_reads(
    served: Recorder, lines: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PETSTORE_RATE_LIMIT_GETINVENTORY", "1/h burst 1")  # a resource-only name is valid
    assert read("petstore://store/inventory").contents
    error = read_error("petstore://store/inventory")
    assert error.code == guarded.RATE_LIMITED
    assert error.message.startswith("Rate limit reached (1/h burst 1 set by PETSTORE_RATE_LIMIT_GETINVENTORY)")
    assert len(served.sent) == 1
    assert [line["outcome"] for line in lines] == ["ok", "rate_limited"]


def test_a_tool_and_its_resource_share_one_bucket(served: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_RATE_LIMIT_GETPET", "1/h burst 1")
    assert not call("getPet").is_error
    assert read_error("petstore://pet/1").code == guarded.RATE_LIMITED
    assert [path for path, _ in served.sent] == ["/getPet"]


def test_server_wide_limit_counts_every_kind(served: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_RATE_LIMIT", "1/h burst 4")
    assert not call("addPet").is_error
    assert read("petstore://notes/a").contents
    assert get_prompt("plain", {"who": "x"}).messages
    assert complete(types.PromptReference(type="ref/prompt", name="plain"), "who").completion.values == []
    for refused in (
        lambda: read("petstore://pet/1"),
        lambda: get_prompt("plain", {"who": "x"}),
        lambda: complete(types.PromptReference(type="ref/prompt", name="plain"), "who"),
    ):
        with pytest.raises(MCPError) as caught:
            refused()
        assert caught.value.code == guarded.RATE_LIMITED and "PETSTORE_RATE_LIMIT)" in caught.value.message
    assert "Rate limit reached" in call("getPet").content[0].text  # type: ignore[union-attr]
    assert [path for path, _ in served.sent] == ["/addPet"]


# -- resources: input validation ---------------------------------------------------------


@pytest.mark.parametrize(
    ("uri", "problem"),
    [
        ("petstore://pet/abc", "petId: 'abc' is not of type 'integer'"),
        ("petstore://pet/0", "petId: 0 is less than the minimum of 1"),
        ("petstore://pet/1.5", "petId: 1.5 is not of type 'integer'"),
        ("petstore://pet/true", "petId: True is not of type 'integer'"),
    ],
)
def test_bad_template_variable_is_invalid_params_and_sends_nothing(
    served: Recorder, lines: list[dict[str, Any]], uri: str, problem: str
) -> None:
    error = read_error(uri)
    assert error.code == types.INVALID_PARAMS
    assert error.message == f"Invalid resource URI {uri}:\n{problem}"
    assert served.sent == []
    assert [line["outcome"] for line in lines] == ["error"]


def test_variables_without_a_schema_take_any_string(served: Recorder) -> None:
    assert text(read("petstore://notes/a%20b")).startswith("note a b ")


# -- resources: cleaning ------------------------------------------------------------------


def test_echoed_secret_is_redacted_in_the_error_message(served: Recorder) -> None:
    echoed = json.dumps({"message": "invalid credentials", "headers": {"X-Token": API_KEY}})
    served.answers["/pet/13"] = (401, "application/json", echoed.encode())
    served.answers["/pet/15"] = (500, "text/plain", f"failed for {API_KEY}: {CONTROL}".encode())
    error = read_error("petstore://pet/13")
    assert (error.code, error.message) == (
        types.INTERNAL_ERROR,
        'HTTP 401 Unauthorized: {"message": "invalid credentials", "headers": {"X-Token": "[redacted]"}}',
    )
    error = read_error("petstore://pet/15")
    assert error.message == f"HTTP 500 Internal Server Error: failed for [redacted]: {STRIPPED}"


def test_text_contents_are_redacted_and_stripped(served: Recorder) -> None:
    served.answers["/pet/14"] = (200, "application/json", json.dumps({"name": CONTROL, "key": API_KEY}).encode())
    shown = text(read("petstore://pet/14"))
    assert json.loads(shown) == {"name": STRIPPED, "key": "[redacted]"}


def test_function_bound_resource_is_cleaned(served: Recorder, lines: list[dict[str, Any]]) -> None:
    assert text(read("petstore://notes/a")) == f"note a {STRIPPED} [redacted]"
    failed = read_error("petstore://notes/boom")
    assert failed.code == types.INTERNAL_ERROR
    assert failed.message == "Reading petstore://notes/boom failed: RuntimeError: could not log in with [redacted]"
    assert read_error("petstore://notes/gone").code == resources.RESOURCE_NOT_FOUND
    assert [line["outcome"] for line in lines] == ["ok", "error", "error"]
    assert API_KEY not in json.dumps(lines)


# -- prompts and completions ---------------------------------------------------------------


def test_function_bound_prompt_is_cleaned_and_audited(served: Recorder, lines: list[dict[str, Any]]) -> None:
    result = get_prompt("greet", {"who": "Ann\x1b"})
    assert result.messages[0].content.text == "Hello Ann [redacted]"  # type: ignore[union-attr]
    with pytest.raises(MCPError, match="missing required argument 'who'") as caught:
        get_prompt("greet", {})
    assert caught.value.code == types.INVALID_PARAMS
    with pytest.raises(MCPError, match="Unknown prompt: nope"):
        get_prompt("nope", {})
    assert [(line["event"], line["prompt"], line["outcome"]) for line in lines] == [
        ("prompt_get", "greet", "ok"), ("prompt_get", "greet", "error"), ("prompt_get", "nope", "refused")
    ]


def test_completion_hook_values_are_cleaned_and_audited(served: Recorder, lines: list[dict[str, Any]]) -> None:
    done = complete(types.PromptReference(type="ref/prompt", name="plain"), "secret")
    assert done.completion.values == ["the key [redacted]"]
    (line,) = lines
    assert (line["event"], line["kind"], line["completion"], line["outcome"]) == (
        "completion", "completion", "plain", "ok"
    )


def test_hidden_template_is_not_completed(served: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    ref = types.ResourceTemplateReference(type="ref/resource", uri="petstore://pet/{petId}")
    assert complete(ref, "petId").completion.values == ["1", "2"]
    monkeypatch.setenv("PETSTORE_TOOLS_DENY", "getPet")
    with pytest.raises(MCPError, match="No prompt or resource template"):
        complete(ref, "petId")


# -- tools -------------------------------------------------------------------------------------


def test_tool_errors_are_cleaned_and_audited_with_their_kind(served: Recorder, lines: list[dict[str, Any]]) -> None:
    with pytest.raises(MCPError) as caught:
        call(f"nope\x1b[2J{API_KEY}")
    assert caught.value.message == "Unknown tool: nope[2J[redacted]"
    assert not call("getPet").is_error
    assert [(line["event"], line["kind"], line["outcome"]) for line in lines] == [
        ("tool_call", "tool", "refused"), ("tool_call", "tool", "ok")
    ]
    assert [line["tool"] for line in lines] == ["nope[2J[redacted]", "getPet"]


# -- dynamic mode: meta tools are addressed like tools ------------------------------------------


@pytest.fixture
def dynamic(served: Recorder, project: Project) -> Recorder:
    installed = runtime_project.current()
    runtime_project.install(dataclasses.replace(installed, tool_mode="dynamic"))
    settings._parsed.clear()
    return served


def listed_tools() -> list[str]:
    found = run(lambda: app.list_tools(None, None))  # type: ignore[arg-type]
    return [tool["name"] for tool in found["tools"]]


def test_denying_a_meta_tool_hides_it(dynamic: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    assert listed_tools() == ["search_tools", "describe_tool", "call_tool"]
    monkeypatch.setenv("PETSTORE_TOOLS_DENY", "describe_tool")
    assert listed_tools() == ["search_tools", "call_tool"]
    with pytest.raises(MCPError) as caught:
        call("describe_tool", {"name": "getPet"})
    assert caught.value.code == types.INVALID_PARAMS
    assert caught.value.message == "Unknown tool: describe_tool (meta tool 'describe_tool' is in PETSTORE_TOOLS_DENY)"
    # The catalogue's operation of that name is denied by the same pattern.
    hidden = call("call_tool", {"name": "describe_tool", "arguments": {}})
    assert hidden.is_error and "Unknown tool: describe_tool" in hidden.content[0].text  # type: ignore[union-attr]
    assert not call("call_tool", {"name": "getPet", "arguments": {}}).is_error
    assert [path for path, _ in dynamic.sent] == ["/getPet"]


def test_meta_tool_names_are_valid_patterns_and_limits(dynamic: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_TOOLS_ALLOW", "search_tools, call_tool, getPet")
    monkeypatch.setenv("PETSTORE_RATE_LIMIT_CALL_TOOL", "1/h burst 1")
    assert listed_tools() == ["search_tools", "call_tool"]
    assert not call("call_tool", {"name": "getPet", "arguments": {}}).is_error
    limited = call("call_tool", {"name": "getPet", "arguments": {}})
    assert "PETSTORE_RATE_LIMIT_CALL_TOOL" in limited.content[0].text  # type: ignore[union-attr]
    refused = call("call_tool", {"name": "addPet", "arguments": {}})  # not in the allow list
    assert refused.is_error and len(dynamic.sent) == 1


def test_read_only_leaves_meta_tools_and_checks_their_targets(
    dynamic: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PETSTORE_READ_ONLY", "1")
    assert listed_tools() == ["search_tools", "describe_tool", "call_tool"]
    assert call("call_tool", {"name": "addPet", "arguments": {}}).is_error
    assert not call("call_tool", {"name": "getPet", "arguments": {}}).is_error
    assert [path for path, _ in dynamic.sent] == ["/getPet"]


def test_meta_tool_call_is_one_audit_line(dynamic: Recorder, lines: list[dict[str, Any]]) -> None:
    call("call_tool", {"name": "getPet", "arguments": {}})
    assert [(line["tool"], line["outcome"], line["upstream_status"]) for line in lines] == [("call_tool", "ok", None)]
