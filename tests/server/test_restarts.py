"""A game's world slot (server/game/restarts.py) on its own: what a rebuild falls back on,
and the steps that wait for a fresh world, with in-memory clients and a builder faked."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import structlog
import trio

from protocol.replies import Error
from server.game.builds import Opened, WorldBuilder, open_world
from server.game.restarts import WorldSlot
from server.game.spec import GameSpec
from worlds.registry import load_plugin

from .outboxes import MemoryOutbox

LOG = structlog.get_logger("test")


class Builder(WorldBuilder):
    """Builds on the loop, counting what it was asked to build."""

    def __init__(self) -> None:
        super().__init__(1, 30.0, 1 << 20)
        self.built: list[str] = []

    async def run(self, job: Callable[[], Opened], what: str) -> Opened:
        self.built.append(what)
        return job()


def test_a_rebuild_tries_the_map_then_what_was_loaded_then_the_world_s_own(
    tmp_path: Path,
) -> None:
    path = tmp_path / "edited.map"
    path.write_text("name edited\nwin 1\n#####\n#G.E#\n#####\n")
    plugin = load_plugin("classic")
    opened = open_world(plugin, str(path), 1, 1 << 20, template=True)
    slot = WorldSlot(GameSpec("default", plugin, str(path), 1), None, opened, LOG)
    assert [kept for kept, _ in slot.attempts()] == [None, "the loaded map", "the world as it was"]
    path.write_text("not a map")  # edited with a typo
    built = slot.build_now()
    assert built is not None and built[1] == "the loaded map"
    created = WorldSlot(GameSpec("g", plugin, "tiny", 1, owner=7), None, None, LOG)
    assert [kept for kept, _ in created.attempts()] == [None], "a created game: its map only"


async def test_steps_wait_for_the_fresh_world_then_run_in_order() -> None:
    builder = Builder()
    slot = WorldSlot(GameSpec("g", load_plugin("classic"), "tiny", 1), builder, None, LOG)
    ada, bob = MemoryOutbox(), MemoryOutbox()
    done: list[str] = []
    assert not slot.hold(ada, lambda: done.append("never")), "nothing is being built"
    slot.start_building()
    assert slot.hold(ada, lambda: done.append("ada")) and slot.hold(bob, lambda: done.append("bob"))
    assert ada.waiting is not None and not ada.waiting.is_set()
    built = await slot.build()
    assert built is not None and builder.built == ["the classic world"]
    slot.install(*built)
    assert slot.world is built[0].world and not slot.building
    slot.release()
    assert done == ["ada", "bob"] and ada.waiting.is_set()


async def test_when_no_world_opens_what_waited_is_told_so() -> None:
    slot = WorldSlot(GameSpec("g", load_plugin("classic"), "tiny", 1), Builder(), None, LOG)
    ada = MemoryOutbox()
    slot.start_building()
    slot.hold(ada, lambda: None)
    slot.refuse_held("the game g could not restart")
    assert ada.replies == [Error("the game g could not restart")]
    assert ada.waiting is not None and ada.waiting.is_set() and not slot.building


def test_a_map_larger_than_the_server_sends_is_refused_by_name() -> None:
    spec = GameSpec("g", load_plugin("classic"), "default", 5, max_map_bytes=10)
    slot = WorldSlot(spec, None, None, LOG)
    refusal = slot.too_big()
    assert refusal is not None and refusal.startswith("the map of g is ")
    assert (
        WorldSlot(GameSpec("g", load_plugin("classic"), "tiny", 1), None, None, LOG).too_big()
        is None
    )


async def test_a_closed_game_s_steps_wait_for_nothing() -> None:
    slot = WorldSlot(GameSpec("g", load_plugin("classic"), "tiny", 1), Builder(), None, LOG)
    ada = MemoryOutbox()
    slot.start_building()
    slot.hold(ada, lambda: None)
    slot.stop()
    assert ada.waiting is not None
    with trio.fail_after(1):
        await ada.waiting.wait()
