"""The games on one server, and the clients moving between them.

Its face: :class:`~server.lobby.lobby.Lobby` (which holds every game and is what each
tells, its :class:`~server.game.spec.GameHooks`) and :class:`~server.lobby.ladder.Ladder`
(the records' commands). From the top:

* :mod:`server.lobby.lobby`: the default game, those clients create, joining and watching;
* :mod:`server.lobby.ladder`: the records' side (``LEADERBOARD``, claimed names), which
  sees the lobby through its own roles, its logins bounded by
  :mod:`server.lobby.login_limits`, and a client as a :mod:`server.lobby.claimant`;
* :mod:`server.lobby.creation`: the limits on ``CREATE``, a game's spec, its world;
* :mod:`server.lobby.recording`: where the records go (the database, the journal, the writer);
* :mod:`server.lobby.seating`: which client is in which game, what each address holds.
"""
