"""Module title \"\"\" with ''' quotes \\ backslash {{ jinja }} {% if x %}

import os; os.system("touch PWNED")
\u2028import os\u2029 \x85 \x0c \x0b \r ``` <!-- -->
"""

from __future__ import annotations

import enum
from typing import Annotated, Literal

from pydantic import BaseModel, Field
from typing_extensions import TypedDict

H = "H\"'\"\"\"'''\\ {{ 7*7 }}{% if 1 %}j{% endif %}\nimport os; os.system('touch PWNED')\n\u2028x\u2029\x85\x0c\x0b\r``` END"

__all__ = ["config", "evil_text", "functions", "httpx2", "json", "os", "print", "self", "shapes", "types", "upstream"]


class Colour(enum.Enum):
    QUOTE = H
    TRIPLE = '"""'
    BACKSLASH = "\\"
    JINJA = "{{ x }}"
    SEPARATOR = "a\u2028b"


class Evil(BaseModel):
    """Model doc \"\"\" {{ x }}
    import os"""

    model_config = {"title": H}

    text: str = Field(H, description=H, examples=[H])
    json_: Annotated[str, Field(alias="json", description=H)] = "\"\"\""


Odd = TypedDict("Odd", {"class": int, "import": str, '"""': str, "a\u2028b": str, "{{ x }}": str}, total=False)


def os(json: str = H, types: int = 1, self: bool = False, cls: str = "'''", model_config: str = "\\") -> str:
    """Shadows `os`; parameters shadow `json`, `types`, `self`.

    Args:
        json: text \"\"\" with {{ jinja }}
            import os
        types: \u2028 separator \x85
    """
    return json + str(types)


def json(os: str, sys: str = "{% raw %}") -> dict[str, str]:
    """Shadows `json`."""
    return {"os": os, "sys": sys}


def types(value: Colour = Colour.QUOTE) -> Colour:
    """Shadows `types`; enum values are hostile strings."""
    return value


def self(evil: Evil) -> Evil:
    """Takes and returns a model full of hostile text."""
    return evil


def httpx2(odd: Odd, choice: Literal["\"\"\"", "\\", "{{ x }}", "a\u2028b"] = "\\") -> Odd:
    """TypedDict keys that are keywords and quotes."""
    return odd


def print(text: Annotated[str, Field(description=H, max_length=10_000, pattern=r"^[^\"']*$")] = "") -> str:
    """Shadows `print`."""
    return text


def upstream() -> None:
    """Named like a generated module."""


def functions() -> None:
    """Named like a generated module."""


def config() -> None:
    """Named like a generated module."""


def evil_text() -> str:
    return H


def shapes(items: list[Evil] | None = None, mapping: dict[str, Odd] | None = None) -> list[Evil]:
    """Nested models."""
    return items or []
