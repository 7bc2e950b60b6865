"""World plugins: the rules of each game, as pure deterministic code.

The interface every world follows is in :mod:`worlds.api`; plugins are found by
:mod:`worlds.registry`. Shipped worlds: :mod:`worlds.classic`.
"""
