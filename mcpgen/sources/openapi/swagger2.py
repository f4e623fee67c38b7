"""Swagger 2.0 → OpenAPI 3.0.3, as a plain-dict rewrite ahead of the OpenAPI parser.

Operation and path pointers are unchanged by the rewrite, so diagnostics still point
at the right place in the original file.
"""

from __future__ import annotations

import copy
from typing import Any

from mcpgen.diagnostics import Diagnostics, join_pointer

_SCHEMA_KEYS = (
    "type", "format", "items", "enum", "default", "minimum", "maximum", "exclusiveMinimum",
    "exclusiveMaximum", "minLength", "maxLength", "pattern", "minItems", "maxItems", "uniqueItems",
    "multipleOf",
)
_COLLECTION_STYLES = {  # collectionFormat -> (style, explode) for query parameters
    "csv": ("form", False), "multi": ("form", True), "ssv": ("spaceDelimited", False),
    "pipes": ("pipeDelimited", False), "tsv": ("form", False),
}
_OAUTH_FLOWS = {"implicit": "implicit", "password": "password", "application": "clientCredentials",
                "accessCode": "authorizationCode"}


def is_swagger2(document: dict[str, Any]) -> bool:
    return str(document.get("swagger", "")).startswith("2.")


def to_openapi3(document: dict[str, Any], diagnostics: Diagnostics) -> dict[str, Any]:
    doc = _rewrite_refs(copy.deepcopy(document))
    consumes = doc.get("consumes") or ["application/json"]
    produces = doc.get("produces") or ["application/json"]
    components: dict[str, Any] = {}
    if isinstance(doc.get("definitions"), dict):
        components["schemas"] = {k: _schema(v) for k, v in doc["definitions"].items()}
    shared_params = doc.get("parameters") if isinstance(doc.get("parameters"), dict) else {}
    if isinstance(doc.get("responses"), dict):
        components["responses"] = {k: _response(v, produces) for k, v in doc["responses"].items()}
    if isinstance(doc.get("securityDefinitions"), dict):
        components["securitySchemes"] = {
            k: _security_scheme(v) for k, v in doc["securityDefinitions"].items() if isinstance(v, dict)
        }
    out: dict[str, Any] = {"openapi": "3.0.3", "info": doc.get("info", {})}
    servers = _servers(doc)
    if servers:
        out["servers"] = servers
    if "security" in doc:
        out["security"] = doc["security"]
    paths: dict[str, Any] = {}
    for path, item in (doc.get("paths") or {}).items():
        if not isinstance(item, dict):
            paths[path] = item
            continue
        new_item: dict[str, Any] = {}
        for key, node in item.items():
            if key == "parameters" and isinstance(node, list):
                new_item[key] = [_parameter(p, shared_params) for p in node if not _is_body_like(p, shared_params)]
            elif isinstance(node, dict) and key in ("get", "put", "post", "delete", "options", "head", "patch"):
                inherited = [p for p in item.get("parameters", []) if _is_body_like(p, shared_params)]
                pointer = join_pointer("/paths", path, key)
                new_item[key] = _operation(node, inherited, shared_params, consumes, produces, diagnostics, pointer)
            else:
                new_item[key] = node
        paths[path] = new_item
    out["paths"] = paths
    components["parameters"] = {
        k: _parameter(v, {}) for k, v in shared_params.items() if not _is_body_like(v, {})
    }
    out["components"] = components
    return out


def _rewrite_refs(node: Any) -> Any:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            for old, new in (("#/definitions/", "#/components/schemas/"), ("#/responses/", "#/components/responses/")):
                if ref.startswith(old):
                    node["$ref"] = new + ref[len(old):]
        for value in node.values():
            _rewrite_refs(value)
    elif isinstance(node, list):
        for value in node:
            _rewrite_refs(value)
    return node


def _schema(node: Any) -> Any:
    """Swagger schema quirks (`type: file`, `x-nullable`), through every sub-schema."""
    if not isinstance(node, dict):
        return node
    out = dict(node)
    for key in ("items", "additionalProperties", "not"):
        if isinstance(out.get(key), dict):
            out[key] = _schema(out[key])
    for key in ("allOf", "anyOf", "oneOf"):
        if isinstance(out.get(key), list):
            out[key] = [_schema(v) for v in out[key]]
    if isinstance(out.get("properties"), dict):
        out["properties"] = {k: _schema(v) for k, v in out["properties"].items()}
    if out.get("type") == "file":
        out["type"], out["format"] = "string", "binary"
    if out.pop("x-nullable", False) is True:
        out["nullable"] = True
    return out


def _resolve_param(param: Any, shared: dict[str, Any]) -> Any:
    if isinstance(param, dict) and isinstance(param.get("$ref"), str) and param["$ref"].startswith("#/parameters/"):
        return shared.get(param["$ref"].split("/", 2)[2], param)
    return param


def _is_body_like(param: Any, shared: dict[str, Any]) -> bool:
    resolved = _resolve_param(param, shared)
    return isinstance(resolved, dict) and resolved.get("in") in ("body", "formData")


def _parameter(param: Any, shared: dict[str, Any]) -> Any:
    if isinstance(param, dict) and isinstance(param.get("$ref"), str):
        if param["$ref"].startswith("#/parameters/"):
            return {"$ref": "#/components/parameters/" + param["$ref"].split("/", 2)[2]}
        return param
    if not isinstance(param, dict):
        return param
    out = {k: v for k, v in param.items() if k not in _SCHEMA_KEYS and k not in ("collectionFormat", "allowEmptyValue")}
    schema = _schema({k: param[k] for k in _SCHEMA_KEYS if k in param})
    out["schema"] = schema or {"type": "string"}
    fmt = param.get("collectionFormat")
    if param.get("type") == "array" and param.get("in") == "query":
        style, explode = _COLLECTION_STYLES.get(fmt or "csv", ("form", False))
        out["style"], out["explode"] = style, explode
    return out


def _operation(
    node: dict[str, Any],
    inherited: list[Any],
    shared: dict[str, Any],
    consumes: list[str],
    produces: list[str],
    diagnostics: Diagnostics,
    pointer: str,
) -> dict[str, Any]:
    out = {k: v for k, v in node.items() if k not in ("parameters", "consumes", "produces", "schemes", "responses")}
    consumes = node.get("consumes") or consumes
    produces = node.get("produces") or produces
    params = [_resolve_param(p, shared) for p in [*inherited, *(node.get("parameters") or [])]]
    body = [p for p in params if isinstance(p, dict) and p.get("in") == "body"]
    form = [p for p in params if isinstance(p, dict) and p.get("in") == "formData"]
    out["parameters"] = [
        _parameter(p, shared) for p in (node.get("parameters") or []) if not _is_body_like(p, shared)
    ]
    if body:
        media = next((c for c in consumes if "json" in c), consumes[0])
        out["requestBody"] = {
            "required": body[0].get("required") is True,
            "content": {media: {"schema": _schema(body[0].get("schema", {}))}},
        }
        if body[0].get("description"):
            out["requestBody"]["description"] = body[0]["description"]
    elif form:
        has_file = any(p.get("type") == "file" for p in form)
        media = "multipart/form-data" if has_file or "multipart/form-data" in consumes else "application/x-www-form-urlencoded"
        properties = {p["name"]: _parameter(p, {})["schema"] | ({"description": p["description"]} if p.get("description") else {}) for p in form if "name" in p}
        required = [p["name"] for p in form if p.get("required") is True and "name" in p]
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        if required:
            schema["required"] = required
        out["requestBody"] = {"required": bool(required), "content": {media: {"schema": schema}}}
    out["responses"] = {
        code: _response(response, produces) for code, response in (node.get("responses") or {}).items()
    }
    return out


def _response(node: Any, produces: list[str]) -> Any:
    if not isinstance(node, dict) or "$ref" in node:
        return node
    out = {k: v for k, v in node.items() if k not in ("schema", "examples", "headers")}
    out.setdefault("description", "")
    if "schema" in node:
        schema = _schema(node["schema"])
        out["content"] = {media: {"schema": schema} for media in produces}
    return out


def _security_scheme(node: dict[str, Any]) -> dict[str, Any]:
    kind = node.get("type")
    if kind == "basic":
        return {"type": "http", "scheme": "basic", **({"description": node["description"]} if "description" in node else {})}
    if kind == "oauth2":
        flow = _OAUTH_FLOWS.get(str(node.get("flow")), "implicit")
        spec: dict[str, Any] = {"scopes": node.get("scopes") or {}}
        if "authorizationUrl" in node:
            spec["authorizationUrl"] = node["authorizationUrl"]
        if "tokenUrl" in node:
            spec["tokenUrl"] = node["tokenUrl"]
        return {"type": "oauth2", "flows": {flow: spec}, **({"description": node["description"]} if "description" in node else {})}
    return node


def _servers(doc: dict[str, Any]) -> list[dict[str, str]]:
    host = doc.get("host")
    base = str(doc.get("basePath") or "")
    if not host:
        return [{"url": base}] if base else []
    schemes = doc.get("schemes") or ["https"]
    scheme = "https" if "https" in schemes else schemes[0]
    return [{"url": f"{scheme}://{host}{base}"}]
