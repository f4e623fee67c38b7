"""docs/settings.md is the runtime's declaration of its settings, row for row."""

from __future__ import annotations

from mcpgen.runtime import declared
from tests import settings_page


def test_the_page_matches_the_declaration() -> None:
    assert settings_page.PAGE.read_text() == settings_page.render(), "run: python -m tests.settings_page"


def test_every_declared_setting_has_its_row() -> None:
    text = settings_page.PAGE.read_text()
    rows = [line for line in text.splitlines() if line.startswith("| `PREFIX_")]
    assert len(rows) == len(declared.SETTINGS)
    for setting in declared.SETTINGS:
        assert f"| `PREFIX_{setting.name}` |" in text
