"""The order the suite hands its files to pytest-xdist (``pytest_collection_modifyitems``
in ``tests/conftest.py``), checked on this run's own collection."""

from __future__ import annotations

from collections import Counter

import pytest


def test_the_files_marked_long_come_first_then_the_most_tests_first(
    request: pytest.FixtureRequest,
) -> None:
    paths = [item.nodeid.partition("::")[0] for item in request.session.items]
    files = list(dict.fromkeys(paths))
    counts = Counter(paths)
    # Each file's tests stay together: pytest-xdist hands out whole files in this order.
    assert paths == [path for path in files for _ in range(counts[path])]
    marked = {
        path
        for path, item in zip(paths, request.session.items, strict=True)
        if item.get_closest_marker("long_file") is not None
    }
    assert set(files[: len(marked)]) == marked
    rest = [counts[path] for path in files[len(marked) :]]
    assert rest == sorted(rest, reverse=True)
