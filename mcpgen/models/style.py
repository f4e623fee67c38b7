"""datamodel-code-generator's output brought close to what black writes, before black runs.

The typed models are most of a big spec's Python (GitHub: 1,435 modules, 1 MB). A module
left exactly as black writes it is only parsed (`is_black_formatted`); any other goes to
black, which formats it twice when its first pass changes anything. So what this misses
costs time, never formatting.
"""

from __future__ import annotations

import re
import sys
from typing import Any

from mcpgen.writer import LINE_LENGTH

_CLASS_DOCSTRING_END = re.compile(r'^(class [^\n]*:\n    """(?:[^\n]*"""|(?:.*\n)*?\s*""")\n)(?=[^\n])', re.MULTILINE)


def black_style(source: str) -> str:
    """Imports grouped and sorted (as isort would) and long ones wrapped, strings
    double-quoted, a blank line after each class docstring, one final newline."""
    source = _double_quoted(sorted_imports(source))
    return _CLASS_DOCSTRING_END.sub(r"\1\n", source).rstrip("\n") + "\n"


def is_black_formatted(source: str) -> bool:
    """Whether black would leave a `black_style`d module as it is.

    What black still changes in datamodel-code-generator's output, once `black_style` has
    run, is lines over its limit (a field's long annotation); its other rules (spacing,
    quotes, blank lines, docstrings) the generator's templates and `black_style` already
    follow. Lines inside a docstring may be long: black never splits them. The checks are
    conservative: anything unusual goes to black. The corpus benchmark checks the claim
    with `black --check` over the generated models.
    """
    docstring_indent: int | None = None  # inside a docstring: its quotes' indentation
    content_indent: int | None = None  # the least indentation of its text lines so far
    for line in source.split("\n"):
        if line.endswith((" ", "\\")) or "\t" in line or "\r" in line or "\f" in line:
            return False
        if line.strip() == '"""':  # the generator puts a multi-line docstring's quotes on lines of their own
            if docstring_indent is None:
                docstring_indent, content_indent = len(line) - 3, None
                continue
            # black re-indents a docstring whose text is indented other than its quotes
            if content_indent not in (docstring_indent, None):
                return False
            docstring_indent = None
        elif docstring_indent is not None:
            if '"""' in line:
                return False
            if line:
                indent = len(line) - len(line.lstrip(" "))
                content_indent = indent if content_indent is None else min(content_indent, indent)
        elif len(line) > LINE_LENGTH:
            return False
    return docstring_indent is None


# Where a comment or a string may start; and a string's body after its opening quotes,
# with its closing quotes (a one-quote string ends at a line break, unless escaped).
_LEXEME_START = re.compile(r"""[#"']""")
_STRING_BODY = {
    '"""': re.compile(r'(?:[^"\\]|\\.|"(?!""))*"""', re.DOTALL),
    "'''": re.compile(r"(?:[^'\\]|\\.|'(?!''))*'''", re.DOTALL),
    '"': re.compile(r'(?:[^"\\\n]|\\.)*"', re.DOTALL),
    "'": re.compile(r"(?:[^'\\\n]|\\.)*'", re.DOTALL),
}


def _double_quoted(source: str) -> str:
    """Single-quoted strings (datamodel-code-generator writes `'...'`) in double quotes.

    Only plain `'...'` literals on one line without a `"` change: the quotes are swapped
    and each `\\'` escape, needless between double quotes, becomes `'`, as black writes it.
    Lexemes, not text: a docstring's `it's`, a quoted word in a description or a comment
    must stay as it is. A scan from one comment or string to the next (a prefixed string,
    `r'...'`, has a letter before its quote) rather than `tokenize`, which took a tenth of
    the models' time on GitHub's spec for the same result; an unterminated string leaves the
    module as it is (black will report it, with a better message).
    """
    if "'" not in source:
        return source
    out, done, at = [], 0, 0
    while (found := _LEXEME_START.search(source, at)) is not None:
        start = found.start()
        if found.group() == "#":
            at = source.find("\n", start)
            if at < 0:
                break
            continue
        quote = found.group() * 3 if source.startswith(found.group() * 3, start) else found.group()
        body = _STRING_BODY[quote].match(source, start + len(quote))
        if body is None:
            return source
        at = body.end()
        prefixed = start > 0 and (source[start - 1].isalnum() or source[start - 1] == "_")
        text = source[start + 1 : at - 1]
        if quote == "'" and not prefixed and '"' not in text and "\n" not in text:
            out += [source[done:start], '"', _unescaped_quotes(text), '"']
            done = at
    out.append(source[done:])
    return "".join(out)


def _unescaped_quotes(body: str) -> str:
    """A single-quoted literal's body with its `\\'` escapes dropped (other escapes kept)."""
    if "\\" not in body:
        return body
    out, i = [], 0
    while i < len(body):
        pair = body[i : i + 2] if body[i] == "\\" else body[i]
        out.append("'" if pair == "\\'" else pair)
        i += len(pair)
    return "".join(out)


def sorted_imports(source: str) -> str:
    """The module's leading import block grouped as isort would (future, standard library,
    third party, local; sorted in each group), when every import is one line; else as is.
    A dozen lines of string work where isort itself took most of the generator's time.
    A `from` import too long for a line is wrapped as black wraps it: one name a line."""
    lines = source.split("\n")
    start = next((i for i, line in enumerate(lines) if line.startswith(("from ", "import "))), None)
    if start is None:
        return source
    end = start
    while end < len(lines) and (not lines[end].strip() or lines[end].startswith(("from ", "import "))):
        end += 1
    block = [line for line in lines[start:end] if line.strip()]
    if any("(" in line or line.endswith("\\") or ";" in line or "#" in line for line in block):
        return source
    groups: dict[int, list[str]] = {}
    for line in block:
        groups.setdefault(_import_group(line), []).append(line)
    text = "\n\n".join("\n".join(map(_wrapped, _sorted_group(groups[g]))) for g in sorted(groups))
    # The blank lines after the block stay as the generator wrote them (black keeps one
    # before `__all__`, two before a class).
    trailing = next((i for i, line in enumerate(reversed(lines[start:end])) if line.strip()), end - start)
    return "\n".join([*lines[:start], text, *[""] * max(1, min(2, trailing)), *lines[end:]])


def _wrapped(statement: str) -> str:
    if len(statement) <= LINE_LENGTH or not statement.startswith("from "):
        return statement
    head, _, names = statement.partition(" import ")
    return f"{head} import (\n" + "".join(f"    {name.strip()},\n" for name in names.split(",")) + ")"


def _sorted_group(lines: list[str]) -> list[str]:
    """One group as isort's defaults (and ruff's `I` rules) want it: `import m` lines first,
    then one `from m import ...` per module for plain names, one per aliased name."""
    plain = sorted({line for line in lines if line.startswith("import ")}, key=_natural)
    members: dict[str, set[str]] = {}
    for line in lines:
        if line.startswith("from "):
            module, _, names = line[len("from "):].partition(" import ")
            members.setdefault(module, set()).update(n.strip() for n in names.split(",") if n.strip())
    statements = []
    for module, imported in members.items():
        unaliased = sorted((n for n in imported if " as " not in n), key=_member_key)
        if unaliased:
            statements.append((module, _member_key(unaliased[0]), f"from {module} import {', '.join(unaliased)}"))
        for name in sorted((n for n in imported if " as " in n), key=_member_key):
            statements.append((module, _member_key(name), f"from {module} import {name}"))
    statements.sort(key=lambda s: (_module_key(s[0]), s[1]))
    return plain + [text for _, _, text in statements]


def _member_key(name: str) -> tuple[int, tuple[Any, ...], str]:
    """isort's order by type: CONSTANTS, then Classes, then everything else; natural order."""
    base = name.split(" as ", maxsplit=1)[0]
    kind = 0 if base.isupper() and len(base) > 1 else 1 if base[:1].isupper() else 2
    return kind, _natural(base), name


def _module_key(module: str) -> tuple[int, tuple[Any, ...]]:
    """Relative imports from farther up first (`..x` before `.`), as isort does."""
    name = module.lstrip(".")
    return len(name) - len(module), _natural(name)


def _natural(text: str) -> tuple[Any, ...]:
    """`customer2` before `customer11`, as ruff sorts."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text.lower()))


def _import_group(line: str) -> int:
    module = line.split()[1]
    if module == "__future__":
        return 0
    if module.startswith("."):
        return 3
    return 1 if module.split(".")[0] in sys.stdlib_module_names else 2


