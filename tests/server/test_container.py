"""What ``docker build`` is given: the sources the wheel needs, none of a checkout's
leftovers (a virtual environment, the records and replays of a server run in it, git)."""

from __future__ import annotations

import fnmatch
from pathlib import PurePosixPath

import pytest

from ..helpers import REPO


def _patterns() -> list[str]:
    lines = (REPO / ".dockerignore").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def _ignored(path: str, patterns: list[str]) -> bool:
    """Whether Docker leaves ``path`` out: a pattern matches it, or a folder above it
    (``**/`` matches any folders; no pattern here uses ``!``)."""
    parts = PurePosixPath(path).parts
    prefixes = ["/".join(parts[: end + 1]) for end in range(len(parts))]
    for pattern in patterns:
        anywhere = pattern.removeprefix("**/")
        for prefix in prefixes:
            names = [prefix, PurePosixPath(prefix).name] if anywhere != pattern else [prefix]
            if any(fnmatch.fnmatchcase(name, anywhere) for name in names):
                return True
    return False


@pytest.mark.parametrize(
    "path",
    [
        ".venv/bin/python",
        ".git/HEAD",
        "records.db",
        "records.db-wal",
        "records-unwritten/segment-1.jsonl",
        "replays/default-1.jsonl",
        "server/__pycache__/app.cpython-311.pyc",
        "dungeon_of_doom.egg-info/PKG-INFO",
        "tests/conftest.py",
    ],
)
def test_a_checkouts_leftovers_stay_out_of_the_image(path: str) -> None:
    assert _ignored(path, _patterns())


@pytest.mark.parametrize(
    "path",
    [
        "pyproject.toml",
        "README.md",
        "LICENSE",
        "server/app.py",
        "server/web/static/app.js",
        "maps/classic/default.map",
        "records/migrations/script.py.mako",
        "records/migrations/versions/0001_first.py",
    ],
)
def test_what_the_wheel_is_built_from_goes_in(path: str) -> None:
    assert not _ignored(path, _patterns())
