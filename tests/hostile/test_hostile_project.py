"""A cloned project is untrusted input: `mcpgen regenerate` never reads, writes or deletes
outside it, whatever its manifest, mcpgen.toml or tree (symbolic links) say. Each tampered
project is refused with a located error, exit 1, and nothing changes on disk.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hostile.test_hostile import _snapshot

ROOT = Path(__file__).resolve().parents[2]
SPEC = (
    "openapi: 3.0.3\ninfo: {title: Pets, version: '1'}\npaths:\n  /pets:\n    get:\n      operationId: listPets\n"
    "      responses: {'200': {description: ok}}\n"
)


def _mcpgen(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcpgen", *args], cwd=cwd, check=False, capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"},
    )


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One generated project, copied by each test."""
    base = tmp_path_factory.mktemp("project")
    (base / "spec.yaml").write_text(SPEC)
    run = _mcpgen("from-openapi", "spec.yaml", "-o", "out", "--no-models", cwd=base)
    assert run.returncode == 0, run.stderr
    return base


def _copy(generated: Path, tmp_path: Path) -> tuple[Path, Path]:
    """(the project, a victim directory beside it holding files a payload aims at)."""
    import shutil

    shutil.copy(generated / "spec.yaml", tmp_path / "spec.yaml")
    shutil.copytree(generated / "out", tmp_path / "out")
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "relative.txt").write_text("keep me\n")
    (victim / "absolute.txt").write_text("keep me too\n")
    return tmp_path / "out", victim


def _sha(path: Path) -> str:
    return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()


def _refused(project: Path, tmp_path: Path, expected: str, *flags: str) -> str:
    before = _snapshot(tmp_path)
    run = _mcpgen("regenerate", str(project), *flags, cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    assert "Traceback" not in run.stderr, run.stderr
    assert expected in run.stderr, run.stderr
    assert "error: nothing was written." in run.stderr
    assert _snapshot(tmp_path) == before, "a refused regeneration changed files"
    return run.stderr


@pytest.mark.parametrize("force", [(), ("--force",)], ids=["plain", "force"])
def test_manifest_paths_outside_the_project_are_refused(generated: Path, tmp_path: Path, force: tuple[str, ...]) -> None:
    project, victim = _copy(generated, tmp_path)
    manifest_path = project / "mcpgen.manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["files"]["../victim/relative.txt"] = _sha(victim / "relative.txt")
    manifest["files"][str(victim / "absolute.txt")] = _sha(victim / "absolute.txt")
    manifest_path.write_text(json.dumps(manifest))
    stderr = _refused(project, tmp_path, "goes up out of the project with `..`", *force)
    assert (
        f"error: {manifest_path}#/files/..~1victim~1relative.txt: lists '../victim/relative.txt', which goes up out "
        "of the project with `..` (a manifest lists only files inside the project; restore it from version control "
        "(a cloned project may have been tampered with))"
    ) in stderr.splitlines()
    assert f"lists {str(victim / 'absolute.txt')!r}, which is an absolute path" in stderr
    assert (victim / "relative.txt").read_text() == "keep me\n"
    assert (victim / "absolute.txt").read_text() == "keep me too\n"


def test_a_package_link_out_of_the_project_is_refused(generated: Path, tmp_path: Path) -> None:
    project, victim = _copy(generated, tmp_path)
    package = project / "src" / "pets_mcp"
    import shutil

    shutil.copytree(package, victim / "pets_mcp")
    shutil.rmtree(package)
    package.symlink_to(victim / "pets_mcp", target_is_directory=True)
    (tmp_path / "spec.yaml").write_text(SPEC.replace("listPets", "listAllPets"))  # something to write
    stderr = _refused(project, tmp_path, "error: nothing was written.")
    assert re.fullmatch(
        re.escape(f"error: {project / 'src' / 'pets_mcp'}: is a symbolic link to {victim / 'pets_mcp'}, outside the "
                  "project; mcpgen would read, write or delete src/pets_mcp/__init__.py, src/pets_mcp/__main__.py, "
                  "src/pets_mcp/custom_tools.py and ") + r"\d+" + re.escape(
            " more through it (nothing was written or deleted; a cloned project may have been tampered with; "
            "replace the link with a directory)"),
        stderr.splitlines()[0],
    ), stderr
    assert len(stderr.splitlines()) == 2, stderr
    assert sorted(p.name for p in (victim / "pets_mcp").iterdir()) == sorted(
        p.name for p in (generated / "out" / "src" / "pets_mcp").iterdir()
    )


def test_a_manifest_entry_through_a_link_out_is_refused(generated: Path, tmp_path: Path) -> None:
    """An entry whose text is harmless but which a link inside the project leads out."""
    project, victim = _copy(generated, tmp_path)
    (project / "docs").symlink_to(victim, target_is_directory=True)
    manifest_path = project / "mcpgen.manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["files"]["docs/relative.txt"] = _sha(victim / "relative.txt")
    manifest_path.write_text(json.dumps(manifest))
    _refused(project, tmp_path, f"error: {project / 'docs'}: is a symbolic link to {victim}, outside the project; "
             "mcpgen would read, write or delete docs/relative.txt through it")
    assert (victim / "relative.txt").exists()


@pytest.mark.parametrize("name", ["mcpgen.manifest.json", "mcpgen.toml"])
def test_project_files_linked_from_outside_are_refused(generated: Path, tmp_path: Path, name: str) -> None:
    project, victim = _copy(generated, tmp_path)
    (project / name).rename(victim / name)
    (project / name).symlink_to(victim / name)
    _refused(project, tmp_path, f"{name} passes through {name}, which is a symbolic link to {victim / name}, outside")


@pytest.mark.parametrize("name", ["mcpgen.manifest.json", "mcpgen.toml"])
def test_oversized_project_files_are_refused(generated: Path, tmp_path: Path, name: str) -> None:
    from mcpgen.project.paths import MAX_PROJECT_FILE_BYTES

    project, _ = _copy(generated, tmp_path)
    with (project / name).open("a") as handle:
        handle.write("\n" + " " * MAX_PROJECT_FILE_BYTES)
    _refused(project, tmp_path, f"larger than {MAX_PROJECT_FILE_BYTES:,} bytes")


def test_an_untampered_project_still_regenerates(generated: Path, tmp_path: Path) -> None:
    project, _ = _copy(generated, tmp_path)
    (tmp_path / "spec.yaml").write_text(SPEC.replace("listPets", "listAllPets"))
    run = _mcpgen("regenerate", str(project), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "listAllPets" in (project / "src" / "pets_mcp" / "tools.json").read_text()
