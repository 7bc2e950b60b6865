"""Small classic Dungeon of Doom servers, each with at most one deliberate fault.

:class:`FaultyServer` plays the 2013 protocol on a fixed 5×9 map, written
independently of our own server (only the shared input parsing is reused),
so the suite is shown to judge a server by its replies alone. With
``fault=None`` it conforms; each :class:`Fault` breaks exactly one thing.
"""

from __future__ import annotations

import enum
from typing import Final

import trio

from dungeon_of_doom.protocol.commands import Command, Hello, Look, Move, Pickup, Quit
from dungeon_of_doom.protocol.connection import ServerProtocol
from dungeon_of_doom.protocol.errors import RemoteProtocolError
from dungeon_of_doom.protocol.framing import END_OF_INPUT, NEED_DATA

MAP: Final = (
    "#########",
    "#G..#...#",
    "#.#.#.G.#",
    "#...E...#",
    "#########",
)
TARGET: Final = 1
# Players join on these squares, the first free one: two players start in view
# of each other but with a wall between them.
SPAWNS: Final = ((1, 2), (3, 2), (1, 6), (3, 6))


class Fault(enum.Enum):
    GOLD_COLON = "HELLO answers 'GOLD: 1'"
    NO_CORNER = "the top right corner of LOOK shows the square, not X"
    THROUGH_WALLS = "MOVE goes through walls"
    SILENT = "reads everything, answers nothing"
    CRLF = "every reply line ends in CRLF"
    GREETING = "greets every connection with 'GOLD 1' before any command"
    DOUBLE_FAIL = "a failed MOVE is answered 'FAIL' twice"


class FaultyServer:
    def __init__(self, fault: Fault | None = None) -> None:
        self.fault = fault
        self.tiles = [list(row) for row in MAP]
        self.players: dict[int, tuple[int, int]] = {}
        self.gold: dict[int, int] = {}
        self._ids = iter(range(1, 1_000_000))

    async def run(self, *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        task_status.started(listeners[0].socket.getsockname()[1])
        await trio.serve_listeners(self._serve, listeners)

    async def _serve(self, stream: trio.SocketStream) -> None:
        protocol = ServerProtocol()
        player = next(self._ids)
        try:
            if self.fault is Fault.GREETING:
                await stream.send_all(f"GOLD {TARGET}\n".encode())
            while data := await stream.receive_some(4096):
                protocol.receive_data(data)
                out, ended = self._handle_input(protocol, player)
                out = protocol.data_to_send() + out
                if self.fault is Fault.CRLF:
                    out = out.replace(b"\n", b"\r\n")
                if out and self.fault is not Fault.SILENT:
                    await stream.send_all(out)
                if ended:
                    return
        except trio.BrokenResourceError:
            pass
        finally:
            self.players.pop(player, None)
            await stream.aclose()

    def _handle_input(self, protocol: ServerProtocol, player: int) -> tuple[bytes, bool]:
        out = bytearray()
        while True:
            try:
                event = protocol.next_event()
            except RemoteProtocolError as error:
                out += f"ERROR {error}\n".encode()
                continue
            if event is NEED_DATA:
                return bytes(out), False
            if event is END_OF_INPUT or isinstance(event, Quit):
                return bytes(out), True
            if player not in self.players:
                self.players[player] = next(s for s in SPAWNS if s not in self.players.values())
                self.gold[player] = 0
            lines, ended = self._command(player, event)  # type: ignore[arg-type]
            out += "".join(line + "\n" for line in lines).encode()
            if ended:
                return bytes(out), True

    def _command(self, player: int, command: Command) -> tuple[list[str], bool]:
        row, column = self.players[player]
        if isinstance(command, Hello):
            return [
                f"GOLD: {TARGET}" if self.fault is Fault.GOLD_COLON else f"GOLD {TARGET}"
            ], False
        if isinstance(command, Look):
            return ["LOOKREPLY", *self._look(player)], False
        if isinstance(command, Pickup):
            if self.tiles[row][column] != "G":
                return ["FAIL"], False
            self.tiles[row][column] = "."
            self.gold[player] += 1
            return [f"SUCCESS, GOLD COINS: {self.gold[player]}"], False
        if isinstance(command, Move):
            to = (row + command.direction.row_step, column + command.direction.column_step)
            wall = self._tile(to) == "#" and not (
                self.fault is Fault.THROUGH_WALLS and self._inside(to)
            )
            if command.direction.is_diagonal or wall or to in self.players.values():
                return ["FAIL", "FAIL"] if self.fault is Fault.DOUBLE_FAIL else ["FAIL"], False
            self.players[player] = to
            if self._tile(to) == "E" and self.gold[player] >= TARGET:
                return ["SUCCESS", "WIN You escaped."], True
            return ["SUCCESS"], False
        return [f"ERROR {command.verb} is not a classic command"], False

    def _inside(self, square: tuple[int, int]) -> bool:
        return 0 <= square[0] < len(self.tiles) and 0 <= square[1] < len(self.tiles[0])

    def _tile(self, square: tuple[int, int]) -> str:
        return self.tiles[square[0]][square[1]] if self._inside(square) else "#"

    def _look(self, player: int) -> list[str]:
        row, column = self.players[player]
        others = {square for who, square in self.players.items() if who != player}
        rows = []
        for dr in range(-2, 3):
            line = ""
            for dc in range(-2, 3):
                square = (row + dr, column + dc)
                corner = abs(dr) == 2 and abs(dc) == 2
                if corner and not (self.fault is Fault.NO_CORNER and (dr, dc) == (-2, 2)):
                    line += "X"
                elif square in others:
                    line += "P"
                else:
                    line += self._tile(square)
            rows.append(line)
        return rows
