"""Each verb is declared once (protocol.commands.DECLARED_VERBS); the parser, the server's
routes and HELP are derived from the declarations, and held to them here."""

from __future__ import annotations

import inspect

import pytest

import protocol.commands as commands
from protocol.commands import DECLARED_VERBS, VERBS, Command, Route, Shown, parse_command
from protocol.errors import RemoteProtocolError
from server.game.verbs import COMMANDS as GAME_COMMANDS
from server.game.wording import help_reply
from server.lobby.ladder import Ladder
from server.lobby.lobby import Lobby
from server.session.client import _OWN, Connection
from worlds.registry import load_plugin, world_names
from worlds.turns import plays_in_turns


def test_each_verb_and_command_class_is_declared_once() -> None:
    words = [verb.word for verb in DECLARED_VERBS]
    classes = [verb.command for verb in DECLARED_VERBS]
    assert len(set(words)) == len(words)
    assert len(set(classes)) == len(classes)
    defined = {
        cls
        for _, cls in inspect.getmembers(commands, inspect.isclass)
        if issubclass(cls, Command) and cls is not Command
    }
    assert defined == set(classes), "every command class has its verb declared"
    assert set(words) == VERBS


@pytest.mark.parametrize("verb", DECLARED_VERBS, ids=lambda verb: verb.word)
def test_the_parser_is_the_declared_one(verb: commands.Verb) -> None:
    # Each verb's own parser reads its word; a wrong argument count is refused in its words.
    for args in ([], ["N"], ["g", "classic"], ["Ada", "token"]):
        try:
            expected = verb.parse(list(args))
        except RemoteProtocolError:
            continue
        assert parse_command(" ".join((verb.word.lower(), *args))) == expected
        assert type(expected) is verb.command
        return
    pytest.fail(f"no argument list tried makes a {verb.word}")


def test_every_verb_is_routed_as_declared() -> None:
    assert set(Connection.ROUTES) == {verb.command for verb in DECLARED_VERBS}
    session = {verb.command for verb in DECLARED_VERBS if verb.route is Route.SESSION}
    assert set(_OWN) == session, "the session handles exactly its own verbs"
    for verb in DECLARED_VERBS:
        handler = Connection.ROUTES[verb.command]
        if verb.route is Route.GAME:
            assert handler is Connection._to_game
        elif verb.route is Route.LOBBY:
            assert handler is Connection._to_lobby
        elif verb.route is Route.LADDER:
            assert handler is Connection._to_ladder
        elif verb.route is Route.SESSION:
            assert handler is _OWN[verb.command]
        else:
            assert verb.answer is not None


@pytest.mark.parametrize("name", world_names())
def test_help_lists_what_each_world_allows_as_declared(name: str) -> None:
    plugin = load_plugin(name)
    world = plugin.open(None, seed=0)
    in_turns = plays_in_turns(world)
    lines = help_reply(world, name, in_turns=in_turns).text
    directions = lines[2].split("directions here: ")[1]
    for verb in DECLARED_VERBS:
        shown = {
            Shown.ALWAYS: True,
            Shown.EXTENSION: True,
            Shown.STAY: world.allows_stay,
            Shown.TURNS: in_turns,
        }[verb.shown]
        assert (verb.help_line(directions) in lines) == shown, verb.word
    extensions = lines.index("Extensions (see the protocol document):")
    for verb in DECLARED_VERBS:
        if verb.shown is Shown.EXTENSION:
            assert lines.index(verb.help_line(directions)) > extensions
        elif verb.help_line(directions) in lines:
            assert lines.index(verb.help_line(directions)) < extensions
    assert lines[0] == f"You are in the {name} world. Commands (any letter case):"
    for verb in DECLARED_VERBS:  # one column for what each verb does
        if verb.does:
            assert verb.help_line(directions)[15:].startswith(verb.does[:10]), verb.word


def test_who_a_verb_is_routed_to_answers_it() -> None:
    # Each server part answers exactly the verbs routed to it (HELLO is checked by the
    # session for a claimed name, then answered by the game).
    def routed(route: Route) -> set[type[Command]]:
        return {verb.command for verb in DECLARED_VERBS if verb.route is route}

    assert set(GAME_COMMANDS) == routed(Route.GAME) | {commands.Hello}
    assert set(Lobby._COMMANDS) == routed(Route.LOBBY)
    assert set(Ladder._COMMANDS) == routed(Route.LADDER)
