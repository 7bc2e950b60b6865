"""Each capability is declared once (protocol.capabilities.DECLARED_CAPABILITIES); what
EXTEND grants, its HELP line and the protocol document's list are held to it here."""

from __future__ import annotations

from pathlib import Path

from protocol.capabilities import CAPABILITIES, DECLARED_CAPABILITIES, DEFAULT_CAPABILITIES
from protocol.commands import DECLARED_VERBS, Extend
from protocol.connection import ServerProtocol
from protocol.replies import Extended

PROTOCOL_DOC = Path(__file__).parents[2] / "docs" / "protocol.md"


def test_each_capability_is_declared_once_and_extend_grants_it() -> None:
    assert len(set(CAPABILITIES)) == len(CAPABILITIES) == len(DECLARED_CAPABILITIES)
    for capability in DECLARED_CAPABILITIES:
        server = ServerProtocol()
        server.receive_data(f"EXTEND {capability.name}\n".encode())
        command = server.next_event()
        assert isinstance(command, Extend)
        reply = server.extend(command)
        assert reply == Extended((capability.name,))
        assert server.send(reply) == f"EXTENDED {capability.name}\n".encode()


def test_a_bare_extend_grants_the_declared_defaults() -> None:
    server = ServerProtocol()
    server.receive_data(b"EXTEND\n")
    command = server.next_event()
    assert isinstance(command, Extend)
    assert server.send(server.extend(command)) == b"EXTENDED events chat\n"
    assert DEFAULT_CAPABILITIES == ("events", "chat")


def test_the_protocol_document_lists_every_capability_as_declared() -> None:
    text = PROTOCOL_DOC.read_text()
    for capability in DECLARED_CAPABILITIES:
        assert f"| `{capability.name}` | {capability.gives} |" in text, capability.name


def test_redirect_is_asked_for_by_name_and_listed_last() -> None:
    server = ServerProtocol()
    server.receive_data(b"EXTEND redirect events\n")
    command = server.next_event()
    assert isinstance(command, Extend)
    assert server.send(server.extend(command)) == b"EXTENDED events redirect\n"
    assert "redirect" in server.capabilities


def test_help_names_every_capability_and_the_defaults() -> None:
    [extend] = [verb for verb in DECLARED_VERBS if verb.word == "EXTEND"]
    line = extend.help_line("N S E W")
    assert line == (
        "EXTEND [caps]  turn on events, chat, bot, board, probe, redirect (alone: events, chat)"
    )
    assert all(name in line for name in CAPABILITIES)
