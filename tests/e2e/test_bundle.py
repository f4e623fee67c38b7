"""`mcpgen bundle`: an MCPB bundle of the generated Petstore server.

The manifest is checked by the official `@anthropic-ai/mcpb` CLI (pinned in tests/npm.py;
skipped without node, failing in CI); two builds are byte-identical; and the bundle's entry
point serves tools over stdio when run the way the host runs it, from the unpacked bundle,
with the dependencies present (uv provides them on the user's machine; here the test venv does).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters, stdio_client
from mcp.client.stdio import get_default_environment
from typer.testing import CliRunner

from mcpgen.cli import app
from tests.npm import ensure_installed, node, package_path

from .projects import run_cli

REPO = Path(__file__).resolve().parents[2]
MCPB_CLI = package_path("@anthropic-ai/mcpb", "dist/cli/cli.js")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    output = tmp_path_factory.mktemp("bundle") / "petstore-mcp"
    run_cli("from-openapi", str(REPO / "samples" / "petstore.yaml"), "-o", str(output))
    return output


@pytest.fixture(scope="module")
def bundle(project: Path) -> Path:
    target = project.parent / "petstore.mcpb"
    run_cli("bundle", str(project), "-o", str(target))
    return target


@pytest.fixture(scope="module")
def unpacked(bundle: Path) -> Path:
    target = bundle.parent / "unpacked"
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(target)
    return target


def test_manifest_validates_with_the_mcpb_cli(unpacked: Path, bundle: Path) -> None:
    ensure_installed(MCPB_CLI)
    run = subprocess.run(
        [node(), str(MCPB_CLI), "validate", str(unpacked / "manifest.json")],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert run.returncode == 0 and "validation passes" in run.stdout, run.stdout + run.stderr
    info = subprocess.run(
        [node(), str(MCPB_CLI), "info", str(bundle)], capture_output=True, text=True, timeout=120, check=False
    )
    assert info.returncode == 0, info.stdout + info.stderr


def test_mcpb_cli_rejects_a_broken_manifest(unpacked: Path, tmp_path: Path) -> None:
    """The check is real: the same manifest without `server.entry_point` fails."""
    ensure_installed(MCPB_CLI)
    manifest = json.loads((unpacked / "manifest.json").read_text())
    del manifest["server"]["entry_point"]
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    run = subprocess.run(
        [node(), str(MCPB_CLI), "validate", str(tmp_path / "manifest.json")],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert run.returncode != 0


def test_manifest_maps_every_variable(unpacked: Path) -> None:
    manifest = json.loads((unpacked / "manifest.json").read_text())
    assert (manifest["manifest_version"], manifest["name"], manifest["version"]) == ("0.4", "petstore-mcp", "1.2.0")
    server = manifest["server"]
    assert (server["type"], server["entry_point"]) == ("uv", "server/main.py")
    assert server["mcp_config"]["command"] == "uv"
    assert manifest["compatibility"]["runtimes"] == {"python": ">=3.11"}  # what httpx2 needs: uv resolves it
    assert server["mcp_config"]["args"] == ["run", "--directory", "${__dirname}", "server/main.py"]
    assert server["mcp_config"]["env"] == {
        "PETSTORE_BASE_URL": "${user_config.base_url}",
        "PETSTORE_API_KEY": "${user_config.api_key}",
        "PETSTORE_ADMIN_AUTH_USERNAME": "${user_config.admin_auth_username}",
        "PETSTORE_ADMIN_AUTH_PASSWORD": "${user_config.admin_auth_password}",
    }
    fields = manifest["user_config"]
    assert fields["base_url"]["default"] == "https://petstore.example.com/api/v3"
    assert "sensitive" not in fields["base_url"]
    for key in ("api_key", "admin_auth_username", "admin_auth_password"):
        assert fields[key]["sensitive"] is True
        assert fields[key]["default"] == ""  # no secret value, and no literal ${user_config.x} left unsubstituted
    names = zipfile.ZipFile(unpacked.parent / "petstore.mcpb").namelist()
    assert names == sorted(names)
    assert {"manifest.json", "pyproject.toml", "server/main.py", "src/petstore_mcp/tools.json"} <= set(names)
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc") or n.startswith((".venv", "server/lib"))]


def test_two_builds_are_byte_identical(project: Path, bundle: Path) -> None:
    again = project.parent / "again.mcpb"
    (project / "src" / "petstore_mcp" / "__pycache__").mkdir(exist_ok=True)  # caches stay out
    (project / "src" / "petstore_mcp" / "__pycache__" / "x.pyc").write_bytes(b"\0")
    (project / "src" / "petstore_mcp" / "tools.json").touch()  # mtimes do not matter
    run_cli("bundle", str(project), "-o", str(again))
    assert again.read_bytes() == bundle.read_bytes()
    with zipfile.ZipFile(again) as archive:
        assert {info.date_time for info in archive.infolist()} == {(1980, 1, 1, 0, 0, 0)}


def test_entry_point_serves_tools(unpacked: Path) -> None:
    """server/main.py, run from the unpacked bundle in a foreign cwd, lists the Petstore tools."""
    env = dict(get_default_environment())
    env["PYTHONUNBUFFERED"] = "1"
    params = StdioServerParameters(command=sys.executable, args=[str(unpacked / "server" / "main.py")], env=env,
                                   cwd=str(unpacked.parent))

    async def listed() -> list[str]:
        async with Client(stdio_client(params), cache=None) as client:
            return [tool.name for tool in (await client.list_tools()).tools]

    names = anyio.run(listed)
    assert "getPetById" in names and len(names) == 12


def test_only_allow_listed_files_are_shipped(project: Path, bundle: Path, tmp_path: Path) -> None:
    """Stray files under src/<pkg>/ (.env, a nested .git with a token, editor swap and backup
    files, install backups, regenerate's .orig copies, a symlink) stay out; the manifest's files,
    the user's modules and the runtime's data go in; the bundle still validates and serves."""
    copy = tmp_path / "petstore-mcp"
    shutil.copytree(project, copy, ignore=shutil.ignore_patterns("__pycache__"))
    package = copy / "src" / "petstore_mcp"
    outside = tmp_path / "secret.txt"
    outside.write_text("outside")
    strays = {
        ".env": "PETSTORE_API_KEY=live-key\n",
        ".git/config": '[remote "origin"]\n\turl = https://x:ghp_token@github.com/o/r\n',
        ".hooks.py.swp": "swap", "hooks.py~": "backup", "#hooks.py#": "emacs",
        "tools.json.mcpgen.bak": "[]", "server.py.orig": "old", "models/.DS_Store": "x",
        "notes.txt": "private notes", "models/pet.py.bak": "old",
    }
    for relative, text in strays.items():
        (package / relative).parent.mkdir(parents=True, exist_ok=True)
        (package / relative).write_text(text)
    (package / "linked.py").symlink_to(outside)
    (package / "helpers.py").write_text("VALUE = 1\n")  # the user's own modules ship
    (package / "extra").mkdir()
    (package / "extra" / "__init__.py").write_text("")
    (package / "extra" / "util.py").write_text("X = 2\n")
    target = tmp_path / "allow.mcpb"
    result = CliRunner().invoke(app, ["bundle", str(copy), "-o", str(target)])
    assert result.exit_code == 0, result.stderr
    assert "Left out" in result.stderr and "src/petstore_mcp/.git/" in result.stderr
    recorded = json.loads((copy / "mcpgen.manifest.json").read_text())
    generated = {p for p in (*recorded["files"], *recorded["user_files"]) if p.startswith("src/petstore_mcp/")}
    added = {"src/petstore_mcp/helpers.py", "src/petstore_mcp/extra/__init__.py", "src/petstore_mcp/extra/util.py"}
    expected = {"manifest.json", "server/main.py", "pyproject.toml", "README.md", *generated, *added}
    with zipfile.ZipFile(target) as archive:
        names = set(archive.namelist())
        assert names == expected
        with zipfile.ZipFile(bundle) as plain:  # nothing the clean build carried is lost
            assert set(plain.namelist()) == expected - added
        assert not [n for n in names if any(s in n for s in ("ghp_token", ".env", ".git", "~", ".swp", ".bak", ".orig"))]
        assert all(b"live-key" not in archive.read(n) and b"ghp_token" not in archive.read(n) for n in names)
        unpacked = tmp_path / "unpacked"
        archive.extractall(unpacked)
    assert outside.read_text() == "outside"
    ensure_installed(MCPB_CLI)
    run = subprocess.run(
        [node(), str(MCPB_CLI), "validate", str(unpacked / "manifest.json")],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert run.returncode == 0 and "validation passes" in run.stdout, run.stdout + run.stderr
    test_entry_point_serves_tools(unpacked)
