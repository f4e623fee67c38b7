"""The edge of `mcpgen install` and `mcpgen bundle`: prompts, printed results, exit codes.

stdout carries only what a user may pipe (the mcp-json snippet, a dry run's diff); everything
else goes to stderr.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import typer

from mcpgen.install import clients, command, config, plan
from mcpgen.install.facts import ProjectError, Variable, read_project


def _fail(message: str) -> typer.Exit:
    typer.secho(f"error: {message}", fg="red", err=True)
    return typer.Exit(1)


def _ask(variable: Variable) -> str | None:
    kind = "secret, hidden" if variable.secret else (f"default {variable.default}" if variable.default else "optional")
    about = f" - {variable.description}" if variable.description else ""
    answer: str = typer.prompt(
        f"{variable.name}{about} ({kind}; Enter to leave unset)",
        default="", show_default=False, hide_input=variable.secret, err=True,
    )
    return answer.strip() or None


def install(client: str, directory: Path, env: list[str], name: str | None, scope: str, dry_run: bool) -> None:
    try:
        facts = read_project(directory)
        chosen = plan.parse_env(env)
        planned = plan.prepare(
            facts, client, scope="project" if scope == "project" else "user", name=name, env=chosen,
            prompt=_ask if sys.stdin.isatty() and not dry_run else None,
            platform=sys.platform, environ=os.environ, home=Path.home(), cwd=Path.cwd(),
        )
    except (ProjectError, plan.InstallError, config.ConfigError, clients.ClientError) as exc:
        raise _fail(str(exc)) from None
    typer.echo(f"command: {planned.launch.shown()}", err=True)
    typer.echo(f"  ({planned.launch.how})", err=True)
    for warning in planned.warnings:
        typer.secho(f"warning: {warning}", fg="yellow", err=True)
    if planned.refused is not None:
        raise _refused(planned, dry_run)
    if not dry_run and planned.launch.prepare:
        typer.echo(f"running: {' '.join(planned.launch.prepare)}", err=True)
        failed = command.prepare(planned.launch)
        if failed is not None:
            typer.secho(
                f"warning: {failed}\n  The entry is written anyway; the client's first start runs uv again.",
                fg="yellow", err=True,
            )
    if planned.merge is None:  # mcp-json
        typer.echo(planned.snippet(), nl=False)
    elif dry_run:
        if planned.merge.changed:
            typer.echo(planned.merge.diff(), nl=False)
        typer.echo(f"Dry run: {planned.merge.path} was not written.", err=True)
    else:
        try:
            written = plan.apply(planned)
        except config.ConfigError as exc:
            typer.echo(planned.paste(), nl=False)
            raise _fail(f"{exc}; add the entry above by hand") from None
        _report_written(planned, written, client)
    if planned.merge is not None and scope == "project" and planned.has_secret:
        typer.secho(
            f"warning: {planned.merge.path} holds a secret; project config files are often committed.",
            fg="yellow", err=True,
        )
    _report_unset(planned.unset)


def _refused(planned: plan.Plan, dry_run: bool) -> typer.Exit:
    """The file cannot be edited safely: the entry to paste (stdout) and why (stderr). A dry run
    has shown what to do, and succeeds; an install has not installed, and fails."""
    typer.echo(planned.paste(), nl=False)
    key = planned.client.servers_key if planned.client else "mcpServers"
    advice = f"merge the `{planned.name}` entry above into its `{key}` object"
    if dry_run:
        typer.secho(f"warning: {planned.refused}. Dry run: nothing written; {advice}.", fg="yellow", err=True)
        _report_unset(planned.unset)
        return typer.Exit(0)
    _report_unset(planned.unset)
    return _fail(f"{planned.refused}; {advice}")


def _report_written(planned: plan.Plan, written: config.Written, client: str) -> None:
    merge = planned.merge
    if merge is None:
        return
    for path, before in written.tightened:
        typer.echo(f"Made {path} owner-only (mode {before:04o} -> 0600): it holds values given with --env.", err=True)
    for warning in written.warnings:
        typer.secho(f"warning: {warning}", fg="yellow", err=True)
    if not merge.changed:
        typer.echo(f"Up to date: {merge.path} already has this `{planned.name}` entry; nothing written.", err=True)
        return
    verb = "Updated" if merge.previous is not None else "Added"
    saved = f" (previous file kept as {written.backup})" if written.backup else ""
    title = planned.client.title if planned.client else client
    typer.echo(f"{verb} `{planned.name}` in {merge.path}{saved}. Restart {title} to load it.", err=True)


def _report_unset(unset: tuple[Variable, ...]) -> None:
    for variable in unset:
        if variable.secret:
            note = "secret, not written"
        elif variable.required:
            note = "required: the server has no default"
        elif variable.default:
            note = f"default {variable.default}"
        else:
            note = "optional"
        typer.echo(f"not set: {variable.name} ({note}); add --env {variable.name}=... to set it", err=True)


def bundle(directory: Path, output: Path | None) -> None:
    from mcpgen.install import bundle as mcpb

    try:
        facts = read_project(directory)
        target = output or Path(f"{facts.distribution}-{facts.version}.mcpb")
        built = mcpb.write_bundle(facts, target)
    except (ProjectError, mcpb.BundleError) as exc:
        raise _fail(str(exc)) from None
    typer.echo(f"Wrote {built.path} ({built.files} files, {built.size:,} bytes; server type {mcpb.SERVER_TYPE!r}).")
    if built.left_out:
        typer.echo(
            f"Left out (not a Python module, a file mcpgen.manifest.json records, or runtime data): "
            f"{', '.join(built.left_out)}", err=True,
        )
    for variable in facts.variables:
        kind = "sensitive" if variable.secret else ("required" if variable.required else "optional")
        typer.echo(f"  user_config.{mcpb.config_key(facts, variable)} -> {variable.name} ({kind})", err=True)
