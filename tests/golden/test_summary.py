"""The generation summary for GitHub's spec, against its golden text (`python -m tests.regen`
rewrites it; review the diff)."""

from __future__ import annotations

from pathlib import Path

from tests.golden.summaries import GITHUB_SPEC, GOLDEN, github_summary
from tests.npm import ensure_installed


def test_github_generation_summary_matches_its_golden_text(tmp_path: Path) -> None:
    ensure_installed(GITHUB_SPEC)
    assert github_summary(tmp_path / "github-mcp") == GOLDEN.read_text()
