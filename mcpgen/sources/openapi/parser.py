"""OpenAPI 3.0 / 3.1 / 3.2 → IR: the document read (its overlays applied), bundled and checked, then the project built from
its parts (operations, parameters, bodies, responses, security, tools: a module each).

Each operation is validated on its own, so one malformed operation is dropped with a
located warning while the rest of the spec is generated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from mcpgen import naming
from mcpgen.diagnostics import Diagnostics, GenerationError, join_pointer
from mcpgen.ir import EnvVar, Icon, ModelSchemas, Project, SecurityScheme
from mcpgen.options import IconSpec
from mcpgen.runtime import declared
from mcpgen.schema.output import subschema_budget
from mcpgen.sources.openapi import security, v32
from mcpgen.sources.openapi.document import load_document
from mcpgen.sources.openapi.model_schemas import model_schemas
from mcpgen.sources.openapi.operations import select_operations
from mcpgen.sources.openapi.overlay import apply_overlays
from mcpgen.sources.openapi.reader import OpenApiOptions, Operation, Reader
from mcpgen.sources.openapi.refs import bundle
from mcpgen.sources.openapi.swagger2 import is_swagger2, to_openapi3
from mcpgen.sources.openapi.tags import tags
from mcpgen.sources.openapi.tools import tools
from mcpgen.transforms import icons


def parse_openapi(path: Path, options: OpenApiOptions, diagnostics: Diagnostics) -> Project:
    """The project `path` describes; with `options.models`, the component schemas its selected
    operations use, for the models stage."""
    return build_project(read_openapi(path, options, diagnostics))


@dataclass(frozen=True, slots=True)
class OpenApiSource:
    """A document read and its operations selected, before any tool is converted: what the
    models stage needs (`model_schemas`) is known here, and can be started while the tools are."""

    reader: Reader
    name: str
    title: str
    info: dict[str, Any]
    schemes: dict[str, SecurityScheme]
    operations: list[Operation]
    model_schemas: ModelSchemas | None
    files_read: tuple[str, ...]


def read_openapi(path: Path, options: OpenApiOptions, diagnostics: Diagnostics) -> OpenApiSource:
    """The document loaded, converted from Swagger 2.0, bundled and checked; its server name,
    security schemes and selected operations."""
    document = load_document(path, diagnostics)
    if options.overlays:
        document = apply_overlays(document, options.overlays, diagnostics)
    if not isinstance(document, dict):
        diagnostics.error("the document is not a mapping", hint="an OpenAPI document is a JSON/YAML object")
        raise GenerationError(diagnostics.items)
    if is_swagger2(document):
        diagnostics.info("Swagger 2.0 document: converted to OpenAPI 3.0 before parsing")
        document = to_openapi3(document, diagnostics)
    read = [str(path), *map(str, options.overlays)]
    self_uri = v32.base_uri(document, diagnostics)
    document = bundle(
        document, path, diagnostics, options.allow_remote_refs, options.allow_refs_outside, read, self_uri
    )
    reader = Reader(path, document, options, diagnostics)
    info = reader.doc.get("info")
    info = info if isinstance(info, dict) else {}
    if not info:
        reader.diag.warning("missing `info`", "/info")
    title = str(info.get("title") or reader.path.stem)
    name = naming.slug(options.name) if options.name else naming.default_server_name(title)
    prefix = naming.env_prefix(name)
    if not options.name and name != naming.slug(title):
        reader.diag.info(
            f"server name {name!r} (settings {prefix}_*), shortened from the title {title!r}",
            "/info/title",
            "choose another with --name, or `name` in mcpgen.toml",
        )
    reader.upload_env = f"{prefix}_UPLOAD_DIR"
    schemes = security.security_schemes(reader, prefix)
    operations = select_operations(reader)
    wanted = _model_schemas(reader, operations) if options.models else None
    return OpenApiSource(reader, name, title, info, schemes, operations, wanted, tuple(read))


def build_project(source: OpenApiSource) -> Project:
    """The project: a tool per operation that converts, the server's settings and icon."""
    reader, name, schemes, operations = source.reader, source.name, source.schemes, source.operations
    prefix = naming.env_prefix(name)
    reader.output_budget = subschema_budget(len(operations))
    names = naming.assign_tool_names(
        [naming.ToolNameRequest(op.key, op.wanted_name) for op in operations], reader.options.max_name_length
    )
    converted = tools(reader, operations, names, schemes)
    base_url = _base_url(reader)
    base_text = declared.meaning("BASE_URL")
    base_text = base_text if base_url else f"{base_text} (required: the spec gives no absolute URL)"
    env_vars = [EnvVar(f"{prefix}_BASE_URL", base_text, base_url)]
    for scheme in schemes.values():
        env_vars.extend(security.scheme_env_vars(scheme))
    generic = not schemes and bool(converted)
    if generic:
        env_vars.extend(security.generic_credentials(reader, prefix))
    declared_tags = tags(reader)
    return Project(
        name=name,
        package=naming.package_name(name),
        env_prefix=prefix,
        title=source.title,
        description=str(source.info.get("description") or ""),
        version=str(source.info.get("version") or "0.1.0"),
        source_kind="openapi",
        source_file=reader.path.name,
        tools=tuple(converted),
        base_url=base_url,
        security_schemes=tuple(schemes.values()),
        env_vars=tuple(env_vars),
        generic_credentials=generic,
        icons=_logo(reader, source.info),
        model_schemas=source.model_schemas,
        files_read=source.files_read,
        tags=declared_tags,
        # the checked hierarchy (unknown parents and cycles already made top-level)
        tag_parents=tuple(sorted((tag.name, tag.parent) for tag in declared_tags if tag.parent)),
    )


def _model_schemas(reader: Reader, operations: list[Operation]) -> ModelSchemas | None:
    """The component schemas the selected operations (and their path items' parameters) use."""
    roots = [op.node for op in operations] + [op.item.get("parameters") for op in operations]
    return model_schemas(reader.doc, roots, reader.diag.file)


def _logo(reader: Reader, info: dict[str, Any]) -> tuple[Icon, ...]:
    """The server's icon from `info.x-logo.url` (the Redoc extension), when it is one MCP
    clients may load: an https: URL or a data: URI of an image."""
    logo = info.get("x-logo")
    url = logo.get("url") if isinstance(logo, dict) else None
    if url is None:
        return ()
    why = icons.problem(url) if isinstance(url, str) and url else "not a string"
    if why is not None:
        reader.warn(f"x-logo is not used as the server's icon: {why}", "/info/x-logo/url")
        return ()
    return (icons.icon(IconSpec(src=url)),)


def _base_url(reader: Reader) -> str | None:
    """The first server's URL, variables set to their defaults; a relative one resolved
    against the spec's own location (APIs.guru's `info.x-origin`), else None: the
    generated server then asks for `<PREFIX>_BASE_URL` when a tool is called."""
    servers = reader.doc.get("servers")
    if not isinstance(servers, list) or not servers or not isinstance(servers[0], dict):
        return None
    url = str(servers[0].get("url") or "")
    variables = servers[0].get("variables") or {}
    for var, spec in variables.items() if isinstance(variables, dict) else []:
        url = url.replace("{" + var + "}", _server_variable(reader, str(var), spec))
    if "{" in url:
        reader.warn(f"server URL {url!r} has variables without defaults; set the base URL at run time", "/servers/0/url")
        return None
    if not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", url):
        location = _spec_location(reader)
        if location is None:
            if url.startswith("//"):  # scheme-relative: the host is known
                return "https:" + url.rstrip("/")
            reader.warn(
                f"server URL {url!r} is relative and the spec's own location is unknown; "
                "the generated server needs its base URL at run time (environment or --base-url)",
                "/servers/0/url",
            )
            return None
        url = urljoin(location, url or ".")
    return url.rstrip("/") or None


def _server_variable(reader: Reader, name: str, spec: Any) -> str:
    """A server variable's value: its default, else the first of its enum."""
    pointer = join_pointer("/servers/0/variables", name)
    spec = spec if isinstance(spec, dict) else {}
    default, enum = spec.get("default"), spec.get("enum")
    choices = [str(c) for c in enum] if isinstance(enum, list) else []
    if default is None and choices:
        reader.warn(f"server variable {name!r} has no default; using the first of its enum, {choices[0]!r}", pointer)
        return choices[0]
    if default is None:
        return "{" + name + "}"
    if choices and str(default) not in choices:
        reader.warn(f"server variable {name!r}: default {str(default)!r} is not among its enum {choices}", pointer)
    return str(default)


def _spec_location(reader: Reader) -> str | None:
    """Where the spec was published, when it says so (APIs.guru: `info.x-origin[].url`)."""
    info = reader.doc.get("info")
    origins = info.get("x-origin") if isinstance(info, dict) else None
    for origin in origins if isinstance(origins, list) else []:
        url = origin.get("url") if isinstance(origin, dict) else None
        if isinstance(url, str) and re.match(r"^https?://[^/]", url):
            return url
    return None


__all__ = ["OpenApiOptions", "OpenApiSource", "build_project", "parse_openapi", "read_openapi"]
