"""`python -m PACKAGE` of a package laid out like a generated one (a byte copy of `mcpgen/runtime`
as `runtime/`, its own `project.py`): a malformed setting stops the server with exit code 2
and one line per problem on stderr, as the generated README promises."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import mcpgen.runtime
from tests.runtime.conftest import DEFAULT_TOOLS, make_package

PROJECT = '''
from .runtime.project import Project

PROJECT = Project(
    package=__package__,
    name="petstore",
    title="Petstore",
    version="1",
    command="petstore-mcp",
    env_prefix="PETSTORE",
    secret_env_vars=("PETSTORE_API_KEY",),
    security_schemes={"api_key": {"kind": "apiKey", "in": "header", "name": "api_key", "env": ["PETSTORE_API_KEY"]}},
)
'''


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cli")
    make_package(root, "petstore_mcp", DEFAULT_TOOLS)
    shutil.copytree(Path(mcpgen.runtime.__file__).parent, root / "petstore_mcp" / "runtime",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (root / "petstore_mcp" / "project.py").write_text(PROJECT)
    (root / "petstore_mcp" / "__main__.py").write_text("from .runtime.cli import main\n\nmain()\n")
    return root


def run(package: Path, *args: str, **environ: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PETSTORE_")}
    env["PYTHONPATH"] = str(package)  # the package alone: mcpgen itself is not importable
    env.update(environ)
    return subprocess.run(
        [sys.executable, "-m", "petstore_mcp", *args],
        check=False, env=env, cwd=package, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
    )


def test_malformed_settings_exit_2_naming_each_variable(package: Path) -> None:
    done = run(
        package,
        PETSTORE_PAGE_SIZE="abc", PETSTORE_MAX_RESPONSE_CHARS="lots", PETSTORE_TIMEOUT="-1", PETSTORE_HTTP_KEEP_ALIVE="0",
        PETSTORE_CALL_TIMEOUT="never", PETSTORE_MAX_RESPONSE_BYTES="20 XB", PETSTORE_MAX_UPLOAD_BYTES="10",
        PETSTORE_MAX_CONNECTIONS="none",
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0] == "petstore-mcp: configuration error:"
    size = "expected a size of at least 1,000 bytes, in bytes or with a unit (e.g. 20MB, 512KiB, 1GB)"
    assert sorted(lines[1:]) == [
        "PETSTORE_CALL_TIMEOUT='never': expected a number of seconds >= 0.001",
        "PETSTORE_HTTP_KEEP_ALIVE='0': expected a whole number >= 1",
        "PETSTORE_MAX_CONNECTIONS='none': expected a whole number >= 1",
        f"PETSTORE_MAX_RESPONSE_BYTES='20 XB': {size}",
        "PETSTORE_MAX_RESPONSE_CHARS='lots': expected a whole number >= 1,000",
        f"PETSTORE_MAX_UPLOAD_BYTES='10': {size}",
        "PETSTORE_PAGE_SIZE='abc': expected a whole number >= 1",
        "PETSTORE_TIMEOUT='-1': expected a number of seconds >= 0.001",
    ]
    assert done.stdout == ""  # stdout carries the protocol; nothing else is written there


def test_a_pattern_naming_no_tool_exits_2(package: Path) -> None:
    done = run(package, PETSTORE_TOOLS_DENY="removePet")
    assert done.returncode == 2
    assert "PETSTORE_TOOLS_DENY: pattern 'removePet' matches no tool, resource or prompt of this server" in done.stderr


def test_http_beyond_loopback_without_token_exits_2(package: Path) -> None:
    done = run(package, "--transport", "http", "--host", "0.0.0.0")
    assert done.returncode == 2
    assert "petstore-mcp: configuration error:" in done.stderr
    assert "--host 0.0.0.0 accepts connections from other machines: set PETSTORE_MCP_TOKEN" in done.stderr


def test_an_unloadable_ca_bundle_exits_2(package: Path, tmp_path: Path) -> None:
    bundle = tmp_path / "ca.pem"
    bundle.write_text("not a certificate")
    done = run(package, PETSTORE_CA_BUNDLE=str(bundle))
    assert done.returncode == 2
    assert f"PETSTORE_CA_BUNDLE={str(bundle)!r}: cannot load CA certificates" in done.stderr


def test_valid_settings_serve_stdio_until_its_input_ends(package: Path) -> None:
    """The control: the same package with well-formed settings starts, and ends cleanly at EOF."""
    done = run(package, PETSTORE_PAGE_SIZE="10", PETSTORE_TIMEOUT="5", PETSTORE_BASE_URL="http://127.0.0.1:9")
    assert done.returncode == 0, done.stderr
    assert "configuration error" not in done.stderr


def test_start_up_runs_with_the_collector_paused_then_frozen(project: object, monkeypatch: pytest.MonkeyPatch) -> None:
    """In process (a test's `project`): the server is built with the cyclic collector paused, what is
    alive is frozen before serving, and the collector runs again while the server serves."""
    import gc

    from mcpgen.runtime import app, cli

    seen: list[str] = []
    built = app.server
    monkeypatch.setattr(app, "server", lambda: seen.append(f"built, collecting={gc.isenabled()}") or built())
    monkeypatch.setattr(gc, "freeze", lambda: seen.append("frozen"))
    monkeypatch.setattr(app, "serve_stdio", lambda: seen.append(f"serving, collecting={gc.isenabled()}"))
    cli.main([])
    assert seen == ["built, collecting=False", "frozen", "serving, collecting=True"]
    with pytest.raises(SystemExit):
        cli.main(["--port", "0", "--transport", "http"])
    assert gc.isenabled() and seen[-1] == "serving, collecting=True"
