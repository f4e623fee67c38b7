"""Drive an MCP server with the Python `mcp` client and print what that client reported.

    python py_client.py handshake|modern|v1 PLAN.json URL
    python py_client.py handshake|modern|v1 PLAN.json -- COMMAND [ARG...]   (stdio; server gets this env)

`handshake` is mcp 2.x `ClientSession.initialize()` (2025-11-25), `modern` is mcp 2.x
`mcp.Client(..., mode="auto")` (2026-07-28), `v1` is mcp 1.x's `ClientSession` (2025-06-18);
run `v1` with the python of a venv that has mcp 1.x. The report has the same shape as
ts_client.mjs's, so tests and benchmarks read both alike. Only the standard library and `mcp`
are imported: this file runs in a venv without mcpgen.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import time
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000


def _entry(name: str, result: Any = None, error: BaseException | None = None) -> dict[str, Any]:
    if error is not None:
        return {"name": name, "ok": False, "isError": None, "error": f"{type(error).__name__}: {error}",
                "contentTypes": [], "texts": [], "structured": False}
    content = list(result.content or [])
    structured = getattr(result, "structured_content", None)
    if structured is None:
        structured = getattr(result, "structuredContent", None)
    return {"name": name, "ok": True, "isError": bool(getattr(result, "is_error", None) or getattr(result, "isError", None)),
            "error": None, "contentTypes": [c.type for c in content],
            "texts": [c.text for c in content if c.type == "text"], "structured": structured is not None}


def _next_cursor(page: Any) -> str | None:
    return getattr(page, "next_cursor", None) or getattr(page, "nextCursor", None)


async def _session_transport(stack: contextlib.AsyncExitStack, which: str, target: list[str]) -> Any:
    """(read, write) streams for a ClientSession, over stdio or streamable HTTP."""
    if target[0] == "--":
        params = StdioServerParameters(command=target[1], args=target[2:], env=dict(os.environ))
        streams = await stack.enter_async_context(stdio_client(params))
    elif which == "v1":
        from mcp.client.streamable_http import streamablehttp_client  # type: ignore[attr-defined]  # the 1.x name

        streams = await stack.enter_async_context(streamablehttp_client(target[0]))
    else:
        from mcp.client.streamable_http import streamable_http_client

        streams = await stack.enter_async_context(streamable_http_client(target[0]))
    return streams[0], streams[1]


async def _list_all(session: Any, which: str) -> tuple[int, int]:
    """(tools, pages), paging by cursor as each API asks its caller to."""
    tools, pages, cursor = 0, 0, None
    while True:
        if which == "handshake":  # 2.x ClientSession takes params only
            from mcp import types

            page = await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor) if cursor else None)
        else:
            page = await session.list_tools(cursor=cursor)
        tools, pages, cursor = tools + len(page.tools), pages + 1, _next_cursor(page)
        if cursor is None:
            return tools, pages


async def drive(which: str, plan: dict[str, Any], target: list[str]) -> dict[str, Any]:
    report: dict[str, Any] = {"sdk": f"python-{which}", "protocolVersion": None, "connectMs": None, "listMs": None,
                              "pages": None, "tools": None, "listError": None, "firstCallMs": None, "calls": []}
    async with contextlib.AsyncExitStack() as stack:
        start = time.perf_counter()
        if which == "modern":
            from mcp import Client

            if target[0] == "--":
                server: Any = StdioServerParameters(command=target[1], args=target[2:], env=dict(os.environ))
            else:
                server = target[0]
            session: Any = await stack.enter_async_context(Client(server, mode="auto", cache=None))
            report["protocolVersion"] = str(session.protocol_version)
        else:
            read, write = await _session_transport(stack, which, target)
            session = await stack.enter_async_context(ClientSession(read, write))
            init = await session.initialize()
            report["protocolVersion"] = init.protocolVersion if which == "v1" else init.protocol_version
        report["connectMs"] = _ms(start)
        start = time.perf_counter()
        try:
            report["tools"], report["pages"] = await _list_all(session, which)
        except Exception as exc:  # noqa: BLE001 - reported, not raised: the test asserts on it
            report["listError"] = f"{type(exc).__name__}: {exc}"
        report["listMs"] = _ms(start)
        for call in plan.get("calls", []):
            start = time.perf_counter()
            try:
                entry = _entry(call["name"], await session.call_tool(call["name"], call.get("arguments") or {}))
            except Exception as exc:  # noqa: BLE001 - whatever the client raises is the finding
                entry = _entry(call["name"], error=exc)
            entry["ms"] = _ms(start)
            if report["firstCallMs"] is None:
                report["firstCallMs"] = entry["ms"]
            report["calls"].append(entry)
    return report


def main() -> None:
    which, plan_path, *target = sys.argv[1:]
    if which not in ("handshake", "modern", "v1") or not target:
        sys.exit(__doc__)
    with open(plan_path, encoding="utf-8") as plan_file:
        plan = json.load(plan_file)
    print(json.dumps(asyncio.run(drive(which, plan, target))))


if __name__ == "__main__":
    main()
