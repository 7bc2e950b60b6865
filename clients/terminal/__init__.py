"""A full-screen terminal client: ``dod-play`` (see ``docs/terminal.md``).

It shows the map with colours, a status line and a message log, moves with
keys (each world's own), has a command line for any protocol command and chat,
and watches games. It speaks only the public protocol, through
:class:`clients.AsyncClient`.

The parts that are not the screen are plain modules that can be used and tested
alone: :mod:`.keys` (key bindings per world), :mod:`.palette` (what each square
is, for its colour, and cropping a big map), :mod:`.state` (what the client
knows, from replies and pushes), :mod:`.status` (the status line),
:mod:`.messages` (the message log), :mod:`.command_line` (typed commands);
:mod:`.session` is the connection, :mod:`.app` the screen, :mod:`.cli` the command.
"""

from .cli import main

__all__ = ["main"]
