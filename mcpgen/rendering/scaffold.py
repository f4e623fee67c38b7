"""`mcpgen new`: a hand-written MCP server project, ready to run and test.

NAME → names (distribution, package, title) → templates/new/ → files; `api.new_project`
formats and writes them with the generator's own format and write stages.
The project depends on the `mcp` SDK only; nothing in it is generated from a source.
"""

from __future__ import annotations

import keyword
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcpgen import dependencies
from mcpgen.rendering.render import environment

DEPENDENCIES = tuple(d.requirement for d in dependencies.NEW)
TEST_DEPENDENCIES = ("anyio>=4.5", "pytest>=8")
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*$")
_MAX_NAME = 64
# Packages a server imports or its tests run under: a project package of the same name
# would shadow them.
_TAKEN = frozenset({"mcp", "mcp_types", "pydantic", "pydantic_core", "anyio", "pytest", "uvicorn", "starlette",
                    "httpx", "httpx2", "jsonschema", "typing_extensions", "tests", "test", "src"})

# output path -> template under templates/new/; "{package}" is filled in
_FILES = {
    "pyproject.toml": "pyproject.toml.j2",
    "README.md": "README.md.j2",
    ".gitignore": "gitignore.j2",
    "src/{package}/__init__.py": "src/__init__.py.j2",
    "src/{package}/__main__.py": "src/__main__.py.j2",
    "src/{package}/server.py": "src/server.py.j2",
    "src/{package}/py.typed": "src/py.typed.j2",
    "tests/__init__.py": "tests/__init__.py.j2",
    "tests/conftest.py": "tests/conftest.py.j2",
    "tests/test_server.py": "tests/test_server.py.j2",
}


class ScaffoldError(ValueError):
    """NAME cannot name a project; the message says why and what would work."""


@dataclass(frozen=True, slots=True)
class ProjectNames:
    name: str  # the server name clients see, and the distribution / console script
    package: str  # the import package under src/
    title: str


def project_names(name: str) -> ProjectNames:
    """`weather-tools` → distribution `weather-tools`, package `weather_tools`, title `Weather Tools`."""
    if not _NAME.match(name) or len(name) > _MAX_NAME:
        raise ScaffoldError(
            f"invalid project name {name!r}: use letters, digits, '-' or '_', start with a letter, "
            f"at most {_MAX_NAME} characters (e.g. 'weather-tools')"
        )
    distribution = name.lower().replace("_", "-")
    package = distribution.replace("-", "_")
    if keyword.iskeyword(package) or package in _TAKEN or package in sys.stdlib_module_names:
        raise ScaffoldError(
            f"invalid project name {name!r}: its package {package!r} would shadow a Python keyword or "
            f"module the server needs; pick another name (e.g. '{distribution}-server')"
        )
    title = " ".join(word.capitalize() for word in distribution.split("-"))
    return ProjectNames(distribution, package, title)


def render_new(names: ProjectNames) -> dict[str, str]:
    """Every file of the new project by relative path, as rendered (not yet formatted)."""
    env = environment()
    context = _context(names)
    files = {
        path.format(package=names.package): env.get_template(f"new/{template}").render(context)
        for path, template in _FILES.items()
    }
    return dict(sorted(files.items()))


def _context(names: ProjectNames) -> dict[str, Any]:
    command: dict[str, Any] = {"command": names.name, "args": []}
    return {
        "name": names.name,
        "distribution": names.name,
        "package": names.package,
        "title": names.title,
        "dependencies": list(DEPENDENCIES),
        "requires_python": dependencies.requires_python(DEPENDENCIES),
        "test_dependencies": list(TEST_DEPENDENCIES),
        "claude_config": {"mcpServers": {names.name: command}},
        "vscode_config": {"servers": {names.name: {"type": "stdio", **command}}},
        "cursor_config": {"mcpServers": {names.name: command}},
    }


def check_new_target(target: Path, force: bool) -> str | None:
    """Why `target` cannot take a new project (None: it can), with advice that fits `new`."""
    if target.exists() and not target.is_dir():
        return f"{target} exists and is not a directory"
    if target.is_dir() and any(target.iterdir()) and not force:
        return f"{target} exists and is not empty; pass --force to replace it (everything in it goes)"
    return None
