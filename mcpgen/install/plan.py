"""`mcpgen install`: the project's facts, the client's file, the command and the variables, put
together into one planned change that the CLI shows and then writes (or not, for `--dry-run`).

Variables come from `--env`, then from the entry already installed under the same name (so a
rerun without `--env` keeps what was set before), then, when a prompt is given (stdin is a
TTY), from the user. Nothing else is written: a secret nobody gave is left out, never a
placeholder, and listed as unset.

A config file that cannot be edited safely (`config.Unmergeable`) does not stop the plan: it is
recorded in `refused`, with the entry to paste by hand (`paste`). A file that receives any
variable's value is `private` (owner-only), whatever the variable is called.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcpgen.install import clients, command, config
from mcpgen.install.facts import ENV_NAME, Facts, Variable, python_too_old

Prompt = Callable[[Variable], "str | None"]
# What earlier versions wrote to start the server, not a setting of it: dropped on a rerun.
_LAUNCH_VARIABLES = frozenset({"PYTHONPATH"})
_SECRET_NAME = re.compile(r"(TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|CREDENTIAL|PRIVATE)", re.IGNORECASE)


class InstallError(Exception):
    """A refusal with one message (bad --env, unknown client, no way to run the server)."""


@dataclass(frozen=True, slots=True)
class Plan:
    client: clients.Client | None  # None: mcp-json
    name: str
    entry: dict[str, Any]
    launch: command.Launch
    unset: tuple[Variable, ...]  # variables the entry leaves out (the server's default applies, if any)
    merge: config.Merge | None  # None: mcp-json, or the file cannot be edited (see `refused`)
    has_secret: bool  # a variable that is a credential (for the "often committed" warning)
    private: bool = False  # the entry holds variables' values: the file ends owner-only
    path: Path | None = None  # the client's file (None: mcp-json)
    refused: str | None = None  # why the file cannot be edited; the entry is then pasted by hand
    root: Path | None = None  # the project folder, for --scope project (no links, no `..`)
    warnings: tuple[str, ...] = ()  # shown, but the entry is still written

    def snippet(self) -> str:
        """The standard `{"mcpServers": {name: entry}}` text (mcp-json)."""
        return json.dumps({"mcpServers": {self.name: self.entry}}, indent=2, ensure_ascii=False) + "\n"

    def paste(self) -> str:
        """The entry under the client's key, to merge into its file by hand."""
        key = self.client.servers_key if self.client is not None else "mcpServers"
        return json.dumps({key: {self.name: self.entry}}, indent=2, ensure_ascii=False) + "\n"


def parse_env(pairs: list[str]) -> dict[str, str]:
    """`KEY=VALUE` flags -> a dict; a later KEY wins."""
    found: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not ENV_NAME.match(key):
            raise InstallError(f"--env {pair.split('=')[0]!r}: expected KEY=VALUE with KEY like PETSTORE_API_KEY")
        found[key] = value
    return found


def prepare(
    facts: Facts,
    client_name: str,
    *,
    scope: clients.Scope = "user",
    name: str | None = None,
    env: Mapping[str, str] | None = None,
    prompt: Prompt | None = None,
    platform: str,
    environ: Mapping[str, str],
    home: Path,
    cwd: Path,
) -> Plan:
    """Everything `install` would do; writes nothing. Raises InstallError, ConfigError, ClientError."""
    key = name or facts.name
    if not key or len(key) > 128 or any(c in key for c in "\"\\/\n\r\t") or key.strip() != key:
        raise InstallError(f"--name {key!r}: use letters, digits, '-', '_' or '.'")
    client = None if client_name == clients.MCP_JSON else clients.CLIENTS.get(client_name)
    if client is None and client_name != clients.MCP_JSON:
        raise InstallError(f"unknown client {client_name!r}; one of: {', '.join([*clients.CLIENTS, clients.MCP_JSON])}")
    try:
        launch = command.resolve(facts, platform=platform, path=environ.get("PATH"))
    except command.NoCommand as exc:
        raise InstallError(str(exc)) from None
    path = None
    root = cwd if scope == "project" else None
    previous: dict[str, Any] = {}
    document = None
    refused = None
    if client is not None:
        path = clients.config_path(client, scope, platform=platform, environ=environ, home=home, cwd=cwd)
        if root is not None:
            config.check_confined(path, root)
        try:
            document = config.read(path, jsonc_allowed=client.jsonc)
            previous = document.entry(client.servers_key, key) or {}
        except config.Unmergeable as exc:
            refused, document = str(exc), None
    chosen = dict(env or {})
    kept = previous.get("env")
    for variable, value in (kept.items() if isinstance(kept, dict) else ()):
        if isinstance(variable, str) and isinstance(value, str) and variable not in _LAUNCH_VARIABLES:
            chosen.setdefault(variable, value)
    unset: list[Variable] = []
    for variable in facts.variables:
        if variable.name in chosen:
            continue
        answer = prompt(variable) if prompt is not None else None
        if answer:
            chosen[variable.name] = answer
        else:
            unset.append(variable)
    entry = clients.entry(client, launch.command, list(launch.args), chosen)
    merge = None
    if client is not None and document is not None:
        try:
            merge = config.merge(document, client.servers_key, key, entry)
        except config.Unmergeable as exc:
            refused = str(exc)
    secret = any(v in facts.secrets or _SECRET_NAME.search(v) for v in chosen)
    stale = python_too_old(facts)
    warnings = (stale,) if stale else ()
    return Plan(client, key, entry, launch, tuple(unset), merge, secret, bool(chosen), path, refused, root, warnings)


def apply(plan: Plan) -> config.Written:
    """Writes the planned file (re-merged under its lock); when it is already up to date, only
    makes it owner-only if it holds values. Raises ConfigError."""
    if plan.merge is None:
        return config.Written(None)
    return config.write(plan.merge, private=plan.private, root=plan.root)
