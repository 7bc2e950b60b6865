"""Dungeon of Doom: the game server, its protocol, worlds, clients, bots and tools.

Every package the project installs lives under this one name, so that none collides
with another distribution's (``records``, for one, is a package on PyPI). In a checkout
each entry here is a link to the folder of that name at the repository's root, where
the code is kept: ``dungeon_of_doom.server`` is ``server/``.
"""
