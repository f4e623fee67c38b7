"""IR → {relative path: text}: the Jinja environment and the file list of a generated project.
Spec text reaches generated code only through the escaping filters (`rendering/filters.py`);
templates read the views of `rendering/views.py`. Rendering writes nothing and formats nothing:
the format stage (`mcpgen/formatting.py`) lays out the Python, the writer puts it on disk.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from mcpgen import dependencies as dependency_table
from mcpgen import naming
from mcpgen.ir import Project
from mcpgen.rendering import project_tests
from mcpgen.rendering.filters import (
    annotation,
    comment,
    docstring,
    dotted,
    ident,
    json_document,
    json_lines,
    md,
    mdcell,
    pyrepr,
    tomlstr,
)
from mcpgen.rendering.settings_table import _runtime_env_vars
from mcpgen.rendering.views import (
    client_configs,
    icon_entry,
    operation_view,
    prompt_entry,
    resource_entry,
    route_entry,
    security_view,
    sends_bytes,
    tool_entry,
    typed_imports,
    wire_tool,
)

# google-re2: spec patterns are matched in linear time (runtime/patterns.py); wheels for
# CPython 3.10-3.13 on Linux (manylinux 2.28; older releases for manylinux2014), macOS, Windows.
# Above this many operations the typed API becomes a package of modules this size, so no
# generated module is too big to read, import or type-check (Microsoft Graph's was 13 MB).
OPERATIONS_PER_MODULE = 150


def templates_dir() -> Path:
    """Templates ship inside the wheel as `mcpgen/templates`; in a checkout they sit at the top."""
    package = Path(__file__).resolve().parents[1]
    packaged = package / "templates"
    return packaged if packaged.is_dir() else package.parent / "templates"


@cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,  # noqa: S701 - the output is Python, TOML, JSON and Markdown, escaped by the filters here
    )
    env.filters.update(
        pyrepr=pyrepr,
        docstring=docstring,
        ident=ident,
        dotted=dotted,
        annotation=annotation,
        tomlstr=tomlstr,
        comment=comment,
        md=md,
        mdcell=mdcell,
        json_document=json_document,
        json_lines=json_lines,
    )
    return env


def render_project(project: Project) -> dict[str, str]:
    """Every generated file, by path relative to the output directory."""
    return dict(sorted({**_server_files(project), **_typed_api(project)}.items()))


def _server_files(project: Project) -> dict[str, str]:
    """Every generated file but the typed API and the model modules."""
    env = environment()
    distribution = naming.distribution_name(project.name)
    dependencies = _dependencies(project)
    claude, vscode = client_configs(project, distribution)
    context: dict[str, Any] = {
        "project": project,
        "distribution": distribution,
        "version": naming.package_version(project.version),
        "dependencies": dependencies,
        "requires_python": dependency_table.requires_python(dependencies),
        "summary": (project.description.strip().splitlines() or [project.title])[0][:200],
        "env_vars": list(project.env_vars) + _runtime_env_vars(project),
        "claude_config": claude,
        "vscode_config": vscode,
        "tool_entries": [tool_entry(t) for t in project.tools],
        "tools": list(project.tools),
        "dynamic": project.tool_mode == "dynamic",
        "has_resources": bool(project.resources),
        "resource_entries": [resource_entry(r) for r in project.resources],
        "secret_env_vars": tuple(v.name for v in project.env_vars if v.secret),
        "credential_names": tuple(sorted({s.parameter for s in project.security_schemes})),
        "security_schemes": {s.name: security_view(s) for s in project.security_schemes},
        "server_icons": tuple(icon_entry(icon) for icon in project.icons),
        "uploads": any(f.file for t in project.tools if t.route and t.route.body for f in t.route.body.fields),
        "sends_bytes": sends_bytes(project),
        "functions": {t.name: (t.call.module, t.call.function, t.call.is_async) for t in project.tools if t.call},
        "default_scopes": project.default_scopes,
        "context_tools": tuple(t.name for t in project.tools if t.call and t.call.context),
        "confirm_tools": tuple(t.name for t in project.tools if t.confirm),
        "toolsets": {t.name: t.description for t in project.toolsets},
    }
    pkg = f"src/{project.package}"
    files = {
        "pyproject.toml": "pyproject.toml.j2",
        "README.md": "README.md.j2",
        f"{pkg}/__init__.py": "src/__init__.py.j2",
        f"{pkg}/__main__.py": "src/__main__.py.j2",
        f"{pkg}/project.py": "src/project.py.j2",
        f"{pkg}/extensions.py": "src/extensions.py.j2",
        f"{pkg}/server.py": "src/server.py.j2",
        f"{pkg}/tools.json": "src/tools.json.j2",
        f"{pkg}/py.typed": "src/py.typed.j2",
        # Deployment: a container image, and replicas behind haproxy sharing limits on Redis.
        "Dockerfile": "deploy/Dockerfile.j2",
        ".dockerignore": "deploy/dockerignore.j2",
        "compose.yaml": "deploy/compose.yaml.j2",
        "deploy/haproxy.cfg": "deploy/haproxy.cfg.j2",
    }
    if project.resources or project.prompts:
        files[f"{pkg}/resources.json"] = "src/resources.json.j2"
    if project.prompts:
        files[f"{pkg}/prompts.json"] = "src/prompts.json.j2"
        context["prompt_entries"] = [prompt_entry(p) for p in project.prompts]
    files.update(project_tests.test_templates(project))
    context["tool_cases"] = project_tests.tool_cases(project)
    out = {
        path: env.get_template(template).render({**context, "up": "."})
        for path, template in files.items()
    }
    for relative, text in project.copied_files:
        out[f"{pkg}/{relative}"] = text
    out.update(runtime_files(project))
    return out


def _typed_api(project: Project) -> dict[str, str]:
    """The typed API of an OpenAPI project (`operations.py`, or an `operations/` package for
    many operations) and its model modules."""
    out: dict[str, str] = {}
    pkg = f"src/{project.package}"
    if project.source_kind == "openapi":
        env = environment()
        operations = [operation_view(t) for t in project.tools]
        context: dict[str, Any] = {
            "project": project,
            "operations": operations,
            "typed": typed_imports(operations),
            "example_function": operations[0]["function"] if operations else "operation",
            "up": ".",
        }
        if len(operations) <= OPERATIONS_PER_MODULE:
            out[f"{pkg}/operations.py"] = env.get_template("src/operations.py.j2").render(context)
        else:
            out.update(_operation_modules(env, context, f"{pkg}/operations"))
    for module in project.models:
        out[f"{pkg}/models/{module.path}"] = module.source
    return out


def runtime_dir() -> Path:
    """`mcpgen/runtime/`: the generated servers' shared code, as plain Python."""
    return Path(__file__).resolve().parents[1] / "runtime"


@cache
def _runtime_sources() -> tuple[tuple[str, str], ...]:
    return tuple(
        (path.name, path.read_text("utf-8")) for path in sorted(runtime_dir().glob("*.py"))
    )


def runtime_files(project: Project) -> dict[str, str]:
    """The runtime's copy in the package: `src/<package>/runtime/`, byte for byte its source."""
    return {f"src/{project.package}/runtime/{name}": text for name, text in _runtime_sources()}


def _operation_modules(
    env: jinja2.Environment, context: dict[str, Any], folder: str
) -> dict[str, str]:
    """The typed API as a package: `part_NNN.py` modules of OPERATIONS_PER_MODULE operations
    each, in tool order (deterministic), re-exported by `__init__.py`."""
    operations = context["operations"]
    chunks = [
        operations[i : i + OPERATIONS_PER_MODULE]
        for i in range(0, len(operations), OPERATIONS_PER_MODULE)
    ]
    template = env.get_template("src/operations.py.j2")
    out: dict[str, str] = {}
    parts = []
    for number, chunk in enumerate(chunks, start=1):
        module = f"part_{number:03d}"
        part_context = {
            **context,
            "operations": chunk,
            "typed": typed_imports(chunk),
            "up": "..",
        }
        out[f"{folder}/{module}.py"] = template.render(part_context)
        parts.append({"module": module, "functions": [op["function"] for op in chunk]})
    index = {**context, "operation_parts": parts, "operations_per_module": OPERATIONS_PER_MODULE}
    out[f"{folder}/__init__.py"] = env.get_template("src/operations_index.py.j2").render(index)
    return out


def render_user_files(project: Project) -> dict[str, str]:
    """Files the user owns: created by the first generation, never rewritten."""
    env = environment()
    pkg = f"src/{project.package}"
    hooks = (
        "user/hooks_openapi.py.j2"
        if project.source_kind == "openapi"
        else "user/hooks_python.py.j2"
    )
    templates = {f"{pkg}/hooks.py": hooks, f"{pkg}/custom_tools.py": "user/custom_tools.py.j2"}
    return {
        path: env.get_template(template).render(project=project)
        for path, template in templates.items()
    }


def _dependencies(project: Project) -> list[str]:
    """Runtime requirements plus the project's own, one line per distribution (ours win)."""
    pinned = [
        d.requirement
        for d in (*dependency_table.RUNTIME, *(dependency_table.HTTP if project.source_kind == "openapi" else ()),
                  *(dependency_table.CODE if project.tool_mode == "code" else ()))
    ]
    key = dependency_table.distribution_key
    names = {key(d) for d in pinned}
    extra = [d for d in project.extra_dependencies if key(d) not in names]
    return sorted({*pinned, *extra}, key=key)


__all__ = [
    "OPERATIONS_PER_MODULE",
    "environment",
    "icon_entry",
    "operation_view",
    "prompt_entry",
    "render_project",
    "render_user_files",
    "resource_entry",
    "route_entry",
    "runtime_dir",
    "runtime_files",
    "security_view",
    "templates_dir",
    "tool_entry",
    "wire_tool",
]
