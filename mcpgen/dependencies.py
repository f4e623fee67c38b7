"""What a generated server depends on, and the oldest Python those dependencies run on.

One table: each requirement mcpgen writes into a generated `pyproject.toml`, with the oldest
Python that every release it allows supports (their `Requires-Python`). A project's
`requires-python` is the highest of those floors: uv resolves a project for every Python it
allows, so a floor below one dependency's makes `uv run` (install entries, MCPB bundles) refuse
to start ("The `requires-python` value (>=3.10) includes Python versions that are not supported
by your dependencies").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from packaging.specifiers import InvalidSpecifier, SpecifierSet

Python = tuple[int, int]
BASE_PYTHON: Python = (3, 10)  # mcp 2.x, pydantic 2.x, jsonschema, anyio: Requires-Python >=3.10


@dataclass(frozen=True, slots=True)
class Dependency:
    requirement: str
    python: Python = BASE_PYTHON  # the oldest Python every release the requirement allows supports


RUNTIME = (  # every generated server (runtime/)
    # The minor release: the runtime relies on `Server.middleware`, provisional within 2.x
    # (`app._add_middleware` says what happens without it).
    Dependency("mcp>=2.3,<2.4"),
    Dependency("pydantic>=2.7,<3"),
    Dependency("jsonschema>=4.20"),
    Dependency("google-re2>=1.1"),  # ~=3.9
    Dependency("uvicorn>=0.30"),  # 0.30 to 0.4x run on 3.10; uv picks one of those for a 3.10 floor
    Dependency("anyio>=4.5"),
    Dependency("opentelemetry-api>=1.27,<2"),  # runtime/telemetry.py: spans and metrics, no-op without an SDK
)
# Code tool mode's sandbox (runtime/code_mode.py): its API changes between minors, so one minor.
CODE = (Dependency("pydantic-monty>=1.4,<1.5"),)
HTTP = (Dependency("httpx2>=2.16", (3, 11)),)  # OpenAPI servers' upstream client: every release says >=3.11
NEW = (Dependency("mcp>=2.3,<3"), Dependency("pydantic>=2.7,<3"))  # `mcpgen new`: the SDK only
_KNOWN = {d.requirement: d for d in (*RUNTIME, *HTTP, *CODE, *NEW)}


def distribution_key(requirement: str) -> str:
    """`Google_RE2>=1.1` -> `google-re2`: the requirement's normalised distribution name."""
    name = re.split(r"[<>=!~;\[ @]", requirement.strip(), maxsplit=1)[0]
    return re.sub(r"[-_.]+", "-", name).lower()


def _floors() -> dict[str, Python]:
    return {distribution_key(d.requirement): d.python for d in _KNOWN.values()}


def python_floor(requirements: Iterable[str]) -> Python:
    """The oldest Python all of `requirements` run on (those mcpgen does not know: BASE_PYTHON)."""
    floors = _floors()
    return max((floors.get(distribution_key(r), BASE_PYTHON) for r in requirements), default=BASE_PYTHON)


def requires_python(requirements: Iterable[str]) -> str:
    """The `requires-python` for a project with these requirements, e.g. `>=3.11`."""
    major, minor = python_floor(requirements)
    return f">={major}.{minor}"


def too_old(requires: str | None, requirements: Iterable[str]) -> str | None:
    """Why `requires` (a project's `requires-python`) cannot resolve with `requirements`, or None.

    It cannot when it allows a Python older than a requirement's floor. Without one, uv takes the
    interpreter it finds as the floor; an unreadable one is left to uv to report."""
    requirements = tuple(requirements)
    floor = python_floor(requirements)
    if requires is None:
        return None
    try:
        allowed = SpecifierSet(requires)
    except InvalidSpecifier:
        return None
    older = [f"{floor[0]}.{minor}{patch}" for minor in range(floor[1]) for patch in ("", ".99")]
    if not any(allowed.contains(version, prereleases=True) for version in older):
        return None
    floors = _floors()
    needing = sorted(
        {distribution_key(r) for r in requirements if floors.get(distribution_key(r), BASE_PYTHON) == floor}
    )
    return (
        f"requires-python is {requires!r}, but {', '.join(needing)} need{'s' if len(needing) == 1 else ''} "
        f"Python {floor[0]}.{floor[1]}+, so `uv run` cannot resolve the project"
    )
