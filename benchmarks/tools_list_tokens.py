"""tools/list size of GitHub's REST API server, static vs dynamic tool mode. No assertions.

    python benchmarks/tools_list_tokens.py [--spec PATH] [--page-size 25] [--keep DIR]

Generates the server twice (static, `--tool-mode dynamic`), serves each over stdio and
pages through tools/list with the `mcp` client (handshake era). Prints, per mode: tools,
pages, the biggest page in bytes (the JSON-RPC result as serialized by the client's
models), and tokens estimated as characters / 4 of every tool advertised.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client, types
from mcp.client.stdio import get_default_environment

from mcpgen.api import generate_openapi
from mcpgen.options import DEFAULT_PAGE_SIZE, Options

DEFAULT_SPEC = Path("/work/.corpus/node_modules/@octokit/openapi/generated/api.github.com.json")


async def measure(out: Path, package: str) -> dict[str, int]:
    env = dict(get_default_environment())
    env["PYTHONPATH"] = str(out / "src")
    params = StdioServerParameters(command=sys.executable, args=["-m", package], env=env)
    pages: list[int] = []
    tool_chars = tools = 0
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        cursor: str | None = None
        while True:
            page = await session.list_tools(
                params=types.PaginatedRequestParams(cursor=cursor) if cursor else None
            )
            pages.append(len(page.model_dump_json(by_alias=True, exclude_none=True).encode()))
            for tool in page.tools:
                tool_chars += len(tool.model_dump_json(by_alias=True, exclude_none=True))
                tools += 1
            cursor = page.next_cursor
            if cursor is None:
                break
    return {"tools": tools, "pages": len(pages), "max_page_bytes": max(pages), "total_bytes": sum(pages),
            "tokens": tool_chars // 4}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--spec", type=Path, default=DEFAULT_SPEC)
    parser.add_argument("--page-size", type=int, default=DEFAULT_PAGE_SIZE)
    parser.add_argument("--keep", type=Path, help="generate here instead of a temporary directory")
    parser.add_argument("--reuse", action="store_true", help="measure what --keep already holds, without generating")
    parser.add_argument("--modes", default="static,dynamic", help="comma-separated: static, dynamic")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="tokens-"))
    figures = {}
    for mode in args.modes.split(","):
        out = root / mode
        if args.reuse:
            package = next((out / "src").iterdir()).name
        else:
            options = Options(output=out, force=True, tool_mode=mode, page_size=args.page_size)
            package = generate_openapi(args.spec, options).project.package
        figures[mode] = anyio.run(measure, out, package)
        print(mode, figures[mode], flush=True)
    if set(figures) != {"static", "dynamic"}:
        return
    s, d = figures["static"], figures["dynamic"]
    print(f"static: {s['tools']} tools in {s['pages']} pages of <= {s['max_page_bytes']:,} bytes; "
          f"{s['tokens']:,} tokens (chars/4)")
    print(f"dynamic: {d['tools']} tools in {d['pages']} page of {d['max_page_bytes']:,} bytes; {d['tokens']:,} tokens")
    print(f"ratio static/dynamic tokens: {s['tokens'] / max(1, d['tokens']):,.0f}x")


if __name__ == "__main__":
    main()
