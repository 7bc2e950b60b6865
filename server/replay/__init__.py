"""Replays: every game's record as a JSON-lines file.

Its face: :class:`~server.replay.writer.ReplayWriter` on a
:class:`~server.replay.shelf.ReplayShelf`, and :func:`~server.replay.reader.read_replay`
with :func:`~server.replay.reader.rerun`.

* :mod:`server.replay.format`: the file's lines, its header, :class:`ReplayError`;
* :mod:`server.replay.shelf`: the folder replays go to, within its limits;
* :mod:`server.replay.writer`: one game's replay, written as the game goes;
* :mod:`server.replay.reader`: a replay read and re-run exactly.
"""
