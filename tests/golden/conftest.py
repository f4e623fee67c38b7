"""The golden trees hold generated projects, whose own tests (`<tree>/tests/`) import
their package: pytest must not collect them from here."""

from __future__ import annotations

from .cases import CASES

collect_ignore = [case.name for case in CASES]
