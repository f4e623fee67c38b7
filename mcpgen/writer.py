"""Formatting and writing: black in-process, a staging directory, an atomic swap.

Nothing reaches the output directory unless every file rendered and formatted;
an existing non-empty directory is only replaced with `force`.
"""

from __future__ import annotations

import ast
import gc
import io
import multiprocessing
import os
import re
import shutil
import tempfile
import threading
import tokenize
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import black
from black.mode import Mode, TargetVersion  # black's __init__ re-exports these without `as`
from black.parsing import InvalidInput

LINE_LENGTH = 100  # generated code's; templates and model_style write to it, so black has little to change
_MODE = Mode(target_versions={TargetVersion.PY310}, line_length=LINE_LENGTH)
# Below this much Python, starting worker processes costs more than it saves.
_PARALLEL_BYTES = 1_000_000


class OutputExists(Exception):
    """The output directory exists, is not empty, and `force` was not given."""


def format_files(
    files: dict[str, str],
    keep: frozenset[str] = frozenset(),
    black_but_long_lines: frozenset[str] = frozenset(),
) -> dict[str, str]:
    """black every generated Python file; those in `keep` (a user's copied module, whose line
    numbers must match the original, or a model module already as black writes it) are only
    parsed. Those in `black_but_long_lines` are as black writes them but for lines over its
    limit (by construction: the typed API's template, datamodel-code-generator's output after
    `black_style`): a module without any is only parsed, one whose long lines are all simple
    class-body statements has black run on those statements alone (what black does to one
    such line does not depend on the rest of the module), any other goes to black whole.
    Raises if a file is not valid Python."""
    targets = [
        (
            path,
            text,
            "parse" if path in keep else "lines" if path in black_but_long_lines else "black",
        )
        for path, text in files.items()
        if path.endswith(".py")
    ]
    formatted = dict(_format_all(targets))
    return {path: formatted.get(path, text) for path, text in files.items()}


def _format_one(item: tuple[str, str, str]) -> tuple[str, str]:
    path, text, how = item
    try:
        if how == "lines":
            found = long_lines(text)
            if found is not None:
                tree = ast.parse(text, path)  # valid Python, and where its statements are
                spliced = _format_statements(text, found, tree)
                if spliced is not None:
                    return path, spliced
            how = "black"
        if how == "parse":
            compile(text, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
            return path, text
        return path, black.format_str(text, mode=_MODE)
    except (InvalidInput, SyntaxError, ValueError) as exc:
        raise ValueError(f"generated {path} is not valid Python: {exc}") from exc


_DOCSTRING_OPEN = re.compile(r' *"""')
# A dict entry of a plain string key and a name (the typed API's arguments), which black
# leaves as it is however long: it has no bracket or operator to split at.
_UNSPLITTABLE = re.compile(r' +"[A-Za-z0-9_.$@-]*": [A-Za-z_][A-Za-z0-9_]*,')
_ODD_CHARACTERS = re.compile("[\r\f\v\x1c\x1d\x1e\x85\u2028\u2029]")  # line breaks to black


def long_lines(source: str) -> list[int] | None:
    """Indexes of the lines over black's limit outside docstrings, or None when the module
    has something else black might change that this reading cannot judge (trailing spaces,
    tabs, a line break other than `\\n`, a docstring not laid out as black lays it out).

    A docstring opens on a line that starts (after its indentation) with three quotes and
    closes on the first line that holds three quotes again, ending with them. Its text may
    be as long as it likes (black never splits a docstring), but its lines must be indented
    as its quotes are, the least indented exactly so (black re-indents them otherwise), and
    it must not start or end with a space (black strips them) but before a quote."""
    found: list[int] = []
    indent: int | None = None  # inside a docstring: its quotes' indentation
    least: int | None = None  # the least indentation of its text lines so far
    for number, line in enumerate(source.split("\n")):
        if line.endswith((" ", "\\")) or _ODD_CHARACTERS.search(line):
            return None
        # black expands a docstring's leading tabs and counts any whitespace as indentation
        if line.lstrip(" ")[:1].isspace() or ("\t" in line and indent is None):
            return None
        if indent is not None:
            text = line[:-3] if line.endswith('"""') else line
            if text.strip():
                here = len(text) - len(text.lstrip(" "))
                least = here if least is None else min(least, here)
            if '"""' in line:
                if (
                    not line.endswith('"""')
                    or line.count('"""') != 1
                    or least not in (indent, None)
                ):
                    return None
                if text.strip() and text.endswith(" ") and not text.endswith('" '):
                    return None
                indent = None
            continue
        if _DOCSTRING_OPEN.match(line):
            rest = line.lstrip(" ")[3:]
            if rest[:1] == " " and rest[1:2] != '"':
                return None
            if '"""' not in rest:
                indent, least = len(line) - len(line.lstrip(" ")), None
                continue
            if not rest.endswith('"""') or rest.count('"""') != 1:
                return None
            if rest[:-3].endswith(" ") and not rest[:-3].endswith('" '):
                return None
            continue  # a one-line docstring: black leaves it as it is, however long
        if len(line) > LINE_LENGTH and not _UNSPLITTABLE.fullmatch(line):
            found.append(number)
    return None if indent is not None else found


def _has_comment(line: str) -> bool:
    tokens = tokenize.generate_tokens(io.StringIO(line.strip() + "\n").readline)
    return any(token.type == tokenize.COMMENT for token in tokens)


def _format_statements(source: str, numbers: list[int], tree: ast.Module) -> str | None:
    """`source` with each of the lines `numbers` replaced by black's layout of it alone;
    None unless each is a whole one-line assignment or annotated field in the body of a
    top-level class, or a one-line top-level `from ... import` of plain names, without a
    comment."""
    if not numbers:
        return source
    fields = {
        statement.lineno - 1
        for node in tree.body
        if isinstance(node, ast.ClassDef)
        for statement in node.body
        if isinstance(statement, (ast.AnnAssign, ast.Assign))
        and statement.lineno == statement.end_lineno
        and statement.col_offset == 4
    }
    lines = source.split("\n")
    spans = [(node.lineno - 1, node.end_lineno) for node in tree.body if isinstance(node, ast.ImportFrom) and node.end_lineno]
    imports = {first for first, end in spans if end == first + 1}
    # A long name in an import black has already split, one name a line: black leaves it.
    exploded = {
        number
        for first, end in spans
        if end > first + 1 and _is_exploded_import(lines[first:end])
        for number in range(first + 1, end - 1)
    }
    if any(number not in fields | imports | exploded or _has_comment(lines[number]) for number in numbers):
        return None
    laid_out: dict[int, list[str] | None] = {number: [lines[number]] for number in exploded.intersection(numbers)}
    laid_out |= {number: _import_from(lines[number]) for number in imports.intersection(numbers)}
    if any(layout is None for layout in laid_out.values()):
        return None  # an import in parentheses, or with a star: black's to judge
    for number in fields.intersection(numbers):
        line = lines[number]
        laid_out[number] = _annotated_field(line) or _plain_annotation(line) or _string_assignment(line)
    rest = [number for number in numbers if laid_out[number] is None]
    if rest:
        # One black call for them all, each statement alone in a class of its own (a call costs
        # milliseconds however short its input).
        batch = "\n\n\n".join(f"class _{i}:\n{lines[number]}" for i, number in enumerate(rest))
        formatted = black.format_str(batch + "\n", mode=_MODE).split("\n")
        heads = [i for i, line in enumerate(formatted) if line.startswith("class _")]
        if len(heads) != len(rest):
            return None
        bodies = [formatted[head + 1 : end] for head, end in zip(heads, [*heads[1:], len(formatted)], strict=True)]
        for number, body in zip(rest, bodies, strict=True):
            laid_out[number] = [line for line in body if line]  # without the blank lines between classes
    for number in sorted(numbers, reverse=True):
        lines[number : number + 1] = laid_out[number] or []
    return "\n".join(lines)


# A model field as datamodel-code-generator writes it: `    name: Annotated[type, Field(...)]`,
# with `= None` (or True, False) when optional.
_ANNOTATED_FIELD = re.compile(r"(    [A-Za-z_][A-Za-z0-9_]*: Annotated\[)(.*)(\])((?: = (?:None|True|False))?)")
_STRING = re.compile(r""""(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'""")
_COMMA_BEFORE_CLOSING = re.compile(r",\s*[)\]}]")


def _annotated_field(line: str) -> list[str] | None:
    """black's layout of a too-long model field whose `Annotated[...]` fits on a line of its
    own, without black (a black call costs ~1.5 ms a field; GitHub's models have 760 long
    ones). black splits such a line at the last bracket pair, the subscript:
    `    name: Annotated[` / `        type, Field(...)` / `    ]` + the default. None for any
    other line, and where black would do otherwise or this reading cannot tell: a subscript
    that does not fit either (black splits it further), a magic trailing comma, a default
    short enough to be wrapped in parentheses instead (`] = (` / `None` / `)`), characters
    black may count as two columns."""
    found = _ANNOTATED_FIELD.fullmatch(line)
    if found is None or not line.isascii():
        return None
    head, inner, close, default = found.groups()
    code = _STRING.sub("", inner)  # the strings aside: quotes or brackets in them are text
    if any(char in code for char in "\"'#\\"):
        return None  # a string this reading does not follow, or a comment
    depth = 0
    for char in code:
        depth += (char in "([{") - (char in ")]}")
        if depth < 0:
            return None  # the last `]` does not close `Annotated[`
    if depth or code.rstrip().endswith(",") or _COMMA_BEFORE_CLOSING.search(code):
        return None
    if len(head) > LINE_LENGTH or inner != inner.strip():
        return None
    if default and len(line) - len(default) + len(" = (") <= LINE_LENGTH + 1:
        return None  # black wraps the default instead (one column of margin)
    if len(inner) + 8 <= LINE_LENGTH:
        return [head, "        " + inner, "    " + close + default]
    # One element a line, each with a comma (black's magic trailing comma after the last).
    elements = _top_level_split(inner)
    if elements is None or len(elements) < 2 or any(len(element) + 9 > LINE_LENGTH for element in elements[:-1]):
        return None
    last = [f"        {elements[-1]},"] if len(elements[-1]) + 9 <= LINE_LENGTH else _long_example(elements[-1])
    if last is None:
        return None
    return [head, *(f"        {element}," for element in elements[:-1]), *last, "    " + close + default]


_LONG_EXAMPLE = re.compile(r"Field\(examples=\[(" + _STRING.pattern + r")\]\)")


def _long_example(element: str) -> list[str] | None:
    """black's layout of a subscript's last element `Field(examples=["..."])` too long for a
    line of its own (an example longer than the line): the call split, then the list if the
    example does not fit beside `examples=[`."""
    found = _LONG_EXAMPLE.fullmatch(element)
    if found is None:
        return None
    example = found.group(1)
    if len(example) + len("            examples=[]") <= LINE_LENGTH:
        return ["        Field(", f"            examples=[{example}]", "        ),"]
    return ["        Field(", "            examples=[", f"                {example}", "            ]", "        ),"]


_IMPORTED = r"[A-Za-z_][A-Za-z0-9_]*(?: as [A-Za-z_][A-Za-z0-9_]*)?"  # `name` or `name as alias`
_IMPORT_FROM = re.compile(rf"(from [A-Za-z0-9_.]+ import) ((?:{_IMPORTED}, )*{_IMPORTED})")
_IMPORTED_NAME = re.compile(rf"    {_IMPORTED},")


def _is_exploded_import(lines: list[str]) -> bool:
    """Whether an import's lines are `from module import (`, one `name,` a line, `)`."""
    return (
        re.fullmatch(r"from [A-Za-z0-9_.]+ import \(", lines[0]) is not None
        and lines[-1] == ")"
        and all(_IMPORTED_NAME.fullmatch(line) for line in lines[1:-1])
    )


def _import_from(line: str) -> list[str] | None:
    """black's layout of a too-long `from module import a, b as c` (a model importing its
    fields' modules): one name a line, in parentheses, each with a comma."""
    found = _IMPORT_FROM.fullmatch(line)
    if found is None:
        return None
    head, names = found.groups()
    return [head + " (", *(f"    {name}," for name in names.split(", ")), ")"]


_STRING_ASSIGNMENT = re.compile(r"(    [A-Za-z_][A-Za-z0-9_]* = )(" + _STRING.pattern + ")")


def _string_assignment(line: str) -> list[str] | None:
    """black's layout of a too-long `    name = "text"` (an enum member): the string in
    parentheses when that makes it fit, else the line as it is."""
    found = _STRING_ASSIGNMENT.fullmatch(line)
    if found is None or not line.isascii():  # black counts some characters as two columns
        return None
    head, text = found.groups()
    return [head + "(", "        " + text, "    )"] if len(text) + 8 <= LINE_LENGTH else [line]


# A model field typed by classes of other modules, `    name: module.Class | None = None`, or a
# list of them: no string, and no bracket but a list's, so black's choices are few.
_PLAIN_TYPE = r"[A-Za-z_][A-Za-z0-9_.]*"
_PLAIN_ANNOTATION = re.compile(
    rf"(    [A-Za-z_][A-Za-z0-9_]*): ((?:list\[{_PLAIN_TYPE}\]|{_PLAIN_TYPE})(?: \| {_PLAIN_TYPE})*)( = (?:None|True|False))?"
)


def _plain_annotation(line: str) -> list[str] | None:
    """black's layout of a too-long field of `_PLAIN_ANNOTATION`'s form (GitHub's models have
    over 200): the default wrapped in parentheses when the rest fits on the line (`= (` /
    `None` / `)`); a lone list split at its bracket (`name: list[` / `type` / `] = None`); else the
    annotation in parentheses (`name: (` / `type | None` / `) = None`), one `|` operand a
    line if it does not fit on one. None where black does otherwise (a list that does not
    fit in the parentheses, a list's item that does not fit on its line)."""
    found = _PLAIN_ANNOTATION.fullmatch(line)
    if found is None:
        return None
    head, annotation, default = found.groups()
    if default and len(line) - len(default) + len(" = (") <= LINE_LENGTH:
        return [f"{head}: {annotation} = (", "        " + default[len(" = ") :], "    )"]
    default = default or ""
    operands = annotation.split(" | ")
    if operands[0].startswith("list["):
        item = operands[0][len("list[") : -1]
        if len(operands) == 1:
            return [f"{head}: list[", "        " + item, "    ]" + default] if len(item) + 8 <= LINE_LENGTH else None
        if len(annotation) + 8 > LINE_LENGTH:
            return None  # black splits the list's brackets inside the parentheses
    if len(annotation) + 8 <= LINE_LENGTH:
        return [head + ": (", "        " + annotation, "    )" + default]
    return [head + ": (", "        " + operands[0], *("        | " + op for op in operands[1:]), "    )" + default]


def _top_level_split(inner: str) -> list[str] | None:
    """`inner`'s comma-separated elements outside brackets and strings, stripped."""
    elements, depth, start, at = [], 0, 0, 0
    while at < len(inner):
        char = inner[at]
        if char in "\"'":
            string = _STRING.match(inner, at)
            if string is None:
                return None
            at = string.end()
            continue
        depth += (char in "([{") - (char in ")]}")
        if char == "," and depth == 0:
            elements.append(inner[start:at].strip())
            start = at + 1
        at += 1
    elements.append(inner[start:].strip())
    return elements if all(elements) else None


def _format_all(items: list[tuple[str, str, str]]) -> list[tuple[str, str]]:
    """black is ~150 kB/s; a big spec's Python to format (GitHub: 1.3 MB of typed API and
    0.4 MB of models with long lines; its other 0.6 MB of models are only parsed) is split
    across processes, while this one parses. The output is the same either way: each file
    is formatted alone."""
    costly = [item for item in items if item[2] != "parse"]
    workers = _workers(sum(len(text) for _, text, _ in costly))
    if workers <= 1 or len(costly) < 2:
        return [_format_one(item) for item in items]
    # No costly file starts last.
    largest_first = sorted(costly, key=lambda item: -len(item[1]))
    context = multiprocessing.get_context("fork")
    # The workers' garbage collector leaves this process's objects alone: walking them would
    # copy every page the fork shares (a third more CPU, GitHub's spec being in memory).
    gc.freeze()
    try:
        with ProcessPoolExecutor(workers, mp_context=context) as pool:
            # One file a task: chunks of the cost-sorted list would hand one worker the costly head.
            formatted = pool.map(_format_one, largest_first)
            parsed = [_format_one(item) for item in items if item[2] == "parse"]
            return parsed + list(formatted)
    finally:
        gc.unfreeze()


def _workers(python_bytes: int) -> int:
    """Worker processes worth starting; 1 means format in this process.

    Only `fork` starts workers cheaply and without re-importing the caller's `__main__`
    (a library caller's script may lack the `if __name__ == "__main__"` guard); forking is
    only safe while this process has a single thread.
    """
    if python_bytes < _PARALLEL_BYTES or threading.active_count() > 1:
        return 1
    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return min(cpus, 8)


def check_target(output: Path, force: bool) -> None:
    if output.exists() and not output.is_dir():
        raise OutputExists(f"{output} exists and is not a directory")
    if output.is_dir() and any(output.iterdir()) and not force:
        raise OutputExists(
            f"{output} exists and is not empty; to update a generated project run `mcpgen regenerate {output}`, "
            "or pass --force to write into it (files you changed are kept as .orig copies)"
        )


def write_tree(output: Path, files: dict[str, str], force: bool = False) -> None:
    """Write `files` under `output` via a sibling staging dir, then swap it into place."""
    check_target(output, force)
    output = output.resolve()
    output.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{output.name}.", suffix=".staging", dir=output.parent))
    try:
        for relative, text in files.items():
            if Path(relative).is_absolute() or ".." in Path(relative).parts:  # never outside `output`
                raise ValueError(f"refusing to write {relative!r}: not a path inside the output directory")
            target = staging / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8", newline="\n")
        os.chmod(staging, 0o755)  # noqa: S103 - a directory, readable like a checkout (mkdtemp gives 0o700)
        _swap(staging, output)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _swap(staging: Path, output: Path) -> None:
    """Replace `output` with `staging`; the old tree is removed only after the rename."""
    if not output.exists():
        staging.rename(output)
        return
    retired = output.with_name(f".{output.name}.old-{os.getpid()}")
    output.rename(retired)
    try:
        staging.rename(output)
    except BaseException:
        retired.rename(output)
        raise
    shutil.rmtree(retired, ignore_errors=True)
