"""The one declaration of the runtime's settings (runtime/declared.py) against what the runtime
really reads: every `PREFIX_*` variable the settings parser looks up in the environment is
declared, and every declared setting is looked up; no runtime module reads a setting elsewhere."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from mcpgen.runtime import declared, settings
from mcpgen.runtime.project import Project

RUNTIME = Path(declared.__file__).parent


class Recording(Mapping[str, str]):
    """An environment that remembers every variable looked up by name."""

    def __init__(self, values: dict[str, str]) -> None:
        self.values = values
        self.asked: set[str] = set()

    def __getitem__(self, key: str) -> str:
        self.asked.add(key)
        return self.values[key]

    def get(self, key: str, default: object = None) -> object:  # type: ignore[override]
        self.asked.add(key)
        return self.values.get(key, default)  # type: ignore[call-overload]

    def __iter__(self) -> Iterator[str]:
        return iter(self.values)

    def __len__(self) -> int:
        return len(self.values)


def _asked(project: Project) -> set[str]:
    environ = Recording({f"{project.env_prefix}_RATE_LIMIT_GETPET": "5/s"})
    settings.check_environment(project, environ, ["getPet"], None, None)
    prefix = project.env_prefix + "_"
    return {name[len(prefix) :] for name in environ.asked if name.startswith(prefix)}


def test_every_setting_read_is_declared_and_every_declared_one_read(project: Project) -> None:
    generic = dataclasses.replace(project, generic_credentials=True, security_schemes={})
    asked = _asked(project) | _asked(generic)
    credentials = {v[len(project.env_prefix) + 1 :] for v in settings.credential_variables(project)}
    declared_names = set(declared.NAMES) - {"RATE_LIMIT_<TOOL>"}
    assert asked - credentials - {"RATE_LIMIT_GETPET"} == declared_names
    assert "RATE_LIMIT_GETPET" in asked  # the per-tool row: PREFIX_RATE_LIMIT_<TOOL>


def test_no_runtime_module_reads_an_undeclared_setting() -> None:
    """Elsewhere in the runtime a setting is named as `variable("NAME")`, `f"{p}_NAME"` or
    `environ.get(f"{...}_NAME")`: each such NAME is declared."""
    named: set[str] = set()
    for path in sorted(RUNTIME.glob("*.py")):
        text = path.read_text()
        named.update(re.findall(r"""\.variable\(\s*["']([A-Z][A-Z0-9_]+)["']""", text))
        named.update(re.findall(r"""\{(?:p|prefix|project\.env_prefix|self\.prefix)\}_([A-Z][A-Z0-9_]*[A-Z0-9])""", text))
    assert named, "the scan found nothing: its patterns no longer match the runtime"
    assert named - declared.NAMES == set()


def test_an_undeclared_setting_cannot_be_read() -> None:
    with pytest.raises(KeyError, match="not declared"):
        declared.declared("NO_SUCH_SETTING")


def test_one_row_per_name_and_scope() -> None:
    keys = [(s.name, s.scope) for s in declared.SETTINGS]
    assert len(keys) == len(set(keys))
    assert all(s.meaning and not s.meaning.endswith(".") for s in declared.SETTINGS)
