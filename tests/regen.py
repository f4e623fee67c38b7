"""Rewrite the golden trees: `python -m tests.regen`. Review the diff before committing."""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from tests.golden.cases import CASES, generate, is_runtime_copy
from tests.golden.summaries import GOLDEN as SUMMARY
from tests.golden.summaries import github_summary

GOLDEN = Path(__file__).parent / "golden"


def main() -> None:
    for case in CASES:
        target = GOLDEN / case.name
        if target.exists():
            shutil.rmtree(target)
        generate(case, target)
        for copy in sorted({p.parent for p in target.rglob("*") if is_runtime_copy(p.relative_to(target).as_posix())}):
            shutil.rmtree(copy)  # checked against mcpgen/runtime by test_golden instead
        print(f"rewrote {target.relative_to(Path.cwd()) if target.is_relative_to(Path.cwd()) else target}", file=sys.stderr)
    with tempfile.TemporaryDirectory() as scratch:
        SUMMARY.write_text(github_summary(Path(scratch) / "github-mcp"))
    print(f"rewrote {SUMMARY}", file=sys.stderr)


if __name__ == "__main__":
    main()
