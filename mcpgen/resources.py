"""`--resources`: GET operations that need no arguments beyond their path become MCP resources.

A GET with no required parameter becomes a resource at a fixed URI; a GET whose only
required parameters are path parameters becomes a resource template (RFC 6570 level 1,
`{var}` per path parameter). URIs live under the server's own scheme, `<name>://<path>`.
The operations stay tools too: resources are chosen by the application, tools by the model.
"""

from __future__ import annotations

import dataclasses
import re
from urllib.parse import quote

from mcpgen.diagnostics import Diagnostic, Level
from mcpgen.ir import Project, Resource, Tool

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
    resources: list[Resource] = []
    diagnostics: list[Diagnostic] = []
    for tool in project.tools:
        resource = _resource(tool, prefix)
        if resource is not None:
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
    if not path_params:
        uri = prefix + quote(literal_path, safe=_LITERAL_SAFE)
        return Resource(tool.name, tool.title, tool.description, uri, None, None, mime, (), (), route, tool.origin)
    template, pattern, variables, completions = prefix, re.escape(prefix), [], []
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
        enum = (tool.input_schema.get("properties", {}).get(param.argument) or {}).get("enum")
        if isinstance(enum, list) and enum:
            completions.append((variable, tuple(str(v) for v in enum if v is not None)))
        position = match.end()
    tail = quote(literal_path[position:], safe=_LITERAL_SAFE)
    template += tail
    pattern += re.escape(tail)
    return Resource(
        tool.name, tool.title, tool.description, None, template, pattern, mime,
        tuple(variables), tuple(completions), route, tool.origin,
    )


def _variable(name: str, taken: set[str]) -> str:
    """An RFC 6570 varname (ALPHA / DIGIT / `_`) for a path parameter, unique in its template."""
    base = re.sub(r"[^A-Za-z0-9_]", "_", name) or "value"
    variable, n = base, 2
    while variable in taken:
        variable, n = f"{base}_{n}", n + 1
    taken.add(variable)
    return variable
