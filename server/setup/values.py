"""What a few settings' values must be, besides their type and range: the checks their
declarations in :mod:`server.setup.config` name (``validate=``), each raising
``ValueError`` with a message for the person who gave the value.
"""

from __future__ import annotations

import os

__all__ = ["advertised_address", "cluster_url", "utf8_name"]


def utf8_name(text: str) -> None:
    """Refuse a name that is not UTF-8 (a file name in Latin-1, as the file system and
    ``sys.argv`` hand it over): a game shows its map's name to every client, the web
    page and the records, which all carry UTF-8 only."""
    raw = os.fsencode(text)
    try:
        raw.decode()
    except UnicodeDecodeError as error:
        shown = raw.decode("utf-8", "backslashreplace")
        raise ValueError(
            f"{shown} is not UTF-8 text (byte 0x{raw[error.start]:02x} at {error.start}); "
            "rename the file, or name a link to it whose name is UTF-8 "
            f"(ln -s '{shown}' {_suggested_name(raw)})"
        ) from None


def _suggested_name(raw: bytes) -> str:
    """A UTF-8 name for a link to the file ``raw`` names: its bytes read as Latin-1,
    the encoding such names usually come from (``caf\xe9.map`` -> ``café.map``)."""
    return os.path.basename(raw).decode("latin-1")


def cluster_url(url: str) -> None:
    # unix:PATH is the directory a --workers parent keeps for its workers.
    if not url.startswith(("postgresql://", "postgres://", "unix:")):
        raise ValueError(f"must be a postgresql:// URL, not {url!r}")


def advertised_address(address: str) -> None:
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"must be HOST:PORT with a port from 1 to 65535, not {address!r}")
