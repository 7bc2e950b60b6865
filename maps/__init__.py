"""The maps shipped with the server, one folder per world.

Files are package data, so they are found the same way from a source checkout
and from an installed wheel.
"""

from __future__ import annotations

from importlib.resources import files
from importlib.resources.abc import Traversable


def shipped(world: str, suffix: str = "") -> dict[str, Traversable]:
    """The shipped map files of ``world``, by name (the file name less ``suffix``)."""
    folder = files(__name__) / world
    if not folder.is_dir():
        return {}
    return {
        entry.name.removesuffix(suffix): entry
        for entry in folder.iterdir()
        if entry.is_file() and entry.name.endswith(suffix) and not entry.name.startswith(".")
    }
