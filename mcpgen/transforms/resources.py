"""`--resources`: GET operations that need no arguments beyond their path become MCP resources.

A GET with no required parameter becomes a resource at a fixed URI; a GET whose only
required parameters are path parameters becomes a resource template (RFC 6570 level 1,
`{var}` per path parameter). URIs live under the server's own scheme, `<name>://<path>`.
The operations stay tools too: resources are chosen by the application, tools by the model.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import re
from urllib.parse import quote

from mcpgen.diagnostics import Diagnostic, Diagnostics, Level
from mcpgen.ir import JsonSchema, Origin, Project, Resource, Tool
from mcpgen.options import ResourceSpec, RouteRule

PROJECT_FILE_NAME = "mcpgen.toml"

# RFC 6570 literals: anything but CTL, SP, DQUOTE, ', %, <, >, \\, ^, `, {, |, } (we also keep ? and # out).
_LITERAL_SAFE = "/-._~!$&()*+,;=:@"
_PATH_VARIABLE = re.compile(r"\{([^{}]+)\}")


def scheme(project_name: str) -> str:
    """An RFC 3986 scheme from the server name: letters, digits, + - . ; starting with a letter."""
    text = re.sub(r"[^a-z0-9+.-]+", "-", project_name.lower()).strip("-.+")
    return text if text[:1].isalpha() else f"mcp-{text}" if text else "mcp"


def derive(project: Project) -> tuple[Project, list[Diagnostic]]:
    """`project` with a resource or template for each eligible GET operation."""
    prefix = scheme(project.name) + "://"
    resources: list[Resource] = list(project.resources)  # route rules may have made some already
    taken = {r.name for r in resources}
    diagnostics: list[Diagnostic] = []
    for tool in project.tools:
        resource = _resource(tool, prefix)
        if resource is not None and resource.name not in taken:
            resources.append(resource)
    kinds = sum(r.uri is not None for r in resources), sum(r.uri_template is not None for r in resources)
    if project.source_kind == "openapi" and not resources:
        diagnostics.append(Diagnostic(
            Level.WARNING, "--resources: no GET operation without required query, header or body arguments",
            project.source_file,
        ))
    elif resources:
        diagnostics.append(Diagnostic(
            Level.INFO, f"--resources: {kinds[0]} resources and {kinds[1]} resource templates under {prefix}",
            project.source_file,
        ))
    return dataclasses.replace(project, resources=tuple(resources)), diagnostics


def _resource(tool: Tool, prefix: str) -> Resource | None:
    route = tool.route
    if route is None or route.method != "GET" or (route.body is not None and route.body.required):
        return None
    if any(p.required and p.location != "path" for p in route.params):
        return None
    path_params = {p.name: p for p in route.params if p.location == "path"}
    literal_path = route.path.lstrip("/")
    mime = "application/json" if route.response_kind == "json" else None
    read_only = bool(tool.annotations.read_only)  # hidden by PREFIX_READ_ONLY=1 exactly when the tool is
    if not path_params:
        uri = prefix + quote(literal_path, safe=_LITERAL_SAFE)
        return Resource(
            tool.name, tool.title, tool.description, uri, None, None, mime, (), (), route, tool.origin,
            read_only=read_only, scopes=tool.scopes,
        )
    template, pattern, variables, completions, schemas = prefix, re.escape(prefix), [], [], []
    taken: set[str] = set()
    position = 0
    for match in _PATH_VARIABLE.finditer(literal_path):
        literal = quote(literal_path[position : match.start()], safe=_LITERAL_SAFE)
        template += literal
        pattern += re.escape(literal)
        param = path_params.get(match.group(1))
        if param is None:
            return None  # a path variable without a parameter: the parser already reported it
        variable = _variable(param.name, taken)
        template += "{" + variable + "}"
        pattern += "([^/?#]+)"
        variables.append((variable, param.argument))
        schemas.append((variable, _parameter_schema(tool, param.argument)))
        enum = (tool.input_schema.get("properties", {}).get(param.argument) or {}).get("enum")
        if isinstance(enum, list) and enum:
            completions.append((variable, tuple(str(v) for v in enum if v is not None)))
        position = match.end()
    tail = quote(literal_path[position:], safe=_LITERAL_SAFE)
    template += tail
    pattern += re.escape(tail)
    return Resource(
        tool.name, tool.title, tool.description, None, template, pattern, mime,
        tuple(variables), tuple(completions), route, tool.origin, schemas=tuple(schemas), read_only=read_only,
        scopes=tool.scopes,
    )


def _parameter_schema(tool: Tool, argument: str) -> JsonSchema:
    """The schema a template variable's value must match: its argument's, with the `$defs` it may use."""
    schema = dict(tool.input_schema.get("properties", {}).get(argument) or {})
    if "$defs" in tool.input_schema:
        schema["$defs"] = tool.input_schema["$defs"]
    return schema


def _variable(name: str, taken: set[str]) -> str:
    """An RFC 6570 varname (ALPHA / DIGIT / `_`) for a path parameter, unique in its template."""
    base = re.sub(r"[^A-Za-z0-9_]", "_", name) or "value"
    variable, n = base, 2
    while variable in taken:
        variable, n = f"{base}_{n}", n + 1
    taken.add(variable)
    return variable


# -- mcpgen.toml: route rules (OpenAPI) and functions bound to URIs (Python) ------------


def apply_routes(project: Project, rules: tuple[RouteRule, ...], diagnostics: Diagnostics) -> Project:
    """Serve operations as the first matching `[[routes]]` rule says: a tool (the default),
    a resource, a resource template, or nothing. A resource is no longer a tool."""
    if not rules:
        return project
    prefix = scheme(project.name) + "://"
    tools: list[Tool] = []
    resources = list(project.resources)
    used = [False] * len(rules)
    for tool in project.tools:
        index = next((i for i, rule in enumerate(rules) if _matches(rule, tool)), None)
        if index is None:
            tools.append(tool)
            continue
        used[index] = True
        action = rules[index].action
        if action == "tool":
            tools.append(tool)
        elif action in ("resource", "resource_template"):
            resource = _resource(tool, prefix)
            wanted_template = action == "resource_template"
            if resource is None or (resource.uri_template is not None) != wanted_template:
                why = _ineligible(tool, wanted_template)
                diagnostics.error(
                    f"routes.{index}: {tool.name} ({tool.route.method} {tool.route.path}) cannot be a "  # type: ignore[union-attr]
                    f"{action.replace('_', ' ')}: {why}",
                    f"routes.{index}",
                )
                tools.append(tool)
            else:
                resources = [r for r in resources if r.name != resource.name] + [resource]
    for index, rule_used in enumerate(used):
        if not rule_used:
            diagnostics.warning(f"routes.{index}: matches no operation", f"routes.{index}")
    return dataclasses.replace(project, tools=tuple(tools), resources=tuple(resources))


def _matches(rule: RouteRule, tool: Tool) -> bool:
    route = tool.route
    if route is None:
        return False
    if rule.methods and route.method not in rule.methods:
        return False
    if rule.path is not None and not re.search(rule.path, route.path):
        return False
    if rule.tags and not any(fnmatch.fnmatchcase(tag, glob) for tag in tool.tags for glob in rule.tags):
        return False
    return not rule.operations or any(fnmatch.fnmatchcase(tool.operation_id or "", g) for g in rule.operations)


def _ineligible(tool: Tool, wanted_template: bool) -> str:
    route = tool.route
    if route is None:
        return "it calls no HTTP operation"
    if route.method != "GET":
        return "only GET operations are read as resources"
    if any(p.required and p.location != "path" for p in route.params) or (route.body and route.body.required):
        return "it has required arguments besides path parameters"
    if wanted_template:
        return "it has no path parameters; use as = \"resource\""
    return "it has path parameters; use as = \"resource_template\""


def bind_functions(project: Project, specs: tuple[ResourceSpec, ...], diagnostics: Diagnostics) -> Project:
    """Python functions read at a URI or URI template (`{var}` fills the parameter of that name).

    The source described each bound function as a string-argument callable in
    `project.prompts` (keyed by function name); those entries are taken out here."""
    if not specs:
        return project
    described = {p.name: p for p in project.prompts}
    bound = {spec.function for spec in specs}
    resources = list(project.resources)
    for index, spec in enumerate(specs):
        where = f"resources.{index}"
        function = described.get(spec.function)
        if function is None or function.call is None:
            continue  # the source reported why, with the function's location
        variables = _PATH_VARIABLE.findall(spec.uri)
        parameters = {a.name: a for a in function.arguments}
        problems = [f"{{{v}}} names no parameter of {spec.function}()" for v in variables if v not in parameters]
        problems += [
            f"parameter {a.name!r} is required but not in the URI" for a in function.arguments
            if a.required and a.name not in variables
        ]
        if any(not re.fullmatch(r"[A-Za-z0-9_]+", v) for v in variables):
            problems.append("template variables are simple names ({sku}), RFC 6570 level 1")
        if problems:
            diagnostics.error(f"{where}.uri: " + "; ".join(problems), f"{where}.uri")
            continue
        name = spec.name or spec.function
        description = spec.description or function.description
        scopes = None if spec.scopes is None else (tuple(sorted(set(spec.scopes))),)
        if not variables:
            resources.append(Resource(
                name, spec.title, description, spec.uri, None, None, spec.mime_type, (), (), None,
                Origin(PROJECT_FILE_NAME, where), function.call, scopes=scopes,
            ))
            continue
        pattern, position = "", 0
        for match in _PATH_VARIABLE.finditer(spec.uri):
            pattern += re.escape(spec.uri[position : match.start()]) + "([^/?#]+)"
            position = match.end()
        pattern += re.escape(spec.uri[position:])
        resources.append(Resource(
            name, spec.title, description, None, spec.uri, pattern, spec.mime_type,
            tuple((v, v) for v in variables), (), None, Origin(PROJECT_FILE_NAME, where), function.call,
            scopes=scopes,
        ))
    names = [r.name for r in resources]
    for duplicate in sorted({n for n in names if names.count(n) > 1}):
        diagnostics.error(f"resources: two resources are named {duplicate!r}", "resources", "give one a `name`")
    prompts = tuple(p for p in project.prompts if p.name not in bound)
    return dataclasses.replace(project, resources=tuple(resources), prompts=prompts)
