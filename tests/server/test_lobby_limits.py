"""The lobby under load and abuse: worlds built off the loop, plugins that fail, squatters,
chatterers, lagging spectators and maps too large to send."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import structlog
import trio
import trio.testing

from worlds.api import Event, PlayerId, PlayerKind, World, WorldPlugin
from worlds.registry import load_plugin

from ..conftest import WriteMap
from ..helpers import Peer, bound_port
from ..limits import process_limit
from .conftest import StartGameServer, games

ROOM = "name Room\nwin 0\n{rows}\n"


def room(size: int) -> str:
    """A square open room with walls round it and an exit in a corner."""
    inner = size - 2
    rows = ["#" * size]
    rows += ["#" + "." * inner + "#" for _ in range(inner - 1)]
    rows += ["#" + "." * (inner - 1) + "E#", "#" * size]
    return ROOM.format(rows="\n".join(rows))


class GatedPlugin:
    """The classic world, whose ``open`` waits (in whatever thread calls it) for ``gate``."""

    def __init__(self, name: str = "gated") -> None:
        self.name = name
        self.summary = "classic, opened when the test says so"
        self.gate = threading.Event()
        self.opening = threading.Semaphore(0)
        self._inner = load_plugin("classic")

    def maps(self) -> list[str]:
        return self._inner.maps()

    def open(self, map_spec: str | None, *, seed: int) -> World:
        self.opening.release()
        time.sleep(0.01)  # a world that takes a while to build, even with the gate open
        # Bounded, so that a build on the event loop fails the test instead of hanging it.
        self.gate.wait(5)
        return self._inner.open(map_spec, seed=seed)


class BrokenPlugin:
    """A plugin with a bug: ``open`` or its worlds' ``join`` raise."""

    name = "broken"
    summary = "raises"

    def __init__(self, where: str) -> None:
        self.where = where
        self._inner: WorldPlugin = load_plugin("classic")

    def maps(self) -> list[str]:
        return []

    def open(self, map_spec: str | None, *, seed: int) -> World:
        if self.where == "open":
            raise RuntimeError("bug in open")
        world = self._inner.open(None, seed=seed)

        def join(player: PlayerId, kind: PlayerKind = PlayerKind.HUMAN) -> list[Event]:
            raise RuntimeError("bug in join")

        world.join = join  # type: ignore[method-assign]
        return world


async def wait_opening(plugin: GatedPlugin | BusyPlugin) -> None:
    """Until some thread is inside ``plugin.open``."""
    with trio.fail_after(10):
        await trio.to_thread.run_sync(plugin.opening.acquire)


# -- worlds built off the event loop ------------------------------------------------------


async def test_others_play_on_while_a_world_is_built(start_game_server: StartGameServer) -> None:
    gated = GatedPlugin()
    server = await start_game_server(worlds=(gated,), map="tiny", seed=1)
    creator, player = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    assert await player.ask("HELLO") == ["GOLD 1"]
    await creator.send("CREATE slow gated\nGAMES\n")
    await wait_opening(gated)
    for _ in range(5):
        with trio.fail_after(1):  # before the fix: no answer until the world was built
            assert (await player.ask("LOOK"))[0] == "LOOKREPLY"
    assert "slow" not in [game.name for game in (await games(player)).games]
    gated.gate.set()
    assert (await creator.read_line()).startswith("GAME slow world=gated")
    assert (await creator.read_line()).startswith("GAMES 2"), "commands after CREATE wait for it"


class BusyPlugin:
    """The classic world, whose ``open`` builds the dungeon it is asked for again and
    again, in whatever thread calls it, until ``done`` is set: pure-Python CPU work
    that holds the GIL as a large build does, provably still running until the test
    lets it end."""

    name = "busy"
    summary = "classic, built until the test says enough"

    def __init__(self) -> None:
        self.done = threading.Event()
        self.opening = threading.Semaphore(0)
        self.builds = 0
        self.gave_up = False
        self._inner = load_plugin("classic")

    def maps(self) -> list[str]:
        return self._inner.maps()

    def open(self, map_spec: str | None, *, seed: int) -> World:
        self.opening.release()
        # Bounded, so that a build on the event loop fails the test instead of hanging it.
        deadline = time.monotonic() + process_limit()
        world = self._inner.open(map_spec, seed=seed)
        while not self.done.is_set():
            if time.monotonic() > deadline:
                self.gave_up = True
                break
            world = self._inner.open(map_spec, seed=seed)
            self.builds += 1
        return world


async def test_look_is_answered_while_a_large_world_is_still_being_built(
    start_game_server: StartGameServer,
) -> None:
    # What the build must not do is hold the loop (or the GIL) while it runs: before, a
    # LOOK waited 6.6 s for the whole build. The build here cannot end until the test
    # has its answers, so no answer can come from after it, whatever the machine's speed.
    busy = BusyPlugin()
    server = await start_game_server(worlds=(busy,), map="tiny", seed=1)
    creator, player = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    assert await player.ask("HELLO") == ["GOLD 1"]
    await creator.send("CREATE big busy map=generated:seed=1,width=200,height=200\n")
    await wait_opening(busy)
    for _ in range(10):
        assert (await player.ask("LOOK"))[0] == "LOOKREPLY"
    still_building = not busy.gave_up
    busy.done.set()
    assert (await creator.read_line()).startswith("GAME big world=busy")
    assert still_building, "the build ended before the LOOKs were answered"


async def test_a_game_whose_creator_left_while_it_was_built_waits_for_players(
    start_game_server: StartGameServer,
) -> None:
    # `printf 'CREATE ...' | nc -q1` may close before a slow world is built.
    gated = GatedPlugin()
    server = await start_game_server(worlds=(gated,), map="tiny", seed=1)
    creator, player = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    await creator.send("CREATE slow gated map=tiny\n")
    await wait_opening(gated)
    await creator.aclose()
    gated.gate.set()
    with trio.fail_after(10):
        while len(server.connections) > 1:  # until the creator's connection has ended
            await trio.testing.wait_all_tasks_blocked()
    assert (await player.ask("JOIN slow"))[0].startswith("GAME slow world=gated")


async def test_worlds_built_at_once_are_limited(start_game_server: StartGameServer) -> None:
    gated = GatedPlugin()
    server = await start_game_server(worlds=(gated,), max_world_builds=2)
    peers = [await Peer.connect(bound_port(server)) for _ in range(3)]
    await peers[0].send("CREATE a gated\n")
    await peers[1].send("CREATE b gated\n")
    await wait_opening(gated)
    await wait_opening(gated)
    assert await peers[2].ask("CREATE c gated") == [
        "ERROR the server is building 2 worlds already (max_world_builds); try again in a moment"
    ]
    gated.gate.set()
    assert (await peers[0].read_line()).startswith("GAME a ")
    assert (await peers[1].read_line()).startswith("GAME b ")
    assert (await peers[2].ask("CREATE c gated"))[0].startswith("GAME c ")


async def test_a_world_that_takes_too_long_is_refused(start_game_server: StartGameServer) -> None:
    gated = GatedPlugin()
    server = await start_game_server(worlds=(gated,), world_build_timeout=0.2)
    peer = await Peer.connect(bound_port(server))
    assert await peer.ask("CREATE slow gated") == [
        "ERROR the gated world took more than 0.2 seconds to build (world_build_timeout); "
        "ask for a smaller one"
    ]
    assert "slow" not in [game.name for game in (await games(peer)).games]
    assert await peer.ask("HELLO") == ["GOLD 3"]
    gated.gate.set()


async def test_ten_creates_in_one_write_are_answered_in_order_and_outlive_their_creator(
    start_game_server: StartGameServer,
) -> None:
    server = await start_game_server(max_games_per_client=4)
    flood, other = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    await flood.send(
        "".join(
            f"CREATE g{i} classic map=generated:seed={i},width=60,height=60\n" for i in range(10)
        )
    )
    assert await other.ask("HELLO") == ["GOLD 3"]
    replies = await flood.read_lines(10)
    assert [r.split()[1] for r in replies[:4]] == ["g0", "g1", "g2", "g3"]
    assert (
        replies[4:]
        == ["ERROR you have created 4 games that are still open; at most 4 (max_games_per_client)"]
        * 6
    )
    assert len((await games(other)).games) == 5
    await flood.aclose()
    with trio.fail_after(10):
        while len(server.connections) > 1:  # until the server sees the close
            await trio.testing.wait_all_tasks_blocked()
    # They wait for their first player (unjoined_game_timeout), as the README's flow needs.
    listed = [g.name for g in (await games(other)).games]
    assert listed == ["default", "g0", "g1", "g2", "g3"]


async def test_a_slow_restart_is_built_off_the_loop_and_joins_wait_for_it(
    start_game_server: StartGameServer,
) -> None:
    gated = GatedPlugin()
    server = await start_game_server(worlds=(gated,), map="tiny", seed=1)
    owner, watcher, other = [await Peer.connect(bound_port(server)) for _ in range(3)]
    assert await other.ask("HELLO") == ["GOLD 1"]
    await owner.send("CREATE slow gated map=tiny\n")
    await wait_opening(gated)
    gated.gate.set()
    assert (await owner.read_line()).startswith("GAME slow")
    assert (await watcher.ask("WATCH slow"))[0].startswith("GAME slow")
    await watcher.read_lines(4)
    assert (await owner.ask("JOIN slow"))[0].startswith("GAME slow")
    gated.gate.clear()
    await owner.send("QUIT\n")  # the game ends; the watcher keeps it: it restarts
    await owner.read_to_end()
    await wait_opening(gated)
    joiner = await Peer.connect(bound_port(server))
    await joiner.send("JOIN slow\n")
    for _ in range(3):
        with trio.fail_after(1):
            assert (await other.ask("LOOK"))[0] == "LOOKREPLY"
    await trio.testing.wait_all_tasks_blocked()
    assert not joiner._buffer, "the JOIN waits for the fresh world"
    gated.gate.set()
    assert (await joiner.read_line()).startswith("GAME slow world=gated map=tiny seed=0 players=1")


# -- plugins that raise on a lobby path -------------------------------------------------------


async def test_a_plugin_that_raises_on_open_fails_only_that_create(
    start_game_server: StartGameServer,
) -> None:
    server = await start_game_server(worlds=(BrokenPlugin("open"),))
    peer, other = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    assert await other.ask("HELLO") == ["GOLD 3"]
    with structlog.testing.capture_logs() as logs:
        assert await peer.ask("CREATE x broken") == [
            "ERROR the broken world failed to open that map (a server bug)"
        ]
    assert [e["event"] for e in logs if e["log_level"] == "error"] == ["world failed to open"]
    assert await other.ask("MOVE N") in (["SUCCESS"], ["FAIL"])
    assert await peer.ask("HELLO") == ["GOLD 3"]


async def test_a_plugin_that_raises_on_join_fails_only_that_game(
    start_game_server: StartGameServer,
) -> None:
    server = await start_game_server(worlds=(BrokenPlugin("join"),))
    peer, other = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    assert await other.ask("HELLO") == ["GOLD 3"]
    assert (await peer.ask("CREATE x broken"))[0].startswith("GAME x world=broken")
    with structlog.testing.capture_logs() as logs:
        assert await peer.ask("JOIN x") == ["ERROR the game x failed as you joined (a server bug)"]
    assert [e["event"] for e in logs if e["log_level"] == "error"] == ["world failed"]
    assert await other.ask("MOVE N") in (["SUCCESS"], ["FAIL"])
    assert await peer.ask("HELLO") == ["GOLD 3"], "back in the default game"


async def test_a_default_map_edited_badly_or_removed_is_kept_at_restart(
    start_game_server: StartGameServer, write_map: WriteMap
) -> None:
    corridor = "name Corridor\nwin 0\n#####\n#..E#\n#####\n"
    path = Path(write_map(corridor))
    server = await start_game_server(map=str(path), seed=1)
    for damage in ("typo", "removed"):
        peer = await Peer.connect(bound_port(server))
        assert await peer.ask("MAP") == ["MAP 3 5", "#####", "#@.E#", "#####"]
        if damage == "typo":
            path.write_text("name Corridor\nwin zero\n#####\n")
        else:
            path.unlink()
        with structlog.testing.capture_logs() as logs:
            await peer.send("QUIT\n")
            await peer.read_to_end()
            again = await Peer.connect(bound_port(server))
            assert await again.ask("MAP") == ["MAP 3 5", "#####", "#@.E#", "#####"]
        (failure,) = [e for e in logs if e["event"] == "game restart failed"]
        assert failure["log_level"] == "error" and "Corridor" not in failure["error"]
        (fallback,) = [e for e in logs if e["event"] == "game restarted on a fallback"]
        assert fallback["kept"] == "the loaded map"
        await again.send("QUIT\n")
        await again.read_to_end()


# -- squatting ------------------------------------------------------------------------------


async def test_a_game_nobody_joins_is_removed_after_its_time_limit(
    start_game_server: StartGameServer,
) -> None:
    server = await start_game_server(unjoined_game_timeout=0.5)
    owner, watcher = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    assert (await owner.ask("CREATE empty classic"))[0].startswith("GAME empty")
    assert (await owner.ask("CREATE played classic"))[0].startswith("GAME played")
    assert (await watcher.ask("WATCH empty"))[0].startswith("GAME empty")
    await watcher.read_lines(int((await watcher.read_line()).split()[1]))  # its view
    assert (await owner.ask("JOIN played"))[0].startswith("GAME played")
    start = trio.current_time()
    assert await watcher.read_line() == (
        "GAMEOVER empty is removed: nobody joined within 0.5 seconds"
    )
    assert trio.current_time() - start >= 0.4
    assert [g.name for g in (await games(watcher)).games] == ["default", "played"]
    assert await watcher.ask("HELLO") == ["GOLD 3"], "back in the default game"


async def test_games_and_players_per_game_and_round_lengths_are_bounded(
    start_game_server: StartGameServer,
) -> None:
    server = await start_game_server(
        max_games=3, max_players_per_game=8, min_turn_timeout=1, max_turn_timeout=60
    )
    peer = await Peer.connect(bound_port(server))
    assert await peer.ask("CREATE a ticker players=9") == [
        "ERROR players= may be at most 8 here (max_players_per_game)"
    ]
    assert await peer.ask("CREATE a ticker turn=0.01") == [
        "ERROR turn= takes from 1 to 60 seconds here (min_turn_timeout, max_turn_timeout)"
    ]
    assert await peer.ask("CREATE a ticker turn=61") == [
        "ERROR turn= takes from 1 to 60 seconds here (min_turn_timeout, max_turn_timeout)"
    ]
    assert (await peer.ask("CREATE a ticker turn=60"))[0].startswith("GAME a ")
    assert "limit=8" in (await peer.ask("CREATE b classic"))[0]
    assert await peer.ask("CREATE c classic") == [
        "ERROR the server holds 3 games already (max_games); join one"
    ]


# -- chat, spectators and big maps -------------------------------------------------------------


async def test_chat_is_rate_limited_per_sender(start_game_server: StartGameServer) -> None:
    server = await start_game_server(chat_rate=0.01, chat_burst=3)
    talker, listener = (
        await Peer.connect(bound_port(server)),
        await Peer.connect(bound_port(server)),
    )
    assert await listener.ask("EXTEND chat") == ["EXTENDED chat"]
    assert await listener.ask("HELLO") == ["GOLD 3"]
    assert await talker.ask("HELLO") == ["GOLD 3"]
    await talker.send("SHOUT hi\n" * 5)
    assert (
        await talker.read_lines(5)
        == ["SUCCESS"] * 3
        + [
            "ERROR too many messages: at most 3 at once and 0.01 a second (chat_rate); "
            "wait a moment"
        ]
        * 2
    )
    assert await listener.read_lines(3) == ["MESSAGE #2: hi"] * 3
    assert await listener.ask("SHOUT mine") == ["MESSAGE #1: mine"]
    assert await listener.read_line() == "SUCCESS", "each sender has a bucket of its own"


async def test_a_lagging_spectator_gets_the_latest_view_and_is_not_cut_off(
    start_game_server: StartGameServer, write_map: WriteMap
) -> None:
    server = await start_game_server(
        map=write_map(room(150)), seed=2, max_pending_output=64 * 1024, send_timeout=60
    )
    watcher, player = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    assert (await watcher.ask("WATCH default"))[0].startswith("GAME default")
    assert (await watcher.read_line()) == "VIEW 150 150"
    await watcher.read_lines(150)
    assert await player.ask("HELLO") == ["GOLD 0"]
    moves = 400
    await player.send("MOVE E\nMOVE W\n" * (moves // 2) + "MOVE S\n")  # ~9 MB of views
    assert set(await player.read_lines(moves + 1)) <= {"SUCCESS", "FAIL"}
    final = list(server.games["default"].world.render(None))
    # The spectator reads only now: everything it gets is whole views, the last one current.
    last: list[str] = []
    with trio.fail_after(20):
        while last != final:
            head = await watcher.read_line()
            assert head == "VIEW 150 150", head
            last = await watcher.read_lines(150)
    assert (await watcher.ask("MAP"))[0] == "MAP 150 150", "still connected"


async def test_a_map_too_big_to_send_is_refused_by_name(
    start_game_server: StartGameServer, write_map: WriteMap
) -> None:
    server = await start_game_server(map=write_map(room(40)), max_map_bytes=1024)
    player, other = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    assert await player.ask("MAP") == [
        "ERROR the map of default is 1640 bytes; this server sends whole maps of at most "
        "1024 bytes (max_map_bytes); use LOOK"
    ]
    assert (await player.ask("LOOK"))[0] == "LOOKREPLY"
    assert await other.ask("WATCH default") == [
        "ERROR the map of default is 1640 bytes; this server sends whole maps of at most "
        "1024 bytes (max_map_bytes); it cannot be watched"
    ]


async def test_one_address_holds_only_its_share_of_the_games(
    start_game_server: StartGameServer,
) -> None:
    # Issue 28: connections of one address sitting in games they created took every
    # game of max_games; an address now holds at most max_games_per_address (16 by
    # default) games, counting those it created and those it plays in or watches.
    server = await start_game_server(max_games=24)
    share = 16
    creators = [await Peer.connect(bound_port(server)) for _ in range(share // 4)]
    for index in range(share):
        creator = creators[index // 4]
        reply = await creator.ask(f"CREATE g{index} classic")
        assert reply[0].startswith(f"GAME g{index} "), reply
        if index % 4 == 0:
            assert (await creator.ask(f"JOIN g{index}"))[0].startswith(f"GAME g{index} ")
    refusal = (
        f"ERROR your address holds {share} games already (max_games_per_address); leave one first"
    )
    late = await Peer.connect(bound_port(server))
    assert await late.ask("CREATE more classic") == [refusal]
    # Another address still has games to create, and one of 127.0.0.1 may not join it.
    other = Peer(
        await trio.open_tcp_stream("127.0.0.1", bound_port(server), local_address="127.0.0.2")
    )
    assert (await other.ask("CREATE theirs classic"))[0].startswith("GAME theirs ")
    assert await late.ask("JOIN theirs") == [refusal]
    assert (await late.ask("WATCH theirs"))[0] == refusal
    # Games it already holds stay open to it, and a game given up frees a place.
    assert (await late.ask("JOIN g1"))[0].startswith("GAME g1 ")
    assert await creators[0].ask("QUIT") == ["BYE Thanks for playing."]
    await creators[0].read_to_end()
    await trio.testing.wait_all_tasks_blocked()  # g0 ended as its one player left
    assert (await late.ask("CREATE more classic"))[0].startswith("GAME more ")
    # g2 and g3, which nobody joined, outlive their creator: its address still holds them.
    assert {"g2", "g3"} <= {game.name for game in (await games(late)).games}
    assert await late.ask("CREATE yet-more classic") == [refusal]


async def test_a_hello_held_for_a_restarting_world_is_greeted_as_any_other(
    start_game_server: StartGameServer,
) -> None:
    # A 2016ch client acts only after STARTTURN, on the view pushed as CHANGE. A HELLO that
    # waited for the default game's fresh world was answered without them, and the client
    # waited for ever.
    gated = GatedPlugin()
    gated.gate.set()
    server = await start_game_server(
        worlds=(gated,), world="gated", map="tiny", seed=1, dialect="2016ch"
    )
    winner = await Peer.connect(bound_port(server))
    await winner.send("HELLO ada\n")
    assert await winner.read_line() == "HELLO ada"
    assert await winner.read_line() == "STARTTURN"
    await winner.send("PICKUP\nMOVE E\n")
    gated.gate.clear()
    await winner.send("MOVE E\n")  # the win: the default game restarts, slowly
    await wait_opening(gated)
    late = await Peer.connect(bound_port(server))
    await late.send("HELLO bob\n")
    await trio.testing.wait_all_tasks_blocked()
    assert not late._buffer, "the HELLO waits for the fresh world"
    gated.gate.set()
    with trio.fail_after(10):
        assert await late.read_line() == "HELLO bob"
        assert await late.read_line() == "STARTTURN"
        assert await late.read_line() == "CHANGE "
