"""Reconnecting: a logged-in player whose connection drops comes back to the same player."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
import trio.testing

from protocol.commands import Command, Login
from protocol.replies import Bye
from server.lobby.claimant import Claimant
from server.lobby.ladder import Ladder

from ..conftest import StartServer
from ..helpers import TIMEOUT, Peer, bound_port


async def registered(port: int, name: str) -> tuple[Peer, str]:
    peer = await Peer.connect(port)
    [answer] = await peer.ask(f"REGISTER {name}")
    token = answer.split(" ")[2]
    assert (await peer.ask(f"HELLO {name}"))[0].startswith("GOLD")
    return peer, token


async def test_a_logged_in_player_resumes_its_player_after_a_drop(
    start_server: StartServer, tmp_path: Path
) -> None:
    server = await start_server(map="tiny", db=f"sqlite:///{tmp_path / 'r.db'}")
    await server.ladder.writer.ready()  # type: ignore[union-attr]
    ada, token = await registered(bound_port(server), "Ada")
    bob = await Peer.connect(bound_port(server))
    assert (await bob.ask("HELLO Bob"))[0].startswith("GOLD")
    assert await bob.ask("EXTEND events") == ["EXTENDED events"]
    game = server.games["default"]
    [player] = [p for p, c in game.players.items() if c.who.name == "Ada"]
    before = await ada.ask("LOOK")
    await ada.aclose()
    assert await bob.read_line() == (
        "NOTICE Ada lost the connection and may come back within 30 seconds"
    )
    again = await Peer.connect(bound_port(server))
    await again.send(f"LOGIN Ada {token}\n")
    assert await again.read_line() == "LOGGEDIN Ada"
    assert (await again.read_line()).startswith("GAME default world=classic")
    assert await bob.read_line() == "NOTICE Ada is back"
    assert game.players[player].who.name == "Ada"  # the same player, on the new connection
    assert await again.ask("LOOK") == before
    assert (await again.ask("HELLO Ada"))[0].startswith("GOLD")


async def test_a_login_whose_connection_ends_while_its_token_is_checked_resumes_nothing(
    start_server: StartServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A connection may end while its LOGIN's token is checked (its game ended for it, a
    limit cut it off): the LOGIN must not then hand the player it came back for to a
    connection that is gone (it would stay there for good)."""
    checked = trio.Event()
    login = Ladder._COMMANDS[Login]

    async def end_then_login(ladder: Ladder, connection: Claimant, command: Command) -> None:
        connection.finish(Bye("cut off meanwhile"), reason="cut off")
        try:
            await login(ladder, connection, command)
        finally:
            checked.set()

    monkeypatch.setitem(Ladder._COMMANDS, Login, end_then_login)
    server = await start_server(map="tiny", db=f"sqlite:///{tmp_path / 'r.db'}")
    await server.ladder.writer.ready()  # type: ignore[union-attr]
    ada, token = await registered(bound_port(server), "Ada")
    await ada.aclose()
    await trio.testing.wait_all_tasks_blocked()
    gone = await Peer.connect(bound_port(server))
    await gone.send(f"LOGIN Ada {token}\n")
    assert await gone.read_to_end() == b"BYE cut off meanwhile\n"
    with trio.fail_after(TIMEOUT):
        await checked.wait()
    monkeypatch.setitem(Ladder._COMMANDS, Login, login)
    again = await Peer.connect(bound_port(server))
    await again.send(f"LOGIN Ada {token}\n")
    assert await again.read_line() == "LOGGEDIN Ada"
    assert (await again.read_line()).startswith("GAME default "), "the player was still there"


async def test_a_player_not_back_within_the_grace_period_leaves(
    start_server: StartServer, tmp_path: Path
) -> None:
    server = await start_server(
        map="tiny", db=f"sqlite:///{tmp_path / 'r.db'}", reconnect_grace=0.2
    )
    await server.ladder.writer.ready()  # type: ignore[union-attr]
    ada, token = await registered(bound_port(server), "Ada")
    bob = await Peer.connect(bound_port(server))
    assert (await bob.ask("HELLO Bob"))[0].startswith("GOLD")
    assert await bob.ask("EXTEND events") == ["EXTENDED events"]
    await ada.aclose()
    assert (await bob.read_line()).startswith("NOTICE Ada lost the connection")
    assert await bob.read_line() == "LEFT Ada: disconnected"
    again = await Peer.connect(bound_port(server))
    assert await again.ask(f"LOGIN Ada {token}") == ["LOGGEDIN Ada"]  # a fresh start


async def test_a_player_that_quits_or_never_logged_in_leaves_at_once(
    start_server: StartServer, tmp_path: Path
) -> None:
    server = await start_server(map="tiny", db=f"sqlite:///{tmp_path / 'r.db'}")
    await server.ladder.writer.ready()  # type: ignore[union-attr]
    ada, _ = await registered(bound_port(server), "Ada")
    eve = await Peer.connect(bound_port(server))
    assert (await eve.ask("HELLO Eve"))[0].startswith("GOLD")
    bob = await Peer.connect(bound_port(server))
    assert (await bob.ask("HELLO Bob"))[0].startswith("GOLD")
    assert await bob.ask("EXTEND events") == ["EXTENDED events"]
    await eve.aclose()  # a classic player: gone at once, as ever
    assert await bob.read_line() == "LEFT Eve: disconnected"
    assert await ada.ask("QUIT") == ["BYE Thanks for playing."]
    assert await bob.read_line() == "LEFT Ada: quit"


async def test_in_a_world_with_rounds_the_rounds_missed_while_away_count_as_ever(
    start_server: StartServer, tmp_path: Path
) -> None:
    server = await start_server(
        world="crawler",
        map="tutorial",
        db=f"sqlite:///{tmp_path / 'r.db'}",
        turn_timeout=0.2,
        max_missed_turns=3,
    )
    await server.ladder.writer.ready()  # type: ignore[union-attr]
    ada, token = await registered(bound_port(server), "Ada")
    bob = await Peer.connect(bound_port(server))
    assert (await bob.ask("HELLO Bob"))[0].startswith("GOLD")
    assert await bob.ask("EXTEND events") == ["EXTENDED events"]
    await ada.aclose()
    assert (await bob.read_line()).startswith("NOTICE Ada lost the connection")
    # Ada is away: the round waits for her the turn's time, then counts her turn missed.
    await bob.send("STAY\n")
    assert await bob.read_lines(3) == [
        "SAW Ada: STAY SUCCESS",  # a missed turn is a stay
        "SUCCESS",
        "ROUND 1 acted=1 missed=1",
    ]
    again = await Peer.connect(bound_port(server))
    await again.send(f"LOGIN Ada {token}\n")
    assert await again.read_line() == "LOGGEDIN Ada"
    assert (await again.read_line()).startswith("GAME default world=crawler")
    assert await bob.read_line() == "NOTICE Ada is back"
    # Back in the same player, she plays the next round with Bob.
    await bob.send("STAY\n")
    assert await again.ask("STAY") == ["SUCCESS"]
    # (the round plays in join order: Ada's STAY, seen by Bob, then his)
    assert await bob.read_lines(3) == [
        "SAW Ada: STAY SUCCESS",
        "SUCCESS",
        "ROUND 2 acted=2 missed=0",
    ]
