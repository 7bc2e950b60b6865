"""One game: a world, the clients playing and watching it, and the commands they send.

Its face: :class:`~server.game.game.Game`, made from a :class:`~server.game.spec.GameSpec`
(what the game is) and the :class:`~server.game.spec.GameHooks` of its owner (what it
tells it); a client is an :class:`~server.game.outbox.Outbox` to it. Inside, each part
sees the others only through the small roles it declares:

* :mod:`server.game.game`: the game, its members and names; it composes the parts;
* :mod:`server.game.roster` (who plays), :mod:`server.game.audience` (who watches, chat,
  the board of :mod:`server.game.board`);
* :mod:`server.game.verbs`: what each game command does;
* :mod:`server.game.pacing`: when actions are played (at once; not before the game is
  full), :mod:`server.game.rounds` in rounds and :mod:`server.game.turn_taking` in turns;
* :mod:`server.game.chronicle`: the replay and the record, and the one step of play
  every pacing takes (:class:`~server.game.chronicle.Play`);
* :mod:`server.game.delivery`: events to whom they concern, in the words of
  :mod:`server.game.wording`, the one table of what every event becomes;
* :mod:`server.game.steward`: its task, its end, its restarts, by the state table of
  :mod:`server.game.lifecycle`, in the world slot of :mod:`server.game.restarts`, with
  worlds opened off the loop by :mod:`server.game.builds`, woken by
  :mod:`server.game.alarm`;
* :mod:`server.game.story`: a replay's steps in words.
"""
