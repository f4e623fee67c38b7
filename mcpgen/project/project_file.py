"""`mcpgen.toml`: the source and options a project was generated from, plus the user's
filters and per-tool overrides. Written at the first generation, read by `regenerate`.

Every key is checked: an unknown key or a value of the wrong type is a located error
(file, key, line), never silently ignored.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

from mcpgen import __version__
from mcpgen.clients.lint import CLIENTS
from mcpgen.config import (
    DEFAULT_PAGE_SIZE,
    TOOL_MODES,
    OperationFilter,
    Options,
    PromptArgumentSpec,
    PromptMessageSpec,
    PromptSpec,
    ResourceSpec,
    RouteRule,
    ToolOverride,
)
from mcpgen.diagnostics import Diagnostics, GenerationError
from mcpgen.naming import DEFAULT_MAX_TOOL_NAME, MCP_MAX_TOOL_NAME

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

PROJECT_FILE = "mcpgen.toml"
SourceKind = Literal["openapi", "python"]
_METHODS = frozenset({"GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"})
_TOOL_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")
_ARGUMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")
_ROUTE_ACTIONS = ("tool", "resource", "resource_template", "exclude")
# scheme ":" then anything but whitespace; `{var}` template expressions allowed
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+$")


def _is_regex(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        re.compile(value)
    except re.error:
        return False
    return True
_ANNOTATIONS = ("read_only", "destructive", "idempotent", "open_world")
_FILTER_LISTS = tuple(f.name for f in fields(OperationFilter) if f.name != "include_deprecated")


@dataclass(frozen=True, slots=True)
class ProjectFile:
    source_kind: SourceKind
    source: str  # OpenAPI file or Python file relative to the project, or a module name
    workdir: str | None = None  # Python module targets: the sys.path entry, relative to the project
    name: str | None = None
    max_name_length: int = DEFAULT_MAX_TOOL_NAME
    models: bool = True
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    filters: OperationFilter = field(default_factory=OperationFilter)
    overrides: tuple[ToolOverride, ...] = ()
    prompts: tuple[PromptSpec, ...] = ()
    routes: tuple[RouteRule, ...] = ()
    resource_functions: tuple[ResourceSpec, ...] = ()
    mcpgen_version: str = __version__
    tool_mode: str = "static"
    page_size: int = DEFAULT_PAGE_SIZE
    max_response_chars: int = 100_000
    allow_remote_refs: bool = False
    client_profile: str | None = None
    resources: bool = False

    def options(self, output: Path, force: bool = False) -> Options:
        return Options(
            output=output,
            name=self.name,
            force=force,
            max_name_length=self.max_name_length,
            include=self.include,
            exclude=self.exclude,
            models=self.models,
            filters=self.filters,
            overrides=self.overrides,
            prompts=self.prompts,
            routes=self.routes,
            resource_functions=self.resource_functions,
            tool_mode=self.tool_mode,
            page_size=self.page_size,
            max_response_chars=self.max_response_chars,
            allow_remote_refs=self.allow_remote_refs,
            client_profile=self.client_profile,
            resources=self.resources,
        )

    def source_target(self, project_dir: Path) -> str:
        """What to hand the source parser: a path resolved against the project, or a module name."""
        if self.source_kind == "openapi" or self.source.endswith(".py"):
            return str((project_dir / self.source).resolve())
        return self.source


def relative_source(target: str, project_dir: Path) -> str:
    """A source path as mcpgen.toml stores it: relative to the project, with forward slashes."""
    import os

    return Path(os.path.relpath(Path(target).resolve(), project_dir.resolve())).as_posix()


def render_project_file(project_file: ProjectFile, example_tool: str) -> str:
    from mcpgen.rendering.render import environment

    filters = project_file.filters
    overrides = [
        {
            "key": o.key,
            "name": o.name,
            "title": o.title,
            "description": o.description,
            "hidden": o.hidden,
            "annotations": [(k, getattr(o, k)) for k in _ANNOTATIONS if getattr(o, k) is not None],
        }
        for o in project_file.overrides
    ]
    return environment().get_template("mcpgen.toml.j2").render(
        mcpgen_version=project_file.mcpgen_version,
        source_kind=project_file.source_kind,
        source=project_file.source,
        workdir=project_file.workdir,
        name=project_file.name or "",
        max_name_length=project_file.max_name_length,
        models=project_file.models,
        include=project_file.include,
        exclude=project_file.exclude,
        filter_lists=[(key, getattr(filters, key)) for key in _FILTER_LISTS],
        include_deprecated=filters.include_deprecated,
        overrides=overrides,
        example_tool=example_tool or "tool_name",
        tool_mode=project_file.tool_mode,
        page_size=project_file.page_size,
        max_response_chars=project_file.max_response_chars,
        allow_remote_refs=project_file.allow_remote_refs,
        client_profile=project_file.client_profile or "",
        resources=project_file.resources,
    )


# -- reading ----------------------------------------------------------------------


def read_project_file(project_dir: Path) -> tuple[ProjectFile, Diagnostics]:
    """Parse and check `project_dir/mcpgen.toml`. Raises GenerationError listing every problem.

    Returns the diagnostics collector too: overrides are checked against the tools later,
    and those errors must point into this file as well.
    """
    path = project_dir / PROJECT_FILE
    diagnostics = Diagnostics(file=str(path))
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        diagnostics.error(
            "no mcpgen.toml here", hint="run `mcpgen regenerate` on a directory made by `mcpgen from-openapi/from-python`"
        )
        raise GenerationError(diagnostics.items) from None
    except (OSError, UnicodeDecodeError) as exc:
        diagnostics.error(f"cannot read the project file: {exc}")
        raise GenerationError(diagnostics.items) from None
    diagnostics.line_resolver = toml_line_resolver(text)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        diagnostics.error(f"not valid TOML: {exc}", hint="fix the syntax; see https://toml.io")
        raise GenerationError(diagnostics.items) from None
    project_file = _Reader(data, diagnostics).project_file()
    if diagnostics.has_errors or project_file is None:
        raise GenerationError(diagnostics.items)
    return project_file, diagnostics


class _Reader:
    """Walks the parsed TOML, recording a located error for every bad key or value."""

    def __init__(self, data: dict[str, Any], diagnostics: Diagnostics) -> None:
        self.data = data
        self.diag = diagnostics

    def error(self, key: str, message: str, hint: str = "") -> None:
        self.diag.error(f"{key}: {message}", key, hint)

    def table(self, parent: dict[str, Any], key: str, where: str, allowed: tuple[str, ...]) -> dict[str, Any]:
        value = parent.get(key, {})
        if not isinstance(value, dict):
            self.error(where, "expected a table")
            return {}
        return self.check_keys(value, where, allowed)

    def check_keys(self, value: dict[str, Any], where: str, allowed: tuple[str, ...]) -> dict[str, Any]:
        for unknown in sorted(set(value) - set(allowed)):
            self.error(f"{where}.{unknown}" if where else unknown, "unknown key", f"known keys: {', '.join(allowed)}")
        return value

    def typed(self, table: dict[str, Any], key: str, where: str, check: Callable[[Any], bool], expected: str) -> Any:
        value = table.get(key)
        if value is not None and not check(value):
            self.error(f"{where}.{key}", f"expected {expected}, got {value!r}")
            return None
        return value

    def string_list(self, table: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
        value = self.typed(
            table, key, where, lambda v: isinstance(v, list) and all(isinstance(i, str) for i in v), "a list of strings"
        )
        return tuple(value or ())

    def project_file(self) -> ProjectFile | None:
        top = self.table(
            {"": self.data},
            "",
            "",
            ("mcpgen_version", "source", "options", "filters", "tools", "prompts", "routes", "resources"),
        )
        version = self.typed(top, "mcpgen_version", "", lambda v: isinstance(v, str), "a string")
        source = self.table(top, "source", "source", ("openapi", "python", "workdir"))
        kinds = [k for k in ("openapi", "python") if k in source]
        if len(kinds) != 1:
            self.error("source", "give exactly one of `openapi = \"spec.yaml\"` or `python = \"module\"`")
            return None
        kind: SourceKind = "openapi" if kinds[0] == "openapi" else "python"
        target = self.typed(source, kind, "source", lambda v: isinstance(v, str) and v.strip() != "", "a non-empty string")
        workdir = self.typed(source, "workdir", "source", lambda v: isinstance(v, str), "a string")
        if kind == "openapi" and workdir is not None:
            self.error("source.workdir", "only Python module sources have a workdir")
        option_keys = ("name", "max_name_length", "models", "resources", "allow_remote_refs") if kind == "openapi" else (
            "name", "max_name_length", "include", "exclude"
        )
        option_keys += ("tool_mode", "page_size", "client_profile", "max_response_chars")
        options = self.table(top, "options", "options", option_keys)
        name = self.typed(options, "name", "options", lambda v: isinstance(v, str), "a string")
        max_length = self.typed(
            options,
            "max_name_length",
            "options",
            lambda v: isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= MCP_MAX_TOOL_NAME,
            f"an integer from 1 to {MCP_MAX_TOOL_NAME}",
        )
        models = self.typed(options, "models", "options", lambda v: isinstance(v, bool), "true or false")
        tool_mode = self.typed(options, "tool_mode", "options", lambda v: v in TOOL_MODES, '"static" or "dynamic"')
        page_size = self.typed(
            options, "page_size", "options", lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 1,
            "a positive integer",
        )
        max_chars = self.typed(
            options, "max_response_chars", "options",
            lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 1_000, "an integer of at least 1000",
        )
        profile = self.typed(
            options, "client_profile", "options", lambda v: v == "" or v in CLIENTS, " or ".join(f'"{c}"' for c in CLIENTS)
        )
        resources = self.typed(options, "resources", "options", lambda v: isinstance(v, bool), "true or false")
        remote = self.typed(options, "allow_remote_refs", "options", lambda v: isinstance(v, bool), "true or false")
        if kind == "python" and "filters" in top:
            self.error("filters", "operation filters apply to OpenAPI sources; use options.include/exclude")
        filters = self.filters(top) if kind == "openapi" else OperationFilter()
        overrides = self.overrides(top)
        prompts = self.prompts(top, kind)
        routes = self.routes(top, kind)
        resource_functions = self.resource_functions(top, kind)
        if target is None:
            return None
        return ProjectFile(
            source_kind=kind,
            source=target,
            workdir=workdir,
            name=name or None,
            max_name_length=DEFAULT_MAX_TOOL_NAME if max_length is None else max_length,
            models=True if models is None else models,
            include=self.string_list(options, "include", "options"),
            exclude=self.string_list(options, "exclude", "options"),
            filters=filters,
            overrides=overrides,
            prompts=prompts,
            routes=routes,
            resource_functions=resource_functions,
            mcpgen_version=version or "",
            tool_mode=tool_mode or "static",
            page_size=DEFAULT_PAGE_SIZE if page_size is None else page_size,
            max_response_chars=100_000 if max_chars is None else max_chars,
            allow_remote_refs=bool(remote),
            client_profile=profile or None,
            resources=bool(resources),
        )

    def filters(self, top: dict[str, Any]) -> OperationFilter:
        table = self.table(top, "filters", "filters", (*_FILTER_LISTS, "include_deprecated"))
        lists = {key: self.string_list(table, key, "filters") for key in _FILTER_LISTS}
        methods = tuple(m.upper() for m in lists["methods"])
        for method in methods:
            if method not in _METHODS:
                self.error("filters.methods", f"unknown HTTP method {method!r}", f"one of {', '.join(sorted(_METHODS))}")
        lists["methods"] = methods
        deprecated = self.typed(table, "include_deprecated", "filters", lambda v: isinstance(v, bool), "true or false")
        return OperationFilter(**lists, include_deprecated=bool(deprecated))

    def overrides(self, top: dict[str, Any]) -> tuple[ToolOverride, ...]:
        tools = top.get("tools", {})
        if not isinstance(tools, dict):
            self.error("tools", "expected a table of [tools.<name>] tables")
            return ()
        out = []
        for key in sorted(tools):
            where = f"tools.{key}"
            table = self.table(tools, key, where, ("name", "title", "description", "hidden", "annotations"))
            new_name = self.typed(
                table, "name", where, lambda v: isinstance(v, str) and bool(_TOOL_NAME.match(v)),
                "1-128 characters of A-Z a-z 0-9 _ - .",
            )
            title = self.typed(table, "title", where, lambda v: isinstance(v, str), "a string")
            description = self.typed(
                table, "description", where, lambda v: isinstance(v, str) and v.strip() != "", "a non-empty string"
            )
            hidden = self.typed(table, "hidden", where, lambda v: isinstance(v, bool), "true or false")
            annotations = self.table(table, "annotations", f"{where}.annotations", _ANNOTATIONS)
            hints = {
                k: self.typed(annotations, k, f"{where}.annotations", lambda v: isinstance(v, bool), "true or false")
                for k in _ANNOTATIONS
            }
            out.append(
                ToolOverride(
                    key=key, name=new_name, title=title, description=description, hidden=bool(hidden), **hints
                )
            )
        return tuple(out)


    def prompts(self, top: dict[str, Any], kind: SourceKind) -> tuple[PromptSpec, ...]:
        entries = top.get("prompts", [])
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            self.error("prompts", "expected [[prompts]] tables")
            return ()
        out = []
        names: set[str] = set()
        for index, entry in enumerate(entries):
            where = f"prompts.{index}"
            table = self.check_keys(entry, where, ("name", "title", "description", "arguments", "messages", "function"))
            name = self.typed(
                table, "name", where, lambda v: isinstance(v, str) and bool(_TOOL_NAME.match(v)),
                "1-128 characters of A-Z a-z 0-9 _ - .",
            )
            if name is None:
                self.error(f"{where}.name" if "name" in table else where, "every prompt needs a `name`")
                continue
            if name in names:
                self.error(f"{where}.name", f"prompt {name!r} is defined twice")
            names.add(name)
            function = self.typed(table, "function", where, lambda v: isinstance(v, str) and v.isidentifier(), "a function name")
            if function is not None and kind != "python":
                self.error(f"{where}.function", "only Python sources can bind a function as a prompt")
            messages = self.prompt_messages(table, where)
            if function is None and not messages:
                self.error(where, "a prompt needs `messages` (or, for Python sources, a `function`)")
            if function is not None and messages:
                self.error(f"{where}.messages", "give `messages` or `function`, not both")
            out.append(
                PromptSpec(
                    name=name,
                    title=self.typed(table, "title", where, lambda v: isinstance(v, str), "a string"),
                    description=self.typed(table, "description", where, lambda v: isinstance(v, str), "a string"),
                    arguments=self.prompt_arguments(table, where),
                    messages=messages,
                    function=function,
                )
            )
        return tuple(out)

    def routes(self, top: dict[str, Any], kind: SourceKind) -> tuple[RouteRule, ...]:
        entries = top.get("routes", [])
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            self.error("routes", 'expected [[routes]] tables: match = { ... }, as = "resource"')
            return ()
        if entries and kind != "openapi":
            self.error("routes", "route rules apply to OpenAPI sources; bind functions with [[resources]]")
            return ()
        out = []
        for index, entry in enumerate(entries):
            where = f"routes.{index}"
            self.check_keys(entry, where, ("match", "as"))
            action = self.typed(entry, "as", where, lambda v: v in _ROUTE_ACTIONS, " or ".join(map(repr, _ROUTE_ACTIONS)))
            match = self.table(entry, "match", f"{where}.match", ("method", "path", "tag", "operation"))
            if action is None or not match:
                self.error(where, 'a route rule needs `match = { method, path, tag, operation }` and `as`')
                continue
            at = f"{where}.match"
            path = self.typed(match, "path", at, _is_regex, "a regular expression")
            methods = tuple(m.upper() for m in self.globs(match, "method", at))
            for method in methods:
                if method not in _METHODS:
                    self.error(f"{at}.method", f"unknown HTTP method {method!r}")
            out.append(RouteRule(action, methods, path, self.globs(match, "tag", at), self.globs(match, "operation", at)))
        return tuple(out)

    def globs(self, table: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
        """A string or a list of strings."""
        value = table.get(key)
        if isinstance(value, str):
            return (value,)
        return self.string_list(table, key, where)

    def resource_functions(self, top: dict[str, Any], kind: SourceKind) -> tuple[ResourceSpec, ...]:
        entries = top.get("resources", [])
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            self.error("resources", 'expected [[resources]] tables: function = "...", uri = "scheme://..."')
            return ()
        if entries and kind != "python":
            self.error("resources", "[[resources]] binds Python functions; for OpenAPI use [[routes]] or --resources")
            return ()
        out = []
        for index, entry in enumerate(entries):
            where = f"resources.{index}"
            self.check_keys(entry, where, ("function", "uri", "name", "title", "description", "mime_type"))
            function = self.typed(entry, "function", where, lambda v: isinstance(v, str) and v.isidentifier(), "a function name")
            uri = self.typed(entry, "uri", where, lambda v: isinstance(v, str) and bool(_URI.match(v)), "a URI such as config://app or items://{sku}")
            if function is None or uri is None:
                self.error(where, "a resource needs `function` and `uri`")
                continue
            out.append(
                ResourceSpec(
                    function=function,
                    uri=uri,
                    name=self.typed(entry, "name", where, lambda v: isinstance(v, str) and v != "", "a string"),
                    title=self.typed(entry, "title", where, lambda v: isinstance(v, str), "a string"),
                    description=self.typed(entry, "description", where, lambda v: isinstance(v, str), "a string"),
                    mime_type=self.typed(entry, "mime_type", where, lambda v: isinstance(v, str) and "/" in v, "a media type"),
                )
            )
        return tuple(out)

    def prompt_arguments(self, table: dict[str, Any], where: str) -> tuple[PromptArgumentSpec, ...]:
        raw = table.get("arguments", [])
        if not isinstance(raw, list) or not all(isinstance(a, dict) for a in raw):
            self.error(f"{where}.arguments", "expected a list of { name, description, required } tables")
            return ()
        out = []
        for index, argument in enumerate(raw):
            at = f"{where}.arguments.{index}"
            self.check_keys(argument, at, ("name", "description", "required", "values"))
            name = self.typed(
                argument, "name", at, lambda v: isinstance(v, str) and bool(_ARGUMENT.match(v)),
                "a name of letters, digits, _ and - (used as {name} in messages)",
            )
            if name is None:
                self.error(at, "every argument needs a `name`")
                continue
            description = self.typed(argument, "description", at, lambda v: isinstance(v, str), "a string")
            required = self.typed(argument, "required", at, lambda v: isinstance(v, bool), "true or false")
            values = self.string_list(argument, "values", at)
            out.append(PromptArgumentSpec(name, description or "", bool(required), values))
        return tuple(out)

    def prompt_messages(self, table: dict[str, Any], where: str) -> tuple[PromptMessageSpec, ...]:
        raw = table.get("messages", [])
        if not isinstance(raw, list) or not all(isinstance(m, dict) for m in raw):
            self.error(f"{where}.messages", 'expected a list of { role = "user", text = "..." } tables')
            return ()
        out = []
        for index, message in enumerate(raw):
            at = f"{where}.messages.{index}"
            self.check_keys(message, at, ("role", "text", "resource"))
            role = self.typed(message, "role", at, lambda v: v in ("user", "assistant"), '"user" or "assistant"')
            text = self.typed(message, "text", at, lambda v: isinstance(v, str), "a string")
            resource = self.table(message, "resource", f"{at}.resource", ("uri", "text", "mime_type"))
            if (text is None) == (not resource):
                self.error(at, "a message has either `text` or an embedded `resource = { uri, text }`")
                continue
            if resource:
                uri = self.typed(resource, "uri", f"{at}.resource", lambda v: isinstance(v, str) and ":" in v, "a URI")
                content = self.typed(resource, "text", f"{at}.resource", lambda v: isinstance(v, str), "a string")
                mime = self.typed(resource, "mime_type", f"{at}.resource", lambda v: isinstance(v, str), "a string")
                if uri is None or content is None:
                    self.error(f"{at}.resource", "an embedded resource needs `uri` and `text`")
                    continue
                out.append(PromptMessageSpec(role or "user", content, uri, mime or "text/plain"))
            else:
                out.append(PromptMessageSpec(role or "user", text))
        return tuple(out)


# -- locating keys ------------------------------------------------------------------

_HEADER = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$")
_ARRAY_HEADER = re.compile(r"^\s*\[\[\s*([^\[\]]+?)\s*\]\]\s*(#.*)?$")
_KEY = re.compile(r"""^\s*((?:"(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)(?:\s*\.\s*(?:"(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+))*)\s*=""")
_PART = re.compile(r"""\s*("(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)\s*(?:\.|$)""")


def _key_parts(text: str) -> list[str]:
    parts = []
    for match in _PART.finditer(text):
        token = match.group(1)
        if token.startswith('"'):
            token = tomllib.loads(f"k = {token}")["k"]
        elif token.startswith("'"):
            token = token[1:-1]
        parts.append(token)
    return parts


def toml_line_resolver(text: str) -> Callable[[str], int | None]:
    """Dotted key (`tools.list_pets.annotations`) -> the 1-based line that sets it, or the
    line of its nearest enclosing table/key. Good enough for messages; not a TOML parser."""
    lines: dict[tuple[str, ...], int] = {}
    table: list[str] = []
    counts: dict[tuple[str, ...], int] = {}  # [[array]] tables seen so far, by array key
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("#"):
            continue
        array = _ARRAY_HEADER.match(line)
        if array:
            key = tuple(_key_parts(array.group(1)))
            counts[key] = counts.get(key, -1) + 1
            table = [*key, str(counts[key])]
            lines.setdefault(tuple(table), number)
            continue
        header = _HEADER.match(line)
        if header:
            table = _key_parts(header.group(1))
            lines.setdefault(tuple(table), number)
            continue
        key = _KEY.match(line)
        if key:
            lines.setdefault((*table, *_key_parts(key.group(1))), number)

    def resolve(dotted: str) -> int | None:
        parts = tuple(_key_parts(dotted)) if dotted else ()
        while parts:
            if parts in lines:
                return lines[parts]
            parts = parts[:-1]
        return None

    return resolve
