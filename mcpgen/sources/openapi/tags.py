"""The spec's declared tags, with OpenAPI 3.2's `summary`, `parent` and `kind`: each parent
checked (declared, no cycle) and each tag's top-level ancestor worked out once, here."""

from __future__ import annotations

from mcpgen.diagnostics import join_pointer
from mcpgen.ir import Origin, Tag
from mcpgen.sources.openapi.reader import Reader, text


def tags(reader: Reader) -> tuple[Tag, ...]:
    """The document's `tags`, in its order; a malformed one, a duplicate, an unknown parent or
    a cycle of parents is a located warning (the tag kept, without the bad part)."""
    raw = reader.doc.get("tags")
    if raw is None:
        return ()
    if not isinstance(raw, list):
        reader.warn("`tags` is not a list; ignored", "/tags")
        return ()
    declared: dict[str, tuple[dict[str, object], str]] = {}
    for i, node in enumerate(raw):
        pointer = f"/tags/{i}"
        name = node.get("name") if isinstance(node, dict) else None
        if not isinstance(node, dict) or not isinstance(name, str) or not name:
            reader.warn("tag without a `name`; ignored", pointer)
            continue
        if name in declared:
            reader.warn(f"tag {name!r} is declared twice; the first one is kept", pointer)
            continue
        declared[name] = (node, pointer)
    parents: dict[str, str | None] = {}
    for name, (node, pointer) in declared.items():
        parent = node.get("parent")
        if parent is not None and not reader.openapi_32:
            reader.warn("tag `parent` is an OpenAPI 3.2 field; ignored in this document", join_pointer(pointer, "parent"))
            parent = None
        if parent is not None and (not isinstance(parent, str) or parent not in declared):
            reader.warn(f"tag {name!r}: parent {parent!r} is not a declared tag; treated as top-level",
                        join_pointer(pointer, "parent"))
            parent = None
        parents[name] = parent if isinstance(parent, str) else None
    for name, (_, pointer) in declared.items():  # a cycle is cut where it is found
        seen = [name]
        above = parents[name]
        while above is not None and above not in seen:
            seen.append(above)
            above = parents[above]
        if above == name:  # in a cycle (a tag merely below one is cut free when its member is)
            reader.warn(f"tag {name!r}: its parents lead back to it ({' -> '.join([*seen, name])}); treated as top-level",
                        join_pointer(pointer, "parent"))
            parents[name] = None
    out = []
    for name, (node, pointer) in declared.items():
        root = name
        while (up := parents[root]) is not None:
            root = up
        kind = node.get("kind") if reader.openapi_32 else None
        out.append(Tag(
            name=name,
            summary=text(node.get("summary")) if reader.openapi_32 else "",
            description=text(node.get("description")),
            parent=parents[name],
            root=root,
            kind=kind if isinstance(kind, str) and kind else None,
            origin=Origin(reader.path.name, pointer),
        ))
    return tuple(out)
