"""Each client mcpgen installs into: where its config file is, under which key servers sit, and
how one server entry looks.

Paths, as each client documents them (how they were checked: the README, "Installing into clients"):

- Claude Desktop: macOS `~/Library/Application Support/Claude/claude_desktop_config.json`,
  Windows `%APPDATA%\\Claude\\claude_desktop_config.json`, Linux (unofficial builds)
  `$XDG_CONFIG_HOME/Claude/claude_desktop_config.json` (`~/.config` when unset); key `mcpServers`.
- Claude Code: user scope `~/.claude.json`, top-level `mcpServers`; project scope `.mcp.json`
  in the project root; entries carry `"type": "stdio"`.
- Cursor: `~/.cursor/mcp.json` (project scope: `.cursor/mcp.json`); key `mcpServers`.
- VS Code: the user profile's `mcp.json` (`$XDG_CONFIG_HOME/Code/User`, `~/Library/Application
  Support/Code/User`, `%APPDATA%\\Code\\User`), workspace `.vscode/mcp.json`; key `servers`,
  entries carry `"type": "stdio"`; the file is JSONC (comments and trailing commas allowed).
- Gemini CLI: `~/.gemini/settings.json` (project scope: `.gemini/settings.json`); key `mcpServers`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

Scope = Literal["user", "project"]


class ClientError(Exception):
    """The client's config location cannot be worked out (e.g. APPDATA unset on Windows)."""


@dataclass(frozen=True, slots=True)
class Client:
    name: str  # the CLI's spelling
    title: str
    servers_key: str  # the top-level object servers are listed in
    typed: bool  # entries say "type": "stdio"
    project_file: str | None  # relative to the project (cwd) for --scope project
    jsonc: bool = False  # the client reads its file as JSONC (comments, trailing commas)


CLIENTS: dict[str, Client] = {
    c.name: c
    for c in (
        Client("claude-desktop", "Claude Desktop", "mcpServers", False, None),
        Client("claude-code", "Claude Code", "mcpServers", True, ".mcp.json"),
        Client("cursor", "Cursor", "mcpServers", False, ".cursor/mcp.json"),
        Client("vscode", "VS Code", "servers", True, ".vscode/mcp.json", jsonc=True),
        Client("gemini-cli", "Gemini CLI", "mcpServers", False, ".gemini/settings.json"),
    )
}
MCP_JSON = "mcp-json"  # not a client: prints a standard {"mcpServers": {...}} entry


def _appdata(environ: Mapping[str, str]) -> Path:
    appdata = environ.get("APPDATA")
    if not appdata:
        raise ClientError("APPDATA is not set; cannot find the roaming application data folder")
    return Path(appdata)


def _xdg_config(environ: Mapping[str, str], home: Path) -> Path:
    configured = environ.get("XDG_CONFIG_HOME")
    return Path(configured) if configured and Path(configured).is_absolute() else home / ".config"


def config_path(
    client: Client, scope: Scope, *, platform: str, environ: Mapping[str, str], home: Path, cwd: Path
) -> Path:
    """The file `client` reads servers from, for `scope` (`project`: relative to `cwd`)."""
    if scope == "project":
        if client.project_file is None:
            raise ClientError(f"{client.title} has no project-scoped config; use --scope user")
        return cwd / client.project_file
    if client.name == "claude-desktop":
        if platform == "darwin":
            return home / "Library" / "Application Support" / "Claude" / "claude_desktop_config.json"
        if platform == "win32":
            return _appdata(environ) / "Claude" / "claude_desktop_config.json"
        return _xdg_config(environ, home) / "Claude" / "claude_desktop_config.json"
    if client.name == "claude-code":
        return home / ".claude.json"
    if client.name == "cursor":
        return home / ".cursor" / "mcp.json"
    if client.name == "vscode":
        if platform == "darwin":
            return home / "Library" / "Application Support" / "Code" / "User" / "mcp.json"
        if platform == "win32":
            return _appdata(environ) / "Code" / "User" / "mcp.json"
        return _xdg_config(environ, home) / "Code" / "User" / "mcp.json"
    if client.name == "gemini-cli":
        return home / ".gemini" / "settings.json"
    raise ClientError(f"unknown client {client.name!r}")  # pragma: no cover - CLIENTS is closed


def entry(client: Client | None, command: str, args: list[str], env: Mapping[str, str]) -> dict[str, Any]:
    """One server's entry as `client` reads it (None: the standard `mcpServers` shape)."""
    found: dict[str, Any] = {"type": "stdio"} if client is not None and client.typed else {}
    found["command"] = command
    found["args"] = list(args)
    if env:
        found["env"] = dict(sorted(env.items()))
    return found
