"""`mcpgen.toml`: the source and options a project was generated from, plus the user's
filters, per-tool overrides, prompts, routes and resources. Written at the first
generation, read by `regenerate`.

The options are `mcpgen.options.Options`: this module only maps the file's layout
(`[options]`, `[filters]`, `[tools.<name>]`, `[[prompts]]`, `[[routes]]`, `[[resources]]`)
onto the model and back. Every key is checked: an unknown key or a value of the wrong
type is a located error (file, key, line), never silently ignored.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from mcpgen import __version__
from mcpgen.diagnostics import Diagnostics, GenerationError
from mcpgen.options import (
    ANNOTATION_HINTS,
    OPENAPI_ONLY,
    PYTHON_ONLY,
    WRONG_SOURCE,
    IconSpec,
    Options,
    Problem,
    PromptSpec,
    ResourceSpec,
    RouteRule,
    SourceKind,
    ToolOverride,
    ToolsetSpec,
    problems,
    source_problems,
)
from mcpgen.project.paths import escape, read_bounded

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

PROJECT_FILE = "mcpgen.toml"

_TOP_KEYS = ("mcpgen_version", "source", "options", "filters", "tools", "prompts", "routes", "resources", "toolsets")
# Options kept in tables of their own, or not kept at all (where to write, --force).
_NOT_IN_OPTIONS_TABLE = frozenset(
    {"output", "force", "filters", "overrides", "prompts", "routes", "resource_functions", "toolsets"}
)
_OVERRIDE_KEYS = (*(k for k in ToolOverride.model_fields if k != "key" and k not in ANNOTATION_HINTS), "annotations")
# [[routes]]: `match = { method, path, tag, operation }` and `as`, onto RouteRule's fields.
_ROUTE_MATCH = {"method": "methods", "path": "path", "tag": "tags", "operation": "operations"}
_ROUTE_FIELDS = {field: key for key, field in _ROUTE_MATCH.items()}
_MESSAGE_KEYS = ("role", "text", "resource")
_RESOURCE_KEYS = ("uri", "text", "mime_type")
_TOOLSET_KEYS = tuple(k for k in ToolsetSpec.model_fields if k != "name")


def option_keys(kind: SourceKind) -> tuple[str, ...]:
    """The keys of `[options]` for a source of `kind`."""
    other = PYTHON_ONLY if kind == "openapi" else OPENAPI_ONLY
    return tuple(k for k in Options.model_fields if k not in _NOT_IN_OPTIONS_TABLE and k not in other)


@dataclass(frozen=True, slots=True)
class ProjectFile:
    source_kind: SourceKind
    source: str  # OpenAPI file or Python file relative to the project, or a module name
    workdir: str | None = None  # Python module targets: the sys.path entry, relative to the project
    options: Options = field(default_factory=Options)  # as recorded: no output, no force
    mcpgen_version: str = __version__
    overlays: tuple[str, ...] = ()  # OpenAPI: Overlay documents relative to the project, applied in order

    def overlay_targets(self, project_dir: Path) -> list[str]:
        """The overlays' paths resolved against the project."""
        return [str((project_dir / overlay).resolve()) for overlay in self.overlays]

    def source_target(self, project_dir: Path) -> str:
        """What to hand the source parser: a path resolved against the project, or a module name."""
        if self.source_kind == "openapi" or self.source.endswith(".py"):
            return str((project_dir / self.source).resolve())
        return self.source


def relative_source(target: str, project_dir: Path) -> str:
    """A source path as mcpgen.toml stores it: relative to the project, with forward slashes."""
    import os

    return Path(os.path.relpath(Path(target).resolve(), project_dir.resolve())).as_posix()


# -- writing ----------------------------------------------------------------------


def render_project_file(project_file: ProjectFile, example_tool: str) -> str:
    from mcpgen.rendering.render import environment

    options = project_file.options
    filters = options.filters
    overrides = [
        {
            "key": o.key,
            "name": o.name,
            "title": o.title,
            "description": o.description,
            "hidden": o.hidden,
            "annotations": [(k, getattr(o, k)) for k in ANNOTATION_HINTS if getattr(o, k) is not None],
            "icons": _icons_toml(o.icons),
            "scopes": o.scopes,
            "confirm": o.confirm,
        }
        for o in options.overrides
    ]
    text = environment().get_template("mcpgen.toml.j2").render(
        mcpgen_version=project_file.mcpgen_version,
        source_kind=project_file.source_kind,
        source=project_file.source,
        overlays=project_file.overlays,
        workdir=project_file.workdir,
        name=options.name or "",
        max_name_length=options.max_name_length,
        models=options.models,
        include=options.include,
        exclude=options.exclude,
        filter_lists=[(key, getattr(filters, key)) for key in type(filters).model_fields if key != "include_deprecated"],
        include_deprecated=filters.include_deprecated,
        overrides=overrides,
        example_tool=example_tool or "tool_name",
        tool_mode=options.tool_mode,
        page_size=options.page_size,
        max_response_chars=options.max_response_chars,
        allow_remote_refs=options.allow_remote_refs,
        allow_refs_outside=options.allow_refs_outside,
        client_profile=options.client_profile or "",
        output_schemas=options.output_schemas,
        formatter=options.formatter,
        resources=options.resources,
        icons=_icons_toml(options.icons),
        tag_icons=_toml({tag: [_icon_table(i) for i in icons] for tag, icons in options.tag_icons.items()})
        if options.tag_icons
        else "",
        default_scopes=options.default_scopes,
        confirm=_toml(list(options.confirm)),
        toolsets_from=options.toolsets_from or "",
    )
    tables = [_prompt_table(p) for p in options.prompts]
    tables += [_route_table(r) for r in options.routes]
    tables += [_resource_table(r) for r in options.resource_functions]
    tables += [_toolset_table(t) for t in options.toolsets]
    return text + "".join(f"\n{table}" for table in tables)


def _icon_table(icon: IconSpec) -> dict[str, object]:
    return _given(src=icon.src, mime_type=icon.mime_type, sizes=list(icon.sizes), theme=icon.theme)


def _icons_toml(icons: tuple[IconSpec, ...]) -> str:
    return _toml([_icon_table(i) for i in icons]) if icons else ""


def _toml(value: object) -> str:
    """A TOML value: string, boolean, integer, array or inline table (of those)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        # JSON's escapes are TOML's; DEL must be escaped in TOML, and astral characters kept whole.
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"no TOML form for {value!r}")


def _table(header: str, entries: dict[str, object]) -> str:
    lines = [f"[[{header}]]"]
    for key, value in entries.items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            lines += [f"{key} = ["] + [f"  {_toml(v)}," for v in value] + ["]"]
        else:
            lines.append(f"{key} = {_toml(value)}")
    return "\n".join(lines) + "\n"


def _given(**entries: object) -> dict[str, object]:
    """Entries other than None, empty and the default "" / False."""
    return {k: v for k, v in entries.items() if v not in (None, (), [], "", False)}


def _prompt_table(prompt: PromptSpec) -> str:
    arguments = [
        _given(name=a.name, description=a.description, required=a.required, values=list(a.values))
        for a in prompt.arguments
    ]
    messages: list[dict[str, object]] = []
    for m in prompt.messages:
        if m.resource_uri is None:
            messages.append({"role": m.role, "text": m.text})
        else:
            resource = {"uri": m.resource_uri, "text": m.text, "mime_type": m.resource_mime_type}
            messages.append({"role": m.role, "resource": resource})
    return _table(
        "prompts",
        _given(
            name=prompt.name, title=prompt.title, description=prompt.description,
            arguments=arguments or None, messages=messages or None, function=prompt.function,
        ),
    )


def _route_table(rule: RouteRule) -> str:
    match = _given(method=list(rule.methods), path=rule.path, tag=list(rule.tags), operation=list(rule.operations))
    return _table("routes", {"match": match, "as": rule.action})


def _resource_table(spec: ResourceSpec) -> str:
    given = _given(**spec.model_dump(exclude={"scopes"}))
    if spec.scopes is not None:  # `scopes = []` (none needed) differs from no `scopes`
        given["scopes"] = list(spec.scopes)
    return _table("resources", given)


def _toolset_table(spec: ToolsetSpec) -> str:
    given = _given(**{k: list(v) if isinstance(v, tuple) else v for k, v in spec.model_dump(exclude={"name"}).items()})
    lines = [f"[toolsets.{_toml(spec.name)}]"] + [f"{key} = {_toml(value)}" for key, value in given.items()]
    return "\n".join(lines) + "\n"


# -- reading ----------------------------------------------------------------------


def read_project_file(project_dir: Path) -> tuple[ProjectFile, Diagnostics]:
    """Parse and check `project_dir/mcpgen.toml`. Raises GenerationError listing every problem.

    Returns the diagnostics collector too: overrides are checked against the tools later,
    and those errors must point into this file as well.
    """
    path = project_dir / PROJECT_FILE
    diagnostics = Diagnostics(file=str(path))
    outside = escape(project_dir.resolve(), PROJECT_FILE)
    if outside is not None:
        diagnostics.error(f"{PROJECT_FILE} {outside}", hint="replace the link with the file itself")
        raise GenerationError(diagnostics.items)
    try:
        text = read_bounded(path)
    except FileNotFoundError:
        diagnostics.error(
            "no mcpgen.toml here", hint="run `mcpgen regenerate` on a directory made by `mcpgen from-openapi/from-python`"
        )
        raise GenerationError(diagnostics.items) from None
    except (OSError, ValueError) as exc:  # ValueError: not UTF-8, or too large
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
    """Maps the parsed TOML onto the options model, recording a located error for every
    bad key or value: the layout's keys are checked here, the values by the model."""

    def __init__(self, data: dict[str, Any], diagnostics: Diagnostics) -> None:
        self.data = data
        self.diag = diagnostics
        self.override_keys: list[str] = []  # overrides[i] is [tools.<override_keys[i]>]
        self.resource_messages: set[tuple[int, int]] = set()  # (prompt, message) given as `resource = {...}`
        self.toolset_names: list[str] = []  # toolsets[i] is [toolsets.<toolset_names[i]>]

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
        return {k: v for k, v in value.items() if k in allowed}

    def tables(self, top: dict[str, Any], key: str, expected: str) -> list[dict[str, Any]]:
        entries = top.get(key, [])
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            self.error(key, expected)
            return []
        return entries

    def project_file(self) -> ProjectFile | None:
        top = self.check_keys(self.data, "", _TOP_KEYS)
        version = top.get("mcpgen_version")
        if version is not None and not isinstance(version, str):
            self.error("mcpgen_version", f"expected a string, got {version!r}")
        source = self.table(top, "source", "source", ("openapi", "python", "workdir", "overlays"))
        kinds = [k for k in ("openapi", "python") if k in source]
        if len(kinds) != 1:
            self.error("source", "give exactly one of `openapi = \"spec.yaml\"` or `python = \"module\"`")
            return None
        kind: SourceKind = "openapi" if kinds[0] == "openapi" else "python"
        target = source[kind]
        if not isinstance(target, str) or not target.strip():
            self.error(f"source.{kind}", f"expected a non-empty string, got {target!r}")
            target = None
        workdir = source.get("workdir")
        if workdir is not None and not isinstance(workdir, str):
            self.error("source.workdir", f"expected a string, got {workdir!r}")
        if kind == "openapi" and workdir is not None:
            self.error("source.workdir", "only Python module sources have a workdir")
        overlays = source.get("overlays", [])
        if kind == "python" and "overlays" in source:
            self.error("source.overlays", "overlays patch OpenAPI documents; a Python source has none")
        if not isinstance(overlays, list) or not all(isinstance(o, str) and o.strip() for o in overlays):
            self.error("source.overlays", f"expected a list of file paths, got {overlays!r}")
            overlays = []
        given: dict[str, Any] = dict(self.table(top, "options", "options", option_keys(kind)))
        if kind == "python" and "filters" in top:
            self.error("filters", WRONG_SOURCE["filters"])
        elif "filters" in top:
            given["filters"] = top["filters"]  # its keys are the model's: the model checks them
        given["overrides"] = self.overrides(top)
        given["prompts"] = self.prompts(top)
        given["routes"] = self.routes(top)
        given["toolsets"] = self.toolsets(top)
        given["resource_functions"] = self.tables(
            top, "resources", 'expected [[resources]] tables: function = "...", uri = "scheme://..."'
        )
        try:
            options = Options.model_validate(given)
        except ValidationError as exc:
            self.report(problems(exc))
            return None
        self.report(source_problems(options, kind))
        if target is None or not isinstance(workdir, (str, type(None))):
            return None
        return ProjectFile(kind, target, workdir, options, version if isinstance(version, str) else "", tuple(overlays))

    def report(self, found: list[Problem]) -> None:
        for problem in found:
            key = self.key(problem.loc)
            self.error(key, problem.message, problem.hint)

    def key(self, loc: tuple[str | int, ...]) -> str:
        """The dotted mcpgen.toml key of a field path of the options model."""
        head, rest = (loc[0], loc[1:]) if loc else ("", ())
        parts: list[str | int]
        if head == "overrides" and rest and isinstance(rest[0], int):
            parts = ["tools", self.override_keys[rest[0]]]
            if len(rest) > 1:
                parts += ["annotations", rest[1]] if rest[1] in ANNOTATION_HINTS else [rest[1], *rest[2:]]
        elif head == "routes" and len(rest) > 1:
            name = str(rest[1])
            parts = ["routes", rest[0], "as"] if name == "action" else ["routes", rest[0], "match", _ROUTE_FIELDS[name]]
        elif head == "routes":
            parts = ["routes", *rest]
        elif head == "prompts" and len(rest) > 3 and rest[1] == "messages":
            prompt, message, field = rest[0], rest[2], rest[3]
            as_resource = (prompt, message) in self.resource_messages
            resource = {"resource_uri": "uri", "resource_mime_type": "mime_type", "text": "text"}
            if as_resource and field in resource:
                parts = ["prompts", prompt, "messages", message, "resource", resource[str(field)]]
            else:
                parts = list(loc)
        elif head == "resource_functions":
            parts = ["resources", *rest]
        elif head == "toolsets" and rest and isinstance(rest[0], int) and rest[0] < len(self.toolset_names):
            parts = ["toolsets", self.toolset_names[rest[0]], *rest[1:]]
        elif head in ("filters", "prompts"):
            parts = list(loc)
        elif head:
            parts = ["options", head, *rest]
        else:
            parts = []
        return ".".join(str(p) for p in parts)

    def overrides(self, top: dict[str, Any]) -> list[dict[str, Any]]:
        tools = top.get("tools", {})
        if not isinstance(tools, dict):
            self.error("tools", "expected a table of [tools.<name>] tables")
            return []
        out = []
        for key in sorted(tools):
            where = f"tools.{key}"
            table = self.table(tools, key, where, _OVERRIDE_KEYS)
            hints = self.table(table, "annotations", f"{where}.annotations", ANNOTATION_HINTS)
            self.override_keys.append(key)
            out.append({"key": key, **{k: v for k, v in table.items() if k != "annotations"}, **hints})
        return out

    def prompts(self, top: dict[str, Any]) -> list[dict[str, Any]]:
        out = []
        for index, entry in enumerate(self.tables(top, "prompts", "expected [[prompts]] tables")):
            messages = entry.get("messages")
            if messages is None:
                out.append(entry)
                continue
            where = f"prompts.{index}.messages"
            if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
                self.error(where, 'expected a list of { role = "user", text = "..." } tables')
                out.append({k: v for k, v in entry.items() if k != "messages"})
                continue
            out.append({**entry, "messages": [self.message(m, index, n) for n, m in enumerate(messages)]})
        return out

    def message(self, message: dict[str, Any], prompt: int, number: int) -> dict[str, Any]:
        at = f"prompts.{prompt}.messages.{number}"
        table = self.check_keys(message, at, _MESSAGE_KEYS)
        if "resource" not in table:
            return table
        resource = self.table(table, "resource", f"{at}.resource", _RESOURCE_KEYS)
        if "text" in table:
            self.error(at, "a message has either `text` or an embedded `resource = { uri, text }`")
        if "uri" not in resource or "text" not in resource:
            self.error(f"{at}.resource", "an embedded resource needs `uri` and `text`")
        self.resource_messages.add((prompt, number))
        moved = {"uri": "resource_uri", "text": "text", "mime_type": "resource_mime_type"}
        return {
            **{k: v for k, v in table.items() if k not in ("resource", "text")},
            **{moved[k]: v for k, v in resource.items()},
        }

    def toolsets(self, top: dict[str, Any]) -> list[dict[str, Any]]:
        toolsets = top.get("toolsets", {})
        if not isinstance(toolsets, dict):
            self.error("toolsets", "expected [toolsets.<name>] tables")
            return []
        out = []
        for name in sorted(toolsets):
            table = self.table(toolsets, name, f"toolsets.{name}", _TOOLSET_KEYS)
            self.toolset_names.append(name)
            out.append({"name": name, **table})
        return out

    def routes(self, top: dict[str, Any]) -> list[dict[str, Any]]:
        out = []
        for index, entry in enumerate(
            self.tables(top, "routes", 'expected [[routes]] tables: match = { ... }, as = "resource"')
        ):
            where = f"routes.{index}"
            table = self.check_keys(entry, where, ("match", "as"))
            match = self.table(table, "match", f"{where}.match", tuple(_ROUTE_MATCH))
            rule = {_ROUTE_MATCH[k]: v for k, v in match.items()}
            if "as" in table:
                rule["action"] = table["as"]
            out.append(rule)
        return out


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
            array_key = tuple(_key_parts(array.group(1)))
            counts[array_key] = counts.get(array_key, -1) + 1
            table = [*array_key, str(counts[array_key])]
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
