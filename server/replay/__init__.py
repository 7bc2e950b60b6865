"""Replays: every game's record as a JSON-lines file, written as games go
(:mod:`server.replay.writer`), read and re-run exactly (:mod:`server.replay.reader`).
"""
