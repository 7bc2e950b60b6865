"""What ``EXTEND`` can turn on, each capability declared once.

:data:`DECLARED_CAPABILITIES` is the one list: the order ``EXTENDED`` writes them in
(:mod:`protocol.connection`), what a bare ``EXTEND`` asks for, ``EXTEND``'s line in
``HELP`` (:mod:`protocol.commands`) and the protocol document's table
(``docs/protocol.md``, held to it by the tests) are derived from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = [
    "CAPABILITIES",
    "DECLARED_CAPABILITIES",
    "DEFAULT_CAPABILITIES",
    "EXTEND_HELP",
    "Capability",
]


@dataclass(frozen=True, slots=True)
class Capability:
    """One thing ``EXTEND`` can turn on (see the module docstring)."""

    name: str
    """Its word in ``EXTEND`` and ``EXTENDED``."""
    gives: str
    """What the client gets with it, as ``docs/protocol.md`` says it."""
    default: bool = False
    """Whether a bare ``EXTEND`` turns it on."""


DECLARED_CAPABILITIES: Final[tuple[Capability, ...]] = (
    Capability("events", "pushed lines about your game", default=True),
    Capability("chat", "`MESSAGE` lines", default=True),
    Capability("bot", "others see you as `B`, not `P`"),
    Capability("board", "a spectator is told who is where: `LEVEL` and `BOARD`"),
    Capability(
        "probe",
        "this connection checks the server (a conformance run): its games are not "
        "recorded, and their replays are listed only when asked for",
    ),
    Capability(
        "redirect",
        "`JOIN` or `WATCH` of a game another node of a cluster holds answers "
        "`REDIRECT <game> <host>:<port>` instead of carrying you there",
    ),
)
"""Every capability, in the order ``EXTENDED`` lists them."""
CAPABILITIES: Final = tuple(capability.name for capability in DECLARED_CAPABILITIES)
"""Everything ``EXTEND`` can turn on, in the order ``EXTENDED`` lists it."""
DEFAULT_CAPABILITIES: Final = tuple(
    capability.name for capability in DECLARED_CAPABILITIES if capability.default
)
"""What a bare ``EXTEND`` turns on."""


EXTEND_HELP: Final = f"turn on {', '.join(CAPABILITIES)} (alone: {', '.join(DEFAULT_CAPABILITIES)})"
"""What ``HELP`` says ``EXTEND`` does."""
