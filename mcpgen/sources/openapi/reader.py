"""What every part of the OpenAPI parser reads through: the bundled document, its `$ref`s,
the schema converter, the options and the diagnostics; and an operation as the parser sees it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from pydantic import ValidationError

from mcpgen import naming
from mcpgen.diagnostics import Diagnostics, GenerationError
from mcpgen.options import OperationFilter
from mcpgen.schema.convert import SchemaConverter
from mcpgen.schema.output import MAX_SUBSCHEMAS


@dataclass(frozen=True, slots=True)
class OpenApiOptions:
    """The parser's narrow view of the options (made by `api.openapi_options`)."""

    name: str | None = None
    max_name_length: int = naming.DEFAULT_MAX_TOOL_NAME
    models: bool = True
    filters: OperationFilter = field(default_factory=OperationFilter)
    allow_remote_refs: bool = False  # fetch http(s) `$ref`s (otherwise a located error)
    allow_refs_outside: bool = False  # read `$ref`ed files outside the spec's folder tree
    overlays: tuple[Path, ...] = ()  # Overlay documents applied to the spec as loaded, in order


class Reader:
    """One parse: the document, how to follow its references, and where problems go."""

    def __init__(self, path: Path, document: dict[str, Any], options: OpenApiOptions, diagnostics: Diagnostics):
        self.path = path
        self.doc = document
        self.options = options
        self.diag = diagnostics
        self._resolved: dict[str, Any] = {}
        self.output_budget = MAX_SUBSCHEMAS  # subschemas per output schema; set from the operation count
        self.upload_env = "UPLOAD_DIR"  # the upload directory's setting, set with the env prefix
        self.version = self._version()
        self.openapi_30 = self.version.startswith("3.0")
        self.openapi_32 = self.version.startswith("3.2")  # its own constructs: see `v32`
        self.converter = SchemaConverter(self.resolve, self.openapi_30, self.warn)
        self.models = self._version_models()

    def _version(self) -> str:
        version = self.doc.get("openapi")
        if "swagger" in self.doc:
            self.diag.error(
                f"Swagger {self.doc.get('swagger')} is not supported",
                "/swagger",
                "convert it to OpenAPI 3 first, e.g. with swagger2openapi",
            )
            raise GenerationError(self.diag.items)
        if not isinstance(version, str) or not re.match(r"^3\.[012]\.\d+", version):
            self.diag.error(
                f"unsupported or missing `openapi` version: {version!r}",
                "/openapi" if version is not None else "",
                "mcpgen reads OpenAPI 3.0.x, 3.1.x and 3.2.x",
            )
            raise GenerationError(self.diag.items)
        return version

    def _version_models(self) -> Any:
        """openapi-pydantic's models for this version (the only importer of openapi-pydantic).
        It knows 3.0 and 3.1 only: a 3.2 document's objects are checked with the 3.1 models
        (the same JSON Schema dialect, and every 3.1 object has kept its shape), each seen
        through `v32.as_31` first, which puts its 3.2-only values in 3.1 terms."""
        from openapi_pydantic.v3 import v3_0, v3_1  # openapi_pydantic.v3 loads both anyway

        return v3_0 if self.openapi_30 else v3_1

    def warn(self, message: str, pointer: str, hint: str = "") -> None:
        self.diag.warning(message, pointer, hint)

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
                self.warn(f"cannot follow $ref {ref!r}", pointer)
                return {}, pointer
            seen.add(ref)
            try:
                node, pointer = self.resolve(ref), ref[1:]
            except KeyError:
                self.warn(f"$ref {ref!r} points at nothing", pointer)
                return {}, pointer
        return node, pointer


@dataclass(frozen=True, slots=True)
class Operation:
    """One selected operation: its key (`GET /pets`), the name it asks for, and its nodes."""

    key: str
    wanted_name: str
    path: str
    method: str
    node: dict[str, Any]
    item: dict[str, Any]  # its path item (shared parameters)
    pointer: str


def text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = "/".join(str(x) for x in err.get("loc", ()))
    return f"{where}: {err.get('msg')}" if where else str(err.get("msg"))
