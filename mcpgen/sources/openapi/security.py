"""Security: the schemes the server can send credentials for (each read from its own
settings), which of them each operation accepts, and the inbound OAuth scopes it needs."""

from __future__ import annotations

import dataclasses
from typing import Any

from pydantic import ValidationError

from mcpgen import naming
from mcpgen.diagnostics import join_pointer
from mcpgen.ir import EnvVar, SecurityScheme
from mcpgen.runtime import declared
from mcpgen.sources.openapi.reader import Operation, Reader, first_error

Requirements = tuple[tuple[str, ...], ...]  # alternatives; each a set of scheme names


def security_schemes(reader: Reader, prefix: str) -> dict[str, SecurityScheme]:
    """The supported schemes by name, in the spec's order; the others ignored with a warning."""
    raw = (reader.doc.get("components") or {}).get("securitySchemes") or {}
    schemes: dict[str, SecurityScheme] = {}
    taken: set[str] = set()  # every variable a scheme already reads
    # By name, so which of two clashing schemes keeps the plain variable does not depend on order.
    for name in sorted(raw) if isinstance(raw, dict) else []:
        pointer = join_pointer("/components/securitySchemes", name)
        node, pointer = reader.deref(raw[name], pointer)
        try:
            reader.models.SecurityScheme.model_validate(node)
        except ValidationError as exc:
            reader.warn(f"invalid security scheme {name!r}: {first_error(exc)}", pointer)
            continue
        plain = naming.credential_base(prefix, name)
        scheme = _security_scheme(reader, name, node, plain, pointer)
        if scheme is None:
            continue
        scheme = _v32_fields(reader, name, node, pointer, scheme)
        if any(v in taken or naming.is_server_setting(prefix, v) for v in scheme.env_vars):
            hashed = naming.credential_base(prefix, name, hashed=True)
            scheme = dataclasses.replace(scheme, env_vars=tuple(hashed + v[len(plain):] for v in scheme.env_vars))
            reader.warn(
                f"security scheme {name!r} reads {', '.join(scheme.env_vars)}: its plain variable is taken by "
                "another scheme or a server setting, and one credential must never be sent as another's",
                pointer,
            )
        taken.update(scheme.env_vars)
        schemes[name] = scheme
    return {name: schemes[name] for name in raw if name in schemes}  # the spec's order, as before


def _security_scheme(reader: Reader, name: str, node: dict[str, Any], var: str, pointer: str) -> SecurityScheme | None:
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
    reader.warn(f"security scheme {name!r} of type {kind!r} is not supported; ignored", pointer)
    return None


def _v32_fields(reader: Reader, name: str, node: dict[str, Any], pointer: str, scheme: SecurityScheme) -> SecurityScheme:
    """OpenAPI 3.2's scheme fields: `deprecated` (the scheme still used, and said so), the OAuth2
    device authorization flow and `oauth2MetadataUrl` (recorded; the server runs neither)."""
    fields: dict[str, Any] = {k: node[k] for k in ("deprecated", "oauth2MetadataUrl") if k in node}
    flows = node.get("flows")
    device = flows.get("deviceAuthorization") if isinstance(flows, dict) else None
    if device is not None:
        fields["flows/deviceAuthorization"] = device
    if not fields:
        return scheme
    if not reader.openapi_32:
        for key in fields:
            reader.warn(f"security scheme {name!r}: `{key.rsplit('/', 1)[-1]}` is an OpenAPI 3.2 field; ignored",
                        join_pointer(pointer, *key.split("/")))
        return scheme
    changes: dict[str, Any] = {}
    if node.get("deprecated") is True:
        reader.warn(f"security scheme {name!r} is deprecated by the API; it is still used when an operation "
                    "accepts it", join_pointer(pointer, "deprecated"))
        changes.update(deprecated=True, description=f"{scheme.description} (deprecated by the API)")
    metadata = node.get("oauth2MetadataUrl")
    if isinstance(metadata, str) and scheme.kind in ("oauth2", "bearer"):
        changes["metadata_url"] = metadata
        reader.warn(
            f"security scheme {name!r}: oauth2MetadataUrl is recorded but not fetched; the flows come from the spec",
            join_pointer(pointer, "oauth2MetadataUrl"),
        )
    if isinstance(device, dict):
        url = device.get("deviceAuthorizationUrl")
        changes["device_authorization_url"] = url if isinstance(url, str) else None
        token = scheme.env_vars[0]
        used = "its client credentials flow is used" if scheme.kind == "oauth2" else f"set {token} to a token obtained with it"
        reader.warn(
            f"security scheme {name!r}: the OAuth2 device authorization flow needs a person at a browser, and the "
            f"server does not run it; {used}",
            join_pointer(pointer, "flows", "deviceAuthorization"),
        )
    return dataclasses.replace(scheme, **changes)


def scheme_env_vars(scheme: SecurityScheme) -> list[EnvVar]:
    """The settings a scheme's credentials are read from."""
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


def generic_credentials(reader: Reader, prefix: str) -> list[EnvVar]:
    """A spec declaring no (usable) security scheme - GitHub's, for one - still often needs
    a token: the server takes one, or any headers, from the environment, and says so."""
    raw = (reader.doc.get("components") or {}).get("securitySchemes")
    what = "declares no security scheme" if not raw else "declares no security scheme mcpgen supports"
    reader.diag.warning(
        f"{reader.path.name} {what}: the generated server sends no credentials unless "
        f"{prefix}_BEARER_TOKEN or {prefix}_HEADERS is set",
        "/components/securitySchemes",
        f"if the API needs a token, set {prefix}_BEARER_TOKEN (sent as `Authorization: Bearer ...`) "
        f"or {prefix}_HEADERS (`Name: value` lines, or a JSON object) in the server's environment",
    )
    return [
        EnvVar(f"{prefix}_BEARER_TOKEN", declared.meaning("BEARER_TOKEN"), None, secret=True),
        EnvVar(f"{prefix}_HEADERS", declared.meaning("HEADERS"), None),
    ]


def requirements(reader: Reader, op: Operation, schemes: dict[str, SecurityScheme]) -> Requirements:
    """The operation's security requirements the server can meet (operation's, else the document's)."""
    raw = op.node.get("security", reader.doc.get("security"))
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
        reader.warn("none of the operation's security requirements is supported; calls are sent without credentials", op.pointer)
    return tuple(alternatives)


def scopes(reader: Reader, op: Operation) -> Requirements | None:
    """The inbound OAuth scopes of the operation: one alternative per security requirement
    that names an oauth2 or openIdConnect scheme, its scopes; None when none does."""
    raw = op.node.get("security", reader.doc.get("security"))
    definitions = (reader.doc.get("components") or {}).get("securitySchemes")
    if not isinstance(raw, list) or not isinstance(definitions, dict):
        return None
    alternatives: list[tuple[str, ...]] = []
    for requirement in raw:
        if not isinstance(requirement, dict):
            continue
        wanted: set[str] = set()
        oauth = False
        for name, listed in requirement.items():
            node = definitions.get(name)
            if isinstance(node, dict) and "$ref" in node:
                node, _ = reader.deref(node, join_pointer("/components/securitySchemes", name))
            if isinstance(node, dict) and node.get("type") in ("oauth2", "openIdConnect"):
                oauth = True
                wanted.update(s for s in (listed if isinstance(listed, list) else ()) if isinstance(s, str))
        if oauth:
            alternatives.append(tuple(sorted(wanted)))
    return tuple(dict.fromkeys(alternatives)) or None
