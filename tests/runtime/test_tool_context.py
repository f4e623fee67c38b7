"""The request's Context for Python tools (runtime/tool_context.py, functions.context_parameter),
served in-process by `app.server()` to `mcp.Client` in both eras."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, cast

import pytest
from mcp import Client, MCPError, types
from mcp.server.mcpserver import Context
from pydantic import BaseModel

from mcpgen.runtime import app, functions, settings
from mcpgen.runtime import project as runtime_project
from mcpgen.runtime.project import Project

from .conftest import HOOKS

pytestmark = pytest.mark.anyio

SECRET = "ctx-secret-value-0123456789"
MODULE = '''
from mcp.server.mcpserver import Context
from pydantic import BaseModel


class Answer(BaseModel):
    word: str


async def steps(n: int, ctx: Context) -> int:
    for i in range(n):
        await ctx.report_progress(i + 1, n)
    return n


async def logs(ctx: Context) -> str:
    await ctx.debug("d")
    await ctx.info("i")
    await ctx.error({"key": "SECRET"})
    return "ok"


async def ask(ctx: Context) -> str:
    answer = await ctx.elicit("Word? SECRET", Answer)
    try:
        second = await ctx.elicit("Again?", Answer)
    except Exception:  # what user code may do: the round trip is not an Exception
        return "swallowed"
    if answer.action != "accept" or second.action != "accept":
        return answer.action
    return answer.data.word + second.data.word


async def link(ctx: Context) -> str:
    answer = await ctx.elicit_url("Sign in SECRET", "https://example.com/sign-in", "e-1")
    return answer.action


async def read(ctx: Context) -> str:
    await ctx.read_resource("x://nothing")
    return "read"
'''.replace("SECRET", SECRET)


def _tool(name: str, properties: dict[str, Any]) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties, "additionalProperties": False}
    return {"tool": {"name": name, "description": name, "inputSchema": schema}, "wrapsResult": False}


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Project]:
    name = f"ctx_{tmp_path.name.replace('-', '_').lower()}"
    package = tmp_path / name
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "hooks.py").write_text(HOOKS)
    (package / "custom_tools.py").write_text("")
    (package / "tools_source.py").write_text(MODULE)
    tools = [_tool("steps", {"n": {"type": "integer"}}), _tool("logs", {}), _tool("ask", {}), _tool("read", {}),
             _tool("link", {})]
    (package / "tools.json").write_text(json.dumps(tools))
    monkeypatch.syspath_prepend(str(tmp_path))
    for variable in [v for v in os.environ if v.startswith("CTX_")]:
        monkeypatch.delenv(variable)
    monkeypatch.setenv("CTX_API_SECRET", SECRET)
    installed = Project(
        package=name, name="ctx", title="Ctx", version="1", command="ctx-mcp", env_prefix="CTX", source="python",
        functions={tool: (".tools_source", tool, True) for tool in ("steps", "logs", "ask", "read", "link")},
        context_tools=("steps", "logs", "ask", "read", "link"),
    )
    runtime_project.install(installed)
    settings._parsed.clear()
    yield installed
    settings._parsed.clear()
    sys.modules.pop(f"{name}.tools_source", None)


def test_context_parameter_follows_mcpservers_rule() -> None:
    def hints(annotation: Any) -> dict[str, Any]:
        return {"x": int, "ctx": annotation, "return": str}

    class Mine(Context):  # type: ignore[type-arg]
        pass

    assert functions.context_parameter(hints(Context)) == "ctx"
    assert functions.context_parameter(hints(Context[Any, Any])) == "ctx"
    assert functions.context_parameter(hints(Context | None)) == "ctx"
    assert functions.context_parameter(hints(Annotated[Context, "doc"])) == "ctx"
    assert functions.context_parameter(hints(Mine)) == "ctx"
    assert functions.context_parameter(hints(BaseModel)) is None
    assert functions.context_parameter({"return": Context}) is None


async def test_logging_is_declared_and_set_level_filters(served: Project) -> None:
    logged: list[tuple[str, Any]] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logged.append((params.level, params.data))

    async with Client(app.server(), mode="legacy", cache=None, logging_callback=on_log) as client:
        assert client.session.protocol_version == "2025-11-25"
        capabilities = client.server_capabilities
        assert capabilities is not None and capabilities.logging is not None
        assert (await client.call_tool("logs", {})).content[0].text == "ok"  # type: ignore[union-attr]
        assert logged == [("debug", "d"), ("info", "i"), ("error", {"key": "[redacted]"})]
        logged.clear()
        await client.set_logging_level("info")
        await client.call_tool("logs", {})
        assert logged == [("info", "i"), ("error", {"key": "[redacted]"})]


async def test_no_logging_capability_without_context_tools(served: Project) -> None:
    runtime_project.install(Project(**{**_fields(served), "context_tools": ()}))
    async with Client(app.server(), mode="legacy", cache=None) as client:
        capabilities = client.server_capabilities
        assert capabilities is not None and capabilities.logging is None


def _fields(project: Project) -> dict[str, Any]:
    return {name: getattr(project, name) for name in Project.__dataclass_fields__}


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_progress_reaches_the_caller(served: Project, mode: str) -> None:
    seen: list[tuple[float, float | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total))

    async with Client(app.server(), mode=mode, cache=None) as client:  # type: ignore[arg-type]
        result = await client.call_tool("steps", {"n": 2}, progress_callback=on_progress)
        assert result.content[0].text == "2"  # type: ignore[union-attr]
        refused = await client.call_tool("steps", {"n": 2, "ctx": None})
        assert refused.is_error  # the context is no argument: unknown ones are refused
    assert seen == [(1, 2), (2, 2)]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_elicitation_rounds(served: Project, mode: str) -> None:
    asked: list[str] = []

    async def on_elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"word": "ab" if len(asked) == 1 else "cd"})

    async with Client(app.server(), mode=mode, cache=None, elicitation_callback=on_elicit) as client:  # type: ignore[arg-type]
        result = await client.call_tool("ask", {})
    assert result.content[0].text == "abcd"  # type: ignore[union-attr]
    assert asked == ["Word? [redacted]", "Again?"]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_url_elicitation(served: Project, mode: str) -> None:
    asked: list[tuple[str, str]] = []

    async def on_elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        assert isinstance(params, types.ElicitRequestURLParams)
        asked.append((params.message, params.url))
        return types.ElicitResult(action="accept")

    async with Client(app.server(), mode=mode, cache=None, elicitation_callback=on_elicit) as client:  # type: ignore[arg-type]
        result = await client.call_tool("link", {})
    assert result.content[0].text == "accept"  # type: ignore[union-attr]
    assert asked == [("Sign in [redacted]", "https://example.com/sign-in")]


async def test_a_modern_round_is_sealed_and_bound(served: Project) -> None:
    async def on_elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="decline")

    async with Client(app.server(), cache=None, elicitation_callback=on_elicit) as client:
        first = await client.session.call_tool("ask", {}, allow_input_required=True)
        assert isinstance(first, types.InputRequiredResult)
        assert first.input_requests is not None and list(first.input_requests) == ["input-1"]
        assert first.request_state is not None and first.request_state.startswith("v1.")  # the SDK's AES-GCM token
        declined = {"input-1": types.ElicitResult(action="decline")}
        done = await client.session.call_tool(
            "ask", {}, input_responses=declined, request_state=first.request_state, allow_input_required=True
        )
        assert isinstance(done, types.InputRequiredResult)  # the second question, same call
        with pytest.raises(MCPError) as forged:
            await client.session.call_tool(
                "ask", {}, input_responses=declined, request_state=first.request_state + "x", allow_input_required=True
            )
        assert forged.value.error.message == "Invalid or expired requestState"
        # Driven to the end by the client: the first question declined.
        assert (await client.call_tool("ask", {})).content[0].text == "decline"  # type: ignore[union-attr]


async def test_without_the_capability_the_tool_sees_an_error(served: Project) -> None:
    async with Client(app.server(), cache=None) as client:
        result = await client.call_tool("ask", {})
    assert result.is_error
    assert result.content[0].text == "ClientUnsupported: the client does not support elicitation (form)"  # type: ignore[union-attr]


async def test_read_resource_without_resources(served: Project) -> None:
    async with Client(app.server(), mode="legacy", cache=None) as client:
        result = await client.call_tool("read", {})
    assert result.is_error
    assert result.content[0].text == "ResourceNotFoundError: Unknown resource: x://nothing"  # type: ignore[union-attr]


def test_settings(served: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    current = settings.current()
    assert (current.http_response, current.http_sessions, current.request_state_keys) == ("sse", False, ())
    monkeypatch.setenv("CTX_HTTP_RESPONSE", "json")
    monkeypatch.setenv("CTX_HTTP_SESSIONS", "1")
    monkeypatch.setenv("CTX_REQUEST_STATE_KEY", f"{'n' * 32}, {'o' * 40}")
    loaded = settings.load(served, os.environ)
    assert (loaded.http_response, loaded.http_sessions) == ("json", True)
    assert loaded.request_state_keys == ("n" * 32, "o" * 40)
    assert "CTX_REQUEST_STATE_KEY" in loaded.secrets  # never shown
    monkeypatch.setenv("CTX_HTTP_RESPONSE", "xml")
    monkeypatch.setenv("CTX_REQUEST_STATE_KEY", "short")
    with pytest.raises(settings.SettingsError) as bad:
        settings.load(served, os.environ)
    assert "CTX_HTTP_RESPONSE='xml': expected sse" in str(bad.value)
    assert "CTX_REQUEST_STATE_KEY: expected comma-separated keys of at least 32 characters" in str(bad.value)
    assert "short" not in str(bad.value)


class _Recording:
    """The SDK session's side of a 2025-11-25 request: records what `_Session` sends."""

    can_send_request = True
    client_capabilities = types.ClientCapabilities(
        sampling=types.SamplingCapability(), elicitation=types.ElicitationCapability()
    )

    def __init__(self) -> None:
        self.sent: list[Any] = []

    async def send_request(self, request: Any, result_type: Any, metadata: Any = None) -> Any:
        self.sent.append(metadata.related_request_id)
        return result_type.model_validate(
            {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"}
            if result_type is types.CreateMessageResult else {"action": "decline"}
        )

    async def send_log_message(self, level: str, data: Any, logger: Any = None, related_request_id: Any = None) -> None:
        self.sent.append(related_request_id)


async def test_requests_and_logs_go_on_the_calls_own_stream(served: Project) -> None:
    """User code that names no related request (`ctx.session.create_message(...)`, as MCPServer
    users write it) still sends on the call's stream: on the standalone GET stream, which the
    client may not have opened yet, the conformance suite's sampling call hung in 2 of 15 runs."""
    from mcp.server.context import ServerRequestContext

    from mcpgen.runtime import tool_context

    recording = _Recording()
    ctx = ServerRequestContext(
        session=cast(Any, recording), lifespan_context=None, protocol_version="2025-11-25", method="tools/call", request_id=7
    )
    session = tool_context.session(ctx, cast(Any, None))
    message = types.SamplingMessage(role="user", content=types.TextContent(type="text", text="q"))
    await session.create_message([message], max_tokens=5)
    await session.elicit_form("m", {"type": "object", "properties": {}})
    await session.send_log_message("error", "x")
    await session.create_message([message], max_tokens=5, related_request_id=9)  # a named one is kept
    assert recording.sent == [7, 7, 7, 9]
