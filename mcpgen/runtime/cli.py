# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""Command line: `python -m PACKAGE [--transport stdio|http] ...` (the package's `__main__`)."""

from __future__ import annotations

import argparse
import functools
import gc
import logging
import os
import sys
from collections.abc import Callable

from .project import current


def main(argv: list[str] | None = None) -> None:
    # Start-up makes some 90,000 tracked objects (the SDK's models and schemas, the runtime's
    # tables) that live as long as the process. The cyclic garbage collector's passes over them
    # while they pile up are a tenth of the start-up (GitHub's server answers initialize ~70 ms
    # sooner without them), and each later full pass would walk them again: paused meanwhile,
    # then frozen (what start-up left as garbage, some 1,600 objects, stays).
    collecting = gc.isenabled()
    gc.disable()
    try:
        serve = _prepared(argv)
        gc.freeze()
    finally:
        if collecting:
            gc.enable()
    serve()


def _prepared(argv: list[str] | None) -> Callable[[], None]:
    """The server the command line asks for, its settings checked, ready to serve."""
    project = current()
    parser = argparse.ArgumentParser(prog=project.command, description=project.title)
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="HTTP port (default 8000)")
    if project.source == "openapi":
        parser.add_argument(
            "--base-url", help=f"upstream API URL (default ${project.env_prefix}_BASE_URL)"
        )
    parser.add_argument(
        "--log-level",
        default="WARNING",
        type=str.upper,
        choices=("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"),
        help="stderr log level (default WARNING)",
    )
    args = parser.parse_args(argv)
    if not 0 < args.port < 65536:
        parser.error(f"--port must be between 1 and 65535, not {args.port}")
    # stdout carries the protocol on stdio; every log line goes to stderr.
    logging.basicConfig(
        stream=sys.stderr, level=args.log_level, format="%(levelname)s %(name)s: %(message)s"
    )
    from . import settings
    from .policy import names_addressed
    from .redact import install_log_filter

    install_log_filter()
    base_url = getattr(args, "base_url", None)
    host = args.host if args.transport == "http" else None
    try:  # before serving: a bad setting is never silently ignored
        checked = settings.check_environment(project, os.environ, names_addressed, host, base_url)
        if checked.redis_url:
            from .shared import check_library

            check_library(checked)
        if project.source == "openapi":
            from .transport import check_settings

            check_settings()
    except settings.SettingsError as exc:
        parser.exit(2, f"{parser.prog}: configuration error:\n{exc}\n")
    if base_url:
        settings.set_base_url(base_url)

    from . import app, telemetry

    problem = telemetry.configure(project.package, project.name)  # OTEL_*, PREFIX_METRICS
    if problem is not None:
        parser.exit(2, f"{parser.prog}: configuration error:\n{problem}\n")
    try:
        app.server()  # built before the freeze, like everything it holds
    except app.SdkUnsupported as exc:
        parser.exit(2, f"{parser.prog}: {exc}\n")
    if args.transport == "http":
        return functools.partial(app.serve_http, args.host, args.port)
    return app.serve_stdio
