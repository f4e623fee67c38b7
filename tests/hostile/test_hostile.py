"""Hostile input corpus: every spec and module either generates an inert server that
compiles, imports without side effects and lists compliant tools, or is refused with a
located error. Nothing is ever written outside the output directory.

Specs and modules live in tests/hostile/specs and tests/hostile/modules; inputs too large
to keep as files are built by tests/hostile/corpus.py. Generation runs through the CLI in
a subprocess whose working, home and temporary directories are watched.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import tomllib

from tests.hostile.corpus import BUILT
from tests.hostile.inprocess import check_tools, list_tools

HERE = Path(__file__).parent
SPECS = HERE / "specs"
MODULES = HERE / "modules"
FAILURE_SPECS = HERE.parent / "failures" / "specs"
# A located error: `error: FILE#POINTER (line N): ...` or `error: FILE: ... line N, column M ...`.
LOCATED = re.compile(r"^error: \S.*?(#/\S*|\(line \d+\)|line \d+, column \d+)", re.MULTILINE)


@dataclass(frozen=True)
class Ok:
    tools: int  # tools the server must list
    warns: str = ""  # a pattern some warning must match


@dataclass(frozen=True)
class Refused:
    message: str  # pattern the located error must match


OPENAPI: dict[str, Ok | Refused] = {
    "every-field.yaml": Ok(tools=13),
    "traversal.yaml": Ok(tools=3, warns=r"cannot follow \$ref '\.\./\.\./etc/passwd'"),
    "recursive-refs.yaml": Ok(tools=3, warns=r"cannot follow \$ref '#/components/parameters/Self'"),
    "deep-properties.json": Refused(r"nested more than \d+ levels deep"),
    "deep-items.json": Refused(r"nested more than \d+ levels deep"),
    "deep-combinators.json": Refused(r"nested more than \d+ levels deep"),
    "deep-raw.json": Refused(r"nested more than \d+ levels deep"),
    "deep-raw.yaml": Refused(r"invalid YAML at line 4, column \d+: exceeded maximum nesting depth"),
    "ref-chain-60.json": Ok(tools=2),
    "items-800.json": Ok(tools=1, warns=r"nested too deeply to convert; operation skipped"),
    "items-300.json": Ok(tools=1, warns=r"schemas nested \d+ levels deep, more than the 200"),
    "items-150.json": Ok(tools=2),
    "combinators-60.json": Ok(tools=2),
    "enormous.json": Ok(tools=82, warns=r"longer than 64 characters"),
    "billion-laughs.yaml": Refused(r"invalid YAML at line 13, column 5: aliases expand the document to [\d,]+ nodes"),
    "quadratic-blowup.yaml": Refused(r"invalid YAML at line 4, column 8: aliases expand"),
    "recursive-alias.yaml": Refused(r"invalid YAML at line 4, column 9: an anchor that contains an alias of itself"),
    "unicode-names.yaml": Ok(tools=1),
    "inject.yaml": Ok(tools=1),  # tests/failures/specs: the first injection spec
    "long-schema-name.json": Ok(tools=2),
    "long-integer.json": Refused(r"invalid number at line 1, column \d+: an integer of 5,000 digits, more than the 4,300"),
    "not-json-numbers.json": Ok(tools=2, warns=r"#/paths/~1x/post/requestBody/content/application~1json/schema/properties/n/default"
                                                r" \(line 1\): NaN is not a JSON number; dropped"),
}
RECURSIVE_ALIAS = "openapi: 3.0.3\ninfo: {title: r, version: '1'}\npaths: {}\nx-loop: &loop {a: [1, *loop]}\n"

# Module file names that shadow the stdlib, generated modules or Python's own names.
MODULE_NAMES = ["every_field.py", "os.py", "__init__.py", "server.py", "a\"b'c\u2028d.py"]


def _snapshot(*roots: Path) -> dict[str, tuple[int, int]]:
    state = {}
    for root in roots:
        for path in [root, *root.rglob("*")]:
            if "__pycache__" in path.parts:
                continue
            stat = path.lstat()
            state[str(path)] = (stat.st_size if path.is_file() else 0, stat.st_mtime_ns)
    return state


@dataclass
class Sandbox:
    root: Path

    def __post_init__(self) -> None:
        for name in ("work", "home", "tmp", "run", "inputs"):
            (self.root / name).mkdir()
        self.out = self.root / "work" / "out"

    @property
    def env(self) -> dict[str, str]:
        return {**os.environ, "HOME": str(self.root / "home"), "TMPDIR": str(self.root / "tmp"), "PYTHONDONTWRITEBYTECODE": "1"}

    def generate(self, *args: str) -> subprocess.CompletedProcess[str]:
        """Run the CLI; assert that it changed nothing but the output directory."""
        watched = (self.root, HERE)
        before = _snapshot(*watched)
        run = subprocess.run(
            [sys.executable, "-m", "mcpgen", *args, "-o", str(self.out)],
            cwd=self.root / "work", env={**self.env, "PYTHONPATH": str(HERE.parents[1])},
            check=False, capture_output=True, text=True, timeout=900,
        )
        after = _snapshot(*watched)
        changed = {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
        # The temp dir itself may change (model generation uses a scratch dir it removes); anything
        # left in it, or any other change outside the output, fails.
        transient = {self.out.parent, self.root / "tmp"}
        outside = sorted(p for p in changed if not Path(p).is_relative_to(self.out) and Path(p) not in transient)
        assert not outside, f"generation changed files outside {self.out}: {outside[:20]}"
        assert "Traceback" not in run.stderr, run.stderr[-5000:]
        # spec text reaches the terminal escaped: no cursor movement, no forged lines
        assert not re.search(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]", run.stderr + run.stdout), run.stderr
        return run


def _check_server(box: Sandbox, run: subprocess.CompletedProcess[str], expected_tools: int) -> None:
    assert run.returncode == 0, run.stderr[-5000:]
    src = box.out / "src"
    for path in src.rglob("*.py"):
        compile(path.read_text(encoding="utf-8"), str(path), "exec")
    assert tomllib.loads((box.out / "pyproject.toml").read_text())["project"]["name"]
    readme = (box.out / "README.md").read_text()
    assert readme.count("```") % 2 == 0, "spec text opened or closed a code block"
    # Import every generated module and list the tools with a real client, in memory, from
    # a working directory that must stay empty.
    run_dir = box.root / "run"
    cwd = Path.cwd()
    os.chdir(run_dir)
    try:
        tools = list_tools(src)
    finally:
        os.chdir(cwd)
    assert not list(run_dir.iterdir()), "importing the server wrote files"
    assert not list(box.root.rglob("PWNED")) and not Path("PWNED").exists()
    assert len(tools) == expected_tools
    check_tools(tools)
    for catalog in src.rglob("tools.json"):  # strict JSON: no NaN, Infinity or unwritable integers
        json.loads(catalog.read_text(encoding="utf-8"), parse_constant=lambda name: pytest.fail(f"tools.json holds {name}"))


def _spec_path(name: str, box: Sandbox) -> Path:
    if name in BUILT:
        path = box.root / "inputs" / name
        path.write_text(BUILT[name](), encoding="utf-8")
        return path
    if name == "recursive-alias.yaml":
        path = box.root / "inputs" / name
        path.write_text(RECURSIVE_ALIAS)
        return path
    return SPECS / name if (SPECS / name).exists() else FAILURE_SPECS / name


@pytest.mark.parametrize("name", sorted(OPENAPI))
def test_openapi_corpus(name: str, tmp_path: Path) -> None:
    box = Sandbox(tmp_path)
    spec = _spec_path(name, box)
    run = box.generate("from-openapi", str(spec))
    expected = OPENAPI[name]
    if isinstance(expected, Refused):
        assert run.returncode == 1, run.stderr[-3000:]
        assert not box.out.exists()
        located = [m for m in LOCATED.finditer(run.stderr) if str(spec) in m.group(0)]
        assert located, f"no located error for {spec}:\n{run.stderr[-3000:]}"
        assert re.search(expected.message, run.stderr), run.stderr[-3000:]
        return
    if expected.warns:
        assert re.search(r"^(warning|info): .*" + expected.warns, run.stderr, re.MULTILINE), run.stderr[-5000:]
    _check_server(box, run, expected.tools)


@pytest.mark.parametrize("file_name", MODULE_NAMES)
def test_python_corpus(file_name: str, tmp_path: Path) -> None:
    box = Sandbox(tmp_path)
    module = box.root / "inputs" / file_name
    shutil.copy(MODULES / "every_field.py", module)
    run = box.generate("from-python", str(module))
    _check_server(box, run, expected_tools=11)


NUMBERS_MODULE = '''"""Defaults JSON cannot carry."""


def huge(x: int = 10**5000) -> int:
    """Return x."""
    return x


def not_a_number(x: float = float("nan"), y: float = float("inf")) -> float:
    """Return x."""
    return x
'''


def test_python_defaults_json_cannot_carry_are_dropped(tmp_path: Path) -> None:
    box = Sandbox(tmp_path)
    module = box.root / "inputs" / "numbers.py"
    module.write_text(NUMBERS_MODULE)
    run = box.generate("from-python", str(module))
    assert (
        f"warning: {module} (line 4): function 'huge': schema /properties/x/default: an integer of about 5,001 "
        "digits is too long to write; dropped"
    ) in run.stderr.splitlines()
    assert "function 'not_a_number': schema /properties/x/default: NaN is not a JSON number; dropped" in run.stderr
    assert "function 'not_a_number': schema /properties/y/default: Infinity is not a JSON number; dropped" in run.stderr
    _check_server(box, run, expected_tools=2)


def test_hostile_text_round_trips(tmp_path: Path) -> None:
    """The hostile strings come back from tools/list exactly as the spec wrote them."""
    import yaml

    from mcpgen import api
    from mcpgen.options import Options

    spec = yaml.safe_load((SPECS / "every-field.yaml").read_text())
    result = api.generate_openapi(SPECS / "every-field.yaml", Options(output=tmp_path / "out"))
    hostile = spec["info"]["title"]
    tools = {t.name: t for t in result.project.tools}
    get = tools["import"]
    assert get.title == hostile
    assert get.input_schema["properties"]["class"]["enum"][0] == hostile
    assert get.input_schema["properties"]["class"]["default"] == hostile
    assert result.project.title == hostile
    table = json.loads(next(text for path, text in result.files.items() if path.endswith("tools.json")))
    assert table[[e["tool"]["name"] for e in table].index("import")]["tool"]["title"] == hostile


@pytest.mark.parametrize("relative", ["../escape.py", "src/../../escape.py", "/tmp/escape.py"])  # noqa: S108 - payloads
def test_writer_refuses_paths_outside_the_output(relative: str, tmp_path: Path) -> None:
    from mcpgen.writer import write_tree

    with pytest.raises(ValueError, match="not a path inside the output directory"):
        write_tree(tmp_path / "out", {"README.md": "x", relative: "x"})
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no output, no staging left behind
    assert not Path("/tmp/escape.py").exists()  # noqa: S108 - the payload's target


def test_ordinary_aliases_still_load(tmp_path: Path) -> None:
    """The alias bound refuses bombs, not the anchors real specs use to share a schema."""
    from mcpgen.diagnostics import Diagnostics
    from mcpgen.sources.openapi.document import load_document

    shared = "{type: object, properties: {" + ", ".join(f"p{i}: {{type: string}}" for i in range(50)) + "}}"
    uses = "\n".join(f"  S{i}: *shared" for i in range(200))
    spec = tmp_path / "spec.yaml"
    spec.write_text(f"openapi: 3.0.3\ninfo: {{title: t, version: '1'}}\npaths: {{}}\nx-shared: &shared {shared}\nx-uses:\n{uses}\n")
    document = load_document(spec, Diagnostics(file=str(spec)))
    assert document["x-uses"]["S199"]["properties"]["p49"] == {"type": "string"}


def test_a_ref_to_a_home_secret_is_not_read(tmp_path: Path) -> None:
    """An absolute `$ref` to ~/.docker/config.json: refused (it lies outside the spec's folder),
    so none of it reaches the generated files; the summary lists the one file read."""
    box = Sandbox(tmp_path)
    secret = box.root / "home" / ".docker" / "config.json"
    secret.parent.mkdir(parents=True)
    secret.write_text('{"auths": {"registry.example": {"auth": "c2VjcmV0LXRva2Vu"}}}')
    spec = box.root / "inputs" / "spec.yaml"
    spec.write_text(
        "openapi: 3.0.3\ninfo: {title: Leak, version: '1'}\npaths:\n  /a:\n    get:\n      operationId: a\n"
        "      responses:\n        '200': {description: ok}\n  /b:\n    get:\n      operationId: b\n"
        f"      responses:\n        '200': {{description: ok, content: {{application/json: {{schema: {{$ref: '{secret}#/auths'}}}}}}}}\n"
    )
    run = box.generate("from-openapi", str(spec), "--no-models")
    assert run.returncode == 0, run.stderr
    assert f"$ref '{secret}#/auths' names {secret}, outside the spec's folder {spec.parent}" in run.stderr
    assert f"Read 1 file: {spec}" in run.stdout.splitlines()
    leaked = [p for p in box.out.rglob("*") if p.is_file() and "c2VjcmV0" in p.read_text(errors="replace")]
    assert not leaked
