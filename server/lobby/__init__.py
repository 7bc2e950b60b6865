"""The games on one server, and the clients moving between them.

* :mod:`server.lobby.lobby`: the default game, those clients create, joining and watching;
* :mod:`server.lobby.creation`: the limits on ``CREATE`` and a created game's world;
* :mod:`server.lobby.seating`: which client is in which game, what each address holds;
* :mod:`server.lobby.ladder`: the records' side (``LEADERBOARD``, claimed names), its
  logins bounded by :mod:`server.lobby.login_limits`.
"""
