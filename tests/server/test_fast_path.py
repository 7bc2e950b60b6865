"""The fast path (:mod:`server.session.fast_path`) answers exactly as the plain path does.

Every verb, in every dialect, is sent to two servers alike, one serving its clients
through the fast path (as every server does) and one through the connection's plain
methods; each client of one must read the very bytes its twin reads on the other. The
clients are served over memory streams, one line a chunk, each line handled to the end
before the next is sent (:func:`trio.testing.wait_all_tasks_blocked`, with every world
built on the loop): no clock, no race.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

import pytest
import trio
import trio.testing

from protocol.commands import DECLARED_VERBS
from protocol.dialects import DIALECTS
from server.app import Server
from server.game.builds import Opened, WorldBuilder
from server.setup.config import ServerConfig

Script = Sequence[tuple[int, str]]
"""Lines to send, each by the client of that number (0, 1)."""

CLASSIC: Script = (
    (0, "HELLO"),
    (0, "EXTEND events chat board"),
    (1, "HELLO Bob"),
    (0, "HELLO Ada"),
    (0, "LOOK"),
    (1, "MOVE E"),
    (1, "MOVE W"),  # a second move the other saw, unasked: told once ("look again")
    (0, "LOOK"),
    (1, "MOVE E"),  # after a command of its own: told again
    (0, "MOVE W"),
    (0, "MOVE NE"),
    (0, "PICKUP"),
    (1, "PICKUP"),
    (0, "STAY"),
    (0, "ATTACK N"),
    (0, "ENDTURN"),
    (0, "APGET"),
    (1, "HPGET"),
    (0, "MAP"),
    (1, "HELP"),
    (1, "EXTEND"),
    (0, "SHOUT hello all"),
    (1, "SHOUT hi"),
    (0, "GAMES"),
    (0, "WHOAMI"),
    (1, "CREATE other classic map=tiny seed=2"),
    (1, "JOIN other"),
    (1, "LOOK"),
    (0, "WATCH other"),
    (0, "MAP"),
    (0, "MOVE E"),
    (1, "MOVE W"),
    (0, "JOIN default"),
    (0, "LOOK"),
    (1, "WHOAMI"),
    (0, "LEADERBOARD"),
    (0, "REGISTER Ada"),
    (1, "LOGIN Bob secret"),
    (0, "FROBNICATE"),
    (0, "MOVE"),
    (1, "MOVE E"),
    (1, "MOVE E"),
    (0, "QUIT"),
    (1, "QUIT"),
)
"""Every verb in a world without turns: answered, refused, routed to the lobby and the
ladder, a game created, joined and watched, a win."""

BATTLE: Script = (
    (0, "HELLO Ada"),
    (1, "HELLO Bob"),
    (0, "EXTEND events"),
    (0, "APGET"),
    (0, "HPGET"),
    (1, "LOOK"),  # a 2013 client's LOOK waits for its turn...
    (1, "HPGET"),  # ...and what comes behind it is read, and answered after it
    (0, "ATTACK E"),
    (0, "MOVE E"),
    (0, "PICKUP"),
    (0, "ENDTURN"),
    (1, "APGET"),
    (1, "MOVE N"),
    (1, "ENDTURN"),
    (1, "LOOK"),
    (1, "QUIT"),  # at once, though the LOOK waits
    (0, "STAY"),
    (0, "QUIT"),
)
"""The verbs of a world played in turns."""

ROUNDS: Script = (
    (0, "HELLO Ada"),
    (1, "HELLO Bob"),
    (0, "MOVE E"),  # waits for the round...
    (0, "LOOK"),  # ...and what comes behind it is read, and answered after it
    (0, "PICKUP"),
    (1, "STAY"),
    (1, "MOVE W"),
    (0, "STAY"),
    (0, "QUIT"),  # at once, though the STAY waits
    (1, "LOOK"),
    (1, "QUIT"),
)
"""A world played in rounds: actions held for their round, what comes behind them."""


def test_the_scripts_send_every_verb() -> None:
    sent = {line.split()[0] for _, line in (*CLASSIC, *BATTLE)}
    assert {verb.word for verb in DECLARED_VERBS} <= sent


async def _built_here(self: WorldBuilder, job: Callable[[], Opened], what: str) -> Opened:
    """:meth:`WorldBuilder.run` on the loop: every world is built before the next line
    is sent (a thread's build, ``CREATE``'s or a restart's, would race the script)."""
    return job()


async def _played(dialect: str, world: str, script: Script, *, fast: bool) -> list[bytes]:
    """What each client of ``script`` reads from a server (through its fast path or not)."""
    config = ServerConfig(
        port=0,
        world=world,
        map="tiny" if world == "classic" else None,
        seed=1,
        dialect=dialect,
        replay_dir=None,
        db=None,
    )
    server = Server(config)
    server.fast_path = fast
    read: list[bytearray] = [bytearray(), bytearray()]
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        ends: list[trio.abc.Stream] = []

        async def reader(number: int) -> None:
            while data := await ends[number].receive_some(65536):
                read[number] += data

        for number in range(2):  # one after the other: the same ids, the same players
            ours, theirs = trio.testing.memory_stream_pair()
            serve = partial(server.serve_stream, theirs, host="192.0.2.9", port=40000 + number)
            nursery.start_soon(serve)
            ends.append(ours)
            nursery.start_soon(reader, number)
            await trio.testing.wait_all_tasks_blocked()
        for number, line in script:
            await ends[number].send_all(line.encode() + b"\n")
            await trio.testing.wait_all_tasks_blocked()
        server.shutdown()
    return [bytes(data) for data in read]


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
@pytest.mark.parametrize(
    ("world", "script"), [("classic", CLASSIC), ("battle", BATTLE), ("crawler", ROUNDS)]
)
async def test_the_fast_path_sends_the_bytes_the_plain_path_sends(
    dialect: str, world: str, script: Script, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(WorldBuilder, "run", _built_here)
    fast = await _played(dialect, world, script, fast=True)
    plain = await _played(dialect, world, script, fast=False)
    for number in range(2):
        assert fast[number] == plain[number], f"client {number} in {dialect}, {world}"
        assert fast[number].count(b"\n") >= 5, "each client was answered"
