"""docs/settings.md, made from the runtime's one declaration of its settings
(`mcpgen/runtime/declared.py`): `python -m tests.settings_page` rewrites it, and
tests/unit/test_settings_page.py fails when the page and the declaration differ."""

from __future__ import annotations

from pathlib import Path

from mcpgen.runtime import declared

PAGE = Path(__file__).resolve().parent.parent / "docs" / "settings.md"

_SCOPES = {
    "all": "every server",
    "openapi": "OpenAPI servers",
    "python": "Python servers",
    "uploads": "OpenAPI servers whose tools upload files",
    "sends_bytes": "OpenAPI servers that send files or binary bodies",
    "streams": "OpenAPI servers with a streamed response (3.2 sequential media)",
    "project": "OpenAPI servers, as their spec calls for",
    "code": "servers in code tool mode",
    "toolsets": "servers whose tools are grouped in toolsets",
}
_DEFAULTS = {"page_size": "the project's `page_size`", "max_response_chars": "the project's `max_response_chars`"}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render() -> str:
    lines = [
        "# Settings reference",
        "",
        "A generated server reads these environment variables, each named after the server's prefix",
        "(`PREFIX` below: the server name upper-cased, e.g. `PETSTORE`). The generated README lists the",
        "ones that apply to that server, with its own prefix and defaults. A malformed value stops the",
        "server at start-up with a message naming the variable.",
        "",
        "| Variable | Kind | Default | Read by | Meaning |",
        "|---|---|---|---|---|",
    ]
    for setting in declared.SETTINGS:
        default = (
            setting.default.format(prefix="PREFIX", **_DEFAULTS) if setting.default is not None else ""
        )
        lines.append(
            f"| `PREFIX_{setting.name}` | {setting.kind} | {_cell(default)} | {_SCOPES[setting.scope]} "
            f"| {_cell(setting.meaning)} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    PAGE.write_text(render())
    print(f"wrote {PAGE}")
