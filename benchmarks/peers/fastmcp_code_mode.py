"""FastMCP's CodeMode over `FastMCP.from_openapi` of a spec, served over stdio: the peer
`bench_code_mode.py` runs in a venv of its own (fastmcp with pydantic-monty).

    python fastmcp_code_mode.py SPEC BASE_URL
"""

import json
import sys

import httpx2
from fastmcp import FastMCP
from fastmcp.experimental.transforms.code_mode import CodeMode

spec_path, base_url = sys.argv[1], sys.argv[2]
with open(spec_path, encoding="utf-8") as f:
    spec = json.load(f)
server = FastMCP.from_openapi(openapi_spec=spec, client=httpx2.AsyncClient(base_url=base_url, timeout=30), name="peer")
server.add_transform(CodeMode())
server.run(show_banner=False)
