"""Each reply's grammar, declared once: from it, the lines are written, read and checked.

A :class:`Form` is a template such as ``"ROUND {number} acted={acted} missed={missed}"``
with a :class:`Field` for each name. The same declaration

* writes a reply's line (:meth:`Form.write`),
* reads a line back into field values (:meth:`Form.read`), and
* checks a reply's values when it is built (:meth:`Form.check`): a value whose
  written text its field would not read back (a map name holding a space, a
  player name holding ``": "``, a line break anywhere) raises
  :class:`~protocol.errors.LocalProtocolError` at once, so a formatter can never
  write a line that the parser refuses.

A multi-line reply (``MAP 3 5`` and three rows) declares its header as a
:class:`Form` and its further lines as :class:`Rows`: a :class:`Field` that each
line is written with and read back by (a ``GAME`` line in ``GAMES`` is itself a
form, :meth:`Form.field`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import quote, unquote

from .errors import LocalProtocolError

__all__ = [
    "CENTS",
    "COUNT",
    "FINAL_TEXT",
    "INT",
    "INT_OR_NONE",
    "LINE",
    "NAME",
    "OPTIONAL_TEXT",
    "SECONDS_OR_NONE",
    "SPEC",
    "TEXT",
    "WORD",
    "WORDS",
    "Field",
    "Form",
    "Rows",
]


@dataclass(frozen=True, slots=True)
class Field:
    """How one value is written on a line (``write``), read back (``read``) and which
    text may stand for it (``pattern``, a regular expression)."""

    pattern: str
    write: Callable[[Any], str] = str
    read: Callable[[str], Any] = str
    _compiled: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_compiled", re.compile(self.pattern))

    def writes(self, value: Any) -> str:
        """``value`` written, or :class:`LocalProtocolError` if it could not be read back."""
        try:
            text = self.write(value)
        except UnicodeEncodeError:  # a writer that encodes (SPEC's percent-encoding)
            raise LocalProtocolError(f"{value!r} cannot be written in UTF-8") from None
        if self._compiled.fullmatch(text) is None:
            raise LocalProtocolError(f"{value!r} cannot be written here")
        if not text.isascii():
            try:
                text.encode()
            except UnicodeEncodeError:  # a lone surrogate: no UTF-8 can carry it
                raise LocalProtocolError(f"{value!r} cannot be written in UTF-8") from None
        return text

    def reads(self, text: str) -> Any:
        """The value ``text`` stands for, or :class:`LocalProtocolError` if it stands for none."""
        if self._compiled.fullmatch(text) is None:
            raise LocalProtocolError(f"{text[:80]!r} is not a value here")
        return self.read(text)


def _seconds(value: float | None) -> str:
    if value is None:
        return "none"
    short = f"{value:g}"  # 30, not 30.0; but never at the cost of the exact value
    return short if float(short) == value else repr(value)


INT: Final = Field(r"-?\d+", str, int)
COUNT: Final = Field(r"\d+", str, int)
"""How many lines follow a header: a whole number, never negative."""
CENTS: Final = Field(r"-?\d+\.\d\d", lambda value: f"{value:.2f}", float)
"""A finite number with two decimals (a rating); values are rounded to them when built."""
TEXT: Final = Field(r"[^\r\n]*")
"""The rest of the line: anything but a line break."""
LINE: Final = Field(r"[^\r\n]+")
"""A whole line that is not empty: a row of a map."""
WORD: Final = Field(r"[^\s]+")
NAME: Final = Field(r"(?:(?!: )[^\r\n])+")
"""A player's name as pushed lines show it: it ends at the first ``": "``."""


def _words(words: tuple[str, ...]) -> str:
    for word in words:
        if not word or word.split() != [word]:
            raise LocalProtocolError(f"{word!r} is not one word")
    return "".join(" " + word for word in words)


WORDS: Final = Field(r"(?: [^\s]+)*", _words, lambda text: tuple(text.split()))
"""Words, each after a space (``EXTENDED events chat``)."""
INT_OR_NONE: Final = Field(
    r"none|-?\d+",
    lambda value: "none" if value is None else str(value),
    lambda text: None if text == "none" else int(text),
)
SECONDS_OR_NONE: Final = Field(
    r"none|\d+(?:\.\d+)?(?:e[+-]?\d+)?",
    _seconds,
    lambda text: None if text == "none" else float(text),
)
_SPEC_SAFE: Final = "".join(chr(code) for code in range(0x21, 0x7F) if chr(code) != "%")
SPEC: Final = Field(r"[^\s]+", lambda text: quote(text, safe=_SPEC_SAFE) if text else "", unquote)
"""A map spec: written as it is, except that spaces, ``%`` and other bytes that are not
printable ASCII are percent-encoded, so any spec reads back exactly."""
OPTIONAL_TEXT: Final = Field(
    r"(?: [^\r\n]*)?", lambda text: " " + text if text else "", lambda text: text[1:]
)
"""Text after a keyword and a space, or nothing: ``FAIL`` or ``FAIL <reason>``."""
FINAL_TEXT: Final = OPTIONAL_TEXT
"""The text after a final line's keyword: ``WIN <text>``, or a bare ``WIN`` for no text."""


class Form:
    """A line's template and its fields; see the module docstring."""

    __slots__ = ("_fields", "_regex", "_template", "keyword", "pattern")

    def __init__(self, template: str, **fields: Field) -> None:
        self._template = template
        self._fields = fields
        self.keyword = re.split(r"[ {]", template, maxsplit=1)[0]
        parts = re.split(r"\{(\w+)\}", template)
        names = parts[1::2]
        if sorted(names) != sorted(fields):
            raise LocalProtocolError(f"the fields of {template!r} are not {sorted(fields)}")
        pattern = "".join(
            re.escape(part) if index % 2 == 0 else f"(?P<{part}>{fields[part].pattern})"
            for index, part in enumerate(parts)
        )
        self.pattern = pattern
        """The regular expression a line of this form matches."""
        self._regex = re.compile(pattern)

    def check(self, reply: object) -> None:
        """Raise :class:`LocalProtocolError` unless every field of ``reply`` can be written."""
        for name, spec in self._fields.items():
            try:
                spec.writes(getattr(reply, name))
            except LocalProtocolError:
                raise LocalProtocolError(
                    f"{type(reply).__name__}.{name} = {getattr(reply, name)!r} cannot be "
                    f"written on a {self.keyword} line"
                ) from None

    def write(self, reply: object) -> str:
        """The line for ``reply`` (whose values were checked when it was built).

        A field's ``write`` may itself raise :class:`LocalProtocolError` for a value it
        cannot write at all; :meth:`check` reports it as any other."""
        return self._template.format(
            **{name: field.write(getattr(reply, name)) for name, field in self._fields.items()}
        )

    def read(self, line: str) -> dict[str, Any] | None:
        """The field values ``line`` holds, or ``None`` if it is not a line of this form."""
        match = self._regex.fullmatch(line)
        if match is None:
            return None
        return {name: field.read(match[name]) for name, field in self._fields.items()}

    def field(self, read: Callable[[str], Any]) -> Field:
        """This form as one value on a line of another reply: objects of a class with
        this form, written by :meth:`write` and read back by ``read`` (the class's
        ``from_line``). The value's own fields were checked when it was built."""
        inner = re.sub(r"\(\?P<\w+>", "(?:", self.pattern)  # no named groups twice
        return Field(inner, self.write, read)


@dataclass(frozen=True, slots=True)
class Rows:
    """The lines after a multi-line reply's header: one value of ``field`` each,
    held in the reply's attribute ``items`` (a tuple)."""

    field: Field
    items: str

    def check(self, reply: object) -> None:
        """Raise :class:`LocalProtocolError` unless every value can be written and read back."""
        for value in getattr(reply, self.items):
            try:
                self.field.writes(value)
            except LocalProtocolError:
                raise LocalProtocolError(
                    f"{type(reply).__name__}.{self.items} holds {value!r}, which cannot be "
                    "written as a line"
                ) from None

    def write(self, reply: object) -> list[str]:
        write = self.field.write
        return [write(value) for value in getattr(reply, self.items)]

    def read(self, line: str) -> Any:
        """The value ``line`` holds; :class:`LocalProtocolError` if it is not one."""
        return self.field.reads(line)
