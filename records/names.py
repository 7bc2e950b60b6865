"""Claimed names: secret tokens, the hashes of them that the store keeps, and lookalikes.

A token is 32 random bytes in URL-safe base64 (:func:`new_token`), shown to its owner
once. The store keeps only its argon2id hash (argon2-cffi's defaults, the RFC 9106
low-memory profile); :func:`verify` compares in constant time, as argon2 does, and
says whether the hash should be renewed with today's parameters. Hashing costs tens
of milliseconds of CPU by design: call these from a worker thread, never the loop.

Names that only look alike are one name: :func:`lookalike_keys` gives the forms a
name shares with every name it could be mistaken for, and two names clash when
their keys meet. Each key is a Unicode TR39 confusable skeleton (ICU's spoof
checker: Cyrillic ``А`` and Latin ``A``, ``1`` and ``l``, ``rn`` and ``m``) of the
name in NFKC (fullwidth and other compatibility forms become plain letters), with
its spaces collapsed, its accents and other combining marks dropped and the
punctuation at its ends taken off (the eye passes over all three: ``Alicé``,
``Alice.``); one key is taken after case folding (``ALICE`` is ``Alice``), one before
(an upper-case ``I`` looks like a lower-case ``l``, which folding hides). So ``Alice``
clashes with ``alice``, ``ALICE``, ``Аlice`` (Cyrillic), ``Ａｌｉｃｅ``, ``A1ice``,
``AIice``, ``Alicé``, ``Alice.`` and ``Alicе́`` (a Cyrillic ``е`` under an accent);
``Mia`` and ``Mla`` stay apart. :class:`LookalikeNames` is
a mapping keyed that way.
"""

from __future__ import annotations

import functools
import secrets
import unicodedata
from collections.abc import Iterator, MutableMapping
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from argon2 import PasswordHasher

__all__ = [
    "LookalikeNames",
    "hash_token",
    "lookalike_keys",
    "name_taken",
    "needs_rehash",
    "new_token",
    "verify",
]

V = TypeVar("V")


# ICU and argon2 are loaded the first time a name is compared or a token hashed, not
# with this module: every game's roster imports it, and a server, a bot or ``--help``
# that never meets a name pays nothing for them. Each is only read once made, so it is
# safe from any thread (two threads' first calls at once may make two: either serves).
@functools.cache
def _hasher() -> PasswordHasher:
    from argon2 import PasswordHasher

    return PasswordHasher()


@functools.cache
def _spoof() -> Any:
    import icu  # type: ignore[import-untyped]  # PyICU ships no type information

    return icu.SpoofChecker()


def load_libraries() -> None:
    """Load ICU and argon2 now (a server, once it listens, so that serving never waits
    for them); raises what loading them raises."""
    _hasher()
    _spoof()


def new_token() -> str:
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    return _hasher().hash(token)


def verify(token_hash: str, token: str) -> bool:
    """Whether ``token`` is the one ``token_hash`` was made from."""
    from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

    try:
        return _hasher().verify(token_hash, token)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def needs_rehash(token_hash: str) -> bool:
    return _hasher().check_needs_rehash(token_hash)


def _skeleton(text: str) -> str:
    """TR39's skeleton of ``text``, in NFKC, its spaces collapsed."""
    return " ".join(unicodedata.normalize("NFKC", str(_spoof().getSkeleton(0, text))).split())


def _bare(text: str) -> str:
    """``text`` without what the eye passes over: combining marks (accents, on any
    letter) and invisible format characters, then punctuation at either end; ``text``
    itself if nothing but those is left (a name such as ``[/]``)."""
    letters = "".join(
        char
        for char in unicodedata.normalize("NFD", text)
        if not unicodedata.combining(char) and unicodedata.category(char) != "Cf"
    )
    start, end = 0, len(letters)
    while start < end and unicodedata.category(letters[start]).startswith("P"):
        start += 1
    while end > start and unicodedata.category(letters[end - 1]).startswith("P"):
        end -= 1
    return unicodedata.normalize("NFC", letters[start:end].strip()) or text


def lookalike_keys(name: str) -> tuple[str, str]:
    """The keys of ``name``: two names look alike when any key of one is a key of the
    other (see the module docstring). The first is the one the store keeps unique."""
    plain = _bare(" ".join(unicodedata.normalize("NFKC", name).split()))
    folded = _skeleton(unicodedata.normalize("NFKC", plain.casefold()))
    cased = _skeleton(unicodedata.normalize("NFKC", _skeleton(plain).casefold()))
    return folded, cased


class LookalikeNames(MutableMapping[str, V]):
    """A mapping from names in which names that look alike are one key: ``"alice" in
    names`` once ``names["Alice"]`` is set, and setting it replaces ``Alice``.
    Iterating gives the names as they were set."""

    def __init__(self) -> None:
        self._values: dict[str, V] = {}
        self._by_key: dict[str, str] = {}

    def holder(self, name: str) -> str | None:
        """The name held here that ``name`` looks like (itself, if it is held)."""
        if name in self._values:
            return name
        if not self._values:
            return None  # no key to compute: a lone name never loads ICU
        for key in lookalike_keys(name):
            held = self._by_key.get(key)
            if held is not None:
                return held
        return None

    def __getitem__(self, name: str) -> V:
        held = self.holder(name)
        if held is None:
            raise KeyError(name)
        return self._values[held]

    def __setitem__(self, name: str, value: V) -> None:
        held = self.holder(name)
        if held is not None:
            del self[held]
        self._values[name] = value
        for key in lookalike_keys(name):
            self._by_key[key] = name

    def __delitem__(self, name: str) -> None:
        held = self.holder(name)
        if held is None:
            raise KeyError(name)
        del self._values[held]
        for key in lookalike_keys(held):
            if self._by_key.get(key) == held:
                del self._by_key[key]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.holder(name) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def clear(self) -> None:
        self._values.clear()
        self._by_key.clear()


def name_taken(
    name: str, names: LookalikeNames[Any], where: str, then: str = "choose another"
) -> str:
    """Why ``name`` may not be taken in ``where``, naming the name it clashes with."""
    holder = names.holder(name)
    like = "" if holder in (None, name) else f" (it looks too much like {holder!r})"
    return f"the name {name!r} is taken in {where}{like}; {then}"
