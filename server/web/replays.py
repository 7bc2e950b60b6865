"""Replay files for the web page: the list, and one replay re-run into frames, a page at a time.

A frame is what a spectator would have seen after one step of the game: the whole
map as ``world.render(None)`` draws it (the same view ``WATCH`` sends, so nothing a
spectator could not see) and a line saying what happened, with what a spectator with
the ``board`` capability would have been told then (:class:`~server.web.frames.FrameTeller`:
every player by name, levels past the first, events in words). Frame 0 is the map as the
game began; frame ``n`` follows the ``n``-th record after the header.

:class:`ReplayPages` serves frames a page at a time: at most ``count`` frames (at most
:data:`MAX_PAGE_FRAMES`) and :data:`MAX_PAGE_BYTES` of drawn maps, from frame ``from``.
Re-running is the world's own work, so a page is made (and encoded to JSON) in a
worker thread; the file is read as the re-run goes, never whole. The re-runs of the
:data:`MAX_RERUNS` replays paged last are kept, so the next page of one continues
where the last stopped; asking for an earlier frame re-runs that replay from its start.
What one page costs is bounded whatever the replay: the page's maps, its JSON, and the
kept re-runs (a world each, and an open file).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, Final

from worlds.registry import UnknownWorld, load_plugin

from ..game.story import describe
from ..replay.format import FORMAT_VERSION, SUFFIX, ReplayError
from ..replay.reader import LOG_SUFFIX, Replay, Step, bot_logs, open_world, replay_steps
from .frames import FrameTeller

MAX_PAGE_FRAMES: Final = 500
"""Frames one page holds at most (``count``)."""
DEFAULT_PAGE_FRAMES: Final = 200
"""Frames a page holds when ``count`` is not given."""
MAX_PAGE_BYTES: Final = 4 << 20
"""Bytes of drawn maps one page holds at most; a page ends early rather than pass it
(it holds one frame at least, whose map is at most the server's ``max_map_bytes``)."""
MAX_RERUNS: Final = 2
"""Re-runs kept between pages, the most recently paged first."""
MAX_LISTED: Final = 500
"""Newest replay files listed at most."""
TAIL_BYTES: Final = 64 << 10
"""Bytes read from the end of a replay for its last line (who played, how each did)."""


def shown_map(spec: object) -> str:
    """A map spec as the page shows it: a file's name, never the folder it is in."""
    if not spec:
        return "default"
    return Path(str(spec)).name if "/" in str(spec) or "\\" in str(spec) else str(spec)


class NoSuchReplay(LookupError):
    """The name is not a replay file of the server's replay folder."""


ORDERS: Final = {
    "time": "newest first, by when each game last wrote its replay (its end)",
    "name": "by name: the game's name, then when it began",
}
"""How the replays list may be ordered, and how the page says it."""


def list_replays(
    directory: Path | None, order: str = "time", *, probes: bool = False
) -> list[dict[str, Any]]:
    """At most :data:`MAX_LISTED` replays, in ``order`` (:data:`ORDERS`): file name,
    size, when it was last written, and the header's game, world, map, seed, start.
    Games only a conformance run's probes played (``EXTEND probe``: the replay's last
    line says so) are left out unless ``probes``."""
    if directory is None or not directory.is_dir():
        return []
    found = []
    for path in directory.glob(f"*{SUFFIX}"):
        try:
            stat = path.stat()
        except OSError:
            continue
        if path.is_file():
            found.append((path, stat))
    if order == "name":
        found.sort(key=lambda item: item[0].name)
    else:
        found.sort(key=lambda item: (item[1].st_mtime, item[0].name), reverse=True)
    listed = []
    for path, stat in found[:MAX_LISTED]:
        try:
            with path.open(encoding="utf-8") as file:
                header = json.loads(file.readline())
        except (OSError, ValueError):
            continue
        if not isinstance(header, dict):
            continue
        probed = _probed(path)
        if probed and not probes:
            continue
        listed.append(
            {
                "file": path.name,
                "bytes": stat.st_size,
                "game": header.get("game"),
                "world": header.get("world"),
                "map": shown_map(header.get("map")),
                "seed": header.get("seed"),
                "started": header.get("started"),
                "written": datetime.fromtimestamp(stat.st_mtime, UTC).isoformat(),
                "probe": probed,
            }
        )
    return listed


def recorded_as(directory: Path, name: str) -> list[str]:
    """The paths a server may have recorded the replay ``name`` of ``directory`` under
    (the folder as configured, and as an absolute path)."""
    path = directory / name
    return sorted({str(path), str(path.absolute()), os.path.realpath(path)})


def _probed(path: Path) -> bool:
    """Whether the replay's last line says only probes played its game."""
    try:
        with path.open("rb") as file:
            size = file.seek(0, 2)
            file.seek(max(0, size - TAIL_BYTES))
            tail = file.read().rstrip(b"\n").rpartition(b"\n")[2]
        last = json.loads(tail)
    except (OSError, ValueError):
        return False
    return isinstance(last, dict) and "end" in last and last.get("probe") is True


def replay_path(directory: Path | None, name: str) -> Path:
    """The file ``name`` in ``directory``; anything else (a path, another folder) is refused."""
    return _file_in(directory, name, SUFFIX)


def _file_in(directory: Path | None, name: str, suffix: str) -> Path:
    """The file ``name`` ending in ``suffix`` in ``directory``; :class:`NoSuchReplay` for
    anything else (a path, another folder, a hidden file, no such file)."""
    if (
        directory is None
        or not name.endswith(suffix)
        or Path(name).name != name
        or name.startswith(".")
    ):
        raise NoSuchReplay(name)
    path = directory / name
    try:
        found = path.is_file()
    except (OSError, ValueError):  # a name the system cannot hold (too long): none such
        found = False
    if not found:
        raise NoSuchReplay(name)
    return path


def log_path(directory: Path | None, name: str) -> Path:
    """The bot's log ``name`` in ``directory``; anything else is refused."""
    return _file_in(directory, name, LOG_SUFFIX)


def page_bounds(query: Mapping[str, str]) -> tuple[int, int]:
    """``from`` and ``count`` of a page request; ``ValueError`` says what is wrong."""
    bounds = []
    for key, default, least, most in (
        ("from", 0, 0, 1 << 62),
        ("count", DEFAULT_PAGE_FRAMES, 1, MAX_PAGE_FRAMES),
    ):
        text = query.get(key)
        if text is None:
            bounds.append(default)
            continue
        if not (
            text.isascii() and text.isdigit() and len(text) < 20 and least <= int(text) <= most
        ):
            raise ValueError(f"{key} must be a whole number from {least} to {most}, not {text!r}")
        bounds.append(int(text))
    return bounds[0], bounds[1]


class _Rerun:
    """One replay being re-run, frame by frame, from its file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self.file: IO[bytes] = path.open("rb")
        except OSError as error:
            raise ReplayError(f"{path.name}: cannot read the file: {error}") from None
        try:
            self.identity = _identity(path)
            self.header = self._header()
            try:
                plugin = load_plugin(str(self.header.get("world")))
            except UnknownWorld as error:
                raise ReplayError(str(error)) from None
            world = open_world(Replay(self.header, []), plugin)
        except BaseException:
            self.close()
            raise
        self.world = world
        self.names = self._names()
        """Every player's name, from the start, so that a join is told with its name."""
        self.teller = FrameTeller(self.names)
        """The board's fields of each frame (server.web.telling); told every step, drawn
        or not, since who is in the world carries from one step to the next."""
        self.position = 0
        """The number of the next frame."""
        self.done = False
        self._line = 1
        self._steps: Iterator[Step] = replay_steps(self._records(), world)
        self._ahead: dict[str, Any] | None = None

    def _header(self) -> dict[str, Any]:
        try:
            header = json.loads(self.file.readline())
        except ValueError:
            header = None
        if not isinstance(header, dict) or header.get("replay") != FORMAT_VERSION:
            raise ReplayError(f"{self.path.name}: not a replay file of format {FORMAT_VERSION}")
        return header

    def _names(self) -> dict[int, str]:
        """The names the players took, read ahead line by line (the file is read
        again from its second line afterwards)."""
        names: dict[int, str] = {}
        start = self.file.tell()
        for raw in self.file:
            if b'"name":' not in raw or not raw.endswith(b"\n"):
                continue
            with contextlib.suppress(ValueError, TypeError, KeyError):
                record = json.loads(raw)
                names.setdefault(int(record["name"]), str(record["as"]))
        self.file.seek(start)
        return names

    def _records(self) -> Iterator[dict[str, Any]]:
        for raw in self.file:
            self._line += 1
            if not raw.endswith(b"\n"):
                return  # cut short (killed, or still being written): the end for now
            try:
                record = json.loads(raw)
            except ValueError:
                raise ReplayError(f"{self.path.name}:{self._line}: not a JSON line") from None
            if not isinstance(record, dict):
                raise ReplayError(f"{self.path.name}:{self._line}: not a JSON object")
            yield record

    def next_frame(self, draw: bool) -> dict[str, Any] | None:
        """The next frame (its map drawn if ``draw`` and the step changed the board);
        ``None`` at the end."""
        if self._ahead is not None:
            frame, self._ahead = self._ahead, None
            self.position += 1
            return frame
        if self.done:
            return None
        if self.position == 0:
            self.position = 1
            return {
                "round": 0,
                "text": "the game begins",
                "view": list(self.world.render(None)),
                **self.teller.frame(self.world, None, draw=True),
            }
        try:
            step = next(self._steps, None)
        except ReplayError:
            raise
        except Exception as error:  # the world refused a recorded step
            raise ReplayError(
                f"{self.path.name}:{self._line}: cannot be re-run: {type(error).__name__}: {error}"
            ) from None
        if step is None:
            self.done = True
            return None
        record = step.record
        self.position += 1
        view = None
        draw = draw and ("actions" in record or "join" in record or "leave" in record)
        if draw:
            view = list(self.world.render(None))
        return {
            "round": record.get("round", 0),
            "text": describe(step, self.names, self.world),
            "view": view,
            **self.teller.frame(self.world, step, draw=draw),
        }

    def more(self) -> bool:
        """Whether a frame follows (it is made now, and kept for the next page)."""
        if self._ahead is None and not self.done:
            frame = self.next_frame(draw=True)
            if frame is not None:
                self.position -= 1
                self._ahead = frame
        return self._ahead is not None

    def close(self) -> None:
        self.file.close()


def _identity(path: Path) -> tuple[int, int, int]:
    stat = path.stat()
    return stat.st_dev, stat.st_ino, stat.st_mtime_ns


class ReplayPages:
    """Pages of frames of the replay files; see the module docstring. Not thread-safe:
    call :meth:`page` from one thread at a time (the web app's limiter of one)."""

    def __init__(self) -> None:
        self._reruns: OrderedDict[Path, _Rerun] = OrderedDict()

    def page(self, path: Path, start: int, count: int) -> bytes:
        """Frames ``start`` to ``start + count - 1`` of the replay at ``path`` as JSON
        (see docs/operating.md); raises :class:`ReplayError` if it cannot be re-run."""
        rerun = self._rerun(path, start)
        try:
            while rerun.position < start and rerun.next_frame(draw=False) is not None:
                pass
            frames: list[dict[str, Any]] = []
            budget = MAX_PAGE_BYTES
            while len(frames) < count and budget > 0:
                frame = rerun.next_frame(draw=True)
                if frame is None:
                    break
                frames.append(frame)
                budget -= sum(map(len, frame["view"] or ()))
                budget -= sum(len(row) for level in frame.get("levels", ()) for row in level)
            more = rerun.more()
        except ReplayError:
            self._forget(path)
            raise
        header = rerun.header
        body = {
            "file": path.name,
            "game": header.get("game"),
            "world": header.get("world"),
            "map": shown_map(header.get("map")),
            "seed": header.get("seed"),
            "started": header.get("started"),
            "players": {str(player): name for player, name in rerun.names.items()},
            "logs": bot_logs(path.parent, path.name),
            "notes": list(rerun.world.help_notes),
            "goal": rerun.world.goal,
            "from": start,
            "frames": frames,
            "next": rerun.position if more else None,
        }
        return json.dumps(body, separators=(",", ":")).encode()

    def _rerun(self, path: Path, start: int) -> _Rerun:
        rerun = self._reruns.pop(path, None)
        if rerun is not None:
            try:
                same = _identity(path)[:2] == rerun.identity[:2]
            except OSError:
                same = False
            if not same or rerun.position > start:
                rerun.close()
                rerun = None
        if rerun is None:
            rerun = _Rerun(path)
        self._reruns[path] = rerun
        while len(self._reruns) > MAX_RERUNS:
            _, oldest = self._reruns.popitem(last=False)
            oldest.close()
        return rerun

    def _forget(self, path: Path) -> None:
        rerun = self._reruns.pop(path, None)
        if rerun is not None:
            rerun.close()

    def close(self) -> None:
        for rerun in self._reruns.values():
            rerun.close()
        self._reruns.clear()
