"""Peak memory of a generated server against FastMCP.from_openapi on the same spec. No assertions.

    python benchmarks/server_memory.py [--spec GITHUB_JSON] [--generated DIR] [--peer-venv /work/.bench-venv]

Each server is started over stdio by the `mcp` client, every tools/list page is read (so
the whole catalogue has been served), then the server process's peak RSS (VmHWM) is read
from /proc. --generated reuses a server generated earlier (e.g. by bench_generate.py);
without it the spec is generated into a temporary directory first.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters, stdio_client
from mcp.client.stdio import get_default_environment

REPO = Path(__file__).resolve().parent.parent
GITHUB = Path("/work/.corpus/node_modules/@octokit/openapi/generated/api.github.com.json")
PEER_VENV = Path("/work/.bench-venv")
PEER_SCRIPT = """
import json, sys, httpx2
from fastmcp import FastMCP
spec = json.loads(open(sys.argv[1], encoding="utf-8").read())
FastMCP.from_openapi(openapi_spec=spec, client=httpx2.AsyncClient(base_url="http://127.0.0.1:9"), name="peer").run()
"""


async def _peak_after_listing(command: str, args: list[str], env: dict[str, str]) -> tuple[int, int]:
    """(tools listed, peak RSS in MB) of the server started with `command args`."""
    params = StdioServerParameters(command=command, args=args, env=env)
    async with Client(stdio_client(params), cache=None, read_timeout_seconds=300) as client:
        listed, cursor = 0, None
        while True:
            page = await client.list_tools(cursor=cursor)
            listed += len(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        found = await anyio.run_process(["pgrep", "-f", "--", " ".join(args)], check=False)
        pids = found.stdout.decode().split()
        peaks = [_vm_hwm_mb(int(pid)) for pid in pids]
    return listed, max(p for p in peaks if p is not None)


def _vm_hwm_mb(pid: int) -> int | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) // 1024
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", type=Path, default=GITHUB)
    parser.add_argument("--generated", type=Path, help="a project generated from --spec (skips generation)")
    parser.add_argument("--peer-venv", type=Path, default=PEER_VENV)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        project = args.generated
        if project is None:
            project = Path(scratch) / "out"
            subprocess.run([sys.executable, "-m", "mcpgen", "from-openapi", str(args.spec), "-o", str(project)],
                           check=True, cwd=REPO, capture_output=True)
        (package,) = [p.name for p in (project / "src").iterdir() if p.is_dir()]
        env = dict(get_default_environment())
        env["PYTHONPATH"] = str(project / "src")
        ours = anyio.run(_peak_after_listing, sys.executable, ["-m", package], env)
        print(f"mcpgen (generated)     {ours[0]:5d} tools listed   peak RSS {ours[1]:5d} MB")
        peer_python = args.peer_venv / "bin" / "python"
        if not peer_python.exists():
            print(f"FastMCP: no peer venv at {args.peer_venv} (create it with `pip install fastmcp`)")
            return
        script = Path(scratch) / "peer.py"
        script.write_text(PEER_SCRIPT)
        theirs = anyio.run(_peak_after_listing, str(peer_python), [str(script), str(args.spec)], dict(get_default_environment()))
        print(f"FastMCP.from_openapi   {theirs[0]:5d} tools listed   peak RSS {theirs[1]:5d} MB")
        print(f"ours / FastMCP peak RSS: {ours[1] / theirs[1]:.2f}x")


if __name__ == "__main__":
    main()
