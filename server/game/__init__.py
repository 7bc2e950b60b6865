"""One game: a world, the clients playing and watching it, and the commands they send.

* :mod:`server.game.game`: the game, its members and names, commands in, events out;
* :mod:`server.game.roster` (who plays), :mod:`server.game.audience` (who watches, chat,
  the board of :mod:`server.game.board`), :mod:`server.game.chronicle` (replay and record);
* :mod:`server.game.verbs`: what each game command does;
* :mod:`server.game.telling`: events to whom they concern, in the words of
  :mod:`server.game.render`;
* :mod:`server.game.pacing`: when actions are played (at once; not before the game is
  full), :mod:`server.game.rounds` in rounds and :mod:`server.game.turn_taking` in turns;
* :mod:`server.game.steward`: its task, its end, its restarts, by the state table of
  :mod:`server.game.lifecycle`, in the world slot of :mod:`server.game.restarts`, with
  worlds opened off the loop by :mod:`server.game.builds`;
* :mod:`server.game.outbox`: all a game or the lobby knows of a client.
"""
