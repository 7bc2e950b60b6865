"""Planners behind the sample bots, as plain functions over the worlds' own rules.

Each module searches one world's states with that world's rules code, so a plan
is played exactly as it was searched: :mod:`.crawler` over
:class:`worlds.crawler.State`, :mod:`.baddies` over :class:`worlds.baddies.Board`
and :func:`worlds.baddies.play_round`. The bots read the board over the protocol
and call these; ``bench/bots_figures.py`` calls them in-process to measure.
"""
