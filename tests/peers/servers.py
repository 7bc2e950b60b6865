"""The other servers of ``DIALECTS.md``, as trio test doubles on port 0.

Every double plays the same small map (goal 2, one exit) so that a bot can win on
any of them; what differs is exactly what the page records: the bytes of each
reply, greetings, turns, and quirks. ``await start_peer(nursery, "zss")`` starts
one and returns it; ``peer.port`` is where it listens and ``peer.gone`` is set
once a server that exits has exited.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar, Final

import trio

MAP: Final = (
    "##########",
    "#..G#....#",
    "#.#.#.##.#",
    "#...G..E.#",
    "##########",
)
GOAL: Final = 2
_JAVA_SPACE: Final = "".join(map(chr, range(33)))
# Players arrive on the first free square of these.
SPAWNS: Final = ((1, 1), (3, 1), (1, 5), (1, 8), (3, 6), (1, 6), (2, 8), (3, 8), (2, 5), (1, 7))
STEPS: Final = {"N": (-1, 0), "S": (1, 0), "E": (0, 1), "W": (0, -1)}


@dataclass(eq=False)
class Conn:
    """One client of a double."""

    stream: trio.SocketStream
    number: int
    one_byte_writes: bool = False
    name: str = ""
    position: tuple[int, int] | None = None
    gold: int = 0
    silenced: bool = False
    said_quit: bool = False
    extra: dict[str, object] = field(default_factory=dict)
    sending: trio.Lock = field(default_factory=trio.Lock)
    sent: list[bytes] = field(default_factory=list)
    """Every write to this client, in order (its server's :attr:`Peer.sent` too)."""

    async def send(self, data: bytes) -> None:
        async with self.sending:  # a push and a reply may be written by two tasks
            self.sent.append(data)
            await self._send(data)

    async def _send(self, data: bytes) -> None:
        try:
            if self.one_byte_writes:
                for byte in data:
                    await self.stream.send_all(bytes((byte,)))
            else:
                await self.stream.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass

    async def lines(self, *lines: str) -> None:
        await self.send("".join(line + "\n" for line in lines).encode())


class Board:
    """The map, the players on it and the gold they hold."""

    def __init__(
        self, rows: tuple[str, ...] = MAP, spawns: tuple[tuple[int, int], ...] = SPAWNS
    ) -> None:
        self.tiles = [list(row) for row in rows]
        self.spawns = spawns
        self.players: list[Conn] = []
        self.over = False

    def spawn(self, conn: Conn) -> bool:
        """Put ``conn`` on the map; False when every square is taken."""
        taken = {player.position for player in self.players}
        free = [square for square in self.spawns if square not in taken]
        if not free:
            return False
        conn.position = free[0]
        self.players.append(conn)
        return True

    def leave(self, conn: Conn) -> None:
        if conn in self.players:
            self.players.remove(conn)

    def view(self, conn: Conn, *, centre_self: bool = False) -> list[str]:
        assert conn.position is not None
        row, column = conn.position
        others = {player.position for player in self.players if player is not conn}
        rows = []
        for dr in range(-2, 3):
            line = ""
            for dc in range(-2, 3):
                r, c = row + dr, column + dc
                if abs(dr) == 2 and abs(dc) == 2:
                    line += "X"
                elif (dr, dc) == (0, 0):
                    line += "P" if centre_self else self.tiles[r][c]
                elif (r, c) in others:
                    line += "P"
                elif 0 <= r < len(self.tiles) and 0 <= c < len(self.tiles[0]):
                    line += self.tiles[r][c]
                else:
                    line += "#"
            rows.append(line)
        return rows

    def move(self, conn: Conn, direction: str) -> str:
        """``"moved"``, ``"won"`` or ``"blocked"``."""
        assert conn.position is not None
        dr, dc = STEPS[direction]
        target = (conn.position[0] + dr, conn.position[1] + dc)
        inside = 0 <= target[0] < len(self.tiles) and 0 <= target[1] < len(self.tiles[0])
        if (
            not inside
            or self.tiles[target[0]][target[1]] == "#"
            or any(player.position == target for player in self.players)
        ):
            return "blocked"
        conn.position = target
        if self.tiles[target[0]][target[1]] == "E" and conn.gold >= GOAL:
            self.over = True
            return "won"
        return "moved"

    def pickup(self, conn: Conn) -> bool:
        assert conn.position is not None
        row, column = conn.position
        if self.tiles[row][column] != "G":
            return False
        self.tiles[row][column] = "."
        conn.gold += 1
        return True


class _Lines:
    """Lines split at ``LF``, a ``CR`` before it dropped."""

    def __init__(self) -> None:
        self._buffer = b""

    def feed(self, data: bytes) -> list[bytes]:
        *lines, self._buffer = (self._buffer + data).split(b"\n")
        return [line.removesuffix(b"\r") for line in lines]


class _JavaLines(_Lines):
    """Lines as Java's ``BufferedReader.readLine`` reads them: ended by ``CR``, ``LF`` or
    ``CRLF``, the ``LF`` of a ``CRLF`` skipped even when it comes in a later read, and
    nothing else: a ``NUL`` after a ``CR`` begins the next line."""

    def __init__(self) -> None:
        super().__init__()
        self._skip_lf = False

    def feed(self, data: bytes) -> list[bytes]:
        lines = []
        for byte in data:
            if byte == 0x0A and self._skip_lf:
                self._skip_lf = False
                continue
            self._skip_lf = byte == 0x0D
            if byte in (0x0A, 0x0D):
                lines.append(self._buffer)
                self._buffer = b""
            else:
                self._buffer += bytes((byte,))
        return lines


class Peer:
    """A server double: listens on port 0, one task per client, lines split at ``LF``
    (and at a lone ``CR`` where :attr:`cr_ends_lines`)."""

    name: ClassVar[str]
    one_byte_writes: ClassVar[bool] = False
    cr_ends_lines: ClassVar[bool] = False
    """Lines end at ``CR``, ``LF`` or ``CRLF``, as Java's ``BufferedReader.readLine``."""
    exits_when_last_client_leaves: ClassVar[bool] = False
    MAP: ClassVar[tuple[str, ...]] = MAP
    """The map the double plays (beyond its edges, every view shows walls)."""
    SPAWNS: ClassVar[tuple[tuple[int, int], ...]] = SPAWNS

    def __init__(self) -> None:
        self.board = Board(self.MAP, self.SPAWNS)
        self.clients: list[Conn] = []
        self.port = 0
        self.gone = trio.Event()
        self._numbers = itertools.count(1)
        self._scope = trio.CancelScope()
        self.received: list[str] = []
        """Every line received, in order (for tests that look at what a client sent)."""
        self.sent: list[bytes] = []
        """Every write to any client, in order (for tests that count what was answered)."""

    async def run(self, *, task_status: trio.TaskStatus[Peer] = trio.TASK_STATUS_IGNORED) -> None:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        self.port = listeners[0].socket.getsockname()[1]
        with self._scope:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(trio.serve_listeners, self._serve, listeners)
                task_status.started(self)
        for listener in listeners:
            await listener.aclose()
        self.gone.set()

    def exit(self) -> None:
        """The process ends: every connection and the listener close."""
        self._scope.cancel()

    async def _serve(self, stream: trio.SocketStream) -> None:
        conn = Conn(
            stream, next(self._numbers), one_byte_writes=self.one_byte_writes, sent=self.sent
        )
        self.clients.append(conn)
        try:
            if await self.on_connect(conn):
                lines = _JavaLines() if self.cr_ends_lines else _Lines()
                while data := await stream.receive_some(4096):
                    for raw in lines.feed(data):
                        line = raw.decode("utf-8", "replace")
                        self.received.append(line)
                        if not await self.on_line(conn, line):
                            return
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        finally:
            self.clients.remove(conn)
            self.on_disconnect(conn)
            await stream.aclose()
            with trio.CancelScope(shield=True):
                await self.after_disconnect(conn)
            if self.exits_when_last_client_leaves and not self.clients:
                self.exit()

    async def on_connect(self, conn: Conn) -> bool:
        """Greet ``conn``; False closes it at once."""
        return True

    async def on_line(self, conn: Conn, line: str) -> bool:
        """Answer one line; False closes the connection."""
        raise NotImplementedError

    def on_disconnect(self, conn: Conn) -> None:
        self.board.leave(conn)

    async def after_disconnect(self, conn: Conn) -> None:
        """What the players still connected are told of a departure (nothing here)."""

    async def others(self, conn: Conn, *lines: str) -> None:
        for other in list(self.board.players):
            if other is not conn:
                await other.lines(*lines)


class Zss(Peer):
    """The 2015 Bath skeleton: ``GOLD 2`` and ``STARTTURN`` pushed, 6 actions a turn."""

    name = "zss"
    ACTIONS = 6
    cr_ends_lines = True  # NetworkedUser reads with BufferedReader.readLine

    def __init__(self) -> None:
        super().__init__()
        self.turn: Conn | None = None
        self.actions_left = 0
        self.joined: list[Conn] = []  # player ids are indices into this list (its bug)

    async def on_connect(self, conn: Conn) -> bool:
        self.board.spawn(conn)
        self.joined.append(conn)
        await conn.lines(f"GOLD {GOAL}")
        if self.turn is None:
            await self._start_turn(conn)
        return True

    def on_disconnect(self, conn: Conn) -> None:
        super().on_disconnect(conn)
        self.joined.remove(conn)
        if self.turn is conn:
            self.turn = None

    async def after_disconnect(self, conn: Conn) -> None:
        # Seen on the wire: each player still connected is pushed CHANGE when another
        # connection leaves (the real server then often falls silent on it; not copied).
        for player in list(self.board.players):
            await player.lines("CHANGE")

    async def _start_turn(self, conn: Conn) -> None:
        self.turn, self.actions_left = conn, self.ACTIONS
        await conn.lines("STARTTURN")

    async def _end_turn(self, conn: Conn) -> None:
        await conn.lines("ENDTURN")
        players = self.board.players
        following = players[(players.index(conn) + 1) % len(players)]
        await self._start_turn(following)

    async def on_line(self, conn: Conn, line: str) -> bool:
        verb, _, argument = line.partition(" ")
        if verb == "HELLO":
            if not argument:
                await conn.lines("FAIL HELLO needs an argument")
            else:
                conn.name = argument
                await conn.lines(f"HELLO {argument}")
        elif verb == "LOOK":
            index = conn.extra.setdefault("id", self.joined.index(conn))
            if not isinstance(index, int) or index >= len(self.joined):
                return True  # the player list shrank under this id: no reply
            await conn.lines("LOOKREPLY", *self.board.view(self.joined[index]), "")
        elif verb == "APGET":
            await conn.lines(f"AP {self.actions_left if self.turn is conn else 0}")
        elif verb == "SHOUT":
            for player in self.board.players:
                await player.lines(f"FROM {conn.name}", f"MESSAGE {argument}")
        elif verb in ("MOVE", "PICKUP", "ATTACK", "ENDTURN"):
            await self._act(conn, verb, argument)
        else:
            await conn.lines("FAIL invalid command")
        return True

    async def _act(self, conn: Conn, verb: str, argument: str) -> None:
        if self.board.over:
            await conn.lines("FAIL the game is over")
            return
        if self.turn is not conn:
            await conn.lines("FAIL not your turn")
            return
        if verb == "ENDTURN":
            await self._end_turn(conn)
            return
        if verb == "MOVE":
            if argument not in STEPS:
                await conn.lines("FAIL invalid direction")
                return
            outcome = self.board.move(conn, argument)
            if outcome == "blocked":
                await conn.lines("FAIL can't move into a wall")
                return
            if outcome == "won":
                await conn.lines("SUCCESS", "WIN")
                await self.others(conn, "LOSE")
                return
            await conn.lines("SUCCESS")
        elif verb == "PICKUP":
            if not self.board.pickup(conn):
                await conn.lines("FAIL nothing to pick up")
                return
            await conn.lines("SUCCESS", "TREASUREMOD 1")
        else:  # ATTACK: nobody to hit in these tests (not recorded in detail)
            await conn.lines("FAIL there is nobody to attack")
            return
        self.actions_left -= 1
        if self.actions_left == 0:
            await self._end_turn(conn)


class ZssMute(Zss):
    """zss once a connection has left, as its player-index bug shows on the wire: a
    connection that joined after a departure gets no reply to ``HELLO <name>``."""

    name = "zss-mute"

    def __init__(self) -> None:
        super().__init__()
        self.departures = 0

    async def on_connect(self, conn: Conn) -> bool:
        conn.extra["late"] = self.departures > 0
        return await super().on_connect(conn)

    def on_disconnect(self, conn: Conn) -> None:
        super().on_disconnect(conn)
        self.departures += 1

    async def on_line(self, conn: Conn, line: str) -> bool:
        if line.startswith("HELLO ") and conn.extra["late"]:
            return True  # the exception ends the command: no reply
        return await super().on_line(conn, line)


class ZssGhosts(Zss):
    """zss whose departed players stay: each keeps its square (a ``P`` in every view
    that reaches it) and its turn, which no one else then gets."""

    name = "zss-ghosts"

    def on_disconnect(self, conn: Conn) -> None:
        pass  # neither the board, the id list nor the turn lets the player go


class Mbk(Peer):
    """A private compact protocol (``H2``, ``L5`` rows, ``MS``, ``PS1``), one connection
    per address. As its server: each connection is welcomed (``Welcome to the dungeon!
    Mwuahaha``), the address's first with its view pushed after it (its view updater sees
    the player's window change as it is placed); each connection of the address is given
    back the address's one player, with the gold it held (``H`` says the gold still needed,
    below 0 once more than the goal is held); a pickup leaves the gold where it was."""

    name = "mbk"
    cr_ends_lines = True
    GREETING_DELAY: ClassVar[float] = 0.0
    """Seconds between accepting a connection and greeting (or refusing) it."""
    RELEASE_DELAY: ClassVar[float] = 0.0
    """Seconds the address stays taken once its connection has closed."""

    def __init__(self) -> None:
        super().__init__()
        self.held = 0
        """The gold of the address's player: every test connects from 127.0.0.1."""
        self.releasing = 0
        """Connections closed whose address is not yet free again."""
        self.welcomed = False

    async def on_connect(self, conn: Conn) -> bool:
        await trio.sleep(self.GREETING_DELAY)
        # One connection per address, and tests all come from one.
        if len(self.clients) > 1 or self.releasing:
            await conn.lines("Connection refused. Address already connected")
            return False
        self.board.spawn(conn)
        conn.gold = self.held  # the address's player, given back
        if self.welcomed:
            await conn.lines("Welcome to the dungeon! Mwuahaha")
        else:
            self.welcomed = True
            await conn.lines("Welcome to the dungeon! Mwuahaha", *self._view(conn))
        return True

    async def after_disconnect(self, conn: Conn) -> None:
        if self.RELEASE_DELAY and conn.position is not None:
            self.releasing += 1
            try:
                await trio.sleep(self.RELEASE_DELAY)
            finally:
                self.releasing -= 1

    async def on_line(self, conn: Conn, line: str) -> bool:
        # Java's trim(): every character up to the space goes, NUL among them.
        verb, _, argument = line.strip(_JAVA_SPACE).upper().partition(" ")
        if verb == "HELLO":
            await conn.lines(f"H{GOAL - self.held}")
        elif verb == "LOOK":
            await conn.lines(*self._view(conn))
        elif verb == "MOVE" and argument in STEPS:
            outcome = self.board.move(conn, argument)
            if outcome == "blocked":
                await conn.lines("MF")
            elif outcome == "won":
                # Its loop checks for a win before reading the next line: WIN, LOSE to
                # the others, and the server shuts down.
                await conn.lines("MS", "WIN")
                await self.others(conn, "LOSE")
                self.exit()
                return False
            else:
                await conn.lines("MS", *self._view(conn))
        elif verb == "PICKUP":
            assert conn.position is not None
            row, column = conn.position
            if self.board.tiles[row][column] == "G":
                self.held += 1
                conn.gold = self.held
                await conn.lines(f"PS{self.held}")
            else:
                await conn.lines("PF")
        elif verb == "QUIT":
            return False
        # Anything else, a blank line included: no reply at all.
        return True

    def _view(self, conn: Conn) -> list[str]:
        return ["L5" + row for row in self.board.view(conn, centre_self=True)]


class MbkSlow(Mbk):
    """mbk's server as run on a loaded machine (issue 39): its JVM greets a connection, or
    refuses it, 0.1-0.3 s after accepting it, later than the first command of a client that
    does not wait (and than the suite's 0.3 s window for an unknown greeting); and a
    connection the client has closed keeps the address taken until its thread reads the
    close, so the next connection of a client quick to come back is refused."""

    name = "mbk-slow"
    GREETING_DELAY = 0.35
    RELEASE_DELAY = 0.2


class Lib(Peer):
    """2016: ``GOLD: 2`` (the gold still needed), a headerless ``LOOK`` with ``P`` at its
    centre, ``SERVERCHANGE``."""

    name = "lib"

    async def on_connect(self, conn: Conn) -> bool:
        # Its bug: once ghosts fill the map the spawn search throws, and the new
        # connection gets no reply, ever.
        conn.silenced = not self.board.spawn(conn)
        return True

    def on_disconnect(self, conn: Conn) -> None:
        # Its bug: a client gone without QUIT stays on the map as P.
        if conn.said_quit:
            self.board.leave(conn)

    async def on_line(self, conn: Conn, line: str) -> bool:
        if conn.silenced:
            return True
        verb, _, argument = line.strip().partition(" ")
        verb = verb.upper()
        if verb == "HELLO":
            # The gold still needed: lib's server answered GOLD: 5, then GOLD: 4 once one
            # was picked up (issue 39); its bot heads for the exit at 0.
            await conn.lines(f"GOLD: {GOAL - conn.gold}")
        elif verb == "LOOK":
            await conn.lines(*self.board.view(conn, centre_self=True), "")
        elif verb == "MOVE":
            outcome = self.board.move(conn, argument) if argument in STEPS else "blocked"
            if outcome == "won":
                await conn.send(
                    b"Congratulations!!! \n You have escaped the Dungeon of Dooom!!!!!! \n"
                    b"Thank you for playing!\nSERVERCHANGE\n"
                )
            else:
                await conn.lines("FAIL" if outcome == "blocked" else "SUCCESS", "SERVERCHANGE")
            await self.others(conn, "SERVERCHANGE")
        elif verb == "PICKUP":
            if self.board.pickup(conn):
                await conn.lines(f"SUCCESS, GOLD COINS: {{1={conn.gold}}}")
            else:
                await conn.lines("FAIL", "There is nothing to pick up...")
        elif verb == "QUIT":
            conn.said_quit = True
            self.board.leave(conn)
            await conn.lines("Game Over!")
        else:
            await conn.lines("FAIL")
        return True


class LibMute(Lib):
    """lib once a connection has left: its players are indices into a list that the
    departure shifted, and the ``MOVE`` of a later connection throws, unanswered."""

    name = "lib-mute"

    def __init__(self) -> None:
        super().__init__()
        self.departures = 0

    def on_disconnect(self, conn: Conn) -> None:
        super().on_disconnect(conn)
        self.departures += 1

    async def on_line(self, conn: Conn, line: str) -> bool:
        if line.upper().startswith("MOVE") and self.departures:
            return True
        return await super().on_line(conn, line)


class Ldjb2(Peer):
    """2013 networked: ``LOOKREPLY:``, blank-line answers, one game per connection."""

    name = "ldjb2"
    exits_when_last_client_leaves = True

    async def on_connect(self, conn: Conn) -> bool:
        board = Board(self.MAP, self.SPAWNS)
        board.spawn(conn)
        conn.extra["board"] = board
        return True

    def on_disconnect(self, conn: Conn) -> None:
        pass

    async def on_line(self, conn: Conn, line: str) -> bool:
        board = conn.extra["board"]
        assert isinstance(board, Board)
        verb, _, argument = line.partition(" ")
        if verb == "HELLO":
            if argument:
                await conn.lines(f"HELLO {argument.upper()}", f"GOAL {GOAL}")
            else:
                await conn.lines("null")
        elif verb == "LOOK":
            await conn.lines("LOOKREPLY:", *board.view(conn), "")
        elif verb == "MOVE" and argument in STEPS:
            outcome = board.move(conn, argument)
            if outcome == "won":
                self.exit()  # prints WIN on its own stdout and exits: no reply
                return False
            await conn.send(
                b"SUCCESS\n" if outcome == "moved" else b"FAIL \nCan't move into a wall\n"
            )
        elif verb == "PICKUP":
            await conn.lines(self._pickup(board, conn))
        else:
            await conn.send(b"\n")
        return True

    ITEMS: Final = {"L": "Lantern", "S": "Sword", "A": "Armour"}
    HELD: Final = {"L": "a lantern", "S": "a sword", "A": "armour"}

    def _pickup(self, board: Board, conn: Conn) -> str:
        """As its clientPickup: gold, or an item it holds none of yet; else FAIL: why."""
        assert conn.position is not None
        row, column = conn.position
        tile = board.tiles[row][column]
        if board.pickup(conn):
            return f"SUCCESS: + 1 Gold. Total Gold = {conn.gold}"
        if tile not in self.ITEMS:
            return "FAIL: Nothing to pick up"
        held = conn.extra.setdefault("items", set())
        assert isinstance(held, set)
        if tile in held:
            return f"FAIL: Already have {self.HELD[tile]}"
        held.add(tile)
        board.tiles[row][column] = "."
        return f"SUCCESS: Got {self.ITEMS[tile]}"


class Ldjb2Swords(Ldjb2):
    """ldjb2 on a map with two swords beside where the player arrives (its own map has
    swords, armour, lanterns): holding the first, the second is 'FAIL: Already have a
    sword', and stays on the map."""

    name = "ldjb2-swords"
    MAP = (
        "##########",
        "#..G#....#",
        "#S#.#.##.#",
        "#S..G..E.#",
        "##########",
    )


class Ldjb3(Peer):
    """2013/14: ``HELLO Player n`` + ``GOAL``, ``UPDATE``, ``ENDGAME``; exits when alone."""

    name = "ldjb3"
    exits_when_last_client_leaves = True

    async def on_connect(self, conn: Conn) -> bool:
        self.board.spawn(conn)
        return True

    async def on_line(self, conn: Conn, line: str) -> bool:
        verb, _, argument = line.partition(" ")
        if verb == "HELLO":
            await conn.lines(f"HELLO Player {conn.number}", f"GOAL {GOAL}")
        elif verb == "LOOK":
            await conn.lines("LOOKREPLY", *self.board.view(conn), "")
        elif verb == "MOVE" and argument in STEPS:  # SUCCESS / FAIL: not recorded, assumed
            outcome = self.board.move(conn, argument)
            if outcome == "won":
                await conn.lines("ENDGAME")
                self.exit()
                return False
            await conn.lines("SUCCESS" if outcome == "moved" else "FAIL")
        elif verb == "PICKUP":
            await conn.lines(
                *(("UPDATE", "TREASUREMOD 1") if self.board.pickup(conn) else ("FAIL",))
            )
        else:  # not recorded: a blank line, as its 2013 sibling
            await conn.send(b"\n")
        return True


class Ch(Peer):
    """2016 with turns: ``FAIL not users turn.``, ``RENDERHINT`` blocks, one byte per write."""

    name = "ch"
    one_byte_writes = True
    cr_ends_lines = True  # ClientThread reads with BufferedReader.readLine
    GAME_VERBS = ("LOOK", "MOVE", "PICKUP")
    NAME_LIMIT = 8

    def __init__(self) -> None:
        super().__init__()
        self.turn: Conn | None = None

    async def on_connect(self, conn: Conn) -> bool:
        return True

    def on_disconnect(self, conn: Conn) -> None:
        super().on_disconnect(conn)
        if self.turn is conn:
            self.turn = self.board.players[0] if self.board.players else None

    def _change(self, conn: Conn) -> list[str]:
        return ["CHANGE ", *self.board.view(conn), *self._hints(conn)]

    def _hints(self, conn: Conn) -> list[str]:
        view = self.board.view(conn)
        cells = [
            (x, y) for y in range(5) for x in range(5) if (x, y) != (2, 2) and view[y][x] != "X"
        ][:19]
        kinds = {"#": "WALL", ".": "FLOOR", "G": "GOLD", "E": "EXIT", "P": "PLAYER"}
        return [
            f"RENDERHINT {x} {y} TILETYPE {kinds.get(view[y][x], 'FLOOR')}" for x, y in cells
        ] + ["RENDERHINT END"]

    async def on_line(self, conn: Conn, line: str) -> bool:
        if conn.silenced:
            return True
        # Its verb is what comes before the first space ("" for "  LOOK"); a verb it does
        # not know is refused as out of turn first, as invalid only on the player's turn.
        verb, _, argument = line.partition(" ")
        verb = verb.upper()
        if verb == "HELLO":
            if not argument:
                await conn.lines("FAIL HELLO needs an argument.")
                return True
            if len(argument) > self.NAME_LIMIT:
                await conn.lines(f"FAIL Name too long ({self.NAME_LIMIT} Characters).")
                return True
            await self._hello(conn, argument.upper())
            return True
        if verb in self.GAME_VERBS and not conn.name:
            conn.silenced = True  # a game command before a named HELLO: silent for good
            return True
        if verb == "LOOK":
            if argument:
                await conn.lines("FAIL LOOK does not take an argument.")
            else:
                await conn.lines("LOOKREPLY", *self.board.view(conn), *self._hints(conn))
            return True
        if self.turn is not conn:
            await conn.lines("FAIL not users turn.")
            return True
        if verb == "MOVE":
            await self._move(conn, argument)
        elif verb == "PICKUP":
            if self.board.pickup(conn):
                await conn.lines("TREASUREMOD 1", *self._change(conn), "SUCCESS")
                await self._pass_turn(conn)
            else:  # not recorded in detail
                await conn.lines("FAIL nothing to pick up.")
        else:
            await conn.lines("FAIL invalid command.")
        return True

    async def _hello(self, conn: Conn, name: str) -> None:
        conn.name = name
        self.board.spawn(conn)
        first = self.turn is None
        if first:
            self.turn = conn
        await conn.lines(
            f"MESSAGE {name} has entered the game.",
            "Welcome to Dungeon of Doom!",
            "",
            f"GOAL {GOAL}",
        )
        await self.after_goal()
        await conn.lines(*(["STARTTURN"] if first else []), *self._change(conn), f"HELLO {name}")

    async def after_goal(self) -> None:
        """Between the ``GOAL`` and the rest of the answer to ``HELLO`` (nothing here)."""

    async def _move(self, conn: Conn, direction: str) -> None:
        if direction not in STEPS:
            await conn.lines("FAIL invalid direction")
            return
        if self.board.move(conn, direction) == "blocked":
            await conn.lines("FAIL can't walk into this tile.")
            return
        change = self._change(conn)
        if self.board.over:
            await conn.lines(*change, "WIN", "SUCCESS")
        else:
            await conn.lines(*change, "SUCCESS")
        for other in self.board.players:
            if other is not conn:
                await other.lines(*self._change(other))
        await self._pass_turn(conn)

    async def _pass_turn(self, conn: Conn) -> None:
        players = self.board.players
        if len(players) > 1:
            self.turn = players[(players.index(conn) + 1) % len(players)]
            await self.turn.lines("STARTTURN")


class ChSlow(Ch):
    """ch739 on a loaded machine: after ``GOAL`` in its answer to ``HELLO`` it starts the
    game (reloading its map from disk) before it goes on, a pause longer than the quiet
    spells that end an answer of unknown length (the suite's 0.15 s, the client's 1 s)."""

    name = "ch-slow"
    PAUSE = 1.5

    async def after_goal(self) -> None:
        await trio.sleep(self.PAUSE)


class ChSmall(Ch):
    """ch739 on a map as small as its default one (5 by 5, no wall round it: beyond its
    edges views show walls), seen whole from where the player arrives, which has no wall
    beside it: a wall is there to be found only by walking to one already seen."""

    name = "ch-small"
    MAP = (
        "##.##",
        "#G..E",
        "...G.",
        "#...#",
        "##.##",
    )
    SPAWNS = ((2, 2), (3, 2), (2, 1))


PEERS: Final[dict[str, Callable[[], Peer]]] = {
    peer.name: peer
    for peer in (
        *(Zss, ZssMute, ZssGhosts, Mbk, MbkSlow, Lib, LibMute),
        *(Ldjb2, Ldjb2Swords, Ldjb3, Ch, ChSlow, ChSmall),
    )
}
"""Every double, by the name ``DIALECTS.md`` gives its server."""


async def start_peer(nursery: trio.Nursery, name: str) -> Peer:
    """Start the double of server ``name``; it stops with ``nursery``."""
    peer: Peer = await nursery.start(PEERS[name]().run)
    return peer
