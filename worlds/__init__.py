"""World plugins: the rules of each game, as pure deterministic code.

The interface every world follows is in :mod:`worlds.api`; plugins are found by
:mod:`worlds.registry`. What a map spec names is resolved for every world by
:mod:`worlds.mapspec`, within the :mod:`worlds.limits` a caller gives.
Shipped worlds: :mod:`worlds.classic`, :mod:`worlds.crawler`, :mod:`worlds.baddies`,
:mod:`worlds.knight`, :mod:`worlds.battle`.
"""
