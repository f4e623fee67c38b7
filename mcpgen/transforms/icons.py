"""Icons (MCP 2025-11-25 `icons`) of the server and of tools: checked, then set on the IR.

The server's come from `[options] icons` of mcpgen.toml, else OpenAPI's `info.x-logo.url`;
a tool's from `[tools.<name>] icons` (see `overrides`), else `[options] tag_icons` of the
first of its tags that has some. Only `https:` URLs and `data:` URIs of images are
accepted, a data URI of at most `MAX_DATA_URI` characters (every tools/list page carries
it whole): anything else is refused with a warning naming where it was given, and left out.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import replace
from urllib.parse import unquote_to_bytes

from mcpgen.diagnostics import Diagnostics
from mcpgen.ir import Icon, Project
from mcpgen.options import IconSpec, Options

MAX_DATA_URI = 65_536  # characters; a 48x48 PNG is a few KB, base64 adds a third
_HTTPS = re.compile(r"^https://[A-Za-z0-9.-]+(:\d{1,5})?([/?#][\x21-\x7e]*)?$")
_DATA = re.compile(r"^data:(?P<type>[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+)(?P<params>(;[^,;]*)*),(?P<data>.*)$", re.S)
_MEDIA = re.compile(r"^image/[A-Za-z0-9!#$&^_.+-]+$")
_SIZE = re.compile(r"^(any|[1-9]\d{0,4}x[1-9]\d{0,4})$")
_EXTENSIONS = {".png": "image/png", ".svg": "image/svg+xml", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
               ".webp": "image/webp", ".gif": "image/gif", ".ico": "image/x-icon"}


def problem(src: str, mime_type: str | None = None, sizes: tuple[str, ...] = ()) -> str | None:
    """Why an icon cannot be served, or None when it can."""
    shown = src if len(src) <= 60 else src[:57] + "..."
    if mime_type is not None and not _MEDIA.match(mime_type):
        return f"mime_type {mime_type!r} is not an image media type"
    for size in sizes:
        if not _SIZE.match(size):
            return f"size {size!r} is not WxH (e.g. 48x48) or any"
    if src.lower().startswith("data:"):
        match = _DATA.match(src)
        if match is None:
            return f"{shown!r} is not a data: URI (data:image/png;base64,...)"
        if not _MEDIA.match(match["type"].lower()):
            return f"a data: URI of {match['type']!r}: only images (image/...) are icons"
        if len(src) > MAX_DATA_URI:
            return f"a data: URI of {len(src):,} characters, more than {MAX_DATA_URI:,}; serve it from an https: URL"
        params = [p.strip().lower() for p in match["params"].split(";") if p.strip()]
        try:
            if "base64" in params:
                base64.b64decode(match["data"], validate=True)
            else:
                unquote_to_bytes(match["data"])
        except (binascii.Error, ValueError):
            return "a data: URI whose base64 content is not valid"
        return None
    if src.lower().startswith("https:"):
        return None if _HTTPS.match(src) else f"{shown!r} is not a well-formed https: URL"
    return f"{shown!r}: only https: URLs and data: URIs of images are accepted"


def icon(spec: IconSpec) -> Icon:
    return Icon(spec.src, spec.mime_type or _mime_type(spec.src), spec.sizes, spec.theme)


def _mime_type(src: str) -> str | None:
    """The media type a data: URI states, or an https: URL's file extension says."""
    match = _DATA.match(src)
    if match is not None:
        return match["type"].lower()
    path = re.sub(r"[?#].*$", "", src).lower()
    return next((kind for ext, kind in _EXTENSIONS.items() if path.endswith(ext)), None)


def checked(specs: tuple[IconSpec, ...], where: str, diagnostics: Diagnostics) -> tuple[Icon, ...]:
    """The icons that can be served; a warning at `where.<index>` for each refused one."""
    out = []
    for index, spec in enumerate(specs):
        why = problem(spec.src, spec.mime_type, spec.sizes)
        if why is None:
            out.append(icon(spec))
        else:
            key = f"{where}.{index}"
            diagnostics.warning(f"{key}: icon refused: {why}", key, "use an https: URL or a data:image/... URI")
    return tuple(out)


def apply_icons(project: Project, options: Options, diagnostics: Diagnostics) -> Project:
    """The server's icons from the options (they replace the spec's), tools' from their tags."""
    changes: dict[str, object] = {}
    if options.icons:
        changes["icons"] = checked(options.icons, "options.icons", diagnostics)
    if options.tag_icons:
        by_tag = {tag: checked(specs, f"options.tag_icons.{tag}", diagnostics) for tag, specs in options.tag_icons.items()}
        tags = {tag for tool in project.tools for tag in tool.tags}
        for tag in sorted(set(by_tag) - tags):
            diagnostics.warning(
                f"options.tag_icons.{tag}: no tool has the tag {tag!r}", f"options.tag_icons.{tag}",
                "tags are the OpenAPI operations' `tags`; remove the entry if the tag is gone",
            )
        tools = []
        for tool in project.tools:
            found = next((by_tag[t] for t in tool.tags if by_tag.get(t)), ())
            tools.append(replace(tool, icons=found) if found and not tool.icons else tool)
        changes["tools"] = tuple(tools)
    return replace(project, **changes) if changes else project  # type: ignore[arg-type]
