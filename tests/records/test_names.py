"""Names that look alike (records.names): the keys, and a mapping keyed by them (issue 28)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from records.names import LookalikeNames, lookalike_keys, name_taken


def clash(a: str, b: str) -> bool:
    return not set(lookalike_keys(a)).isdisjoint(lookalike_keys(b))


@pytest.mark.parametrize(
    "lookalike",
    [
        "alice",  # case
        "ALICE",
        "\u0410lice",  # Cyrillic capital A
        "Alic\u0435",  # Cyrillic small ie
        "\uff21\uff4c\uff49\uff43\uff45",  # fullwidth
        "\U0001d400lice",  # mathematical bold capital A
        "A1ice",  # digit one for l
        "AIice",  # capital I for l
        " Alice ",  # spaces around
        "Alic\u00e9",  # an accent (issue 36)
        "Alice\u0301",  # the same accent, combining
        "Alice.",  # punctuation at an end
        "(Alice)",
        "Alic\u0435\u0301",  # Cyrillic small ie under a combining accent
        "A\u200dlice",  # an invisible joiner
    ],
)
def test_names_that_look_like_alice_clash_with_it(lookalike: str) -> None:
    assert clash("Alice", lookalike)


@pytest.mark.parametrize(
    ("a", "b"),
    [("Alice", "Alicia"), ("Mia", "Mla"), ("Bob", "Rob"), ("A.lice", "Alice"), ("[/]", "Bob")],
)
def test_names_that_differ_to_the_eye_stay_apart(a: str, b: str) -> None:
    assert not clash(a, b)


def test_the_mapping_finds_a_name_by_any_lookalike_and_keeps_its_spelling() -> None:
    names: LookalikeNames[int] = LookalikeNames()
    names["Alice"] = 1
    names["Bob"] = 2
    assert names["ALICE"] == 1 and names.get("b0b") == 2 and "Carol" not in names
    assert names.holder("\u0410lice") == "Alice"
    assert list(names) == ["Alice", "Bob"]
    assert name_taken("alice", names, "g") == (
        "the name 'alice' is taken in g (it looks too much like 'Alice'); choose another"
    )
    assert name_taken("Alice", names, "g") == "the name 'Alice' is taken in g; choose another"
    names["alice"] = 3  # a lookalike replaces the name it looks like
    assert list(names) == ["Bob", "alice"] and names["Alice"] == 3
    del names["ALICE"]
    assert list(names) == ["Bob"] and "alice" not in names
    names.clear()
    assert len(names) == 0 and "Bob" not in names


printable = st.text(
    st.characters(blacklist_categories=("Cc", "Cs", "Co", "Cn", "Zl", "Zp")),
    min_size=1,
    max_size=24,
)


@given(printable, printable)
def test_a_name_is_in_the_mapping_exactly_when_it_clashes_with_one_held(a: str, b: str) -> None:
    names: LookalikeNames[bool] = LookalikeNames()
    names[a] = True
    assert a in names
    assert (b in names) == (a == b or clash(a, b))
    del names[b if b in names else a]
    assert len(names) == 0 and a not in names
