# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""What one generated server is: the facts its package's `project.py` states, and where
its data files (`tools.json`, `resources.json`, `prompts.json`) and the user's modules
(`hooks.py`, `custom_tools.py`) live.

The runtime is the same code in every package; everything that differs per server is
read from the `Project` installed here. A generated package installs its own on first
use (`current()` imports the sibling `project` module); tests install one directly.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from types import ModuleType
from typing import Any, Literal, TypeVar

import pydantic_core

Source = Literal["openapi", "python"]
ToolMode = Literal["static", "dynamic", "code"]


@dataclass(frozen=True, slots=True)
class Project:
    package: str  # the generated package: data files and the user's modules sit in it
    name: str  # serverInfo.name
    title: str
    version: str
    command: str  # the console script, for --help
    env_prefix: str  # every setting is `<env_prefix>_<NAME>`
    source: Source = "openapi"
    tool_mode: ToolMode = "static"
    base_url: str | None = None
    page_size: int = 25
    max_response_chars: int = 100_000
    # Env vars holding upstream credentials, and the header/query/cookie names carrying them.
    secret_env_vars: tuple[str, ...] = ()
    credential_names: tuple[str, ...] = ()
    # scheme name -> {"kind", "in", "name", "env": [vars], "tokenUrl"?} (see `auth`)
    security_schemes: dict[str, dict[str, Any]] = field(default_factory=dict)
    # The spec declares no security scheme: PREFIX_BEARER_TOKEN and PREFIX_HEADERS are sent
    # with every request instead (see `settings.parse_headers`, `auth.apply`).
    generic_credentials: bool = False
    # serverInfo.icons, as sent (src, mimeType, sizes, theme)
    icons: tuple[dict[str, Any], ...] = ()
    uploads: bool = False  # some tool uploads a local file by path (PREFIX_UPLOAD_DIR)
    has_resources: bool = False
    has_prompts: bool = False
    # Python sources: tool name -> (module, function, is_async); a module starting with "."
    # is relative to the package (a copy of the source file).
    functions: dict[str, tuple[str, str, bool]] = field(default_factory=dict)
    # OAuth scopes a tool without its own (in tools.json) needs (see `oauth`).
    default_scopes: tuple[str, ...] = ()
    # Python tools whose function takes the request's Context (progress, logging, elicitation).
    context_tools: tuple[str, ...] = ()
    # OpenAPI tools that ask the user (elicitation) before their upstream request (`confirm`)
    confirm_tools: tuple[str, ...] = ()
    # Toolset name -> description; each tool of tools.json names its own (PREFIX_TOOLSETS).
    toolsets: dict[str, str] = field(default_factory=dict)

    def read_json(self, file: str) -> Any:
        """One of the package's data files, parsed (by pydantic_core: GitHub's 3.9 MB
        `tools.json` in 21 ms, 34 ms with `json`; the same values, keys in the same order)."""
        return pydantic_core.from_json(resources.files(self.package).joinpath(file).read_bytes())

    def module(self, relative: str) -> ModuleType:
        """A module of the package (`.hooks`, `.custom_tools`, a copied source module) or an
        absolute one."""
        return importlib.import_module(relative, package=self.package)


_installed: list[Project] = []


def install(project: Project) -> None:
    """Serve `project` from now on; caches built for another one are dropped."""
    _installed[:] = [project]
    for clear in _on_install:
        clear()


_on_install: list[Callable[[], object]] = []
F = TypeVar("F", bound=Callable[..., Any])


def on_install(callback: Callable[[], object]) -> None:
    """Call `callback` whenever another project is installed (to drop what was built for one)."""
    _on_install.append(callback)


def resets(function: F) -> F:
    """Mark a `functools.cache`d function as project-bound: `install` clears its cache."""
    on_install(function.cache_clear)  # type: ignore[attr-defined]  # F is a cache wrapper
    return function


def current() -> Project:
    """The installed project, else the one of the package this runtime was copied into."""
    if not _installed:
        install(_sibling_project())
    return _installed[0]


@cache
def _sibling_project() -> Project:
    parent = __package__.rpartition(".")[0] if __package__ else ""
    try:
        facts = importlib.import_module(".project", parent) if parent else None
    except ImportError:
        facts = None
    project = getattr(facts, "PROJECT", None)
    if isinstance(project, Project):
        return project
    raise RuntimeError(
        "no project installed: call runtime.project.install(Project(...)) first, "
        "or run the runtime from a generated package"
    )
