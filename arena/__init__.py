"""Tournaments of bots (``dod-arena``): it runs servers and bots; records are what it writes.

Modules, lowest first:

* :mod:`arena.entrants` — who plays: installed bot kinds or command templates, and seeds.
* :mod:`arena.schedule` — which games: round-robin and Swiss rounds as numbered matches.
* :mod:`arena.servers` — the ``dod-server`` processes the matches are played on.
* :mod:`arena.match` — one match: its game created, its bots started, watched, stopped.
* :mod:`arena.runner` — :class:`~arena.runner.Arena`: a schedule played on its servers.
* :mod:`arena.results` — the tournament's records read back, and its table.
* :mod:`arena.cli` — ``dod-arena``.
"""
