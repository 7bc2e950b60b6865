"""Replays: every game's record as a JSON-lines file.

* :mod:`server.replay.format`: the file's lines, its header, :class:`ReplayError`;
* :mod:`server.replay.shelf`: the folder replays go to, within its limits;
* :mod:`server.replay.writer`: one game's replay, written as the game goes;
* :mod:`server.replay.reader`: a replay read and re-run exactly.
"""
