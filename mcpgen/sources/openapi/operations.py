"""Which operations of the document become tools: each one checked on its own (a malformed one
is skipped with a located warning), then the project's filters applied."""

from __future__ import annotations

import fnmatch
from typing import Any

from pydantic import ValidationError

from mcpgen.diagnostics import Topic, join_pointer
from mcpgen.options import OperationFilter
from mcpgen.sources.openapi import v32
from mcpgen.sources.openapi.reader import Operation, Reader, first_error

METHODS = v32.FIXED_METHODS


def select_operations(reader: Reader) -> list[Operation]:
    """The valid operations that pass the filters, in the document's order."""
    paths = reader.doc.get("paths")
    if not isinstance(paths, dict):
        reader.warn("no `paths`: the server will have no tools", "/paths")
        return []
    filters = reader.options.filters
    operations = []
    deprecated = 0
    for path, item in paths.items():
        item_pointer = join_pointer("/paths", path)
        item, item_pointer = reader.deref(item, item_pointer)
        if not isinstance(item, dict):
            reader.diag.skipped("path item is not an object; skipped", "not an object", item_pointer)
            continue
        fixed = [(m, n, join_pointer(item_pointer, m)) for m, n in item.items() if m in METHODS and n is not None]
        extra = v32.extra_operations(item, item_pointer, reader.openapi_32, reader.diag)
        for method, node, pointer in [*fixed, *extra]:
            if not isinstance(node, dict):
                reader.diag.skipped("operation is not an object; skipped", "not an object", pointer)
                continue
            try:
                reader.models.Operation.model_validate(_schemas_blanked(v32.as_31(node)))
            except ValidationError as exc:
                reader.diag.skipped(f"invalid operation, skipped: {first_error(exc)}", "invalid operation", pointer)
                continue
            op_id = node.get("operationId")
            if not _selected(filters, path, method, node):
                deprecated += node.get("deprecated") is True and _selected(
                    filters.model_copy(update={"include_deprecated": True}), path, method, node
                )
                continue
            wanted = op_id if isinstance(op_id, str) and op_id.strip() else f"{method}_{path}"
            operations.append(Operation(f"{wire_method(method)} {path}", wanted, path, method, node, item, pointer))
    if deprecated and not filters.include_deprecated:
        reader.diag.info(
            f"{deprecated} deprecated operation{'s' if deprecated != 1 else ''} skipped",
            hint="set `include_deprecated = true` under [filters] in mcpgen.toml, or pass --include-deprecated",
            topic=Topic.SKIPPED, reason="deprecated", count=deprecated,
        )
    return operations


def wire_method(method: str) -> str:
    """The method as sent: a fixed field's name upper-cased, an additional operation's as written."""
    return method.upper() if method in METHODS or method == v32.QUERY else method


def _selected(filters: OperationFilter, path: str, method: str, node: dict[str, Any]) -> bool:
    """Whether the operation passes the project's filters (deprecated ones only when asked)."""
    if node.get("deprecated") is True and not filters.include_deprecated:
        return False
    if filters.methods and wire_method(method).upper() not in filters.methods:
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
