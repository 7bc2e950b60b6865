"""Every rule of RULES-battle, one test each, on the world alone (no server).

Section numbers are those of RULES-battle; "2015 defect" marks a recommended
deviation from the zss server.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dungeon_of_doom.protocol.commands import Attack, EndTurn, Move, Pickup
from dungeon_of_doom.protocol.direction import Direction
from dungeon_of_doom.worlds.api import (
    Action,
    Blocked,
    Died,
    Escaped,
    Event,
    Joined,
    Left,
    Moved,
    NothingToPickUp,
    Notice,
    PickedUp,
    PlayerKind,
    WorldError,
)
from dungeon_of_doom.worlds.battle import BattleWorld, plugin
from dungeon_of_doom.worlds.classic.mapfile import parse_map
from dungeon_of_doom.worlds.turns import (
    Attacked,
    Defeated,
    HitPointsChanged,
    PickupRefused,
    TurnEnded,
    TurnPassed,
    TurnStarted,
)

from ...helpers import joined_at

N, E, S, W = Direction.N, Direction.E, Direction.S, Direction.W
ROOM = """name Room
win 1
#########
#.......#
#.SAL.H.#
#.......#
#G.....E#
#########
"""


def world(text: str = ROOM, seed: int = 0) -> BattleWorld:
    return BattleWorld(parse_map(text), seed=seed)


def placed(*squares: tuple[int, int], text: str = ROOM, seed: int = 0) -> BattleWorld:
    """A world with players 1, 2, ... on ``squares``, in that join order."""
    w = world(text, seed)
    for number, square in enumerate(squares, start=1):
        w.join(number, at=square)
    return w


def act(w: BattleWorld, player: int, *actions: Action) -> list[Event]:
    return [e for action in actions for e in w.resolve([(player, action)])]


def hit_seed(hit: bool, *, after: int = 0) -> int:
    """A seed whose first attack after ``after`` random draws lands (or misses)."""
    import random

    for seed in range(1000):
        rng = random.Random(seed)
        for _ in range(after):
            rng.random()
        if (rng.random() < 0.75) is hit:
            return seed
    raise AssertionError("no such seed")


# -- §1 setup ----------------------------------------------------------------------------


def test_players_start_with_3_hp_and_the_first_gets_a_turn_of_6_ap_at_once() -> None:
    w = world()
    assert w.join(1, at=(1, 1)) == [Joined(1, (1, 1)), TurnStarted(1, 6)]
    assert w.join(2, at=(1, 3)) == [Joined(2, (1, 3))]  # later joiners wait
    assert (w.hit_points(1), w.hit_points(2)) == (3, 3)
    assert (w.turn, w.action_points(1), w.action_points(2)) == (1, 6, 0)


def test_ap_is_6_less_one_per_sword_armour_and_lantern_counted_when_the_turn_starts() -> None:
    w = placed((2, 2), (4, 1))
    events = act(w, 1, Pickup())  # the sword
    assert events == [PickedUp(1, "S", 0, is_gold=False), Notice(1, "You now carry: sword.")]
    assert w.action_points(1) == 5  # the sword's cost waits for the next turn
    events = act(w, 1, Move(E), Pickup(), Move(E), Pickup())  # armour, lantern: 1 AP left
    assert w.items(1) == {"S", "A", "L"} and w.action_points(1) == 1
    assert events[-1] == Notice(1, "You now carry: armour, lantern, sword.")
    assert act(w, 1, EndTurn())[-1] == TurnStarted(2, 6)
    assert act(w, 2, EndTurn())[-1] == TurnStarted(1, 3)  # 6 − 3, the floor of the range


def test_spawns_are_random_squares_that_are_not_walls_nor_taken_and_follow_the_seed() -> None:
    tiny = "name T\nwin 0\n#####\n#..E#\n#####\n"
    squares = set()
    for seed in range(40):
        w = world(tiny, seed)
        spots = [joined_at(w.join(p)) for p in (1, 2, 3)]
        assert len(set(spots)) == 3 and set(spots) == {(1, 1), (1, 2), (1, 3)}
        squares.add(spots[0])
        again = world(tiny, seed)
        assert [joined_at(again.join(p)) for p in (1, 2, 3)] == spots
    assert len(squares) == 3  # exits included
    w = world(tiny)
    for p in (1, 2, 3):
        w.join(p)
    with pytest.raises(WorldError, match="no free square"):
        w.join(4)


def test_a_player_placed_on_a_wall_a_player_or_off_the_map_is_refused() -> None:
    w = placed((1, 1))
    for square in ((0, 0), (1, 1), (40, 40), (-1, 2)):
        with pytest.raises(WorldError, match="cannot place"):
            w.join(2, at=square)


def test_turns_go_round_in_join_order_skipping_no_one_living() -> None:
    w = placed((1, 1), (1, 3), (1, 5))
    assert act(w, 1, EndTurn()) == [TurnPassed(1), TurnEnded(1), TurnStarted(2, 6)]
    assert act(w, 2, EndTurn())[-1] == TurnStarted(3, 6)
    assert act(w, 3, EndTurn())[-1] == TurnStarted(1, 6)


def test_an_action_out_of_turn_is_refused() -> None:
    w = placed((1, 1), (1, 3))
    with pytest.raises(WorldError, match="not your turn"):
        w.resolve([(2, Move(E))])


def test_a_player_joining_an_empty_battle_gets_the_turn() -> None:
    w = placed((1, 1))
    w.leave(1)
    assert w.turn is None
    assert w.join(2, at=(1, 3))[-1] == TurnStarted(2, 6)


def test_leaving_is_death_the_gold_falls_and_the_next_player_gets_the_turn() -> None:
    w = placed((1, 2), (1, 4), (1, 6))
    act(w, 1, Move(W))  # to (1, 1)
    w._fighters[1].gold = 2  # as if it had picked up two coins
    events = w.leave(1)
    assert events[0] == Left(1)
    assert events[-1] == TurnStarted(2, 6)  # at once, with its own full AP
    assert w.tile((1, 1)) == "G" and w.gold_at((1, 1)) == 2
    assert 1 not in w


def test_2015_defect_players_after_the_leaver_keep_playing() -> None:
    # zss: after a lower-numbered player leaves, higher ones are cut off (t4, t5).
    w = placed((1, 1), (1, 3), (1, 5))
    act(w, 1, EndTurn())
    w.leave(2)  # held the turn, and someone follows: 3 must get STARTTURN (zss sent none)
    assert w.turn == 3 and w.action_points(3) == 6
    assert act(w, 3, Move(E))[0] == Moved(3, (1, 5), (1, 6))
    assert w.look(3)[2][1] == "."  # and it can LOOK


def test_2015_defect_the_last_in_the_list_leaving_on_its_turn_passes_it_round() -> None:
    # zss: IndexOutOfBounds, no STARTTURN, the game stalls (t5).
    w = placed((1, 1), (1, 3))
    act(w, 1, EndTurn())
    assert w.leave(2) == [Left(2), TurnStarted(1, 6)]


def test_2015_defect_the_last_living_player_leaving_leaves_nobody_playing() -> None:
    # zss (read): the do/while in endTurn never exits when only the dead remain.
    w = placed((1, 1), (1, 3))
    w.leave(2)
    assert w.leave(1) == [Left(1)]
    assert w.turn is None


def test_a_turn_not_played_in_time_ends_as_missed() -> None:
    w = placed((1, 1), (1, 3))
    assert w.time_out(2) == []  # not its turn: nothing happens
    assert w.time_out(1) == [TurnEnded(1, missed=True), TurnStarted(2, 6)]


# -- §2 commands and their cost ------------------------------------------------------------


def test_a_move_costs_1_ap_and_a_failed_move_costs_nothing() -> None:
    w = placed((1, 1), (1, 2))
    assert act(w, 1, Move(N)) == [Blocked(1, "a wall")]
    assert act(w, 1, Move(E)) == [Blocked(1, "another player")]
    assert w.action_points(1) == 6
    assert act(w, 1, Move(S)) == [Moved(1, (1, 1), (2, 1))]
    assert w.action_points(1) == 5


def test_moving_off_a_map_without_a_border_fails() -> None:
    w = placed((0, 0), text="name O\nwin 0\n..E\n")
    assert act(w, 1, Move(N)) == [Blocked(1, "the edge of the map")]


def test_pickup_costs_1_ap_2015_defect_charged_nothing() -> None:
    w = placed((4, 1))
    assert act(w, 1, Pickup()) == [PickedUp(1, "G", 1)]
    assert w.action_points(1) == 5 and w.tile((4, 1)) == "."
    assert act(w, 1, Pickup()) == [NothingToPickUp(1)]  # nothing there: free
    assert w.action_points(1) == 5


def test_a_second_sword_is_refused_and_costs_nothing() -> None:
    w = placed((2, 2))
    act(w, 1, Pickup())
    w._tiles[2 * w._width + 2] = ord("S")  # a second sword where the first lay
    assert act(w, 1, Pickup()) == [PickupRefused(1, "you already have a sword")]
    assert w.action_points(1) == 5 and w.tile((2, 2)) == "S"


def test_six_moves_end_the_turn_without_endturn() -> None:
    w = placed((1, 1), (3, 7))
    events = act(w, 1, Move(E), Move(E), Move(E), Move(E), Move(E))
    assert w.turn == 1
    events = act(w, 1, Move(S))
    assert events[-2:] == [TurnEnded(1), TurnStarted(2, 6)]


def test_an_attack_uses_every_ap_left_2015_defect_charged_1() -> None:
    w = placed((1, 1), (1, 2), seed=hit_seed(False, after=0))
    act(w, 1, Move(S), Move(N))  # 4 AP left
    events = act(w, 1, Attack(E))
    assert events == [Attacked(1, 2, False, 0), TurnEnded(1), TurnStarted(2, 6)]


def test_an_attack_on_an_empty_square_costs_nothing() -> None:
    w = placed((1, 1), (1, 5))
    events = act(w, 1, Attack(E))
    assert events[0] == Attacked(1, None, False, 0)
    assert isinstance(events[1], Notice) and w.action_points(1) == 6 and w.turn == 1


def test_attacks_go_only_north_east_south_or_west() -> None:
    w = placed((1, 1), (2, 2))
    with pytest.raises(WorldError):
        w.resolve([(1, Attack(Direction.SE))])


# -- §4 combat -------------------------------------------------------------------------------


def test_hits_land_three_times_in_four_from_the_seed() -> None:
    hits = 0
    for seed in range(2000):
        w = placed((1, 1), (1, 2), seed=seed)
        attacked = act(w, 1, Attack(E))[0]
        assert isinstance(attacked, Attacked)
        hits += attacked.hit
    assert 0.72 < hits / 2000 < 0.78  # zss: 9/13 ≈ 0.69


def test_damage_is_1_plus_sword_minus_armour() -> None:
    for sword, armour, damage in [(0, 0, 1), (1, 0, 2), (0, 1, 0), (1, 1, 1)]:
        w = placed((1, 1), (1, 2), seed=hit_seed(True, after=0))
        if sword:
            w._fighters[1].items.add("S")
        if armour:
            w._fighters[2].items.add("A")
        events = act(w, 1, Attack(E))
        assert events[:2] == [
            Attacked(1, 2, True, damage),
            HitPointsChanged(2, -damage, 3 - damage),
        ]


def test_bots_can_be_attacked() -> None:
    w = world(seed=hit_seed(True, after=0))
    w.join(1, at=(1, 1))
    w.join(2, PlayerKind.BOT, at=(1, 2))
    assert act(w, 1, Attack(E))[0] == Attacked(1, 2, True, 1)


def kill(w: BattleWorld, attacker: int, direction: Direction) -> list[Event]:
    """Attack until the victim dies (the victim passes its turns)."""
    events: list[Event] = []
    for _ in range(100):
        if w.turn == attacker:
            events += act(w, attacker, Attack(direction))
            if any(isinstance(e, Died) for e in events):
                return events
        else:
            assert w.turn is not None, "the battle ended before a death"
            act(w, w.turn, EndTurn())
    raise AssertionError("never died")


def test_at_0_hp_the_victim_dies_its_gold_falls_and_its_items_are_lost() -> None:
    w = placed((1, 2), (1, 1), seed=5)
    w._fighters[2].gold = 3
    w._fighters[2].items.add("L")
    events = kill(w, 1, W)
    died = events.index(Died(2, "You were slain: your hit points reached 0."))
    assert events[died - 1] == HitPointsChanged(2, -1, 0)
    assert isinstance(events[died + 1], Notice)
    assert 2 not in w and w.hit_points(2) == 0
    assert w.tile((1, 1)) == "G" and w.gold_at((1, 1)) == 3  # no L: items are destroyed
    act(w, 1, Move(W))
    assert act(w, 1, Pickup()) == [PickedUp(1, "G", 3)]  # the whole pile at once


def test_dropped_gold_joins_a_pile_and_replaces_another_item() -> None:
    w = placed((4, 2), (4, 1), seed=5)  # the victim stands on a coin
    w._fighters[2].gold = 2
    kill(w, 1, W)
    assert w.gold_at((4, 1)) == 3
    w = placed((2, 3), (2, 2), seed=5)  # on the sword
    w._fighters[2].gold = 1
    kill(w, 1, W)
    assert w.tile((2, 2)) == "G" and w.gold_at((2, 2)) == 1


def test_gold_dropped_on_an_exit_is_lost_and_no_gold_leaves_the_square_as_it_was() -> None:
    w = placed((4, 6), (4, 7), seed=5)
    w._fighters[2].gold = 2
    events = kill(w, 1, E)
    assert w.tile((4, 7)) == "E"
    assert Notice(None, "2 gold fell on an exit and was lost") in events
    w = placed((2, 3), (2, 2), seed=5)  # on the sword, with no gold
    kill(w, 1, W)
    assert w.tile((2, 2)) == "S"


def test_the_dead_are_skipped_and_a_lone_survivor_plays_on() -> None:
    w = placed((1, 2), (1, 1), seed=5)
    events = kill(w, 1, W)
    assert events[-2:] == [TurnEnded(1), TurnStarted(1, 6)]  # zss: ENDTURN, STARTTURN


# -- §5 items and LOOK ---------------------------------------------------------------------------


def test_look_geometry_priorities_and_centre() -> None:
    w = placed((2, 4), (2, 5), (1, 4))
    view = w.look(1)
    assert view == ("X###X", "..P..", "SALPH", ".....", "X...X")
    act(w, 1, Pickup())  # the lantern
    view = w.look(1)
    assert view == (
        "XX###XX",  # off the map, then the wall row, corners hidden
        "X#####X",
        "...P...",
        ".SA.PH.",  # the lantern's square is floor now; the centre shows it, not P
        ".......",
        "X.....X",  # the gold and the exit are one step out of reach
        "XX###XX",
    )
    off = placed((0, 0), text="name O\nwin 0\n..E\n...\n")
    assert off.look(1) == ("X###X", "#####", "##..E", "##...", "X###X")


def test_a_player_sees_exactly_the_visible_cells_of_its_look() -> None:
    w = placed((2, 4))
    for lantern in (False, True):
        view = w.look(1)
        reach = len(view) // 2
        for dr in range(-reach - 1, reach + 2):
            for dc in range(-reach - 1, reach + 2):
                inside = abs(dr) <= reach and abs(dc) <= reach
                visible = inside and view[reach + dr][reach + dc] != "X"
                assert w.sees(1, (2 + dr, 4 + dc)) == visible, (lantern, dr, dc)
        if not lantern:
            act(w, 1, Pickup())


def test_a_health_potion_adds_a_hit_point_without_cap_and_ends_the_turn() -> None:
    w = placed((2, 6), (4, 3))
    w._fighters[1].hp = 3
    events = act(w, 1, Pickup())
    assert events == [
        PickedUp(1, "H", 0, is_gold=False),
        HitPointsChanged(1, 1, 4),
        TurnEnded(1),
        TurnStarted(2, 6),
    ]
    assert w.hit_points(1) == 4


def test_a_health_potion_works_with_1_ap_left() -> None:
    w = placed((2, 7), (4, 3))
    act(w, 1, Move(N), Move(S), Move(N), Move(S), Move(W))  # 1 AP left, on the potion
    assert act(w, 1, Pickup())[1] == HitPointsChanged(1, 1, 4)


# -- §6 winning and losing ---------------------------------------------------------------


def test_the_first_on_an_exit_with_the_gold_wins_and_everyone_else_loses() -> None:
    w = placed((4, 1), (1, 1), (1, 3))
    act(w, 1, Pickup(), Move(E), Move(E), Move(E), Move(E))
    assert w.turn == 1 and w.action_points(1) == 1
    assert act(w, 1, Move(E))[-1] == TurnStarted(2, 6)  # one step short of the exit
    act(w, 2, EndTurn())
    act(w, 3, EndTurn())
    events = act(w, 1, Move(E))
    assert isinstance(events[1], Escaped) and events[1].player == 1 and events[1].gold == 1
    assert events[2:] == [Defeated(2, 1), Defeated(3, 1)]
    assert w.over and w.turn is None and 2 not in w
    with pytest.raises(WorldError, match="over"):
        w.resolve([(2, Move(E))])
    with pytest.raises(WorldError, match="over"):
        w.join(4)


def test_an_exit_without_the_gold_is_just_a_square() -> None:
    w = placed((4, 6), (1, 1))
    assert act(w, 1, Move(E)) == [Moved(1, (4, 6), (4, 7))]
    assert not w.over


def test_a_goal_of_0_wins_on_any_action_on_an_exit() -> None:
    w = placed((1, 1), (1, 3), text="name Z\nwin 0\n#####\n#.E.#\n#####\n")
    events = act(w, 1, Move(E))
    assert isinstance(events[1], Escaped) and events[2] == Defeated(2, 1)


def test_the_same_seed_and_calls_give_the_same_battle() -> None:
    def battle(seed: int) -> list[Event]:
        w = plugin.open("default", seed=seed)
        log = [e for p in (1, 2, 3) for e in w.join(p)]
        for _ in range(300):
            if w.turn is None:
                break
            player = w.turn
            actions: list[Action] = [
                Move(N),
                Move(E),
                Move(S),
                Move(W),
                Attack(E),
                Attack(W),
                Pickup(),
            ]
            action = actions[len(log) % 7]
            log += w.resolve([(player, action)])
        return log

    assert battle(11) == battle(11)
    assert battle(11) != battle(12)


@pytest.mark.parametrize("name", plugin.maps())
def test_every_shipped_classic_map_opens_as_a_battle(name: str) -> None:
    w = plugin.open(name, seed=1)
    w.join(1)
    assert len(w.look(1)) == 5


def test_every_compat_classic_map_plays_as_a_battle(compat: Path) -> None:
    files = sorted((compat / "dod-maps").iterdir())
    assert files
    for path in files:
        w = plugin.open(str(path), seed=2)
        for player in (1, 2, 3):
            w.join(player)
        assert w.turn == 1 and w.action_points(1) == 6
        for _ in range(12):  # a few turns of whatever the squares allow
            player = w.turn
            w.resolve([(player, Pickup())])
            w.resolve([(player, EndTurn())])
        assert len(w.look(w.turn)) in (5, 7)


def test_no_win_is_possible_once_gold_falls_on_an_exit() -> None:
    """Gold dropped by a death moves to the floor; on an exit it is lost, and with it
    every chance of a win (the server then ends the game: ``World.unwinnable``)."""
    lost = "name Lost\nwin 2\n######\n#GE.G#\n######\n"
    w = placed((1, 1), (1, 3), text=lost)
    assert w.unwinnable() is None
    w.resolve([(1, Pickup()), (1, Move(E))])  # on the exit with 1 of the 2 coins: no win
    assert w.unwinnable() is None, "1 coin carried and 1 on the floor make the 2 needed"
    w.leave(1)  # leaving is death: the coin falls on the exit and is lost
    assert w.unwinnable() == (
        "nobody can win any more: 1 gold is left in the battle, on the floor "
        "and carried, and 2 is needed to escape"
    )
