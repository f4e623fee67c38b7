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

from mcpgen import dependencies as dependency_table
from mcpgen import naming
from mcpgen.ir import HttpBody, HttpRoute, Icon, Project, Prompt, Resource, SecurityScheme, Tool
from mcpgen.rendering import project_tests
from mcpgen.runtime import declared
from mcpgen.writer import LINE_LENGTH

# google-re2: spec patterns are matched in linear time (runtime/patterns.py); wheels for
# CPython 3.10-3.13 on Linux (manylinux 2.28; older releases for manylinux2014), macOS, Windows.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_ANNOTATION = re.compile(r"^[^\W\d][\w\[\], |.]*$")  # \w: Unicode identifiers too (model classes)
# Above this many operations the typed API becomes a package of modules this size, so no
# generated module is too big to read, import or type-check (Microsoft Graph's was 13 MB).
OPERATIONS_PER_MODULE = 150


def templates_dir() -> Path:
    """Templates ship inside the wheel as `mcpgen/templates`; in a checkout they sit at the top."""
    package = Path(__file__).resolve().parents[1]
    packaged = package / "templates"
    return packaged if packaged.is_dir() else package.parent / "templates"


# -- filters: the only way spec text reaches generated files ----------------


def pyrepr(value: Any) -> str:
    """A Python literal for JSON-like data; anything else is refused rather than guessed."""
    if isinstance(value, str):
        return _string_literal(value)
    if value is None or isinstance(value, (bool, int)):
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


def _string_literal(text: str) -> str:
    """repr(), but double-quoted as black writes it: a module black changes is formatted
    twice, so black-style input halves its cost. repr picks single quotes only for text
    without a `'` to escape, so the swap is safe whenever the text holds no `"` either."""
    literal = repr(text)
    if literal[0] == "'" and '"' not in text:
        return f'"{literal[1:-1]}"'
    return literal


def docstring(text: Any) -> str:
    """Text safe inside a triple-quoted docstring: no escape, quote or control character survives."""
    text = _CONTROL.sub("", str(text or "")).replace("\r\n", "\n").replace("\r", "\n")
    text = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    text = "\n".join(line.rstrip() for line in text.strip().splitlines())
    # A last `"` would run into the closing quotes, unless it is escaped already (text
    # ending in three quotes): backslashes are doubled above, so an odd run before it escapes it.
    if text.endswith('"') and (len(text) - 1 - len(text[:-1].rstrip("\\"))) % 2 == 0:
        text = text[:-1] + '\\"'
    return text or "(no description)"


def docstring_literal(text: Any, indent: int = 4) -> str:
    """A whole docstring, quotes included, laid out as black lays it out at `indent`
    spaces (black's linegen docstring rules): later lines re-indented, a leading quote
    padded, closing quotes on their own line when the last line has no room for them."""
    lines = docstring(text).split("\n")
    if len(lines) > 1:
        rest = [_leading_tabs_expanded(line) for line in lines[1:]]
        common = min((len(line) - len(line.lstrip()) for line in rest if line.strip()), default=0)
        lines = [lines[0], *(" " * indent + line[common:] if line.strip() else "" for line in rest)]
    body = "\n".join(lines)
    if body.startswith('"'):
        body = " " + body
    if body.endswith('"'):
        body += " "
    if len(lines) > 1 and len(body.rsplit("\n", 1)[-1]) + 3 > LINE_LENGTH:
        body += "\n" + " " * indent
    return f'"""{body}"""'


def _leading_tabs_expanded(line: str) -> str:
    stripped = line.lstrip()
    return (
        line
        if not stripped or stripped == line
        else line[: len(line) - len(stripped)].expandtabs() + stripped
    )


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


def pyassign(value: Any, target: str) -> str:
    """`target = <literal>` at module level, laid out as black writes it: black leaves the
    module as it is and so formats it once, not twice."""
    return f"{target} = " + _black_literal(value, len(target) + 3, 0, "", target)


def pyentry(value: Any, key: Any, depth: int = 1) -> str:
    """`<key literal>: <value literal>,`, one entry of a dict literal at `depth`, as black writes it."""
    head = f"{pyrepr(key)}: "
    return head + _black_literal(value, 4 * depth + len(head), depth, ",") + ","


def pykwarg(value: Any, name: str, depth: int = 1) -> str:
    """`name=<literal>,`, one keyword argument of a call at `depth`, as black writes it."""
    head = f"{ident(name)}="
    return head + _black_literal(value, 4 * depth + len(head), depth, ",") + ","


def _black_literal(
    value: Any, column: int, depth: int, tail: str, target: str | None = None
) -> str:
    """pyrepr's text starting at `column` (`tail` follows it) on a line indented 4 * `depth`:
    kept on the line if it fits black's line length, else a non-empty collection is exploded
    one item per line with trailing commas (magic: black keeps them exploded), recursively.
    A scalar that does not fit stays on the line, except after `=`: black wraps it in
    parentheses when that makes it fit, and always after an annotated target (`X: str = `)."""
    text = pyrepr(value)
    if column + len(text) + len(tail) <= LINE_LENGTH:
        return text
    indent = " " * 4 * (depth + 1)
    if isinstance(value, dict) and value:
        heads = [f"{pyrepr(k)}: " for k in value]
        items = [
            head + _black_literal(v, len(indent) + len(head), depth + 1, ",")
            for head, v in zip(heads, value.values(), strict=True)
        ]
        brackets = "{}"
    elif isinstance(value, (list, tuple)) and value:
        items = [_black_literal(v, len(indent), depth + 1, ",") for v in value]
        brackets = "()" if isinstance(value, tuple) else "[]"
    else:
        if target is not None and (len(indent) + len(text) <= LINE_LENGTH or ":" in target):
            return f"(\n{indent}{text}\n)"
        return text
    body = "".join(f"{indent}{item},\n" for item in items)
    return f"{brackets[0]}\n{body}{' ' * 4 * depth}{brackets[1]}"


def json_document(value: Any) -> str:
    """Strict JSON: a NaN or infinity (which sources drop with a warning) is a bug, not output."""
    return json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)


def json_lines(items: list[Any]) -> str:
    """A JSON array, one compact item per line: half the bytes of indented JSON (the
    server loads it at start-up) while diffs still show which item changed. Strict JSON."""
    return "[\n" + ",\n".join(
        json.dumps(i, ensure_ascii=False, separators=(",", ":"), allow_nan=False) for i in items
    ) + "\n]"


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
        pyassign=pyassign,
        pyentry=pyentry,
        pykwarg=pykwarg,
        docstring=docstring,
        docstring_literal=docstring_literal,
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
    if tool.icons:
        out["icons"] = [icon_entry(icon) for icon in tool.icons]
    return out


def icon_entry(icon: Icon) -> dict[str, Any]:
    """An MCP Icon as sent."""
    out: dict[str, Any] = {"src": icon.src}
    if icon.mime_type:
        out["mimeType"] = icon.mime_type
    if icon.sizes:
        out["sizes"] = list(icon.sizes)
    if icon.theme:
        out["theme"] = icon.theme
    return out


def tool_entry(tool: Tool) -> dict[str, Any]:
    entry: dict[str, Any] = {"tool": wire_tool(tool), "wrapsResult": tool.wraps_result}
    if tool.tags:
        entry["tags"] = list(tool.tags)
    if tool.input_validation is not None:
        entry["inputValidation"] = tool.input_validation
    if tool.route is not None:
        entry["http"] = route_entry(tool.route)
    if tool.scopes is not None:
        entry["scopes"] = [list(alternative) for alternative in tool.scopes]
    return entry


def route_entry(route: HttpRoute) -> dict[str, Any]:
    """An HTTP route as `upstream.send` reads it."""
    return {
        "method": route.method,
        "path": route.path,
        "params": [
            {
                "name": p.name,
                "argument": p.argument,
                "in": p.location,
                "style": p.style,
                "explode": p.explode,
            }
            for p in route.params
        ],
        "body": (
            None
            if route.body is None
            else {
                "contentType": route.body.content_type,
                "fields": [[f.name, f.argument] for f in route.body.fields],
                "argument": route.body.argument,
                **_body_encoding(route.body),
            }
        ),
        "security": [list(requirement) for requirement in route.security],
    }


def resource_entry(resource: Resource) -> dict[str, Any]:
    """One line of resources.json: the MCP Resource/ResourceTemplate fields plus how to read it."""
    entry: dict[str, Any] = {"name": resource.name}
    if resource.title:
        entry["title"] = resource.title
    if resource.uri is not None:
        entry["uri"] = resource.uri
    else:
        entry["uriTemplate"] = resource.uri_template
        entry["pattern"] = resource.uri_pattern
        entry["variables"] = [argument for _, argument in resource.variables]
        entry["completions"] = {variable: list(values) for variable, values in resource.completions}
        if resource.schemas:
            entry["schemas"] = dict(resource.schemas)
    entry["description"] = resource.description
    if resource.mime_type:
        entry["mimeType"] = resource.mime_type
    entry["readOnly"] = resource.read_only
    if resource.scopes is not None:
        entry["scopes"] = [list(alternative) for alternative in resource.scopes]
    if resource.route is not None:
        entry["http"] = route_entry(resource.route)
    elif resource.call is not None:
        entry["call"] = [resource.call.module, resource.call.function, resource.call.is_async]
    return entry


def prompt_entry(prompt: Prompt) -> dict[str, Any]:
    """A prompt as prompts/list sends it, plus how prompts/get answers it."""
    listed: dict[str, Any] = {"name": prompt.name}
    if prompt.title:
        listed["title"] = prompt.title
    listed["description"] = prompt.description
    listed["arguments"] = [
        {
            "name": a.name,
            **({"description": a.description} if a.description else {}),
            "required": a.required,
        }
        for a in prompt.arguments
    ]
    messages = [
        {
            "role": m.role,
            "text": m.text,
            **(
                {"resourceUri": m.resource_uri, "mimeType": m.resource_mime_type}
                if m.resource_uri
                else {}
            ),
        }
        for m in prompt.messages
    ]
    call = (
        None
        if prompt.call is None
        else [prompt.call.module, prompt.call.function, prompt.call.is_async]
    )
    completions = {a.name: list(a.values) for a in prompt.arguments if a.values}
    return {"prompt": listed, "messages": messages, "call": call, "completions": completions}


def _body_encoding(body: HttpBody) -> dict[str, Any]:
    """File parts and per-property `encoding` of a form/multipart body (keys only when used)."""
    out: dict[str, Any] = {}
    files = [f.argument for f in body.fields if f.file]
    if files:
        out["files"] = files
    encoding = {
        f.name: {
            k: v
            for k, v in (
                ("style", f.style),
                ("explode", f.explode),
                ("contentType", f.content_type),
            )
            if v is not None
        }
        for f in body.fields
        if (f.style, f.explode, f.content_type) != (None, None, None)
    }
    if encoding:
        out["encoding"] = encoding
    return out


def security_view(scheme: SecurityScheme) -> dict[str, Any]:
    """How auth.py reads one scheme: kind, where it goes, and the env vars holding it."""
    view: dict[str, Any] = {
        "kind": scheme.kind,
        "in": scheme.location,
        "name": scheme.parameter,
        "env": list(scheme.env_vars),
    }
    if scheme.token_url is not None:
        view["tokenUrl"] = scheme.token_url
    return view


def operation_view(tool: Tool) -> dict[str, Any]:
    route = tool.route
    if route is None:
        raise ValueError(f"{tool.name}: the typed API covers HTTP tools only")
    arguments: list[dict[str, Any]] = [
        {
            "ident": p.python_name,
            "key": p.argument,
            "annotation": p.python_type,
            "required": p.required,
        }
        for p in route.params
    ]
    if route.body is not None:
        for f in route.body.fields:
            arguments.append(
                {
                    "ident": f.python_name,
                    "key": f.argument,
                    "annotation": f.python_type,
                    "required": f.required,
                }
            )
        if route.body.argument is not None:
            arguments.append(
                {
                    "ident": route.body.python_name,
                    "key": route.body.argument,
                    "annotation": route.body.python_type,
                    "required": route.body.required,
                }
            )
    for arg in arguments:
        if (
            not arg["required"]
            and not arg["annotation"].endswith("| None")
            and arg["annotation"] != "Any"
        ):
            arg["annotation"] += " | None"
    arguments.sort(key=lambda a: not a["required"])  # stable: required first, spec order kept
    doc = tool.description + "".join(
        f"\n\n:param {a['ident']}: tool argument ``{a['key']}``"
        for a in arguments
        if a["ident"] != a["key"]
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


def typed_imports(operations: list[dict[str, Any]], up: str) -> dict[str, Any]:
    """The typed API's model imports (`up` is the package's relative prefix) and, per
    operation, which of its lines fit on one line: wrapped as black wraps them otherwise."""
    imports = sorted(
        {(op["model_module"], op["model_class"]) for op in operations if op["model_module"]}
    )
    fits = {(m, c): len(f"    from {up}models.{m} import {c}") <= LINE_LENGTH for m, c in imports}
    return {
        "imports": [{"module": m, "name": c, "fits": fits[m, c]} for m, c in imports],
        "import_fits": {
            op["function"]: fits.get((op["model_module"], op["model_class"]), True)
            for op in operations
        },
        "return_fits": {
            op["function"]: len(
                f"    return TypeAdapter({op['returns']}).validate_json(response.content)"
            )
            <= LINE_LENGTH
            for op in operations
        },
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
    return dict(sorted({**render_untyped(project), **render_typed(project)}.items()))


def render_untyped(project: Project) -> dict[str, str]:
    """Every generated file but the typed API and the model modules: what does not depend on
    the typed models, rendered while a big spec's models are still being generated."""
    env = environment()
    distribution = naming.distribution_name(project.name)
    dependencies = _dependencies(project)
    claude, vscode = _client_configs(project, distribution)
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
        "sends_bytes": _sends_bytes(project),
        "functions": {t.name: (t.call.module, t.call.function, t.call.is_async) for t in project.tools if t.call},
        "default_scopes": project.default_scopes,
        "context_tools": tuple(t.name for t in project.tools if t.call and t.call.context),
        "confirm_tools": tuple(t.name for t in project.tools if t.confirm),
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


def render_typed(project: Project) -> dict[str, str]:
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
            "typed": typed_imports(operations, "."),
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
            "typed": typed_imports(chunk, ".."),
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
        for d in (*dependency_table.RUNTIME, *(dependency_table.HTTP if project.source_kind == "openapi" else ()))
    ]
    key = dependency_table.distribution_key
    names = {key(d) for d in pinned}
    extra = [d for d in project.extra_dependencies if key(d) not in names]
    return sorted({*pinned, *extra}, key=key)


def _sends_bytes(project: Project) -> bool:
    """Whether a tool uploads files or a binary body (what `PREFIX_MAX_UPLOAD_BYTES` limits)."""
    bodies = [t.route.body for t in project.tools if t.route and t.route.body]
    binary = any(b.content_type.split(";")[0].strip().lower() == "application/octet-stream" for b in bodies)
    return binary or any(f.file for body in bodies for f in body.fields)


def _runtime_env_vars(project: Project) -> list[dict[str, Any]]:
    """Settings the generated server reads, from the runtime's one declaration of them."""
    p = project.env_prefix
    openapi = project.source_kind == "openapi"
    applies = {
        "all": True,
        "openapi": openapi,
        "python": not openapi,
        "uploads": openapi and any(f.file for t in project.tools if t.route and t.route.body for f in t.route.body.fields),
        "sends_bytes": openapi and _sends_bytes(project),
        "project": False,  # with the project's own variables (project.env_vars)
    }
    shown = {"prefix": p, "page_size": project.page_size, "max_response_chars": project.max_response_chars}
    return [
        {
            "name": f"{p}_{setting.name}",
            "description": setting.meaning,
            "default": setting.default.format(**shown) if setting.default is not None else None,
        }
        for setting in declared.SETTINGS
        if applies[setting.scope]
    ]
