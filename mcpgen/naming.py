"""Every identifier, tool-name, env-var and file-name rule, in one place."""

from __future__ import annotations

import builtins
import functools
import hashlib
import keyword
import re
import unicodedata
from dataclasses import dataclass

from mcpgen.runtime import declared

DEFAULT_MAX_TOOL_NAME = 64
MCP_MAX_TOOL_NAME = 128
_HASH_LEN = 6
_INVALID_TOOL_CHARS = re.compile(r"[^A-Za-z0-9_-]+")
_WORD_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_NON_IDENT = re.compile(r"[^0-9a-zA-Z_]+")
_PROPERTY_OK = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
_RESERVED = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | frozenset(dir(builtins))


def ascii_fold(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")


def slug(text: str) -> str:
    """`Swagger Petstore v2!` -> `swagger-petstore-v2`; empty input gives `server`."""
    words = re.split(r"[^a-z0-9]+", ascii_fold(text).lower())
    return "-".join(w for w in words if w) or "server"


UNGROUPED_TOOLSET = "other"  # the toolset of a tool with no tag (or no literal path segment)
MAX_TOOLSET_NAME = 64


def toolset_name(text: str) -> str:
    """A tag or path segment as a toolset name: `Code Scanning` -> `code-scanning`; `_` is kept
    (`secret_scanning`), as PREFIX_TOOLSETS spells it; nothing usable gives `other`."""
    words = re.split(r"[^a-z0-9_]+", ascii_fold(text).lower())
    name = "-".join(w for w in words if w).strip("_-")[:MAX_TOOLSET_NAME].rstrip("_-")
    return name or UNGROUPED_TOOLSET


# Words a spec title carries that say nothing about which API it is ("GitHub's official
# OpenAPI spec + Octokit extension" is GitHub's); a version (`v3`, `2024`) counts too.
_TITLE_FILLER = frozenset({
    "a", "an", "and", "api", "apis", "definition", "description", "extension", "for", "http", "https", "json",
    "namespace", "odata", "of", "official", "openapi", "rest", "restful", "s", "service", "services", "spec",
    "specification", "swagger", "the", "version", "web", "with", "yaml",
})
_VERSION_WORD = re.compile(r"^(v\d+|\d+)$")
MAX_DEFAULT_NAME_WORDS, MAX_DEFAULT_NAME = 3, 30


def default_server_name(title: str) -> str:
    """A short server name from a spec's title: its first run of telling words, at most three
    (`GitHub's official OpenAPI spec` -> `github`, `Swagger Petstore` -> `petstore`, `Slack Web
    API` -> `slack`); the whole title's slug, cut, when no word tells."""
    words = [w for w in re.split(r"[^a-z0-9]+", ascii_fold(title).lower()) if w]
    kept: list[str] = []
    for word in words:
        filler = word in _TITLE_FILLER or _VERSION_WORD.match(word) is not None
        if filler and kept:
            break
        if not filler and (not kept or kept[-1] != word):
            kept.append(word)
        if len(kept) == MAX_DEFAULT_NAME_WORDS:
            break
    name = "-".join(kept) or slug(title)
    return name[:MAX_DEFAULT_NAME].strip("-") or "server"


# Module names that say what a file is, not which server it makes: `tools.py` would give
# `tools`, and settings like `TOOLS_TOOLS_ALLOW`.
_GENERIC_MODULES = frozenset({
    "api", "app", "functions", "handlers", "init", "lib", "main", "mcp", "module", "server", "service", "tool",
    "tools", "utils",
})


def default_module_server_name(module: str, doc_title: str, parent: str = "") -> str:
    """A Python source's default server name: its module's (`shop.py` -> `shop`), unless that
    name is generic (`tools`, `server`, `main`...); then the module docstring's first line
    (`Inventory: a small stock-keeping toolkit.` -> `inventory`), else its package or folder."""
    name = slug(module)
    if name not in _GENERIC_MODULES:
        return name
    for candidate in (default_server_name(doc_title) if doc_title.strip() else "", slug(parent) if parent else ""):
        if candidate and candidate not in _GENERIC_MODULES:
            return candidate
    return name


def _split_words(text: str) -> str:
    return _WORD_BOUNDARY.sub(" ", text)


def snake(text: str) -> str:
    """`getPetById` -> `get_pet_by_id`; `X-Rate-Limit` -> `x_rate_limit`."""
    words = _NON_IDENT.split(_split_words(ascii_fold(text)).replace("_", " "))
    return "_".join(w.lower() for w in " ".join(words).split())


def python_identifier(text: str, fallback: str = "value") -> str:
    """A valid, non-reserved snake_case identifier: keywords and builtins get a trailing `_`."""
    ident = snake(text) or fallback
    if ident[0].isdigit():
        ident = f"{fallback}_{ident}"
    if ident in _RESERVED:
        ident += "_"
    return ident


def class_name(text: str) -> str:
    words = snake(text).split("_")
    ident = "".join(w[:1].upper() + w[1:] for w in words if w) or "Model"
    return ident if not ident[0].isdigit() else f"Model{ident}"


MAX_MODEL_CLASS = 64  # a model class names its module (`snake_case.py`): file names stay far below 255 bytes


def bounded_class_name(name: str, limit: int = MAX_MODEL_CLASS) -> str:
    """`name` if short enough, else cut with a suffix hashed from the whole (`Aaaa..._1a2b3c`)."""
    if len(name) <= limit:
        return name
    return name[: limit - _HASH_LEN - 1] + "_" + short_hash(name)


def package_name(server_name: str) -> str:
    return python_identifier(server_name.replace("-", "_"), "server").rstrip("_") + "_mcp"


def distribution_name(server_name: str) -> str:
    return f"{server_name}-mcp"


def env_prefix(server_name: str) -> str:
    return env_name(server_name) or "SERVER"


def env_name(text: str) -> str:
    """`apiKey` -> `API_KEY`; `petstore_auth` -> `PETSTORE_AUTH`."""
    return snake(text).upper()


# What the generated server reads as `<PREFIX>_<NAME>` (mcpgen/runtime/settings.py and
# transport.py; a unit test keeps this list complete): no credential may be read from one.
SERVER_SETTINGS = declared.NAMES  # every setting the runtime reads (runtime/declared.py)
_PER_TOOL_SETTINGS = ("RATE_LIMIT_",)  # `<PREFIX>_RATE_LIMIT_<TOOL>`


def credential_base(prefix: str, scheme: str, hashed: bool = False) -> str:
    """The variable a security scheme's credential is read from (`PETS_API_KEY`; basic and
    OAuth2 schemes add `_USERNAME`, `_CLIENT_ID`... to it). `hashed`: with a suffix hashed
    from the scheme's name (`PETS_API_KEY_1A2B3C`), for a scheme whose plain variables are
    taken (`api-key` and `Api_Key` both give `API_KEY`) or are a server setting."""
    base = f"{prefix}_{env_name(scheme) or 'CREDENTIAL'}"
    return f"{base}_{short_hash(scheme).upper()}" if hashed else base


def is_server_setting(prefix: str, variable: str) -> bool:
    """Whether the generated server reads `variable` as one of its own settings."""
    name = variable[len(prefix) + 1 :] if variable.startswith(prefix + "_") else ""
    return name in SERVER_SETTINGS or name.startswith(_PER_TOOL_SETTINGS)


def short_hash(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:_HASH_LEN]


def property_name(name: str) -> str:
    """A tool-argument name strict clients accept (`^[A-Za-z0-9_.-]{1,64}$`)."""
    if _PROPERTY_OK.match(name):
        return name
    cleaned = re.sub(r"[^A-Za-z0-9_.-]+", "_", ascii_fold(name)).strip("_") or "arg"
    if len(cleaned) > 64:
        cleaned = cleaned[: 64 - _HASH_LEN - 1] + "_" + short_hash(name)
    return cleaned


@dataclass(frozen=True, slots=True)
class ToolNameRequest:
    """One operation asking for a tool name. `key` identifies it stably (e.g. `GET /pets`)."""

    key: str
    wanted: str


@dataclass(frozen=True, slots=True)
class ToolName:
    key: str
    name: str
    reason: str  # empty when the wanted name was kept


def _clean_tool_name(wanted: str) -> str:
    cleaned = _INVALID_TOOL_CHARS.sub("_", ascii_fold(wanted)).strip("_-")
    cleaned = re.sub(r"_{2,}", "_", cleaned)
    if not cleaned:
        return "tool"
    if not cleaned[0].isalpha():
        cleaned = "op_" + cleaned
    return cleaned


def _with_suffix(base: str, key: str, max_length: int, length: int = _HASH_LEN) -> str:
    """`base` cut to fit, plus `_` and `length` hex digits hashed from `key`."""
    digest = hashlib.sha256(key.encode()).hexdigest()[:length]
    if length + 2 > max_length:  # tiny budgets: the hash alone, still starting with a letter
        return ("t" + digest)[:max_length]
    return base[: max_length - length - 1].rstrip("_-") + "_" + digest


def assign_tool_names(requests: list[ToolNameRequest], max_length: int = DEFAULT_MAX_TOOL_NAME) -> list[ToolName]:
    """Compliant, unique, order-independent tool names.

    A name that had to be cleaned keeps its cleaned form; one that is too long, or
    collides with another, gets a suffix hashed from its operation key, so adding or
    reordering operations never renames the others.
    """
    if not 1 <= max_length <= MCP_MAX_TOOL_NAME:
        raise ValueError(f"max tool name length must be 1-{MCP_MAX_TOOL_NAME}, got {max_length}")
    cleaned = {r.key: _clean_tool_name(r.wanted) for r in requests}
    by_name: dict[str, list[ToolNameRequest]] = {}
    for r in requests:
        by_name.setdefault(cleaned[r.key], []).append(r)

    result: dict[str, ToolName] = {}
    for name, group in by_name.items():
        # The one operation whose own name is exactly `name` keeps it; others take a hash.
        exact = [r for r in group if r.wanted == name]
        keeper = exact[0] if len(exact) == 1 and len(name) <= max_length else None
        for r in group:
            reasons = []
            if cleaned[r.key] != r.wanted:
                reasons.append("characters outside [A-Za-z0-9_-] or a leading non-letter")
            final = cleaned[r.key]
            if r is not keeper and len(group) > 1:
                final = _with_suffix(final, r.key, max_length)
                reasons.append(f"collides with {len(group) - 1} other operation(s) named {name!r}")
            elif len(final) > max_length:
                final = _with_suffix(final, r.key, max_length)
                reasons.append(f"longer than {max_length} characters")
            result[r.key] = ToolName(r.key, final, "; ".join(reasons))

    # Hash suffixes can (very rarely) collide with each other or with a kept name.
    taken: dict[str, str] = {}
    for r in sorted(requests, key=lambda r: r.key):
        tn = result[r.key]
        length = _HASH_LEN
        name = tn.name
        while name in taken:
            length += 2
            if length > 64:
                raise ValueError(f"cannot give {len(requests)} tools unique names of at most {max_length} characters")
            name = _with_suffix(cleaned[r.key], r.key, max_length, length)
        taken[name] = r.key
        if name != tn.name:
            result[r.key] = ToolName(r.key, name, (tn.reason + "; " if tn.reason else "") + "hash collision")
    return [result[r.key] for r in requests]


@functools.cache
def meta_tool_names(constant: str = "META_TOOL_NAMES") -> frozenset[str]:
    """`META_TOOL_NAMES` of mcpgen/runtime/registry.py, the names of dynamic mode's meta-tools.

    Read from the runtime's source, not imported: importing that module reads the installed
    project's catalogue (which a generator has not got). Raises if the definition no longer
    has the form read here (string constants, then `frozenset({...})` of them).
    """
    import ast
    from pathlib import Path

    source = Path(__file__).parent / "runtime" / "registry.py"
    constants: dict[str, str] = {}
    for node in ast.parse(source.read_text(encoding="utf-8")).body:
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target, value = node.targets[0], node.value
        if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple):
            pairs = list(zip(target.elts, value.elts, strict=False))
        else:
            pairs = [(target, value)]
        for name, item in pairs:
            if isinstance(name, ast.Name) and isinstance(item, ast.Constant) and isinstance(item.value, str):
                constants[name.id] = item.value
        if isinstance(target, ast.Name) and target.id == constant and isinstance(value, ast.Call):
            members = value.args[0] if value.args else None
            if isinstance(members, ast.Set) and all(isinstance(e, ast.Name) and e.id in constants for e in members.elts):
                return frozenset(constants[e.id] for e in members.elts if isinstance(e, ast.Name))
    raise RuntimeError(f"{source}: {constant} is no longer `frozenset({{NAME, ...}})` of string constants")


def avoid_names(name: str, key: str, reserved: frozenset[str], taken: set[str], max_length: int = DEFAULT_MAX_TOOL_NAME) -> str:
    """A tool name other than the `reserved` ones (dynamic mode's meta-tools) and those `taken`:
    `search_tools` -> `search_tools_op`, or a suffix hashed from `key` if that is taken too."""
    if name not in reserved:
        return name
    candidate = (name + "_op")[:max_length]
    length = _HASH_LEN
    while candidate in reserved or candidate in taken:
        candidate = _with_suffix(name, key, max_length, length)
        length += 2
    return candidate


def unique_identifiers(names: list[str], reserved: frozenset[str] = frozenset()) -> list[str]:
    """Python identifiers for a list of labels, unique among themselves and `reserved`.

    Clashes get a deterministic `_2`, `_3`... in list order: only used for function
    parameters, whose order is fixed by the parser.
    """
    seen = set(reserved)
    out = []
    for label in names:
        base = python_identifier(label)
        ident, n = base, 2
        while ident in seen:
            ident, n = f"{base}_{n}", n + 1
        seen.add(ident)
        out.append(ident)
    return out


def package_version(text: str) -> str:
    """A PEP 440 version for the generated pyproject (`v1.2`, `2023-01-01`, `1.0-beta` are common)."""
    from packaging.version import InvalidVersion, Version

    candidate = text.strip().lstrip("vV")
    try:
        return str(Version(candidate))
    except InvalidVersion:
        numbers = re.findall(r"\d+", candidate)
        return ".".join(str(int(n)) for n in numbers[:3]) if numbers else "0.1.0"
