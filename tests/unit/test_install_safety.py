"""`mcpgen install` never harms a config: JSONC edited in place, project-scope symlinks refused,
files holding `--env` values owner-only, other data byte for byte, concurrent installs all kept.

Each test checks that nothing beside the target changed (the other bytes of the file, files
outside the project, their mtimes). Fixtures (a hand-made project, a temporary HOME with a
stub `uv`) come from test_install.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from mcpgen.install import clients, config, jsonc
from tests.unit.test_install import config_file, home, install, project, servers

__all__ = ["home", "project"]  # fixtures, used by name

VSCODE = """// VS Code: MCP servers of this profile. See https://code.visualstudio.com/docs/copilot/chat/mcp-servers
{
\t/* inputs are asked once, then stored by VS Code */
\t"inputs": [
\t\t{
\t\t\t"type": "promptString",
\t\t\t"id": "github-token", // a "quoted" // comment
\t\t\t"description": "GitHub token /* not a comment */ // not one either",
\t\t\t"password": true,
\t\t},
\t],
\t"servers": {
\t\t// the docs server
\t\t"docs": {
\t\t\t"type": "http",
\t\t\t"url": "https://example.com//mcp", // two slashes in a string
\t\t\t"headers": {"Authorization": "Bearer ${input:github-token}"},
\t\t},
\t\t"demo": {
\t\t\t"command": "old-demo", /* replaced by install */
\t\t\t"args": [],
\t\t},
\t},
\t"numbers": [1e400, 0.1000000000000000055511151231257827, -0, 12345678901234567890123],
}
"""


def entry_of(path: Path, key: str, name: str) -> object:
    text = path.read_text()
    root = jsonc.parse(text, True)
    assert root is not None
    found = root.find(key)[0].value.find(name)
    return jsonc.value(text, found[0].value)


# -- item 3: VS Code's JSONC ----------------------------------------------------------------


def test_vscode_jsonc_entry_replaced_comments_kept(project: Path, home: Path) -> None:
    path = config_file("vscode", home)
    path.parent.mkdir(parents=True)
    path.write_text(VSCODE)
    code, out, err = install("vscode", str(project), "--dry-run")
    assert code == 0, err
    assert '-\t\t\t"command": "old-demo", /* replaced by install */' in out and "+\t\t\t\"type\": \"stdio\"," in out
    assert path.read_text() == VSCODE
    code, _, err = install("vscode", str(project))
    assert code == 0, err
    assert "Updated `demo`" in err
    text = path.read_text()
    demo = entry_of(path, "servers", "demo")
    assert isinstance(demo, dict) and demo["type"] == "stdio" and demo["args"][-1] == "demo-mcp"
    # only the old entry's value changed: everything before and after it is byte-identical
    start = VSCODE.index('"demo": {') + len('"demo": ')
    end = VSCODE.index("\t},\n\t\"numbers\"") - len(",\n\t")
    assert text.startswith(VSCODE[:start]) and text.endswith(VSCODE[end:])
    assert "\n\t\t\t\"type\": \"stdio\",\n" in text  # indented with tabs like its neighbours
    assert path.with_name("mcp.json.mcpgen.bak").read_text() == VSCODE
    # a second server is added after the last one, trailing-comma style kept
    code, _, err = install("vscode", str(project), "--name", "second")
    assert code == 0, err
    again = path.read_text()
    assert again.startswith(text[: text.index("\t},\n\t\"numbers\"")])
    assert again.endswith("\t\t},\n\t},\n\t\"numbers\"" + VSCODE.split('"numbers"')[1])
    root = jsonc.parse(again, True)
    assert root is not None and [m.key for m in root.find("servers")[0].value.members] == ["docs", "demo", "second"]


def test_vscode_jsonc_servers_added_when_missing(project: Path, home: Path) -> None:
    path = config_file("vscode", home)
    path.parent.mkdir(parents=True)
    original = '{\n  // nothing yet\n  "inputs": [],\n}\n'
    path.write_text(original)
    code, _, err = install("vscode", str(project))
    assert code == 0, err
    text = path.read_text()
    assert text.startswith('{\n  // nothing yet\n  "inputs": [],\n  "servers": {\n    "demo": {\n') and text.endswith("  },\n}\n")
    assert isinstance(entry_of(path, "servers", "demo"), dict)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('{\n  "servers": {\n    "a": {} /* unterminated\n', "line 3"),
        ('{\n  "servers": {"demo": {}, "demo": {}}\n}\n', "appears 2 times"),
        ('{"servers": {}} // fine\n{"second": 1}\n', "line 2, column 1"),
    ],
)
def test_vscode_jsonc_that_cannot_be_edited_prints_the_entry(text: str, where: str, project: Path, home: Path) -> None:
    path = config_file("vscode", home)
    path.parent.mkdir(parents=True)
    path.write_text(text)
    for dry_run in (["--dry-run"], []):
        code, out, err = install("vscode", str(project), *dry_run)
        assert code == (0 if dry_run else 1)
        assert where in err and "untouched" in err and "into its `servers` object" in err
        assert list(json.loads(out)["servers"]) == ["demo"]
        assert path.read_text() == text and sorted(p.name for p in path.parent.iterdir()) == ["mcp.json"]


def test_strict_clients_still_refuse_comments(project: Path, home: Path) -> None:
    path = config_file("cursor", home)
    path.parent.mkdir(parents=True)
    path.write_text('{\n  "mcpServers": {},\n}\n')
    code, _, err = install("cursor", str(project))
    assert code == 1 and "line 2, column 19: trailing comma (not JSON)" in err


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"a": NaN}', "'NaN' is not a JSON value"),
        ('{"a": Infinity}', "'Infinity' is not a JSON value"),
        ('{"a": 01}', "invalid number"),
        ('{"a": .5}', "'.' is not a JSON value"),
        ('{"a": "x\ty"}', "control character"),
        ('{"a": "\\q"}', "invalid escape"),
        ('{"a" 1}', "expected ':'"),
        ("{'a': 1}", "member name in double quotes"),
        ("[1,]", "trailing comma"),
        ("// c\n{}", "comments are not JSON"),
        ("[" * 100_000 + "]" * 100_000, "nested more than"),
    ],
)
def test_strict_json_table(text: str, message: str) -> None:
    with pytest.raises(jsonc.SyntaxProblem, match=message):
        jsonc.parse(text, False)


def test_jsonc_accepts_what_vscode_does() -> None:
    root = jsonc.parse(VSCODE, True)
    assert root is not None
    numbers = jsonc.value(VSCODE, root.find("numbers")[0].value)
    assert numbers == [Decimal("1e400"), Decimal("0.1000000000000000055511151231257827"), 0, 12345678901234567890123]
    with pytest.raises(jsonc.SyntaxProblem, match="unterminated"):
        jsonc.parse("{} /* open", True)
    with pytest.raises(jsonc.SyntaxProblem, match="nested more than"):
        jsonc.parse("[" * 300 + "]" * 300, True)


# -- item 6: other data byte for byte, concurrent installs --------------------------------


@pytest.mark.parametrize("client", sorted(clients.CLIENTS))
def test_numbers_and_other_bytes_round_trip(client: str, project: Path, home: Path) -> None:
    path = config_file(client, home)
    path.parent.mkdir(parents=True, exist_ok=True)
    key = clients.CLIENTS[client].servers_key
    original = (
        '{"big": 1e400, "long": 3.141592653589793238462643383279, "int": 123456789012345678901234567890,\r\n'
        f' "neg": -0.0, "exp": 1E+2, "u": "\\u00e9\u00e9", "{key}": {{"other": {{"command": "x", "n": 1.10}}}}}}\r\n'
    )
    path.write_bytes(b"\xef\xbb\xbf" + original.encode())
    code, _, err = install(client, str(project))
    assert code == 0, err
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")  # the BOM stays
    text = data[3:].decode()
    prefix = original[: original.index('"n": 1.10}') + len('"n": 1.10}')]
    assert text.startswith(prefix) and text.endswith("}}\r\n")  # numbers, escapes and CRLF untouched
    assert "\n" not in text.replace("\r\n", "")  # new lines use the file's CRLF
    assert json.loads(text, parse_float=Decimal)[key]["demo"]["command"].endswith("uv")


def test_twelve_concurrent_installs_keep_every_entry(project: Path, home: Path, tmp_path: Path) -> None:
    path = config_file("cursor", home)
    path.parent.mkdir(parents=True)
    original = '{\n  "keep": [1e400, 0.30000000000000000000001],\n  "mcpServers": {\n    "other": {"command": "o"}\n  }\n}\n'
    path.write_text(original)
    outside = tmp_path / "outside.txt"
    outside.write_text("untouched")
    before = outside.stat().st_mtime_ns
    runs = [
        subprocess.Popen(
            [sys.executable, "-m", "mcpgen", "install", "cursor", str(project), "--name", f"s{index:02}",
             "--env", f"DEMO_BASE_URL=http://127.0.0.1:{9000 + index}"],
            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for index in range(12)
    ]
    for run in runs:
        _, err = run.communicate(timeout=180)
        assert run.returncode == 0, err
    found = servers("cursor", path)
    assert sorted(found) == ["other", *(f"s{i:02}" for i in range(12))]
    assert found["s07"]["env"] == {"DEMO_BASE_URL": "http://127.0.0.1:9007"}  # type: ignore[index]
    text = path.read_text()
    assert text.startswith('{\n  "keep": [1e400, 0.30000000000000000000001],\n  "mcpServers": {\n    "other": {"command": "o"},\n')
    assert text.endswith("    }\n  }\n}\n")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(p.name for p in path.parent.iterdir()) == ["mcp.json", "mcp.json.mcpgen.bak"]  # no lock, no temp
    assert outside.read_text() == "untouched" and outside.stat().st_mtime_ns == before


# -- item 4: project scope never writes through a symlink ----------------------------------


def _outside(tmp_path: Path) -> tuple[Path, bytes, int]:
    target = tmp_path / "outside" / "victim.json"
    target.parent.mkdir()
    target.write_text('{"mcpServers": {}}\n')
    os.utime(target, ns=(1_000_000_000, 1_000_000_000))
    return target, target.read_bytes(), target.stat().st_mtime_ns


def _unchanged(target: Path, data: bytes, mtime: int) -> None:
    assert target.read_bytes() == data and target.stat().st_mtime_ns == mtime
    assert sorted(p.name for p in target.parent.iterdir()) == [target.name]


@pytest.mark.parametrize("dry_run", [[], ["--dry-run"]])
def test_symlinked_project_file_refused(dry_run: list[str], project: Path, home: Path, tmp_path: Path) -> None:
    target, data, mtime = _outside(tmp_path)
    link = Path.cwd() / ".vscode" / "mcp.json"
    link.parent.mkdir()
    link.symlink_to(target)
    code, out, err = install("vscode", str(project), "--scope", "project", "--env", "DEMO_API_KEY=s3cret", *dry_run)
    assert code == 1 and out == ""
    assert f"error: {link}: a symbolic link (to {target})" in err and "Nothing was written" in err
    _unchanged(target, data, mtime)
    assert sorted(p.name for p in link.parent.iterdir()) == ["mcp.json"]


def test_symlinked_project_folder_refused(project: Path, home: Path, tmp_path: Path) -> None:
    target, data, mtime = _outside(tmp_path)
    (Path.cwd() / ".vscode").symlink_to(target.parent, target_is_directory=True)
    code, _, err = install("vscode", str(project), "--scope", "project", "--env", "DEMO_API_KEY=s3cret")
    assert code == 1 and f"error: {Path.cwd() / '.vscode'}: a symbolic link" in err
    _unchanged(target, data, mtime)


def test_symlinked_backup_refused(project: Path, home: Path, tmp_path: Path) -> None:
    target, data, mtime = _outside(tmp_path)
    real = Path.cwd() / ".cursor" / "mcp.json"
    real.parent.mkdir()
    real.write_text('{"mcpServers": {}}\n')
    (real.parent / "mcp.json.mcpgen.bak").symlink_to(target)
    code, _, err = install("cursor", str(project), "--scope", "project", "--env", "DEMO_API_KEY=s3cret")
    assert code == 1 and f"error: {real.parent / 'mcp.json.mcpgen.bak'}: a symbolic link" in err
    _unchanged(target, data, mtime)
    assert real.read_text() == '{"mcpServers": {}}\n'
    assert sorted(p.name for p in real.parent.iterdir()) == ["mcp.json", "mcp.json.mcpgen.bak"]


def test_symlinked_lock_refused_and_dotdot(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / ".cursor").mkdir(parents=True)
    (root / ".cursor" / "mcp.json.mcpgen.lock").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(config.UnsafePath, match=r"mcp\.json\.mcpgen\.lock: a symbolic link"):
        config.check_confined(root / ".cursor" / "mcp.json", root)
    with pytest.raises(config.UnsafePath, match=r"`\.\.`"):
        config.check_confined(root / "a" / ".." / "mcp.json", root)
    with pytest.raises(config.UnsafePath, match="outside the project"):
        config.check_confined(tmp_path / "mcp.json", root)
    assert not (tmp_path / "elsewhere").exists()


def test_user_scope_dotfile_link_still_followed(project: Path, home: Path, tmp_path: Path) -> None:
    """A user-scope config kept in a dotfiles repository stays a link; the file it names is edited."""
    dotfiles = tmp_path / "dotfiles" / "mcp.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text('{"mcpServers": {}}\n')
    path = config_file("cursor", home)
    path.parent.mkdir(parents=True)
    path.symlink_to(dotfiles)
    assert install("cursor", str(project))[0] == 0
    assert path.is_symlink() and "demo" in json.loads(dotfiles.read_text())["mcpServers"]


# -- item 5: files that receive --env values end owner-only -------------------------------


@pytest.mark.parametrize("variable", ["REQUEST_STATE_KEY=abc", "REDIS_URL=redis://:pw@h:6379/0", "DEMO_BASE_URL=x"])
def test_new_file_owner_only_whatever_the_name(variable: str, project: Path, home: Path) -> None:
    code, _, err = install("cursor", str(project), "--env", variable)
    assert code == 0, err
    assert stat.S_IMODE(config_file("cursor", home).stat().st_mode) == 0o600


def test_new_file_without_values_keeps_the_usual_mode(project: Path, home: Path) -> None:
    assert install("cursor", str(project))[0] == 0
    assert stat.S_IMODE(config_file("cursor", home).stat().st_mode) == 0o644


@pytest.mark.parametrize("client", sorted(clients.CLIENTS))
def test_existing_0644_file_and_backup_tightened(client: str, project: Path, home: Path, tmp_path: Path) -> None:
    path = config_file(client, home)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"theme": "dark"}\n')
    path.chmod(0o644)
    neighbour = path.parent / "neighbour.json"
    neighbour.write_text("{}")
    neighbour.chmod(0o644)
    code, _, err = install(client, str(project), "--env", "REDIS_URL=redis://:pw@h")
    assert code == 0, err
    backup = path.with_name(path.name + ".mcpgen.bak")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(backup.stat().st_mode) == 0o600
    assert f"Made {path} owner-only (mode 0644 -> 0600)" in err
    assert backup.read_text() == '{"theme": "dark"}\n'
    assert stat.S_IMODE(neighbour.stat().st_mode) == 0o644  # nothing else changes
    # an up-to-date rerun tightens a file (and backup) loosened since
    path.chmod(0o664)
    backup.chmod(0o644)
    code, _, err = install(client, str(project))
    assert code == 0 and "Up to date" in err
    assert f"Made {path} owner-only (mode 0664 -> 0600)" in err and f"Made {backup} owner-only" in err
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(backup.stat().st_mode) == 0o600


def test_not_the_owner_is_said_loudly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "mcp.json"
    path.write_text("{}")
    path.chmod(0o644)
    monkeypatch.setattr(os, "geteuid", lambda: path.stat().st_uid + 1)
    done, problem = config.tighten(path)
    assert done is None and problem is not None
    assert "belongs to uid" in problem and f"chmod 600 {path}" in problem
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
