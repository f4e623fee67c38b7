"""JSON and JSONC (VS Code's JSON with comments and trailing commas) read with the position of
every value, and one object member set by editing the text, so every other byte stays as it was.

`parse` checks the whole text (strict JSON, or JSONC when `jsonc`): strings as JSON strings
(escapes, no control characters), numbers by JSON's grammar (`NaN`, `Infinity`, `+1`, `.5` are
not JSON), `//` and `/* */` comments only in JSONC and only outside strings. It returns the
tree of `Node`s with their spans; values are converted to Python only when asked (`value`),
numbers as `int` or `Decimal` from their own text, so no digit is lost.

`set_member` returns the text with one member of an object replaced (its value's span is
rewritten) or added after the last member (the comma style kept: with a trailing comma after
the last member, the new one gets one too); comments, numbers, spacing and line endings
elsewhere are untouched. New text is indented like its neighbours.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

MAX_DEPTH = 256

_WHITESPACE = re.compile(r"[ \t\r\n]*")
_BLANKS = re.compile(r"[ \t]*")
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\.)*"', re.DOTALL)
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_LITERALS = {"true": True, "false": False, "null": None}


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_DECODER = json.JSONDecoder(parse_float=Decimal, parse_constant=_reject_constant)


class SyntaxProblem(Exception):
    """The text is not valid JSON (or JSONC); `offset` is where the problem is."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


@dataclass(frozen=True, slots=True)
class Member:
    key: str
    key_start: int  # the key's opening quote
    value: Node


@dataclass(frozen=True, slots=True)
class Node:
    kind: str  # object, array, string, number, literal
    start: int
    end: int  # exclusive
    members: tuple[Member, ...] = ()  # objects
    items: tuple[Node, ...] = ()  # arrays
    trailing_comma: int | None = None  # offset of a comma after the last member (JSONC)
    outlined: bool = False  # decoded whole by the `json` module: members and items not listed
    data: Any = None  # the outlined value

    def find(self, key: str) -> list[Member]:
        return [m for m in self.members if m.key == key]


def line_column(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


class _Parser:
    def __init__(self, text: str, jsonc: bool, outline: int | None) -> None:
        self.text = text
        self.jsonc = jsonc
        self.outline = outline  # containers this deep are only skipped (the text was checked already)
        self.pos = 0

    def fail(self, message: str, offset: int | None = None) -> SyntaxProblem:
        return SyntaxProblem(message, self.pos if offset is None else offset)

    def skip(self) -> None:
        text = self.text
        while True:
            match = _WHITESPACE.match(text, self.pos)
            self.pos = match.end() if match else self.pos
            if not text.startswith("/", self.pos):
                return
            if not self.jsonc:
                raise self.fail("comments are not JSON")
            if text.startswith("//", self.pos):
                newline = text.find("\n", self.pos)
                self.pos = len(text) if newline < 0 else newline
            elif text.startswith("/*", self.pos):
                close = text.find("*/", self.pos + 2)
                if close < 0:
                    raise self.fail("unterminated /* comment")
                self.pos = close + 2
            else:
                raise self.fail("unexpected '/'")

    def value(self, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise self.fail(f"nested more than {MAX_DEPTH} levels deep")
        text, start = self.text, self.pos
        char = text[start : start + 1]
        if char == "{":
            return self.container(depth, "}")
        if char == "[":
            return self.container(depth, "]")
        if char == '"':
            match = _STRING.match(text, start)
            if match is None:
                raise self.fail("unterminated string, or a control character inside one")
            try:
                json.loads(match.group())
            except ValueError:
                raise self.fail("invalid escape in string") from None
            self.pos = match.end()
            return Node("string", start, self.pos)
        if char == "-" or char.isdigit():
            match = _NUMBER.match(text, start)
            if match is None:
                raise self.fail("invalid number")
            end = match.end()
            if text[end : end + 1].isalnum() or text[end : end + 1] in (".", "_"):
                raise self.fail("invalid number")
            self.pos = end
            return Node("number", start, end)
        for literal in _LITERALS:
            if text.startswith(literal, start) and not text[start + len(literal) : start + len(literal) + 1].isalnum():
                self.pos = start + len(literal)
                return Node("literal", start, self.pos)
        if not char:
            raise self.fail("unexpected end of file")
        word = re.match(r"[A-Za-z+.]+", text[start:])
        if word is not None:
            raise self.fail(f"{word.group()!r} is not a JSON value")
        raise self.fail(f"unexpected {char!r}")

    def container(self, depth: int, close: str) -> Node:
        start = self.pos
        if self.outline is not None and depth >= self.outline:
            return self.skipped(close)
        self.pos += 1
        members: list[Member] = []
        items: list[Node] = []
        comma: int | None = None
        self.skip()
        while not self.text.startswith(close, self.pos):
            if comma is None and (members or items):
                raise self.fail(f"expected ',' or '{close}'")
            if close == "}":
                if not self.text.startswith('"', self.pos):
                    raise self.fail("expected a member name in double quotes")
                key_start = self.pos
                key = self.value(depth + 1)
                self.skip()
                if not self.text.startswith(":", self.pos):
                    raise self.fail("expected ':' after the member name")
                self.pos += 1
                self.skip()
                members.append(Member(json.loads(self.text[key.start : key.end]), key_start, self.value(depth + 1)))
            else:
                items.append(self.value(depth + 1))
            self.skip()
            comma = None
            if self.text.startswith(",", self.pos):
                comma = self.pos
                self.pos += 1
                self.skip()
        if comma is not None and not self.jsonc:
            raise self.fail("trailing comma (not JSON)", comma)
        self.pos += 1
        return Node("object" if close == "}" else "array", start, self.pos, tuple(members), tuple(items), comma)


    def skipped(self, close: str) -> Node:
        """A container of already checked JSON, decoded by the `json` module; its members are not listed."""
        start = self.pos
        data, self.pos = _DECODER.raw_decode(self.text, start)
        return Node("object" if close == "}" else "array", start, self.pos, outlined=True, data=data)



def parse(text: str, jsonc: bool) -> Node | None:
    """The tree of `text`; None when it holds no value (only whitespace, or only comments in JSONC).

    Strict JSON is checked by the `json` module first (fast, for a `~/.claude.json` of many MB);
    then only the top two levels are walked, which are all an edit needs."""
    outline = None
    if not jsonc and text.strip():
        try:
            json.loads(text, parse_constant=_reject_constant)
            outline = 2
        except (ValueError, RecursionError):
            pass  # the full walk below names the problem in its own words
    parser = _Parser(text, jsonc, outline)
    parser.skip()
    if parser.pos >= len(text):
        return None
    root = parser.value(0)
    parser.skip()
    if parser.pos < len(text):
        raise parser.fail("unexpected text after the top-level value")
    return root


def value(text: str, node: Node) -> Any:
    """`node` as Python: numbers as int or Decimal (from their own text), strings decoded."""
    if node.outlined:
        return node.data
    if node.kind == "object":
        return {m.key: value(text, m.value) for m in node.members}
    if node.kind == "array":
        return [value(text, item) for item in node.items]
    source = text[node.start : node.end]
    if node.kind == "string":
        return json.loads(source)
    if node.kind == "number":
        return int(source) if source.lstrip("-").isdigit() else Decimal(source)
    return _LITERALS[source]


# -- editing ---------------------------------------------------------------------------


def _line_start(text: str, offset: int) -> int:
    return text.rfind("\n", 0, offset) + 1


def _indent(text: str, offset: int) -> str:
    """The leading whitespace of the line holding `offset`."""
    start = _line_start(text, offset)
    match = _BLANKS.match(text, start)
    return text[start : match.end() if match else start]


def _first_on_line(text: str, offset: int) -> bool:
    return not text[_line_start(text, offset) : offset].strip()


def indent_unit(text: str) -> str:
    """One level of indentation as the file uses it: a tab, or the smallest run of spaces (2 by default)."""
    widths = [len(m.group(1)) for m in re.finditer(r"^( +)\S", text, re.MULTILINE)]
    if re.search(r"^\t+\S", text, re.MULTILINE) and not widths:
        return "\t"
    return " " * min(widths) if widths else "  "


def newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def render(data: Any, base: str, unit: str, nl: str) -> str:
    """`data` as JSON indented by `unit`, its later lines starting with `base`."""
    return json.dumps(data, indent=unit, ensure_ascii=False).replace("\n", nl + base)


def _same_line_end(text: str, offset: int) -> int:
    """Past spaces and comments that end on the same line as `offset`; stops before a newline."""
    while True:
        while offset < len(text) and text[offset] in " \t":
            offset += 1
        if text.startswith("//", offset):
            newline_at = text.find("\n", offset)
            end = len(text) if newline_at < 0 else newline_at
            return end - 1 if text[end - 1 : end] == "\r" else end
        if text.startswith("/*", offset):
            close = text.find("*/", offset + 2)
            if close >= 0 and "\n" not in text[offset:close]:
                offset = close + 2
                continue
        return offset


def set_member(text: str, obj: Node, key: str, data: Any) -> str:
    """`text` with `obj`'s member `key` set to `data` (the last of that name replaced, else added)."""
    unit, nl = indent_unit(text), newline(text)
    found = obj.find(key)
    if found:
        member = found[-1]
        rendered = render(data, _indent(text, member.key_start), unit, nl)
        return text[: member.value.start] + rendered + text[member.value.end :]
    close = obj.end - 1
    open_indent = _indent(text, obj.start)
    last = obj.members[-1] if obj.members else None
    inner = _indent(text, last.key_start) if last and _first_on_line(text, last.key_start) else open_indent + unit
    addition = json.dumps(key, ensure_ascii=False) + ": " + render(data, inner, unit, nl)
    if last is None:
        cut = close
        while cut > obj.start + 1 and text[cut - 1] in " \t\r\n":
            cut -= 1
        close_indent = _indent(text, close) if _first_on_line(text, close) else open_indent
        return text[:cut] + nl + inner + addition + nl + close_indent + text[close:]
    comma = obj.trailing_comma
    at = _same_line_end(text, last.value.end if comma is None else comma + 1)
    addition = nl + inner + addition + ("," if comma is not None else "")
    if not text[at:close].strip() and "\n" not in text[at:close]:  # the brace on this line moves to its own
        edited = text[:at] + addition + nl + open_indent + text[close:]
    else:
        edited = text[:at] + addition + text[at:]
    if comma is None:
        edited = edited[: last.value.end] + "," + edited[last.value.end :]
    return edited
