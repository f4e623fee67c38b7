"""Prompts declared in mcpgen.toml (OpenAPI and Python projects) and Python functions bound
as prompts, through a real MCP client over stdio in both protocol eras."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from mcp import MCPError
from typer.testing import CliRunner

from mcpgen.cli import app

from .projects import assert_mypy_strict_and_ruff, connect, run_cli
from .test_regenerate import spec_v1

pytestmark = pytest.mark.anyio

DECLARED = '''
[[prompts]]
name = "review_pet"
title = "Review a pet"
description = "Ask for a review of one pet."
arguments = [
  { name = "pet_id", description = "Which pet", required = true },
  { name = "tone" },
]
messages = [
  { role = "user", text = "Review pet {pet_id} in a {tone} tone. Literal: {{not a placeholder}}." },
  { role = "assistant", text = "Fetching pet {pet_id} first." },
  { role = "user", resource = { uri = "docs://style", mime_type = "text/markdown", text = "# Style\\nBe kind." } },
]
'''

MODULE = '''
"""Writing helpers."""


def word_count(text: str) -> int:
    """Count words."""
    return len(text.split())


def draft_email(recipient: str, topic: str = "news") -> list[object]:
    """Draft an email.

    Args:
        recipient: Who gets it.
        topic: What it is about.
    """
    return [f"Write to {recipient} about {topic}.", {"role": "assistant", "content": "Dear " + recipient}]


def broken(x: str) -> str:
    """Always fails."""
    raise RuntimeError("no " + x)
'''

BOUND = '''
[[prompts]]
name = "email"
function = "draft_email"

[[prompts]]
name = "broken"
function = "broken"
description = "A prompt whose function raises."
'''



@pytest.fixture(scope="module")
def openapi_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("prompts-openapi")
    (root / "spec.yaml").write_text(yaml.safe_dump(spec_v1()))
    run_cli("from-openapi", str(root / "spec.yaml"), "-o", str(root / "out"))
    with (root / "out" / "mcpgen.toml").open("a") as f:
        f.write(DECLARED)
    run_cli("regenerate", str(root / "out"))
    return root / "out"


@pytest.fixture(scope="module")
def python_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("prompts-python")
    (root / "writing.py").write_text(MODULE)
    run_cli("from-python", str(root / "writing.py"), "-o", str(root / "out"))
    with (root / "out" / "mcpgen.toml").open("a") as f:
        f.write(BOUND)
    run_cli("regenerate", str(root / "out"))
    return root / "out"



@pytest.mark.parametrize("era", ["handshake", "modern"])
async def test_declared_prompts(openapi_project: Path, era: str) -> None:
    async with connect(openapi_project, "shop_mcp", era) as client:
        (prompt,) = (await client.list_prompts()).prompts
        assert prompt.name == "review_pet" and prompt.title == "Review a pet"
        assert [(a.name, a.required) for a in prompt.arguments or []] == [("pet_id", True), ("tone", False)]
        got = await client.get_prompt("review_pet", {"pet_id": "7", "tone": "{tone}"})
        texts = [m.content.text for m in got.messages[:2]]
        # Values are substituted once: a value that looks like a placeholder stays as it is.
        assert texts == ["Review pet 7 in a {tone} tone. Literal: {not a placeholder}.", "Fetching pet 7 first."]
        assert [m.role for m in got.messages] == ["user", "assistant", "user"]
        resource = got.messages[2].content.resource
        assert str(resource.uri) == "docs://style" and resource.text == "# Style\nBe kind."
        with pytest.raises(MCPError, match="missing required argument 'pet_id'"):
            await client.get_prompt("review_pet", {"tone": "dry"})
        with pytest.raises(MCPError, match="unknown argument 'colour'"):
            await client.get_prompt("review_pet", {"pet_id": "1", "colour": "red"})
        with pytest.raises(MCPError, match="Unknown prompt: nope"):
            await client.get_prompt("nope", {})


@pytest.mark.parametrize("era", ["handshake", "modern"])
async def test_function_prompts(python_project: Path, era: str) -> None:
    async with connect(python_project, "writing_mcp", era) as client:
        tools = {t.name for t in (await client.list_tools()).tools}
        assert tools == {"word_count"}  # functions bound as prompts are not tools
        prompts = {p.name: p for p in (await client.list_prompts()).prompts}
        assert set(prompts) == {"email", "broken"}
        email = prompts["email"]
        assert email.description == "Draft an email."
        assert [(a.name, a.description, a.required) for a in email.arguments or []] == [
            ("recipient", "Who gets it.", True),
            ("topic", "What it is about.", False),
        ]
        got = await client.get_prompt("email", {"recipient": "Ada"})
        assert [(m.role, m.content.text) for m in got.messages] == [
            ("user", "Write to Ada about news."),
            ("assistant", "Dear Ada"),
        ]
        with pytest.raises(MCPError, match="RuntimeError: no x"):
            await client.get_prompt("broken", {"x": "x"})


def test_prompt_errors_are_located(openapi_project: Path) -> None:
    config = openapi_project / "mcpgen.toml"
    original = config.read_text()
    try:
        config.write_text(original.replace("Fetching pet {pet_id}", "Fetching pet {petId}"))
        result = CliRunner().invoke(app, ["regenerate", str(openapi_project)])
        assert result.exit_code == 1
        assert "placeholder {petId} names no argument of prompt 'review_pet'" in result.stderr
        line = next(n for n, text in enumerate(original.splitlines(), 1) if text.startswith("messages = ["))
        assert f"(line {line})" in result.stderr
        config.write_text(original + '\n[[prompts]]\nname = "x"\nfunction = "f"\n')
        result = CliRunner().invoke(app, ["regenerate", str(openapi_project)])
        assert result.exit_code == 1 and "only Python sources can bind a function" in result.stderr
    finally:
        config.write_text(original)


@pytest.mark.parametrize("fixture", ["openapi_project", "python_project"])
def test_projects_with_prompts_pass_mypy_strict_and_ruff(fixture: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    assert_mypy_strict_and_ruff(request.getfixturevalue(fixture), tmp_path)
