"""The full-screen interface: a Textual app around a :class:`~clients.terminal.session.Session`.

The screen is the map (left), the message log (right), the status line and the
command line (bottom). Keys are looked up in the world's keymap
(:mod:`clients.terminal.keys`); what they ask for is played by the session,
which runs on trio as a guest inside Textual's asyncio loop, so one thread
serves both the screen and the connection.

What a caller may rely on:

* ``PlayApp(...).run()`` returns the session's :class:`~clients.terminal.session.Ending`
  (``None`` only if the app was closed before the session started).
* The screen is redrawn after every change the session reports;
  :meth:`PlayApp.wait_redraw` waits for the next redraw and
  :meth:`PlayApp.wait_session_end` for the end of the connection (for tests and
  embedding: no polling needed).
* Quitting always asks first. When the server ends the game, the last line stays
  on screen until a key is pressed.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import trio
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, RichLog, Static

from dungeon_of_doom.protocol.replies import Lose, Win

from .keys import QUIT, Verb
from .messages import Kind
from .palette import STYLES, classify, find_self, legend, window
from .session import Ending, Session
from .state import GameState
from .status import status_line

if TYPE_CHECKING:
    from outcome import Outcome

__all__ = ["PlayApp", "help_text", "render_map"]

LOG_STYLES: dict[Kind, str] = {
    Kind.INFO: "",
    Kind.SENT: "bold #87afff",
    Kind.REPLY: "#87afff",
    Kind.ERROR: "bold #ff5f5f",
    Kind.CHAT: "bold #ff87ff",
    Kind.NOTICE: "#ffd787",
    Kind.EVENT: "#8a8a8a",
    Kind.WIN: "bold #5fd75f",
    Kind.LOSE: "bold #ff5f5f",
}

CHAT_PREFIX = "SHOUT "


def render_map(state: GameState, height: int, width: int) -> Text:
    """The map as coloured text, cropped to ``height`` × ``width`` around the player."""
    if not state.rows:
        return Text("waiting for the map…", style="italic #8a8a8a")
    tiles = classify(state.world.name, state.rows, look=state.showing_look)
    rows, tiles = window(state.rows, tiles, find_self(tiles), height, width)
    text = Text(no_wrap=True, overflow="crop")
    for number, (row, kinds) in enumerate(zip(rows, tiles, strict=True)):
        if number:
            text.append("\n")
        start = 0
        for column in range(1, len(row) + 1):
            if column == len(row) or kinds[column] is not kinds[start]:
                text.append(row[start:column], style=STYLES[kinds[start]])
                start = column
    return text


def help_text(state: GameState) -> tuple[Text, Text]:
    """The help screen's two columns: the keys and the command line; the map's glyphs."""
    keys = Text()
    keymap = state.keymap
    keys.append(f"Keys ({keymap.title})\n", style="bold underline")
    keys.append("\n".join(keymap.help_lines()))
    keys.append("\n\nThe command line\n", style="bold underline")
    keys.append(
        "Type any protocol command (MAP, GAMES, JOIN <game>,\n"
        "WATCH <game>, CREATE <game> <world>, SHOUT <text>,\n"
        "HELP ...). Enter sends it, Esc goes back to the map.\n"
    )
    keys.append("\nAny key closes this help.", style="italic")
    glyphs = Text()
    glyphs.append("On the map\n", style="bold underline")
    for number, (glyph, tile, meaning) in enumerate(legend(state.world.name)):
        glyphs.append("\n" if number else "")
        glyphs.append(f"{glyph:>3}", style=STYLES[tile] or "bold")
        glyphs.append(f"  {meaning}")
    if state.showing_look:
        glyphs.append("\n\nNo MAP in this world:\nthe view is the 5×5 LOOK.")
    return keys, glyphs


class HelpScreen(ModalScreen[None]):
    """The keys, glyphs and commands of the world; any key closes it."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > Horizontal {
        width: auto; max-width: 95%; height: auto; max-height: 95%;
        border: round $accent; padding: 0 1; background: $panel;
    }
    HelpScreen Static { width: auto; height: auto; padding: 0 1; }
    """

    def __init__(self, columns: tuple[Text, Text]) -> None:
        super().__init__()
        self._columns = columns

    def compose(self) -> ComposeResult:
        with Horizontal():
            for column in self._columns:
                yield Static(column)

    def on_key(self, event: events.Key) -> None:
        event.stop()
        self.dismiss()


class ConfirmScreen(ModalScreen[bool]):
    """A yes-or-no question: ``y`` or Enter says yes, anything else no."""

    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Static {
        width: auto; height: auto; border: round $warning; padding: 1 3; background: $panel;
    }
    """

    def __init__(self, question: str) -> None:
        super().__init__()
        self._question = question

    def compose(self) -> ComposeResult:
        yield Static(Text.assemble((self._question, "bold"), "  (y / n)"), id="question")

    def on_key(self, event: events.Key) -> None:
        event.stop()
        self.dismiss(event.key in ("y", "enter"))


class EndScreen(ModalScreen[None]):
    """The server's last word; any key leaves the app."""

    DEFAULT_CSS = """
    EndScreen { align: center middle; }
    EndScreen > Static {
        width: auto; max-width: 90%; height: auto; border: round $accent;
        padding: 1 3; background: $panel;
    }
    """

    def __init__(self, ending: Ending) -> None:
        super().__init__()
        self._ending = ending

    def compose(self) -> ComposeResult:
        styles = {Win: LOG_STYLES[Kind.WIN], Lose: LOG_STYLES[Kind.LOSE]}
        final = self._ending.final
        style = styles.get(type(final), "bold") if final is not None else "bold"
        yield Static(
            Text.assemble((self._ending.text, style), "\n\nPress any key to leave."), id="ending"
        )

    def on_key(self, event: events.Key) -> None:
        event.stop()
        self.dismiss()


class MapView(Static, can_focus=True):
    """The map; it holds the focus while the player plays, so keys arrive here."""


class PlayApp(App[Ending]):
    """Play (or watch) one game on one server; see the module docstring."""

    TITLE = "Dungeon of Doom"
    ENABLE_COMMAND_PALETTE = False
    CSS = """
    #body { height: 1fr; }
    #map-box { width: 3fr; border: round $accent; padding: 0 1; align: center middle; }
    #map { width: auto; height: auto; }
    #log { width: 2fr; border: round $secondary; scrollbar-size-vertical: 1; }
    #status { height: 1; padding: 0 1; background: $boost; color: $text; }
    #command { height: 3; border: round $panel-lighten-2; }
    #command:focus { border: round $accent; }
    """
    BINDINGS = [
        Binding("ctrl+q", "confirm_quit", "Quit", show=False, priority=True),
        Binding("ctrl+c", "confirm_quit", "Quit", show=False, priority=True),
    ]

    def __init__(
        self,
        host: str,
        port: int,
        *,
        name: str | None = None,
        game: str | None = None,
        watch: str | None = None,
    ) -> None:
        super().__init__()
        self.session = Session(
            host, port, name=name, game=game, watch=watch, on_change=self._session_changed
        )
        self._redrawn = asyncio.Event()
        self._log_shown = 0
        self._ending: Ending | None = None
        self._trio_done = asyncio.Event()
        self._session_ended = asyncio.Event()
        self._redraw_queued = False
        self.error: BaseException | None = None
        """An exception the session raised (a bug, never the network), if any."""

    # -- layout -----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        # Kept, not queried: redraws may come while another screen is on top, or after
        # the main screen is gone (the session's last words during shutdown).
        self._map_box = Vertical(id="map-box")
        self._map_view = MapView(id="map")
        self._log_view = RichLog(id="log", wrap=True, markup=False, max_lines=2000, min_width=20)
        self._log_view.can_focus = False
        self._status = Static(id="status")
        self._command_line = Input(
            placeholder=": type a protocol command   t chat   ? help",
            id="command",
            select_on_focus=False,
        )
        with Horizontal(id="body"):
            with self._map_box:
                yield self._map_view
            yield self._log_view
        yield self._status
        yield self._command_line

    def on_mount(self) -> None:
        self._log_view.border_title = "messages"
        self._map_view.focus()
        self._redraw()
        trio.lowlevel.start_guest_run(
            self.session.run,
            run_sync_soon_threadsafe=asyncio.get_running_loop().call_soon_threadsafe,
            done_callback=self._session_done,
        )

    async def on_unmount(self) -> None:
        # The trio guest must finish before the asyncio loop it lives in goes away.
        if not self._trio_done.is_set():
            self.session.stop()
            await self._trio_done.wait()

    def on_resize(self) -> None:
        self._redraw()

    # -- drawing ------------------------------------------------------------------------------

    def _session_changed(self) -> None:
        # Changes come in bursts (a reply, then pushes): draw once for the lot.
        if not self._redraw_queued:
            self._redraw_queued = True
            self.call_later(self._redraw)

    def _redraw(self) -> None:
        self._redraw_queued = False
        state = self.session.state
        # The map is centred in its box, and cropped to the box when larger.
        size = self._map_box.content_region.size
        self._map_view.update(render_map(state, size.height, size.width))
        what = "VIEW" if state.watching else "LOOK" if state.look else "MAP"
        world = state.world.name or "?"
        self._map_box.border_title = f"{world} · {state.game} · {what}"
        self._status.update(status_line(state))
        for entry in state.log.since(self._log_shown):
            self._log_view.write(Text(entry.text, style=LOG_STYLES[entry.kind]))
        self._log_shown = state.log.added
        self._redrawn.set()
        self._redrawn = asyncio.Event()

    async def wait_redraw(self) -> None:
        """Wait until the screen is next redrawn."""
        await self._redrawn.wait()

    async def wait_session_end(self) -> None:
        """Wait until the connection is over and the app has taken the ending in
        (``return_value`` is then set, unless the ending waits on screen for a key)."""
        await self._session_ended.wait()

    # -- keys ---------------------------------------------------------------------------------

    def on_key(self, event: events.Key) -> None:
        command_line = self._command_line
        if command_line.has_focus:
            if event.key == "escape":
                event.stop()
                command_line.value = ""
                self._map_view.focus()
            return
        action = self.session.state.keymap.action(event.key)
        if action is None:
            if event.is_printable:
                self.session.state.note(f"The key {event.character} does nothing here; ? for help.")
                self._redraw()
            return
        event.stop()
        if action.verb is Verb.QUIT:
            self.action_confirm_quit()
        elif action.verb is Verb.HELP:
            self.push_screen(HelpScreen(help_text(self.session.state)))
        elif action.verb in (Verb.COMMAND, Verb.CHAT):
            self._open_command_line(CHAT_PREFIX if action.verb is Verb.CHAT else "")
        else:
            self.session.submit(action)

    def _open_command_line(self, text: str) -> None:
        command_line = self._command_line
        command_line.value = text
        command_line.focus()
        command_line.cursor_position = len(text)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        line = event.value
        event.input.value = ""
        self._map_view.focus()
        if line.strip() and line != CHAT_PREFIX:
            self.session.submit(line)

    def action_confirm_quit(self) -> None:
        if isinstance(self.screen, ConfirmScreen):
            return
        if self._ending is not None:
            self.exit(self._ending)
            return
        self.push_screen(ConfirmScreen("Leave the game?"), self._quit_answered)

    def _quit_answered(self, confirmed: bool | None) -> None:
        if confirmed:
            self.session.submit(QUIT)

    # -- the end --------------------------------------------------------------------------------

    def _session_done(self, result: Outcome[Ending]) -> None:
        # Called by trio from outside the app's context: hand over to the app's queue.
        self._trio_done.set()
        self.call_later(self._session_over, result)

    def _session_over(self, result: Outcome[Ending]) -> None:
        try:
            ending = result.unwrap()
        except BaseException as error:
            # A bug in the session, never the network: keep it for the caller to raise.
            self.error = error
            self.exit(Ending(f"internal error: {error!r}", status=1), return_code=1)
        else:
            self._ending = ending
            if ending.wait:
                self._redraw()
                self.push_screen(
                    EndScreen(ending), lambda _: self.exit(ending, return_code=ending.status)
                )
            else:
                self.exit(ending, return_code=ending.status)
        self._session_ended.set()
