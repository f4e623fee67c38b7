"""What a server project says about itself, read as text: its command, package, env prefix and the
variables it needs.

The project may come from anyone, so nothing in it is imported or run: `pyproject.toml` is parsed
as TOML, `src/<pkg>/project.py` as a Python syntax tree whose `Project(...)` arguments must be
literals, the README's env table as text; every file is read up to a byte cap, and every name
taken from it must match the pattern that name has in a generated project.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcpgen import dependencies as dependency_table
from mcpgen.project.facts import FactsError, read_facts

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

MAX_FILE_BYTES = 1_000_000  # a generated project.py, README or pyproject.toml is a few KB

_COMMAND = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_PACKAGE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.+!_-]{0,63}$")
# A row of the generated README's env table: | `NAME` | meaning | default |
_ENV_ROW = re.compile(r"^\|\s*`([A-Za-z_][A-Za-z0-9_]*)`\s*\|(.*)\|(.*)\|\s*$")


class ProjectError(Exception):
    """DIR is not a server project mcpgen can read (missing or malformed file, unexpected name)."""


@dataclass(frozen=True, slots=True)
class Variable:
    """One environment variable the server reads that a user may have to set."""

    name: str
    description: str
    default: str | None = None
    secret: bool = False
    required: bool = False  # the server cannot do anything useful without it


@dataclass(frozen=True, slots=True)
class Facts:
    directory: Path  # absolute
    name: str  # the server's name (serverInfo.name), the default key in a client's config
    title: str  # for people (the spec's info.title); the name when project.py gives none
    distribution: str  # pyproject's [project] name
    command: str  # the console script `pip install DIR` gives
    package: str  # the importable package under src/
    version: str
    description: str
    env_prefix: str | None
    variables: tuple[Variable, ...]  # what a client entry may need, in the README's order
    dependencies: tuple[str, ...]
    requires_python: str | None

    @property
    def secrets(self) -> frozenset[str]:
        return frozenset(v.name for v in self.variables if v.secret)


def read_text(path: Path, cap: int = MAX_FILE_BYTES) -> str:
    """The file's text; a file over `cap` bytes or not UTF-8 is a ProjectError."""
    try:
        with path.open("rb") as handle:
            data = handle.read(cap + 1)
    except OSError as exc:
        raise ProjectError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(data) > cap:
        raise ProjectError(f"{path}: larger than {cap:,} bytes; not a file mcpgen generated")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ProjectError(f"{path}: not UTF-8 text") from None


def read_project(directory: Path) -> Facts:
    """The facts of the server project in `directory` (a generated or `mcpgen new` project)."""
    directory = directory.resolve()
    pyproject_path = directory / "pyproject.toml"
    if not pyproject_path.is_file():
        raise ProjectError(f"{directory}: no pyproject.toml; expected a project made by mcpgen")
    try:
        pyproject = tomllib.loads(read_text(pyproject_path))
    except tomllib.TOMLDecodeError as exc:
        raise ProjectError(f"{pyproject_path}: invalid TOML: {exc}") from None
    table = pyproject.get("project")
    if not isinstance(table, dict):
        raise ProjectError(f"{pyproject_path}: no [project] table")
    distribution = _checked(table.get("name"), _COMMAND, pyproject_path, "[project] name")
    version = _checked(table.get("version", "0.0.0"), _VERSION, pyproject_path, "[project] version")
    command, package = _script(table.get("scripts"), pyproject_path)
    description = table["description"] if isinstance(table.get("description"), str) else ""
    dependencies = tuple(d for d in table.get("dependencies", []) if isinstance(d, str))
    requires = table.get("requires-python") if isinstance(table.get("requires-python"), str) else None
    if not (directory / "src" / package / "__init__.py").is_file():
        raise ProjectError(f"{directory}: no src/{package}/__init__.py (the package the `{command}` script runs)")
    facts = _project_py(directory / "src" / package / "project.py")
    name: str = facts["name"] if isinstance(facts.get("name"), str) else distribution.removesuffix("-mcp")
    prefix = facts.get("env_prefix")
    env_prefix = _checked(prefix, ENV_NAME, directory, "env_prefix") if prefix is not None else None
    variables = _variables(facts, env_prefix, _readme_table(directory / "README.md"), directory)
    return Facts(
        directory=directory,
        name=_checked(name, _COMMAND, directory, "server name"),
        title=_title(facts.get("title"), name),
        distribution=distribution,
        command=command,
        package=package,
        version=version,
        description=description.strip(),
        env_prefix=env_prefix,
        variables=variables,
        dependencies=dependencies,
        requires_python=requires,
    )


def python_too_old(facts: Facts) -> str | None:
    """Why `uv run` cannot start the project as its pyproject.toml stands (None: it can): its
    `requires-python` allows a Python its dependencies do not (a project generated before mcpgen
    computed the floor)."""
    why = dependency_table.too_old(facts.requires_python, facts.dependencies)
    if why is None:
        return None
    if (facts.directory / "mcpgen.toml").is_file():
        fix = f"run `mcpgen regenerate {facts.directory}` to write the floor its dependencies need"
    else:  # `mcpgen new` or hand-made: nothing to regenerate from
        fix = "raise requires-python in it"
    return f"{facts.directory / 'pyproject.toml'}: {why}; {fix}"


def _title(title: object, name: str) -> str:
    """A display title: printable, one line, at most 100 characters."""
    if not isinstance(title, str):
        return name
    text = " ".join("".join(c for c in title if c.isprintable()).split())[:100]
    return text or name


def _checked(value: object, pattern: re.Pattern[str], where: Path, what: str) -> str:
    if not isinstance(value, str) or not pattern.match(value):
        raise ProjectError(f"{where}: {what} {value!r} is not a name mcpgen generates")
    return value


def _script(scripts: object, where: Path) -> tuple[str, str]:
    """The first console script whose target is `<package>.__main__:main` (what mcpgen writes)."""
    if isinstance(scripts, dict):
        for command, target in sorted(scripts.items()):
            if isinstance(target, str) and target.endswith(".__main__:main"):
                package = target.removesuffix(".__main__:main")
                return _checked(command, _COMMAND, where, "script"), _checked(package, _PACKAGE, where, "package")
    raise ProjectError(f"{where}: no [project.scripts] entry `<name> = \"<package>.__main__:main\"`")


def _project_py(path: Path) -> dict[str, Any]:
    """The keyword arguments of `PROJECT = Project(...)` in project.py; {} without the file
    (a `mcpgen new` project has no runtime facts)."""
    try:
        return read_facts(path)
    except FactsError as exc:
        raise ProjectError(str(exc)) from None


def _readme_table(path: Path) -> dict[str, tuple[str, str | None]]:
    """Variable -> (meaning, default) from the README's env table; {} without a README."""
    if not path.is_file():
        return {}
    rows: dict[str, tuple[str, str | None]] = {}
    for line in read_text(path).splitlines():
        match = _ENV_ROW.match(line.strip())
        if match:
            meaning, default = match.group(2).strip(), match.group(3).strip()
            rows.setdefault(match.group(1), (meaning, default or None))
    return rows


def _variables(
    facts: dict[str, Any], prefix: str | None, table: dict[str, tuple[str, str | None]], where: Path
) -> tuple[Variable, ...]:
    """The base URL, every security scheme's variables and the upload directory: what a client's
    entry may have to set. The other settings (rate limits, timeouts, ...) have working defaults."""
    if prefix is None:
        return ()
    secrets = facts.get("secret_env_vars", ())
    secrets = frozenset(s for s in secrets if isinstance(s, str)) if isinstance(secrets, (tuple, list)) else frozenset()
    names: list[str] = []
    if facts.get("source", "openapi") == "openapi":
        names.append(f"{prefix}_BASE_URL")
    schemes = facts.get("security_schemes", {})
    for scheme in schemes.values() if isinstance(schemes, dict) else ():
        env = scheme.get("env", []) if isinstance(scheme, dict) else []
        names += [v for v in env if isinstance(v, str)]
    names += sorted(secrets - set(names))
    if facts.get("uploads") is True:
        names.append(f"{prefix}_UPLOAD_DIR")
    variables = []
    for name in dict.fromkeys(names):
        _checked(name, ENV_NAME, where, "variable")
        meaning, default = table.get(name, ("", None))
        if name == f"{prefix}_BASE_URL":
            base_url = facts.get("base_url")
            default = base_url if isinstance(base_url, str) and base_url else None
            meaning = meaning or "Base URL of the API"
        variables.append(
            Variable(
                name=name,
                description=meaning,
                default=default,
                secret=name in secrets,
                required=name == f"{prefix}_BASE_URL" and default is None,
            )
        )
    return tuple(variables)
