"""One options model, three ways in: the library API, the CLI and `regenerate` (from the
mcpgen.toml a first generation records) write byte-identical trees for the same options."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

import mcpgen
from mcpgen import api
from mcpgen.diagnostics import GenerationError
from mcpgen.options import (
    OperationFilter,
    Options,
    PromptArgumentSpec,
    PromptMessageSpec,
    PromptSpec,
    ResourceSpec,
    RouteRule,
    ToolOverride,
)
from mcpgen.project.project_file import read_project_file

SPEC = Path(__file__).resolve().parents[2] / "samples" / "petstore.yaml"

# Every option the CLI has a flag for, none at its default.
FLAGGED = Options(
    name="pets",
    models=False,
    tool_mode="dynamic",
    page_size=7,
    max_response_chars=5_000,
    client_profile="openai",
    resources=True,
    filters=OperationFilter(exclude_tags=("user",), exclude_operations=("deletePet",), include_paths=("/pet*", "/store*")),
)
FLAGS = [
    "--name", "pets", "--no-models", "--tool-mode", "dynamic", "--page-size", "7", "--max-response-chars", "5000",
    "--client-profile", "openai", "--resources", "--exclude-tag", "user", "--exclude-operation", "deletePet",
    "--path", "/pet*", "--path", "/store*",
]  # fmt: skip
# Plus what only mcpgen.toml or the library can say.
FULL = FLAGGED.model_copy(
    update={
        "overrides": (
            ToolOverride(key="getPetById", name="fetch_pet", title="Fetch a pet", read_only=True),
            ToolOverride(key="updatePet", hidden=True),
        ),
        "prompts": (
            PromptSpec(
                name="review_pet",
                description="Review one pet",
                arguments=(PromptArgumentSpec(name="pet_id", description="Which pet", required=True, values=("1", "2")),),
                messages=(
                    PromptMessageSpec(text="Fetching pet {pet_id} \U0001f436, {{literally}}"),
                    PromptMessageSpec(
                        role="assistant", text="# Notes", resource_uri="pets://notes", resource_mime_type="text/markdown"
                    ),
                ),
            ),
        ),
        "routes": (
            RouteRule(action="resource_template", methods=("GET",), path=r"^/pet/\{petId\}/photo$"),
            RouteRule(action="resource", operations=("getInv*",)),
        ),
    }
)


def _mcpgen(*args: str | Path) -> subprocess.CompletedProcess[str]:
    root = str(Path(mcpgen.__file__).resolve().parents[1])  # this checkout, not an installed copy
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-m", "mcpgen", *map(str, args)], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    return done


def _tree(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def _assert_same_tree(left: Path, right: Path) -> None:
    a, b = _tree(left), _tree(right)
    assert sorted(a) == sorted(b)
    assert [p for p in a if a[p] != b[p]] == []
    assert len(a) > 10


def test_cli_and_api_write_the_same_tree(tmp_path: Path) -> None:
    _mcpgen("from-openapi", SPEC, "-o", tmp_path / "cli", *FLAGS)
    api.generate_openapi(SPEC, FLAGGED.model_copy(update={"output": tmp_path / "api"}))
    _assert_same_tree(tmp_path / "cli", tmp_path / "api")
    assert read_project_file(tmp_path / "cli")[0].options == FLAGGED


def test_first_generation_applies_and_records_what_regenerate_does(tmp_path: Path) -> None:
    result = api.generate_openapi(SPEC, FULL.model_copy(update={"output": tmp_path / "api"}))
    names = {tool.name for tool in result.project.tools}
    assert "fetch_pet" in names and "getPetById" not in names and "updatePet" not in names
    assert [p.name for p in result.project.prompts] == ["review_pet"]
    assert {r.name for r in result.project.resources} >= {"getPetPhoto", "getInventory"}
    assert read_project_file(tmp_path / "api")[0].options == FULL  # recorded whole

    # A project made with the flags alone, then given the first one's mcpgen.toml, regenerates to the same tree.
    _mcpgen("from-openapi", SPEC, "-o", tmp_path / "regen", *FLAGS)
    shutil.copy(tmp_path / "api" / "mcpgen.toml", tmp_path / "regen" / "mcpgen.toml")
    _mcpgen("regenerate", tmp_path / "regen")
    _assert_same_tree(tmp_path / "api", tmp_path / "regen")
    # ... and regenerating the first one changes nothing.
    assert not api.regenerate(tmp_path / "api", check=True).pending


def test_options_refuse_what_they_do_not_know() -> None:
    with pytest.raises(ValidationError, match="tool_mode"):
        Options(tool_mode="bogus")  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="bogus"):
        Options(bogus=1)  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        Options(page_size=True)
    with pytest.raises(ValidationError):
        OperationFilter(methods=("FETCH",))  # type: ignore[arg-type]
    assert OperationFilter(methods=["get"]).methods == ("GET",)  # type: ignore[arg-type]


def test_options_a_source_cannot_use_are_an_error(tmp_path: Path) -> None:
    options = Options(output=tmp_path / "x", prompts=(PromptSpec(name="p", function="f"),))
    with pytest.raises(GenerationError, match=re.escape("prompts.0.function: only Python sources can bind a function")):
        api.generate_openapi(SPEC, options)
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        ('[source]\nopenapi = "a.yaml"\n\n[options]\ncolour = "red"\n', "options.colour: unknown key", 5),
        ('[source]\nopenapi = "a.yaml"\n[options]\ntool_mode = "bogus"\n', 'options.tool_mode: expected "static"', 4),
        ('[source]\nopenapi = "a.yaml"\n[options]\npage_size = "7"\n', "options.page_size: expected a positive", 4),
        ('[source]\nopenapi = "a.yaml"\n[filters]\nsurprise = []\n', "filters.surprise: unknown key", 4),
        ('[source]\nopenapi = "a.yaml"\n[[prompts]]\nname = "p"\n', "prompts.0: a prompt needs `messages`", 3),
        ('[source]\nopenapi = "a.yaml"\n[[prompts]]\nname = "p"\nmessages = [{ role = "x", text = "t" }]\n',
         'prompts.0.messages.0.role: expected "user" or "assistant"', 5),
        ('[source]\nopenapi = "a.yaml"\n[[routes]]\nas = "tool"\nmatch = { method = "FETCH" }\n',
         "routes.0.match.method: unknown HTTP method 'FETCH'", 5),
        ('[source]\nopenapi = "a.yaml"\n[[routes]]\nmatch = { method = "GET" }\n', "routes.0.as: required", 3),
        ('[source]\npython = "m"\n[[resources]]\nfunction = "f"\nuri = "nope"\n', "resources.0.uri: expected a URI", 5),
    ],
)
def test_project_file_problems_are_located(tmp_path: Path, text: str, message: str, line: int) -> None:
    (tmp_path / "mcpgen.toml").write_text(text)
    with pytest.raises(GenerationError) as caught:
        read_project_file(tmp_path)
    found = [d for d in caught.value.diagnostics if d.message.startswith(message)]
    assert found, [str(d) for d in caught.value.diagnostics]
    assert (found[0].line, found[0].file.endswith("mcpgen.toml")) == (line, True)


MODULE = '''"""Inventory."""

ITEMS = {"A-1": 3, "B-2": 50}


def count(sku: str) -> int:
    """How many of SKU."""
    return ITEMS[sku]


def catalogue() -> str:
    """Every SKU, one per line."""
    return "\\n".join(ITEMS)


def draft(topic: str) -> str:
    """A note about TOPIC."""
    return f"Write about {topic}."


def _private() -> None:
    pass


def restock(sku: str, qty: int) -> int:
    """Add QTY of SKU."""
    return ITEMS[sku] + qty
'''


def test_python_source_takes_the_same_paths(tmp_path: Path) -> None:
    module = tmp_path / "inventory.py"
    module.write_text(MODULE)
    flagged = Options(name="stock", exclude=("restock",), tool_mode="dynamic", page_size=3, client_profile="gemini")
    flags = ["--name", "stock", "--exclude", "restock", "--tool-mode", "dynamic", "--page-size", "3",
             "--client-profile", "gemini"]  # fmt: skip
    full = flagged.model_copy(
        update={
            "resource_functions": (ResourceSpec(function="catalogue", uri="stock://skus", mime_type="text/plain"),),
            "prompts": (PromptSpec(name="note", title="A note", function="draft"),),
            "overrides": (ToolOverride(key="count", description="Units in stock."),),
        }
    )
    _mcpgen("from-python", module, "-o", tmp_path / "cli", *flags)
    api.generate_python(str(module), flagged.model_copy(update={"output": tmp_path / "api"}))
    _assert_same_tree(tmp_path / "cli", tmp_path / "api")

    result = api.generate_python(str(module), full.model_copy(update={"output": tmp_path / "full"}))
    assert [t.name for t in result.project.tools] == ["count"]
    assert result.project.tools[0].description == "Units in stock."
    assert [p.name for p in result.project.prompts] == ["note"]
    assert [r.uri for r in result.project.resources] == ["stock://skus"]
    assert read_project_file(tmp_path / "full")[0].options == full
    shutil.copy(tmp_path / "full" / "mcpgen.toml", tmp_path / "cli" / "mcpgen.toml")
    _mcpgen("regenerate", tmp_path / "cli")
    _assert_same_tree(tmp_path / "full", tmp_path / "cli")


def test_client_profiles_are_the_linted_clients() -> None:
    from mcpgen.clients.lint import CLIENTS
    from mcpgen.options import CLIENT_PROFILES

    assert tuple(CLIENTS) == CLIENT_PROFILES
