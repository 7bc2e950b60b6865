"""What every world event becomes, who hears it, and the sentence a watcher reads
(server/game/wording.py's TELLINGS): one declarative table, held here to every event, to
what each world declares it emits, and to what the web page's viewer and a replay's story
say; a new event without its entry fails here, naming the table to edit."""

from __future__ import annotations

import inspect
import random

import pytest

import worlds.api as api
import worlds.turns as turns
from protocol.commands import Attack, EndTurn, Move, Pickup, Stay
from protocol.replies import (
    Done,
    Fail,
    GameWon,
    GoldCoins,
    HitMod,
    Lose,
    Notice,
    Success,
    TurnBegins,
    TurnOf,
    TurnOver,
    Win,
)
from server.game.story import describe
from server.game.wording import TELLINGS, result_reply, sentence_of, telling_of
from server.replay.reader import Step
from server.web.frames import FrameTeller
from worlds.api import Action, Ending, Event, PlayerKind
from worlds.registry import load_plugin, world_names
from worlds.turns import plays_in_turns


def _labels(player: int) -> str:
    return {1: "Ada", 2: "Bob"}.get(player, f"#{player}")


def _events() -> set[type[Event]]:
    """Every concrete event class of the world API."""
    return {
        cls
        for module in (api, turns)
        for _, cls in inspect.getmembers(module, inspect.isclass)
        if issubclass(cls, Event) and cls not in (Event, api.ResultEvent, turns.TurnEvent)
    }


# (event, the actor's reply, pushed to its player, pushed to the others, its ending,
#  the sentence a watcher reads: the web page's viewer, a replay's story)
TOLD = [
    (api.Moved(1, (0, 0), (0, 1)), Success(), None, None, None, ""),
    (api.Stayed(1), Success(), None, None, None, ""),
    (
        api.Blocked(1, "a wall"),
        Fail("can't move into a wall"),
        None,
        None,
        None,
        "Ada bumped into a wall",
    ),
    (
        api.NothingToPickUp(1),
        Fail("nothing to pick up"),
        None,
        None,
        None,
        "Ada found nothing to pick up",
    ),
    (api.PickedUp(1, "gold", 3), GoldCoins(3), None, None, None, "Ada picked up gold (3 of 5)"),
    (
        api.PickedUp(1, "sword", 0, is_gold=False),
        Success(),
        None,
        None,
        None,
        "Ada picked up sword",
    ),
    (turns.Attacked(1, 2, True, 2), Success(), None, None, None, "Ada attacked Bob and hit for 2"),
    (
        turns.Attacked(1, 2, False, 0),
        Fail("Attack missed."),
        None,
        None,
        None,
        "Ada attacked Bob and missed",
    ),
    (
        turns.Attacked(1, None, False, 0),
        Fail("There is no one to attack here."),
        None,
        None,
        None,
        "Ada attacked thin air",
    ),
    (turns.TurnPassed(1), Done(), None, None, None, ""),
    (
        turns.PickupRefused(1, "you already have a sword"),
        Fail("you already have a sword"),
        None,
        None,
        None,
        "",
    ),
    (api.Joined(1, (0, 0)), None, None, None, None, "Ada entered the dungeon"),
    (api.Left(1), None, None, None, None, ""),
    (
        api.Escaped(1, 3, 9, "You escaped."),
        None,
        None,
        None,
        Ending(Win("You escaped."), "escaped", 3, 9),
        "Ada won: You escaped.",
    ),
    (
        api.Died(1, "You died."),
        None,
        None,
        None,
        Ending(Lose("You died."), "died"),
        "Ada died: You died.",
    ),
    (api.Notice(1, "a door opens"), None, Notice("a door opens"), None, None, "Ada: a door opens"),
    (
        api.Notice(None, "the floor shakes"),
        None,
        Notice("the floor shakes"),
        None,
        None,
        "the floor shakes",
    ),
    (turns.TurnStarted(1, 6), None, TurnBegins(6), TurnOf("Ada"), None, "Ada's turn (6 AP)"),
    (turns.TurnEnded(1, missed=True), None, TurnOver(timed_out=True), None, None, ""),
    (turns.HitPointsChanged(1, -2, 3), None, HitMod(-2), None, None, "Ada has 3 HP"),
    (
        turns.Defeated(1, 2),
        None,
        GameWon("Bob has won the game"),
        None,
        Ending(Lose("Bob won the game."), "lost"),
        "Ada lost: Bob won",
    ),
]


def test_every_event_is_declared_and_told() -> None:
    untold = _events() - set(TELLINGS)
    assert not untold, f"add a telling of {untold} to TELLINGS in server/game/wording.py"
    assert set(TELLINGS) == _events()
    assert {type(told[0]) for told in TOLD} == _events()


@pytest.mark.parametrize(("event", "answer", "to_player", "to_others", "ends", "sentence"), TOLD)
def test_what_each_event_becomes(
    event: Event, answer: object, to_player: object, to_others: object, ends: object, sentence: str
) -> None:
    told = telling_of(event)
    assert told.answers == isinstance(event, api.ResultEvent)
    assert (told.answer(event) if told.answers else None) == answer
    if isinstance(answer, Fail):  # the reason the dialects that write it say
        reply = told.answer(event)
        assert isinstance(reply, Fail)
        assert reply.reason == answer.reason
    if answer is not None:
        assert isinstance(event, api.ResultEvent)
        assert result_reply(event).to_bytes() == answer.to_bytes()
        assert type(result_reply(event)) is type(answer)
    assert (told.to_player(event, _labels) if told.to_player else None) == to_player
    assert (told.to_others(event, _labels) if told.to_others else None) == to_others
    assert (told.ends(event, _labels) if told.ends else None) == ends
    assert sentence_of(event, _labels, 5) == sentence


@pytest.mark.parametrize("event", [row[0] for row in TOLD], ids=lambda event: type(event).__name__)
def test_the_viewer_and_the_story_read_the_table_s_sentences(event: Event) -> None:
    # The web page's viewer tells a replay's events by the table's sentences...
    world = load_plugin("classic").open("default", seed=5)
    step = Step({"round": 1, "actions": []}, [event])
    teller = FrameTeller({1: "Ada", 2: "Bob"})
    told = [told["text"] for told in teller.frame(world, step, draw=False)["events"]]
    expected = sentence_of(event, teller.who, world.goal)
    assert told == ([expected] if expected else [])
    # ...and so does a replay's story, for what happened besides the replies to actions.
    story = describe(step, {1: "Ada", 2: "Bob"}, world)
    if not isinstance(event, api.ResultEvent) and expected:
        assert story.endswith(expected)


def test_a_worlds_own_subclass_is_told_as_its_declared_ancestor() -> None:
    class Slid(api.Moved):
        pass

    assert telling_of(Slid(1, (0, 0), (0, 1))) is TELLINGS[api.Moved]
    with pytest.raises(TypeError, match="no telling"):
        telling_of(Event(None))


@pytest.mark.parametrize("name", world_names())
def test_each_world_declares_what_it_emits_and_the_server_tells_it(name: str) -> None:
    world = load_plugin(name).open(None, seed=0)
    untold = world.emits - set(TELLINGS) - set(world.tellings)
    assert not untold, (
        f"{name} emits {untold}: tell them in its World.tellings, or in TELLINGS in "
        "server/game/wording.py if every world may"
    )
    assert world.has_turns == isinstance(world, turns.TurnBasedWorld)
    # Play: every event the world reports is one it declared.
    rng = random.Random(7)
    seen: set[type[Event]] = set()
    players = [1, 2]
    for player in players:
        seen |= {type(event) for event in world.join(player, PlayerKind.BOT)}
    directions = sorted(world.directions, key=lambda d: d.name)
    for _ in range(400):
        alive = [p for p in players if world.status(p) is not None]
        if not alive:
            break
        mover = world.turn if plays_in_turns(world) else rng.choice(alive)
        if mover is None:
            break
        choices: list[Action] = [Move(rng.choice(directions)), Pickup()]
        if world.allows_stay:
            choices.append(Stay())
        if plays_in_turns(world):
            choices += [Attack(rng.choice(directions)), EndTurn()]
        seen |= {type(event) for event in world.resolve([(mover, rng.choice(choices))])}
        if plays_in_turns(world) and rng.random() < 0.05 and world.turn is not None:
            seen |= {type(event) for event in world.time_out(world.turn)}
    for player in players:
        if world.status(player) is not None:
            seen |= {type(event) for event in world.leave(player)}
    assert seen <= world.emits, f"{name} emitted events it does not declare"
    assert api.Joined in seen
