"""IR → {relative path: text}. The Jinja environment, its filters, and the views
templates read. Spec text reaches generated code only through the escaping filters here.
"""

from __future__ import annotations

import json
import keyword
import math
import re
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from mcpgen import naming
from mcpgen.ir import Project, Tool

RUNTIME_DEPENDENCIES = ("mcp>=2.3,<3", "pydantic>=2.7,<3", "jsonschema>=4.20", "uvicorn>=0.30", "anyio>=4.5")
HTTP_DEPENDENCIES = ("httpx2>=2.16",)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_ANNOTATION = re.compile(r"^[^\W\d][\w\[\], |.]*$")  # \w: Unicode identifiers too (model classes)


def templates_dir() -> Path:
    """Templates ship inside the wheel as `mcpgen/templates`; in a checkout they sit at the top."""
    packaged = Path(__file__).parent / "templates"
    return packaged if packaged.is_dir() else Path(__file__).parent.parent / "templates"


# -- filters: the only way spec text reaches generated files ----------------


def pyrepr(value: Any) -> str:
    """A Python literal for JSON-like data; anything else is refused rather than guessed."""
    if value is None or isinstance(value, (bool, int, str)):
        return repr(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else f'float("{value}")'
    if isinstance(value, (list, tuple)):
        items = ", ".join(pyrepr(v) for v in value)
        if isinstance(value, tuple):
            return f"({items},)" if len(value) == 1 else f"({items})"
        return f"[{items}]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{pyrepr(k)}: {pyrepr(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"pyrepr: unsupported value of type {type(value).__name__}")


def docstring(text: Any) -> str:
    """Text safe inside a triple-quoted docstring: no escape, quote or control character survives."""
    text = _CONTROL.sub("", str(text or "")).replace("\r\n", "\n").replace("\r", "\n")
    text = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    text = "\n".join(line.rstrip() for line in text.strip().splitlines())
    if text.endswith('"'):
        text = text[:-1] + '\\"'
    return text or "(no description)"


def ident(value: Any) -> str:
    text = str(value)
    if not text.isidentifier():
        raise ValueError(f"not a Python identifier: {text!r}")
    return text


def dotted(value: Any) -> str:
    """A module path of identifiers (Unicode ones too: model modules are named from schemas)."""
    text = str(value)
    if not all(part.isidentifier() and not keyword.iskeyword(part) for part in text.split(".")):
        raise ValueError(f"not a dotted module name: {text!r}")
    return text


def annotation(value: Any) -> str:
    text = str(value)
    if not _ANNOTATION.match(text):
        raise ValueError(f"not a type annotation: {text!r}")
    return text


def tomlstr(value: Any) -> str:
    """A TOML basic string (JSON's escapes are a subset of TOML's)."""
    return json.dumps(str(value), ensure_ascii=True)


def comment(value: Any) -> str:
    return " ".join(_CONTROL.sub("", str(value)).split())


def md(value: Any) -> str:
    """Prose for README.md: code fences neutralised so text cannot open a block."""
    return _CONTROL.sub("", str(value)).replace("```", "ʼʼʼ").strip()


def mdcell(value: Any) -> str:
    if value is None or value == "":
        return ""
    text = " ".join(_CONTROL.sub("", str(value)).split()).replace("|", "\\|").replace("`", "'")
    return text if len(text) <= 160 else text[:159] + "…"


def json_document(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def json_lines(items: list[Any]) -> str:
    """A JSON array, one compact item per line: half the bytes of indented JSON (the
    server loads it at start-up) while diffs still show which item changed."""
    return "[\n" + ",\n".join(json.dumps(i, ensure_ascii=False, separators=(",", ":")) for i in items) + "\n]"


@cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters.update(
        pyrepr=pyrepr, docstring=docstring, ident=ident, dotted=dotted, annotation=annotation,
        tomlstr=tomlstr, comment=comment, md=md, mdcell=mdcell, json_document=json_document, json_lines=json_lines,
    )
    return env


# -- views: IR facts arranged the way templates read them -------------------


def wire_tool(tool: Tool) -> dict[str, Any]:
    """The MCP Tool object exactly as tools/list sends it."""
    out: dict[str, Any] = {"name": tool.name}
    if tool.title:
        out["title"] = tool.title
    out["description"] = tool.description
    out["inputSchema"] = tool.input_schema
    if tool.output_schema is not None:
        out["outputSchema"] = tool.output_schema
    hints = {
        "readOnlyHint": tool.annotations.read_only,
        "destructiveHint": tool.annotations.destructive,
        "idempotentHint": tool.annotations.idempotent,
        "openWorldHint": tool.annotations.open_world,
    }
    annotations: dict[str, Any] = {"title": tool.title} if tool.title else {}
    annotations.update({k: v for k, v in hints.items() if v is not None})
    if annotations:
        out["annotations"] = annotations
    return out


def tool_entry(tool: Tool) -> dict[str, Any]:
    entry: dict[str, Any] = {"tool": wire_tool(tool), "wrapsResult": tool.wraps_result}
    route = tool.route
    if route is not None:
        entry["http"] = {
            "method": route.method,
            "path": route.path,
            "params": [
                {"name": p.name, "argument": p.argument, "in": p.location, "style": p.style, "explode": p.explode}
                for p in route.params
            ],
            "body": None
            if route.body is None
            else {
                "contentType": route.body.content_type,
                "fields": [[f.name, f.argument] for f in route.body.fields],
                "argument": route.body.argument,
            },
            "security": [list(requirement) for requirement in route.security],
        }
    return entry


def operation_view(tool: Tool) -> dict[str, Any]:
    route = tool.route
    assert route is not None
    arguments = [
        {"ident": p.python_name, "key": p.argument, "annotation": p.python_type, "required": p.required}
        for p in route.params
    ]
    if route.body is not None:
        for f in route.body.fields:
            arguments.append({"ident": f.python_name, "key": f.argument, "annotation": f.python_type, "required": f.required})
        if route.body.argument is not None:
            arguments.append(
                {"ident": route.body.python_name, "key": route.body.argument, "annotation": route.body.python_type,
                 "required": route.body.required}
            )
    for arg in arguments:
        if not arg["required"] and not arg["annotation"].endswith("| None") and arg["annotation"] != "Any":
            arg["annotation"] += " | None"
    arguments.sort(key=lambda a: not a["required"])  # stable: required first, spec order kept
    doc = tool.description + "".join(
        f"\n\n:param {a['ident']}: tool argument ``{a['key']}``" for a in arguments if a["ident"] != a["key"]
    )
    return {
        "function": tool.python_name,
        "tool": tool.name,
        "arguments": arguments,
        "returns": route.response_type,
        "model_module": route.response_model_module,
        "model_class": route.response_model,
        "kind": route.response_kind,
        "doc": doc,
    }


def _client_configs(project: Project, distribution: str) -> tuple[dict[str, Any], dict[str, Any]]:
    env = {v.name: f"<{v.name.lower()}>" for v in project.env_vars if v.secret}
    server: dict[str, Any] = {"command": distribution, "args": []}
    if env:
        server["env"] = env
    claude = {"mcpServers": {project.name: server}}
    vscode = {"servers": {project.name: {"type": "stdio", **server}}}
    return claude, vscode


def render_project(project: Project) -> dict[str, str]:
    """Every generated file, by path relative to the output directory."""
    env = environment()
    distribution = naming.distribution_name(project.name)
    openapi = project.source_kind == "openapi"
    dependencies = _dependencies(project)
    claude, vscode = _client_configs(project, distribution)
    context: dict[str, Any] = {
        "project": project,
        "distribution": distribution,
        "version": naming.package_version(project.version),
        "dependencies": dependencies,
        "summary": (project.description.strip().splitlines() or [project.title])[0][:200],
        "env_vars": list(project.env_vars) + _runtime_env_vars(project),
        "claude_config": claude,
        "vscode_config": vscode,
        "tool_entries": [tool_entry(t) for t in project.tools],
        "tools": list(project.tools),
    }
    pkg = f"src/{project.package}"
    files = {
        "pyproject.toml": "pyproject.toml.j2",
        "README.md": "README.md.j2",
        f"{pkg}/__init__.py": "src/__init__.py.j2",
        f"{pkg}/__main__.py": "src/__main__.py.j2",
        f"{pkg}/config.py": "src/config.py.j2",
        f"{pkg}/catalog.py": "src/catalog.py.j2",
        f"{pkg}/server.py": "src/server.py.j2",
        f"{pkg}/tools.json": "src/tools.json.j2",
        f"{pkg}/py.typed": "src/py.typed.j2",
    }
    if openapi:
        operations = [operation_view(t) for t in project.tools]
        context["operations"] = operations
        context["model_imports"] = sorted(
            {(op["model_module"], op["model_class"]) for op in operations if op["model_module"]}
        )
        context["example_function"] = operations[0]["function"] if operations else "operation"
        context["security_schemes"] = {
            s.name: (s.kind, s.location, s.parameter, s.env_vars) for s in project.security_schemes
        }
        files[f"{pkg}/upstream.py"] = "src/upstream.py.j2"
        files[f"{pkg}/operations.py"] = "src/operations.py.j2"
    else:
        files[f"{pkg}/functions.py"] = "src/functions.py.j2"
    out = {path: env.get_template(template).render(context) for path, template in files.items()}
    if project.models:
        for module in project.models:
            out[f"{pkg}/models/{module.path}"] = module.source
    for relative, text in project.copied_files:
        out[f"{pkg}/{relative}"] = text
    return dict(sorted(out.items()))


def _dependencies(project: Project) -> list[str]:
    """Runtime requirements plus the project's own, one line per distribution (ours win)."""
    pinned = [*RUNTIME_DEPENDENCIES, *(HTTP_DEPENDENCIES if project.source_kind == "openapi" else ())]
    names = {_distribution_key(d) for d in pinned}
    extra = [d for d in project.extra_dependencies if _distribution_key(d) not in names]
    return sorted({*pinned, *extra}, key=_distribution_key)


def _distribution_key(requirement: str) -> str:
    name = re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0]
    return re.sub(r"[-_.]+", "-", name).lower()


def _runtime_env_vars(project: Project) -> list[dict[str, Any]]:
    prefix = project.env_prefix
    extra = [{"name": f"{prefix}_RATE_LIMIT", "description": "Tool calls allowed per minute; 0 = unlimited", "default": "0"}]
    if project.source_kind == "openapi":
        extra.append({"name": f"{prefix}_TIMEOUT", "description": "Upstream request timeout, seconds", "default": "30"})
    return extra
