"""OpenAPI 3.0 / 3.1 → IR. The only importer of openapi-pydantic.

Each operation is validated on its own, so one malformed operation is dropped with a
located warning while the rest of the spec is generated.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard
from urllib.parse import unquote, urljoin

from pydantic import ValidationError

from mcpgen import naming
from mcpgen.diagnostics import Diagnostics, GenerationError, Topic, join_pointer
from mcpgen.ir import (
    Annotations,
    BodyField,
    EnvVar,
    HttpBody,
    HttpParam,
    HttpRoute,
    Icon,
    JsonSchema,
    ModelSchemas,
    Origin,
    ParamLocation,
    Project,
    ResponseKind,
    SecurityScheme,
    Tool,
)
from mcpgen.options import IconSpec, OperationFilter
from mcpgen.runtime import declared
from mcpgen.schema.convert import SchemaConverter, SchemaTooLarge, hoist_defs, is_object_schema, merge_all_of
from mcpgen.schema.output import (
    MAX_SUBSCHEMAS,
    accepts_empty_object,
    bound_output_schema,
    relax_output_schema,
    subschema_budget,
    with_content_id,
)
from mcpgen.schema.portable import split_type_unions
from mcpgen.sources.openapi.document import load_document
from mcpgen.sources.openapi.model_schemas import model_schemas
from mcpgen.sources.openapi.refs import bundle
from mcpgen.sources.openapi.swagger2 import is_swagger2, to_openapi3
from mcpgen.transforms import icons

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_LOCATION_ORDER = {"path": 0, "query": 1, "header": 2, "cookie": 3, "body": 4}
_IGNORED_HEADERS = frozenset({"accept", "content-type", "authorization"})
_MAX_DESCRIPTION = 4000


# JSON nesting of one tool schema: the MCP SDK's pydantic serializer gives up near 250
# levels, which would break tools/list for every tool of the server.
_MAX_SCHEMA_DEPTH = 200


def _json_depth(value: Any) -> int:
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (dict, list)):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in (node.values() if isinstance(node, dict) else node))
    return deepest


def _is_param_location(location: str) -> TypeGuard[ParamLocation]:
    """`in` names a place a parameter can go (a 2.0 `body` parameter is the request body)."""
    return location in _LOCATION_ORDER and location != "body"


@dataclass(frozen=True, slots=True)
class OpenApiOptions:
    name: str | None = None
    max_name_length: int = naming.DEFAULT_MAX_TOOL_NAME
    models: bool = True
    filters: OperationFilter = field(default_factory=OperationFilter)
    allow_remote_refs: bool = False  # fetch http(s) `$ref`s (otherwise a located error)
    allow_refs_outside: bool = False  # read `$ref`ed files outside the spec's folder tree


def parse_openapi(path: Path, options: OpenApiOptions, diagnostics: Diagnostics) -> Project:
    """The project `path` describes; with `options.models`, the component schemas its selected
    operations use, for the models stage."""
    document = load_document(path, diagnostics)
    if not isinstance(document, dict):
        diagnostics.error("the document is not a mapping", hint="an OpenAPI document is a JSON/YAML object")
        raise GenerationError(diagnostics.items)
    if is_swagger2(document):
        diagnostics.info("Swagger 2.0 document: converted to OpenAPI 3.0 before parsing")
        document = to_openapi3(document, diagnostics)
    read = [str(path)]
    document = bundle(document, path, diagnostics, options.allow_remote_refs, options.allow_refs_outside, read)
    project = _Parser(path, document, options, diagnostics).project()
    return dataclasses.replace(project, files_read=tuple(read))


class _Parser:
    def __init__(
        self,
        path: Path,
        document: dict[str, Any],
        options: OpenApiOptions,
        diagnostics: Diagnostics,
    ):
        self.path = path
        self.doc = document
        self.options = options
        self.diag = diagnostics
        self._resolved: dict[str, Any] = {}
        self._output_budget = MAX_SUBSCHEMAS  # per output schema; set from the operation count
        self.version = self._version()
        self.openapi_30 = self.version.startswith("3.0")
        self.converter = SchemaConverter(self.resolve, self.openapi_30, self._warn)
        self._upload_env = "UPLOAD_DIR"  # set with the env prefix in project()
        self.models = self._version_models()

    # -- document level ------------------------------------------------------

    def _version(self) -> str:
        version = self.doc.get("openapi")
        if "swagger" in self.doc:
            self.diag.error(
                f"Swagger {self.doc.get('swagger')} is not supported",
                "/swagger",
                "convert it to OpenAPI 3 first, e.g. with swagger2openapi",
            )
            raise GenerationError(self.diag.items)
        if not isinstance(version, str) or not re.match(r"^3\.[01]\.\d+", version):
            self.diag.error(
                f"unsupported or missing `openapi` version: {version!r}",
                "/openapi" if version is not None else "",
                "mcpgen reads OpenAPI 3.0.x and 3.1.x",
            )
            raise GenerationError(self.diag.items)
        return version

    def _version_models(self) -> Any:
        from openapi_pydantic.v3 import v3_0, v3_1  # openapi_pydantic.v3 loads both anyway

        return v3_0 if self.openapi_30 else v3_1

    def _warn(self, message: str, pointer: str) -> None:
        self.diag.warning(message, pointer)

    def resolve(self, ref: str) -> Any:
        """The node a local `#/...` reference points at; KeyError if none.

        Memoized: a big spec resolves the same few hundred refs millions of times.
        """
        node = self._resolved.get(ref)
        if node is None:
            node = self._resolved[ref] = self._walk(ref)
        return node

    def _walk(self, ref: str) -> Any:
        node: Any = self.doc
        for token in ref[2:].split("/") if ref != "#" else []:
            token = unquote(token.replace("~1", "/").replace("~0", "~"))
            if isinstance(node, dict) and token in node:
                node = node[token]
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                raise KeyError(ref)
        return node

    def deref(self, node: Any, pointer: str) -> tuple[Any, str]:
        """Follow `$ref` chains of non-schema objects (parameters, bodies, responses)."""
        seen: set[str] = set()
        while isinstance(node, dict) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if ref in seen or not ref.startswith("#/"):
                self._warn(f"cannot follow $ref {ref!r}", pointer)
                return {}, pointer
            seen.add(ref)
            try:
                node, pointer = self.resolve(ref), ref[1:]
            except KeyError:
                self._warn(f"$ref {ref!r} points at nothing", pointer)
                return {}, pointer
        return node, pointer

    def project(self) -> Project:
        info = self.doc.get("info")
        info = info if isinstance(info, dict) else {}
        if not info:
            self.diag.warning("missing `info`", "/info")
        title = str(info.get("title") or self.path.stem)
        name = naming.slug(self.options.name) if self.options.name else naming.default_server_name(title)
        prefix = naming.env_prefix(name)
        if not self.options.name and name != naming.slug(title):
            self.diag.info(
                f"server name {name!r} (settings {prefix}_*), shortened from the title {title!r}",
                "/info/title",
                "choose another with --name, or `name` in mcpgen.toml",
            )
        self._upload_env = f"{prefix}_UPLOAD_DIR"
        schemes = self._security_schemes(prefix)
        operations = self._operations()
        self._output_budget = subschema_budget(len(operations))
        names = naming.assign_tool_names(
            [naming.ToolNameRequest(op.key, op.wanted_name) for op in operations], self.options.max_name_length
        )
        tools = self._tools(operations, names, schemes)
        base_url = self._base_url()
        base_text = declared.meaning("BASE_URL")
        base_text = base_text if base_url else f"{base_text} (required: the spec gives no absolute URL)"
        env_vars = [EnvVar(f"{prefix}_BASE_URL", base_text, base_url)]
        for scheme in schemes.values():
            env_vars.extend(_scheme_env_vars(scheme))
        generic = not schemes and bool(tools)
        if generic:
            env_vars.extend(self._generic_credentials(prefix))
        return Project(
            name=name,
            package=naming.package_name(name),
            env_prefix=prefix,
            title=title,
            description=str(info.get("description") or ""),
            version=str(info.get("version") or "0.1.0"),
            source_kind="openapi",
            source_file=self.path.name,
            tools=tuple(tools),
            base_url=base_url,
            security_schemes=tuple(schemes.values()),
            env_vars=tuple(env_vars),
            generic_credentials=generic,
            icons=self._logo(info),
            model_schemas=self._model_schemas(operations) if self.options.models else None,
        )

    def _tools(
        self, operations: list[_Operation], names: list[naming.ToolName], schemes: dict[str, SecurityScheme]
    ) -> list[Tool]:
        """A tool for each operation that converts; the others skipped, with a warning each."""
        tools: list[Tool] = []
        used_python_names: set[str] = set()
        for op, tool_name in zip(operations, names, strict=True):
            if tool_name.reason:
                self.diag.renamed(op.wanted_name, tool_name.name, tool_name.reason, op.pointer)
            try:
                tool = self._tool(op, tool_name.name, schemes, used_python_names)
            except RecursionError:  # schema walks recurse once per nesting level
                self.diag.skipped("schemas nested too deeply to convert; operation skipped", "schemas too deep", op.pointer)
                continue
            except SchemaTooLarge as exc:
                self.diag.skipped(f"{exc}, too many to convert; operation skipped", "schemas too large", op.pointer)
                continue
            depth = 0 if tool is None else max(_json_depth(tool.input_schema), _json_depth(tool.output_schema))
            if depth > _MAX_SCHEMA_DEPTH:
                self.diag.skipped(
                    f"schemas nested {depth} levels deep, more than the {_MAX_SCHEMA_DEPTH} MCP SDKs can send; "
                    "operation skipped", "schemas too deep", op.pointer,
                )
                continue
            if tool is not None:
                tools.append(tool)
        return tools

    def _logo(self, info: dict[str, Any]) -> tuple[Icon, ...]:
        """The server's icon from `info.x-logo.url` (the Redoc extension), when it is one MCP
        clients may load: an https: URL or a data: URI of an image."""
        logo = info.get("x-logo")
        url = logo.get("url") if isinstance(logo, dict) else None
        if url is None:
            return ()
        pointer = "/info/x-logo/url"
        why = icons.problem(url) if isinstance(url, str) and url else "not a string"
        if why is not None:
            self._warn(f"x-logo is not used as the server's icon: {why}", pointer)
            return ()
        return (icons.icon(IconSpec(src=url)),)

    def _generic_credentials(self, prefix: str) -> list[EnvVar]:
        """A spec declaring no (usable) security scheme - GitHub's, for one - still often needs
        a token: the server takes one, or any headers, from the environment, and says so."""
        raw = (self.doc.get("components") or {}).get("securitySchemes")
        what = "declares no security scheme" if not raw else "declares no security scheme mcpgen supports"
        self.diag.warning(
            f"{self.path.name} {what}: the generated server sends no credentials unless "
            f"{prefix}_BEARER_TOKEN or {prefix}_HEADERS is set",
            "/components/securitySchemes",
            f"if the API needs a token, set {prefix}_BEARER_TOKEN (sent as `Authorization: Bearer ...`) "
            f"or {prefix}_HEADERS (`Name: value` lines, or a JSON object) in the server's environment",
        )
        return [
            EnvVar(f"{prefix}_BEARER_TOKEN", declared.meaning("BEARER_TOKEN"), None, secret=True),
            EnvVar(f"{prefix}_HEADERS", declared.meaning("HEADERS"), None),
        ]

    def _base_url(self) -> str | None:
        """The first server's URL, variables set to their defaults; a relative one resolved
        against the spec's own location (APIs.guru's `info.x-origin`), else None: the
        generated server then asks for `<PREFIX>_BASE_URL` when a tool is called."""
        servers = self.doc.get("servers")
        if not isinstance(servers, list) or not servers or not isinstance(servers[0], dict):
            return None
        url = str(servers[0].get("url") or "")
        variables = servers[0].get("variables") or {}
        for var, spec in variables.items() if isinstance(variables, dict) else []:
            url = url.replace("{" + var + "}", self._server_variable(str(var), spec))
        if "{" in url:
            self._warn(f"server URL {url!r} has variables without defaults; set the base URL at run time", "/servers/0/url")
            return None
        if not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", url):
            location = self._spec_location()
            if location is None:
                if url.startswith("//"):  # scheme-relative: the host is known
                    return "https:" + url.rstrip("/")
                self._warn(
                    f"server URL {url!r} is relative and the spec's own location is unknown; "
                    "the generated server needs its base URL at run time (environment or --base-url)",
                    "/servers/0/url",
                )
                return None
            url = urljoin(location, url or ".")
        return url.rstrip("/") or None

    def _server_variable(self, name: str, spec: Any) -> str:
        """A server variable's value: its default, else the first of its enum."""
        pointer = join_pointer("/servers/0/variables", name)
        spec = spec if isinstance(spec, dict) else {}
        default, enum = spec.get("default"), spec.get("enum")
        choices = [str(c) for c in enum] if isinstance(enum, list) else []
        if default is None and choices:
            self._warn(f"server variable {name!r} has no default; using the first of its enum, {choices[0]!r}", pointer)
            return choices[0]
        if default is None:
            return "{" + name + "}"
        if choices and str(default) not in choices:
            self._warn(f"server variable {name!r}: default {str(default)!r} is not among its enum {choices}", pointer)
        return str(default)

    def _spec_location(self) -> str | None:
        """Where the spec was published, when it says so (APIs.guru: `info.x-origin[].url`)."""
        info = self.doc.get("info")
        origins = info.get("x-origin") if isinstance(info, dict) else None
        for origin in origins if isinstance(origins, list) else []:
            url = origin.get("url") if isinstance(origin, dict) else None
            if isinstance(url, str) and re.match(r"^https?://[^/]", url):
                return url
        return None

    def _security_schemes(self, prefix: str) -> dict[str, SecurityScheme]:
        raw = (self.doc.get("components") or {}).get("securitySchemes") or {}
        schemes: dict[str, SecurityScheme] = {}
        taken: set[str] = set()  # every variable a scheme already reads
        # By name, so which of two clashing schemes keeps the plain variable does not depend on order.
        for name in sorted(raw) if isinstance(raw, dict) else []:
            pointer = join_pointer("/components/securitySchemes", name)
            node, pointer = self.deref(raw[name], pointer)
            try:
                self.models.SecurityScheme.model_validate(node)
            except ValidationError as exc:
                self._warn(f"invalid security scheme {name!r}: {_first_error(exc)}", pointer)
                continue
            plain = naming.credential_base(prefix, name)
            scheme = self._security_scheme(name, node, plain, pointer)
            if scheme is None:
                continue
            if any(v in taken or naming.is_server_setting(prefix, v) for v in scheme.env_vars):
                hashed = naming.credential_base(prefix, name, hashed=True)
                scheme = dataclasses.replace(scheme, env_vars=tuple(hashed + v[len(plain):] for v in scheme.env_vars))
                self._warn(
                    f"security scheme {name!r} reads {', '.join(scheme.env_vars)}: its plain variable is taken by "
                    "another scheme or a server setting, and one credential must never be sent as another's",
                    pointer,
                )
            taken.update(scheme.env_vars)
            schemes[name] = scheme
        return {name: schemes[name] for name in raw if name in schemes}  # the spec's order, as before

    def _security_scheme(self, name: str, node: dict[str, Any], var: str, pointer: str) -> SecurityScheme | None:
        kind = node.get("type")
        described = str(node.get("description") or "")
        if kind == "apiKey" and node.get("in") in ("header", "query", "cookie"):
            text = described or f"API key sent in {node['in']} {node.get('name')!r}"
            return SecurityScheme(name, "apiKey", node["in"], str(node.get("name")), (var,), text)
        if kind == "http" and str(node.get("scheme", "")).lower() == "bearer":
            return SecurityScheme(name, "bearer", "header", "Authorization", (var,), described or "Bearer token")
        if kind == "http" and str(node.get("scheme", "")).lower() == "basic":
            return SecurityScheme(
                name, "basic", "header", "Authorization", (f"{var}_USERNAME", f"{var}_PASSWORD"),
                described or "HTTP basic credentials",
            )
        if kind == "oauth2":
            flows = node.get("flows")
            flow = flows.get("clientCredentials") if isinstance(flows, dict) else None
            flow = flow if isinstance(flow, dict) else {}
            token_url = flow.get("tokenUrl") if isinstance(flow.get("tokenUrl"), str) else None
            if token_url is None:  # only a token obtained elsewhere can be used
                text = described or "OAuth2 access token, sent as a Bearer token"
                return SecurityScheme(name, "bearer", "header", "Authorization", (var,), text)
            text = described or "OAuth2 client credentials flow"
            env_vars = (var, f"{var}_CLIENT_ID", f"{var}_CLIENT_SECRET", f"{var}_TOKEN_URL", f"{var}_SCOPES")
            return SecurityScheme(name, "oauth2", "header", "Authorization", env_vars, text, token_url)
        if kind == "openIdConnect":
            text = described or "OpenID Connect access token, sent as a Bearer token"
            return SecurityScheme(name, "bearer", "header", "Authorization", (var,), text)
        self._warn(f"security scheme {name!r} of type {kind!r} is not supported; ignored", pointer)
        return None

    def _model_schemas(self, operations: list[_Operation]) -> ModelSchemas | None:
        """The component schemas the selected operations (and their path items' parameters) use."""
        roots = [op.node for op in operations] + [op.item.get("parameters") for op in operations]
        return model_schemas(self.doc, roots, self.diag.file)

    # -- operations ----------------------------------------------------------

    def _operations(self) -> list[_Operation]:
        paths = self.doc.get("paths")
        if not isinstance(paths, dict):
            self._warn("no `paths`: the server will have no tools", "/paths")
            return []
        operations = []
        deprecated = 0
        for path, item in paths.items():
            item_pointer = join_pointer("/paths", path)
            item, item_pointer = self.deref(item, item_pointer)
            if not isinstance(item, dict):
                self.diag.skipped("path item is not an object; skipped", "not an object", item_pointer)
                continue
            for method, node in item.items():
                if method not in METHODS or node is None:
                    continue
                pointer = join_pointer(item_pointer, method)
                if not isinstance(node, dict):
                    self.diag.skipped("operation is not an object; skipped", "not an object", pointer)
                    continue
                try:
                    self.models.Operation.model_validate(_schemas_blanked(node))
                except ValidationError as exc:
                    self.diag.skipped(f"invalid operation, skipped: {_first_error(exc)}", "invalid operation", pointer)
                    continue
                op_id = node.get("operationId")
                if not _selected(self.options.filters, path, method, node):
                    deprecated += node.get("deprecated") is True and _selected(
                        self.options.filters.model_copy(update={"include_deprecated": True}), path, method, node
                    )
                    continue
                wanted = op_id if isinstance(op_id, str) and op_id.strip() else f"{method}_{path}"
                operations.append(_Operation(f"{method.upper()} {path}", wanted, path, method, node, item, pointer))
        if deprecated and not self.options.filters.include_deprecated:
            self.diag.info(
                f"{deprecated} deprecated operation{'s' if deprecated != 1 else ''} skipped",
                hint="set `include_deprecated = true` under [filters] in mcpgen.toml, or pass --include-deprecated",
                topic=Topic.SKIPPED, reason="deprecated", count=deprecated,
            )
        return operations

    def _tool(
        self,
        op: _Operation,
        name: str,
        schemes: dict[str, SecurityScheme],
        used_python_names: set[str],
    ) -> Tool | None:
        params = self._parameters(op)
        if params is None:
            return None
        body = self._body(op)
        if isinstance(body, _SkipOperation):
            return None
        properties: dict[str, Any] = {}
        required: list[str] = []
        defs: dict[str, Any] = {}
        taken: set[str] = set()
        http_params = []
        for param in params:
            argument = self._argument_name(param.wire, param.location, taken, op)
            schema, schema_defs = hoist_defs(param.schema)
            defs.update(schema_defs)
            properties[argument] = schema
            if param.required:
                required.append(argument)
            http_params.append(
                (argument, param.location, param.wire, param.required, param.style, param.explode, schema)
            )
        # (content type, required, flattened fields, whole-body argument, schema)
        http_body: tuple[str, bool, list[tuple[str, str, bool, JsonSchema, bool]], str | None, JsonSchema] | None
        http_body = None
        if body is not None:
            content_type, body_schema, body_required, flatten = body.media, body.schema, body.required, body.flatten
            body_schema, schema_defs = hoist_defs(body_schema)
            defs.update(schema_defs)
            if flatten:
                fields = []
                body_required_props = set(body_schema.get("required", []))
                multipart = content_type.split(";")[0].strip().lower() == "multipart/form-data"
                for prop, prop_schema in body_schema.get("properties", {}).items():
                    argument = self._argument_name(prop, "body", taken, op)
                    is_file = multipart and _is_file_schema(prop_schema, defs)
                    if is_file:
                        prop_schema = _file_argument_schema(prop_schema, defs, self._upload_env)
                    properties[argument] = prop_schema
                    is_required = body_required and prop in body_required_props
                    if is_required:
                        required.append(argument)
                    fields.append((prop, argument, is_required, prop_schema, is_file))
                http_body = (content_type, body_required, fields, None, body_schema)
            else:
                argument = self._argument_name("body", "body", taken, op)
                properties[argument] = body_schema
                if body_required:
                    required.append(argument)
                http_body = (content_type, body_required, [], argument, body_schema)

        input_schema: JsonSchema = {"type": "object", "properties": properties}
        if required:
            input_schema["required"] = required
        input_schema["additionalProperties"] = False
        if defs:
            input_schema["$defs"] = dict(sorted(defs.items()))
        input_schema = split_type_unions(input_schema)  # a copy: the HTTP routes keep the spec's types

        python_name = _unique(naming.python_identifier(name), used_python_names)
        arg_idents = naming.unique_identifiers(
            [p[0] for p in http_params] + ([f[1] for f in http_body[2]] if http_body else [])
            + ([http_body[3]] if http_body and http_body[3] else []),
            reserved=frozenset({"client"}),
        )
        idents = iter(arg_idents)
        route_params = tuple(
            HttpParam(wire, argument, location, is_required, style, explode, next(idents), python_type(schema, defs))
            for argument, location, wire, is_required, style, explode, schema in http_params
        )
        route_body = None
        if http_body is not None:
            content_type, body_required, fields, whole, body_schema = http_body
            encodings = self._body_encodings(op)
            route_fields = tuple(
                BodyField(
                    prop, argument, is_required, next(idents), python_type(prop_schema, defs), is_file,
                    *encodings.get(prop, (None, None, None)),
                )
                for prop, argument, is_required, prop_schema, is_file in fields
            )
            route_body = HttpBody(
                content_type, body_required, route_fields, whole,
                next(idents) if whole else None, python_type(body_schema, defs) if whole else "Any",
            )
        output_schema, wraps, kind, response_type, component = self._response(op)
        summary = _text(op.node.get("summary"))
        description = self._description(op, summary)
        method = op.method.upper()
        return Tool(
            name=name,
            title=summary[:200] if summary else None,
            description=description,
            input_schema=input_schema,
            output_schema=output_schema,
            wraps_result=wraps,
            annotations=method_annotations(method),
            origin=Origin(self.path.name, op.pointer),
            python_name=python_name,
            tags=tuple(t for t in op.node.get("tags") or () if isinstance(t, str)),
            operation_id=op.node["operationId"] if isinstance(op.node.get("operationId"), str) else None,
            scopes=self._scopes(op),
            route=HttpRoute(
                method=method,
                path=op.path,
                params=route_params,
                body=route_body,
                security=self._security(op, schemes),
                response_kind=kind,
                response_type=response_type,
                response_model=None,  # typed by the models stage
                response_model_module=None,
                response_component=component[0] if component else None,
                response_is_list=component[1] if component else False,
            ),
        )

    def _description(self, op: _Operation, summary: str) -> str:
        body = _text(op.node.get("description"))
        parts = [p for p in (summary, body) if p]
        if summary and body.startswith(summary):
            parts = [body]
        if op.node.get("deprecated") is True:
            parts.append("Deprecated.")
        parts.append(f"HTTP {op.method.upper()} {op.path}")
        text = "\n\n".join(parts)
        if len(text) > _MAX_DESCRIPTION:
            text = text[: _MAX_DESCRIPTION - 1] + "…"
        return text

    def _argument_name(self, wire: str, location: str, taken: set[str], op: _Operation) -> str:
        base = naming.property_name(wire)
        argument = base if base not in taken else naming.property_name(f"{location}_{wire}")
        n = 2
        while argument in taken:
            argument, n = f"{base}_{n}", n + 1
        if argument != wire:
            self.diag.info(f"{location} parameter {wire!r} is the tool argument {argument!r}", op.pointer)
        taken.add(argument)
        return argument

    def _parameters(self, op: _Operation) -> list[_Param] | None:
        """Path-item and operation parameters merged by (name, in), sorted by location."""
        merged: dict[tuple[str, str], tuple[dict[str, Any], str]] = {}
        item_pointer = op.pointer.rpartition("/")[0]
        for owner, pointer in ((op.item, item_pointer), (op.node, op.pointer)):
            raw = owner.get("parameters") or []
            for i, node in enumerate(raw if isinstance(raw, list) else []):
                node, p = self.deref(node, f"{pointer}/parameters/{i}")
                if not isinstance(node, dict) or "name" not in node or "in" not in node:
                    self._warn("parameter without `name` and `in`; ignored", p)
                    continue
                merged[(str(node["name"]), str(node["in"]))] = (node, p)
        path_names = set(re.findall(r"{([^}/]+)}", op.path))
        out = []
        for (wire, location), (node, pointer) in merged.items():
            if not _is_param_location(location):
                self._warn(f"parameter location {location!r} is not supported; ignored", pointer)
                continue
            if location == "header" and wire.lower() in _IGNORED_HEADERS:
                continue
            if location == "path" and wire not in path_names:
                self._warn(f"path parameter {wire!r} does not appear in the path; ignored", pointer)
                continue
            required = node.get("required") is True
            if location == "path" and not required:
                self._warn(f"path parameter {wire!r} must be required; treated as required", pointer)
                required = True
            schema = self._parameter_schema(node, pointer)
            default_style = "form" if location in ("query", "cookie") else "simple"
            style = str(node.get("style") or default_style)
            explode = node.get("explode")
            explode = bool(explode) if explode is not None else style == "form"
            out.append(_Param(location, wire, schema, required, style, explode))
        missing = path_names - {p.wire for p in out if p.location == "path"}
        if missing:
            self.diag.skipped(
                f"path parameter(s) {sorted(missing)} are not declared; operation skipped",
                "undeclared path parameters", op.pointer,
            )
            return None
        out.sort(key=lambda p: _LOCATION_ORDER[p.location])
        return out

    def _parameter_schema(self, node: dict[str, Any], pointer: str) -> JsonSchema:
        raw = node.get("schema")
        raw_pointer = f"{pointer}/schema"
        if raw is None and isinstance(node.get("content"), dict) and node["content"]:
            media, media_node = next(iter(node["content"].items()))
            raw = media_node.get("schema") if isinstance(media_node, dict) else None
            raw_pointer = join_pointer(pointer, "content", media, "schema")
        schema = self.converter.convert(raw if raw is not None else {"type": "string"}, raw_pointer, "request")
        description = _text(node.get("description"))
        if description and "description" not in schema:
            schema = {"description": description, **schema}
        if node.get("deprecated") is True:
            schema["deprecated"] = True
        return schema

    def _body(self, op: _Operation) -> _Body | _SkipOperation | None:
        """The request body, None without one, or SKIP_OPERATION: the operation is dropped."""
        raw = op.node.get("requestBody")
        if raw is None:
            return None
        node, pointer = self.deref(raw, f"{op.pointer}/requestBody")
        content = node.get("content") if isinstance(node, dict) else None
        if not isinstance(content, dict) or not content:
            self._warn("request body without content; ignored", pointer)
            return None
        media = _pick_media_type(list(content))
        if media is None:
            self.diag.skipped(
                f"request body media types {sorted(content)} are not supported; operation skipped",
                "unsupported request body", pointer,
            )
            return SKIP_OPERATION
        media_node = content[media] if isinstance(content[media], dict) else {}
        raw_schema = media_node.get("schema", {})
        schema = self.converter.convert(raw_schema, join_pointer(pointer, "content", media, "schema"), "request")
        if media.startswith("application/octet-stream"):
            schema = {"type": "string", "contentEncoding": "base64", "description": "The body, base64-encoded"}
        schema = merge_all_of(schema)
        flatten = (
            is_object_schema(schema)
            and isinstance(schema.get("properties"), dict)
            and bool(schema["properties"])
            and _is_json_like(media)
        )
        return _Body(media, schema, node.get("required") is True, flatten)

    def _body_encodings(self, op: _Operation) -> dict[str, tuple[str | None, bool | None, str | None]]:
        """Property -> (style, explode, contentType) from the chosen media type's `encoding`."""
        node, _ = self.deref(op.node.get("requestBody"), op.pointer)
        content = node.get("content") if isinstance(node, dict) else None
        media = _pick_media_type(list(content)) if isinstance(content, dict) and content else None
        media_node = content.get(media) if media is not None and isinstance(content, dict) else None
        encoding = media_node.get("encoding") if isinstance(media_node, dict) else None
        out: dict[str, tuple[str | None, bool | None, str | None]] = {}
        for prop, spec in encoding.items() if isinstance(encoding, dict) else []:
            if not isinstance(spec, dict):
                continue
            style = spec.get("style") if isinstance(spec.get("style"), str) else None
            explode = spec.get("explode") if isinstance(spec.get("explode"), bool) else None
            if style is not None and explode is None:
                explode = style == "form"
            content_type = spec.get("contentType") if isinstance(spec.get("contentType"), str) else None
            out[str(prop)] = (style, explode, content_type)
        return out

    def _response(
        self, op: _Operation
    ) -> tuple[JsonSchema | None, bool, ResponseKind, str, tuple[str, bool] | None]:
        responses = op.node.get("responses") or {}
        success = sorted(str(code) for code in responses if re.fullmatch(r"2(\d\d|XX)", str(code)))
        if not success:
            return None, False, "json", "Any", None
        code = success[0]
        node, pointer = self.deref(responses[code], join_pointer(op.pointer, "responses", code))  # keys are str
        content = node.get("content") if isinstance(node, dict) else None
        if not isinstance(content, dict) or not content:
            return None, False, "empty", "None", None
        json_media = next((m for m in content if _is_json(m)), None)
        if json_media is None:
            media = next(iter(content))
            kind: ResponseKind = "text" if media.startswith("text/") or media.endswith(("+xml", "/xml")) else "binary"
            return None, False, kind, "str" if kind == "text" else "bytes", None
        media_node = content[json_media] if isinstance(content[json_media], dict) else {}
        raw = media_node.get("schema")
        if raw is None:
            return None, False, "json", "Any", None
        schema = merge_all_of(self.converter.convert(raw, join_pointer(pointer, "content", json_media, "schema"), "response"))
        is_object = is_object_schema(schema)
        # Describe the response, never reject a real one; cheaply enough for a client to compile.
        schema = bound_output_schema(relax_output_schema(schema), self._output_budget)
        response_type, model = "Any", response_component(raw)
        if is_object:
            schema["type"] = "object"  # the root stays an object: structuredContent always is one
            wraps = False
        else:
            # No `required`: `{}` must validate, as the conformer's last resort.
            inner, defs = hoist_defs(schema)
            schema = {"type": "object", "properties": {"result": inner} if inner else {}}
            if defs:
                schema["$defs"] = defs
            wraps = True
        if not accepts_empty_object(schema):
            self._warn("the response schema admits no object, even relaxed; the tool is served without an outputSchema", pointer)
            return None, False, "json", response_type, model
        return with_content_id(schema), wraps, "json", response_type, model

    def _security(self, op: _Operation, schemes: dict[str, SecurityScheme]) -> tuple[tuple[str, ...], ...]:
        raw = op.node.get("security", self.doc.get("security"))
        if not isinstance(raw, list):
            return ()
        alternatives = []
        for requirement in raw:
            if not isinstance(requirement, dict):
                continue
            names = tuple(sorted(requirement))
            if all(n in schemes for n in names):
                alternatives.append(names)
        if not alternatives and raw and any(isinstance(r, dict) and r for r in raw):
            self._warn("none of the operation's security requirements is supported; calls are sent without credentials", op.pointer)
        return tuple(alternatives)


    def _scopes(self, op: _Operation) -> tuple[tuple[str, ...], ...] | None:
        """The inbound OAuth scopes of the operation: one alternative per security requirement
        that names an oauth2 or openIdConnect scheme, its scopes; None when none does."""
        raw = op.node.get("security", self.doc.get("security"))
        definitions = (self.doc.get("components") or {}).get("securitySchemes")
        if not isinstance(raw, list) or not isinstance(definitions, dict):
            return None
        alternatives: list[tuple[str, ...]] = []
        for requirement in raw:
            if not isinstance(requirement, dict):
                continue
            scopes: set[str] = set()
            oauth = False
            for name, listed in requirement.items():
                node = definitions.get(name)
                if isinstance(node, dict) and "$ref" in node:
                    node, _ = self.deref(node, join_pointer("/components/securitySchemes", name))
                if isinstance(node, dict) and node.get("type") in ("oauth2", "openIdConnect"):
                    oauth = True
                    scopes.update(s for s in (listed if isinstance(listed, list) else ()) if isinstance(s, str))
            if oauth:
                alternatives.append(tuple(sorted(scopes)))
        return tuple(dict.fromkeys(alternatives)) or None


def _selected(filters: OperationFilter, path: str, method: str, node: dict[str, Any]) -> bool:
    """Whether the operation passes the project's filters (deprecated ones only when asked)."""
    if node.get("deprecated") is True and not filters.include_deprecated:
        return False
    if filters.methods and method.upper() not in filters.methods:
        return False
    tags = [t for t in node.get("tags") or [] if isinstance(t, str)] if isinstance(node.get("tags"), list) else []
    raw_id = node.get("operationId")
    op_id = raw_id if isinstance(raw_id, str) else ""

    def matches(value: str, globs: tuple[str, ...]) -> bool:
        return any(fnmatch.fnmatchcase(value, glob) for glob in globs)

    if filters.include_tags and not any(matches(t, filters.include_tags) for t in tags):
        return False
    if any(matches(t, filters.exclude_tags) for t in tags):
        return False
    if filters.include_operations and not matches(op_id, filters.include_operations):
        return False
    if op_id and matches(op_id, filters.exclude_operations):
        return False
    if filters.include_paths and not matches(path, filters.include_paths):
        return False
    return not matches(path, filters.exclude_paths)


@dataclass(frozen=True, slots=True)
class _Param:
    """One parameter of an operation, path-item and operation ones merged."""

    location: ParamLocation
    wire: str  # its name in the request
    schema: JsonSchema
    required: bool
    style: str
    explode: bool


@dataclass(frozen=True, slots=True)
class _Body:
    """The request body: the media type chosen, its schema, and whether its properties
    become tool arguments of their own (`flatten`) or the body is one argument."""

    media: str
    schema: JsonSchema
    required: bool
    flatten: bool


class _SkipOperation:
    """A body no tool can send: the operation is dropped (with a warning already given)."""


SKIP_OPERATION = _SkipOperation()


@dataclass(frozen=True, slots=True)
class _Operation:
    key: str
    wanted_name: str
    path: str
    method: str
    node: dict[str, Any]
    item: dict[str, Any]
    pointer: str


def python_type(schema: Any, defs: dict[str, Any], depth: int = 0) -> str:
    """A Python annotation for a converted JSON Schema; `Any` where no simple type fits."""
    if not isinstance(schema, dict) or depth > 4:
        return "Any"
    ref = schema.get("$ref")
    if ref is not None:  # `$defs` keys need no pointer escaping (see schemas.def_name)
        target = defs.get(ref[len("#/$defs/"):]) if isinstance(ref, str) and ref.startswith("#/$defs/") else None
        return python_type(target, defs, depth + 1)
    kind = schema.get("type")
    nullable = False
    if isinstance(kind, list):
        nullable = "null" in kind
        rest = [k for k in kind if k != "null"]
        kind = rest[0] if len(rest) == 1 else None
    simple = {"string": "str", "integer": "int", "number": "float", "boolean": "bool"}
    if kind in simple:
        text = simple[kind]
        if schema.get("contentEncoding") == "base64":
            text = "str"
    elif kind == "array":
        text = f"list[{python_type(schema.get('items', {}), defs, depth + 1)}]"
    elif kind == "object":
        text = "dict[str, Any]"
    else:
        return "Any"
    return f"{text} | None" if nullable else text


def _schemas_blanked(node: Any) -> Any:
    """`node` with every `schema` value replaced by `{}`, for validating an operation's shape.

    Schemas are checked and repaired by the schema converter, with a warning per bad
    keyword; openapi-pydantic would instead reject the whole operation for one
    `type: file` or map-shaped `examples` deep in a response schema.
    """
    if isinstance(node, dict):
        return {key: {} if key == "schema" else _schemas_blanked(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_schemas_blanked(value) for value in node]
    return node


_SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


def method_annotations(method: str) -> Annotations:
    """All four hints, from the HTTP method's semantics (RFC 9110 §9.2): GET, HEAD and OPTIONS
    read; PUT and DELETE are idempotent and change or remove what is there; POST, PATCH
    (and anything else) may change anything, and twice is not once. Every tool reaches the
    API, an open world. mcpgen.toml's `[tools.<name>] annotations` override them."""
    if method in _SAFE_METHODS:
        return Annotations(read_only=True, destructive=False, idempotent=True, open_world=True)
    idempotent = method in ("PUT", "DELETE")
    return Annotations(read_only=False, destructive=True, idempotent=idempotent, open_world=True)


def _scheme_env_vars(scheme: SecurityScheme) -> list[EnvVar]:
    if scheme.kind != "oauth2":
        return [EnvVar(var, scheme.description, None, secret=True) for var in scheme.env_vars]
    token, client_id, client_secret, token_url, scopes = scheme.env_vars
    return [
        EnvVar(token, "OAuth2 access token obtained elsewhere; when set, the client credentials are not used", None, True),
        EnvVar(client_id, "OAuth2 client id for the client credentials flow", None, True),
        EnvVar(client_secret, "OAuth2 client secret for the client credentials flow", None, True),
        EnvVar(token_url, "OAuth2 token endpoint", scheme.token_url),
        EnvVar(scopes, "OAuth2 scopes to request, space-separated (default: none)"),
    ]


def _is_file_schema(schema: Any, defs: dict[str, Any], depth: int = 0) -> bool:
    """A multipart property holding file content: `format: binary` (3.0), a
    `contentMediaType` (3.1), or an array of those."""
    if not isinstance(schema, dict) or depth > 4:
        return False
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return _is_file_schema(defs.get(ref[len("#/$defs/"):]), defs, depth + 1)
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if "array" in kinds:
        return _is_file_schema(schema.get("items"), defs, depth + 1)
    return "string" in kinds and (schema.get("format") == "binary" or "contentMediaType" in schema)


def _file_argument_schema(schema: Any, defs: dict[str, Any], upload_env: str) -> JsonSchema:
    """The tool argument for a file part: base64 content plus a filename, or a local path
    that the server reads only under the directory its operator allowed."""
    one: JsonSchema = {
        "type": "object",
        "description": (
            "A file: `content` (base64) with a `filename`, or `path` to a file under the server's upload "
            f"directory (only when the server was started with {upload_env} set)."
        ),
        "properties": {
            "content": {"type": "string", "contentEncoding": "base64", "description": "The file's bytes, base64-encoded"},
            "filename": {"type": "string", "description": "File name sent to the API"},
            "contentType": {"type": "string", "description": "Media type of the file (default: guessed from the name)"},
            "path": {"type": "string", "description": f"A file under {upload_env}, relative to it"},
        },
        "anyOf": [{"required": ["content"]}, {"required": ["path"]}],
        "additionalProperties": False,
    }
    target = schema
    if isinstance(target, dict) and isinstance(target.get("$ref"), str) and target["$ref"].startswith("#/$defs/"):
        target = defs.get(target["$ref"][len("#/$defs/"):], {})
    types = target.get("type") if isinstance(target, dict) else None
    if isinstance(target, dict) and "array" in (types if isinstance(types, list) else [types]):
        return {"type": "array", "items": one}
    description = target.get("description") if isinstance(target, dict) else None
    if isinstance(description, str) and description:
        one["description"] = description + "\n\n" + one["description"]
    return one


def response_component(raw: Any) -> tuple[str, bool] | None:
    """The component schema a raw response schema names, and whether as an array's items."""
    if isinstance(raw, dict) and raw.get("type") == "array" and isinstance(raw.get("items"), dict):
        item = _component_name(raw["items"])
        return None if item is None else (item, True)
    name = _component_name(raw)
    return None if name is None else (name, False)


def _component_name(raw: Any) -> str | None:
    if isinstance(raw, dict) and isinstance(raw.get("$ref"), str) and raw["$ref"].startswith("#/components/schemas/"):
        return str(raw["$ref"].rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~"))
    return None


def _pick_media_type(types: list[str]) -> str | None:
    lowered = {t.split(";")[0].strip().lower(): t for t in types}
    for preferred in ("application/json",):
        if preferred in lowered:
            return lowered[preferred]
    for lower, original in lowered.items():
        if _is_json(lower):
            return original
    for preferred in ("application/x-www-form-urlencoded", "multipart/form-data", "text/plain", "application/octet-stream"):
        if preferred in lowered:
            return lowered[preferred]
    for lower, original in lowered.items():
        if lower.startswith("text/"):
            return original
    return None


def _is_json(media: str) -> bool:
    base = media.split(";", maxsplit=1)[0].strip().lower()
    return base == "application/json" or base.endswith("+json") or base == "*/*"


def _is_json_like(media: str) -> bool:
    base = media.split(";", maxsplit=1)[0].strip().lower()
    return _is_json(base) or base in ("application/x-www-form-urlencoded", "multipart/form-data")


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _unique(ident: str, used: set[str]) -> str:
    candidate, n = ident, 2
    while candidate in used:
        candidate, n = f"{ident}_{n}", n + 1
    used.add(candidate)
    return candidate


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = "/".join(str(x) for x in err.get("loc", ()))
    return f"{where}: {err.get('msg')}" if where else str(err.get("msg"))
