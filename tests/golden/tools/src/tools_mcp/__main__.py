"""Command line: `python -m tools_mcp [--transport stdio|http] ...`."""

from __future__ import annotations

import argparse
import logging
import sys

from . import config


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="tools-mcp", description=config.SERVER_TITLE)
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="HTTP port (default 8000)")
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
    from .guard import SettingsError, check_environment
    from .redact import install_log_filter

    install_log_filter()
    try:
        check_environment(args.host if args.transport == "http" else None)
    except SettingsError as exc:  # before serving: a bad setting is never silently ignored
        parser.exit(2, f"{parser.prog}: configuration error:\n{exc}\n")

    from .server import serve_http, serve_stdio

    if args.transport == "http":
        serve_http(args.host, args.port)
    else:
        serve_stdio()


if __name__ == "__main__":
    main()
