"""Template views: IR facts arranged the way templates read them (the MCP objects as sent, the
catalogue's entries, the typed API's operations)."""

from __future__ import annotations

from typing import Any

from mcpgen.ir import HttpBody, HttpRoute, Icon, Project, Prompt, Resource, SecurityScheme, Tool


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
    if tool.toolsets:
        entry["toolsets"] = list(tool.toolsets)
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
                **({"contentType": p.content_type} if p.content_type else {}),
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
        **({"stream": route.response_stream} if route.response_stream else {}),
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


def typed_imports(operations: list[dict[str, Any]]) -> list[dict[str, str]]:
    """The typed API's model imports: (module, class) of every operation's model, sorted."""
    imports = sorted({(op["model_module"], op["model_class"]) for op in operations if op["model_module"]})
    return [{"module": m, "name": c} for m, c in imports]


def client_configs(project: Project, distribution: str) -> tuple[dict[str, Any], dict[str, Any]]:
    env = {v.name: f"<{v.name.lower()}>" for v in project.env_vars if v.secret}
    server: dict[str, Any] = {"command": distribution, "args": []}
    if env:
        server["env"] = env
    claude = {"mcpServers": {project.name: server}}
    vscode = {"servers": {project.name: {"type": "stdio", **server}}}
    return claude, vscode


def sends_bytes(project: Project) -> bool:
    """Whether a tool uploads files or a binary body (what `PREFIX_MAX_UPLOAD_BYTES` limits)."""
    bodies = [t.route.body for t in project.tools if t.route and t.route.body]
    binary = any(b.content_type.split(";")[0].strip().lower() == "application/octet-stream" for b in bodies)
    return binary or any(f.file for body in bodies for f in body.fields)
