"""Drive a generated MCP server through one agent framework's own MCP client and print what it made of the tools.

    python agent_driver.py FRAMEWORK PLAN.json -- COMMAND [ARG...]

FRAMEWORK is openai-agents, google-adk, pydantic-ai or langchain; run it with the python of the
framework's venv (tests/clients/agent_frameworks.py): this file imports only the framework, `mcp`
and the standard library, never mcpgen. The server is spawned over stdio by the framework, with
this process's environment. PLAN.json: `{"call": {"name": ..., "arguments": {...}}}`.

The tools are listed as the framework lists them (google-adk's McpToolset reads one page), each
tool's name and inputSchema is converted by the framework's own code, per declaration path:

- openai-agents: `MCPUtil.to_function_tool` strict (`MCPServerStdio`; `ensure_strict_json_schema`, with its
  fallback to non-strict) and non-strict;
- google-adk (`McpToolset`): `McpTool._get_declaration` with JSON_SCHEMA_FOR_FUNC_DECL off (`_to_gemini_schema`:
  a Gemini `Schema`) and on (its default in 2.13: `parameters_json_schema`, the inputSchema as served);
- pydantic-ai (`MCPToolset` over fastmcp's stdio transport): the OpenAI (strict), Anthropic and Google profiles' schema transformers, as its
  models apply them to a tool definition;
- langchain (`load_mcp_tools`): the tool's args schema as `convert_to_openai_tool` gives it to a model.

One call goes through the framework's tool object. The report, one JSON line on stdout:
`{"framework", "listed": [names], "paths": {path: {name: {"schema"|"error", "strict", "kind"}}},
"call": {"ok", "isError", "text", "error"}}`; `kind` is "json" (JSON Schema) or "gemini" (a Gemini
`Schema` dumped with its field names).
"""

from __future__ import annotations

import asyncio
import copy
import json
import logging
import os
import sys
from typing import Any

TIMEOUT = 300.0


def _gemini(schema: Any) -> Any:
    return schema.model_dump(mode="json", exclude_none=True) if schema is not None else None


def _entry(schema: Any, kind: str = "json", strict: bool | None = None) -> dict[str, Any]:
    return {"schema": schema, "kind": kind, "strict": strict}


def _failed(error: BaseException) -> dict[str, Any]:
    return {"error": f"{type(error).__name__}: {str(error)[:300]}"}


def _text(result: Any) -> str:
    if isinstance(result, str):
        return result[:500]
    content = getattr(result, "content", None)
    if isinstance(content, list):
        return " ".join(getattr(c, "text", "") or "" for c in content)[:500]
    return json.dumps(result, default=str)[:500]


def _strict_error(tool: Any) -> str:
    """Why openai-agents fell back to non-strict: what `ensure_strict_json_schema` raised."""
    from agents.strict_schema import ensure_strict_json_schema

    schema = copy.deepcopy(tool.input_schema)
    schema.setdefault("properties", {})
    try:
        ensure_strict_json_schema(schema, _reject_open_objects=True)
    except Exception as error:  # noqa: BLE001
        return f"{type(error).__name__}: {str(error)[:200]}"
    return "(no error on a second try)"


async def openai_agents(command: list[str], call: dict[str, Any]) -> dict[str, Any]:
    from agents.mcp import MCPServerStdio, MCPUtil
    from agents.tool_context import ToolContext

    params = {"command": command[0], "args": command[1:], "env": dict(os.environ)}
    async with MCPServerStdio(params, client_session_timeout_seconds=TIMEOUT, name="server") as server:
        tools = await server.list_tools()
        paths: dict[str, dict[str, Any]] = {"openai-agents-strict": {}, "openai-agents": {}}
        made: dict[str, Any] = {}
        for tool in tools:
            for path, strict in (("openai-agents-strict", True), ("openai-agents", False)):
                try:
                    function = MCPUtil.to_function_tool(tool, server, strict)
                    paths[path][tool.name] = _entry(function.params_json_schema, strict=function.strict_json_schema)
                    if strict and not function.strict_json_schema:
                        paths[path][tool.name]["strict_error"] = _strict_error(tool)
                    made.setdefault(tool.name, function)
                except Exception as error:  # noqa: BLE001 - reported per tool
                    paths[path][tool.name] = _failed(error)
        result: dict[str, Any] = {"listed": [t.name for t in tools], "paths": paths}
        function = made.get(call["name"])
        if function is not None:
            arguments = json.dumps(call["arguments"])
            context = ToolContext(context=None, tool_name=call["name"], tool_call_id="call-1", tool_arguments=arguments)
            try:
                out = await function.on_invoke_tool(context, arguments)
                result["call"] = {"ok": True, "text": _text(out), "error": None}
            except Exception as error:  # noqa: BLE001
                result["call"] = {"ok": False, "text": "", **_failed(error)}
        return result


async def google_adk(command: list[str], call: dict[str, Any]) -> dict[str, Any]:
    from google.adk.features._feature_registry import FeatureName, temporary_feature_override
    from google.adk.tools.mcp_tool.mcp_session_manager import StdioConnectionParams
    from google.adk.tools.mcp_tool.mcp_toolset import McpToolset
    from mcp import StdioServerParameters

    server = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    toolset = McpToolset(connection_params=StdioConnectionParams(server_params=server, timeout=TIMEOUT))
    try:
        tools = await toolset.get_tools()
        paths: dict[str, dict[str, Any]] = {"google-adk": {}, "google-adk-json": {}}
        for tool in tools:
            try:
                with temporary_feature_override(FeatureName.JSON_SCHEMA_FOR_FUNC_DECL, False):
                    legacy = tool._get_declaration()
                paths["google-adk"][tool.name] = _entry(_gemini(legacy.parameters), "gemini")
            except Exception as error:  # noqa: BLE001
                paths["google-adk"][tool.name] = _failed(error)
            try:
                with temporary_feature_override(FeatureName.JSON_SCHEMA_FOR_FUNC_DECL, True):
                    declaration = tool._get_declaration()
                paths["google-adk-json"][tool.name] = _entry(declaration.parameters_json_schema)
            except Exception as error:  # noqa: BLE001
                paths["google-adk-json"][tool.name] = _failed(error)
        result: dict[str, Any] = {"listed": [t.name for t in tools], "paths": paths}
        found = [t for t in tools if t.name == call["name"]]
        if found:
            try:
                out = await found[0]._run_async_impl(args=call["arguments"], tool_context=None, credential=None)
                is_error = bool(out.get("isError")) if isinstance(out, dict) else None
                result["call"] = {"ok": True, "isError": is_error, "text": _text(out), "error": None}
            except Exception as error:  # noqa: BLE001
                result["call"] = {"ok": False, "text": "", **_failed(error)}
        return result
    finally:
        await toolset.close()


def _pydantic_ai_transformers() -> dict[str, tuple[Any, bool | None]]:
    """The schema transformers pydantic-ai's providers give their models (OpenAIProvider.model_profile...)."""
    from pydantic_ai.providers.anthropic import AnthropicProvider
    from pydantic_ai.providers.google import GoogleProvider
    from pydantic_ai.providers.openai import OpenAIProvider

    openai = OpenAIProvider.model_profile("gpt-5")["json_schema_transformer"]
    anthropic = AnthropicProvider.model_profile("claude-sonnet-4-5")["json_schema_transformer"]
    google = GoogleProvider.model_profile("gemini-2.5-pro")["json_schema_transformer"]
    return {
        "pydantic-ai-openai-strict": (openai, True),  # a tool marked strict=True
        "pydantic-ai-openai": (openai, None),  # strict inferred (is_strict_compatible), as by default
        "pydantic-ai-anthropic": (anthropic, None),
        "pydantic-ai-google": (google, None),
    }


async def pydantic_ai(command: list[str], call: dict[str, Any]) -> dict[str, Any]:
    from fastmcp.client.transports import StdioTransport
    from pydantic_ai.mcp import MCPToolset
    from pydantic_ai.models import _customize_tool_def
    from pydantic_ai.tools import ToolDefinition

    transformers = _pydantic_ai_transformers()
    transport = StdioTransport(command[0], command[1:], env=dict(os.environ))
    server = MCPToolset(transport, tool_error_behavior="error", init_timeout=TIMEOUT, read_timeout=TIMEOUT)
    async with server:
        tools = await server.list_tools()
        paths: dict[str, dict[str, Any]] = {path: {} for path in transformers}
        for tool in tools:
            for path, (transformer, strict) in transformers.items():
                definition = ToolDefinition(name=tool.name, parameters_json_schema=copy.deepcopy(tool.input_schema),
                                            strict=strict)
                try:
                    done = _customize_tool_def(transformer, definition)
                    paths[path][tool.name] = _entry(done.parameters_json_schema, strict=done.strict)
                except Exception as error:  # noqa: BLE001
                    paths[path][tool.name] = _failed(error)
        result: dict[str, Any] = {"listed": [t.name for t in tools], "paths": paths}
        try:
            out = await server.direct_call_tool(call["name"], call["arguments"])
            result["call"] = {"ok": True, "text": _text(out), "error": None}
        except Exception as error:  # noqa: BLE001 - pydantic-ai raises ModelRetry on an isError result
            result["call"] = {"ok": False, "text": "", **_failed(error)}
        return result


async def langchain(command: list[str], call: dict[str, Any]) -> dict[str, Any]:
    from langchain_core.utils.function_calling import convert_to_openai_tool
    from langchain_mcp_adapters.tools import load_mcp_tools
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = await load_mcp_tools(session)
        paths: dict[str, dict[str, Any]] = {"langchain": {}}
        for tool in tools:
            try:
                paths["langchain"][tool.name] = _entry(convert_to_openai_tool(tool)["function"]["parameters"])
            except Exception as error:  # noqa: BLE001
                paths["langchain"][tool.name] = _failed(error)
        result: dict[str, Any] = {"listed": [t.name for t in tools], "paths": paths}
        found = [t for t in tools if t.name == call["name"]]
        if found:
            try:
                out = await found[0].ainvoke(call["arguments"])
                result["call"] = {"ok": True, "text": _text(out if not isinstance(out, tuple) else out[0]),
                                  "error": None}
            except Exception as error:  # noqa: BLE001
                result["call"] = {"ok": False, "text": "", **_failed(error)}
        return result


DRIVERS = {"openai-agents": openai_agents, "google-adk": google_adk, "pydantic-ai": pydantic_ai,
           "langchain": langchain}


def main(argv: list[str]) -> None:
    framework, plan_file, dash, *command = argv
    assert dash == "--" and command, __doc__
    logging.disable(logging.CRITICAL)
    with open(plan_file) as handle:
        plan = json.load(handle)
    result = asyncio.run(asyncio.wait_for(DRIVERS[framework](command, plan["call"]), TIMEOUT * 2))
    result.setdefault("call", {"ok": False, "text": "", "error": f"{plan['call']['name']} was not listed"})
    sys.stdout.write(json.dumps({"framework": framework, **result}) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
