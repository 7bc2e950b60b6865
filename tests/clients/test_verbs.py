"""The client library offers one method per verb that declares one, on both clients."""

from __future__ import annotations

from dungeon_of_doom.clients import AsyncClient, Client
from dungeon_of_doom.clients.core import ClientCommand, ClientCommands, ClientCore
from dungeon_of_doom.protocol.commands import DECLARED_VERBS


def _methods(cls: type) -> set[str]:
    return {name for name, value in vars(cls).items() if isinstance(value, ClientCommand)}


def test_the_clients_commands_are_the_declared_ones() -> None:
    declared = {verb.client for verb in DECLARED_VERBS if verb.client is not None}
    assert _methods(ClientCommands) == declared
    for client in (Client, AsyncClient):
        assert issubclass(client, ClientCommands)
        assert not _methods(client), "no transport declares commands of its own"


def test_each_client_method_sends_its_verb() -> None:
    core = ClientCore()
    for verb in DECLARED_VERBS:
        if verb.client is None:
            continue
        make = getattr(ClientCore, verb.client)
        arguments: dict[str, tuple[str, ...]] = {
            "move": ("N",),
            "attack": ("N",),
            "shout": ("hi",),
            "join": ("g",),
        }
        arguments |= {"watch": ("g",), "create": ("g", "classic")}
        request = make(core, *arguments.get(verb.client, ()))
        assert type(request.command) is verb.command
