"""Each sample generates exactly its committed tree. On a deliberate change:
`python -m tests.regen`, then review the diff."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.golden.cases import CASES, Case, generate

GOLDEN = Path(__file__).parent


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_generated_tree_matches_golden(case: Case, tmp_path: Path) -> None:
    generate(case, tmp_path / "out")
    expected = tree(GOLDEN / case.name)
    actual = tree(tmp_path / "out")
    assert sorted(actual) == sorted(expected), "file set differs; run `python -m tests.regen` if intended"
    for path, content in expected.items():
        assert actual[path] == content, f"{case.name}/{path} differs; run `python -m tests.regen` if intended"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_generation_is_byte_identical_across_runs(case: Case, tmp_path: Path) -> None:
    generate(case, tmp_path / "a")
    generate(case, tmp_path / "b")
    assert tree(tmp_path / "a") == tree(tmp_path / "b")
