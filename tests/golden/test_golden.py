"""Each sample generates exactly its committed tree. On a deliberate change:
`python -m tests.regen`, then review the diff."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpgen.project.manifest import digest
from mcpgen.rendering.render import runtime_dir
from tests.golden.cases import CASES, Case, generate, is_runtime_copy

GOLDEN = Path(__file__).parent


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_generated_tree_matches_golden(case: Case, tmp_path: Path) -> None:
    """Per-project files as committed; the runtime's copy is checked against its source below."""
    generate(case, tmp_path / "out")
    expected = tree(GOLDEN / case.name)
    actual = {path: text for path, text in tree(tmp_path / "out").items() if not is_runtime_copy(path)}
    assert sorted(actual) == sorted(expected), "file set differs; run `python -m tests.regen` if intended"
    for path, content in expected.items():
        assert actual[path] == content, f"{case.name}/{path} differs; run `python -m tests.regen` if intended"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_generation_is_byte_identical_across_runs(case: Case, tmp_path: Path) -> None:
    generate(case, tmp_path / "a")
    generate(case, tmp_path / "b")
    assert tree(tmp_path / "a") == tree(tmp_path / "b")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_runtime_copy_is_its_source_byte_for_byte(case: Case, tmp_path: Path) -> None:
    generate(case, tmp_path / "out")
    copied = {Path(path).name: text for path, text in tree(tmp_path / "out").items() if is_runtime_copy(path)}
    source = {path.name: path.read_bytes() for path in sorted(runtime_dir().glob("*.py"))}
    assert copied == source
    # The manifest covers the copy, so regenerate updates it and notices a user's edit.
    manifest = json.loads((tmp_path / "out" / "mcpgen.manifest.json").read_text("utf-8"))["files"]
    copies = {path: manifest.get(path) for path in tree(tmp_path / "out") if is_runtime_copy(path)}
    assert copies == {path: digest(text.decode("utf-8")) for path, text in tree(tmp_path / "out").items() if is_runtime_copy(path)}
