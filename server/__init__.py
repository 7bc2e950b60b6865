"""The Dungeon of Doom server: trio networking around pure world plugins.

* :mod:`server.app`: :class:`Server`, listeners and connection tasks;
* :mod:`server.config`: every setting, read from flags, the environment and a TOML file;
* :mod:`server.transport`: one client's bytes on any trio stream, its output queue and limits;
* :mod:`server.connection`: one client's session, from commands to its game and back;
* :mod:`server.lobby`: the games on a server, creating, joining and watching them,
  and which client is in which;
* :mod:`server.game`: one world, its players and spectators, pushes and rounds;
* :mod:`server.outbox`: all a game or the lobby knows of a client;
* :mod:`server.dialects`: greetings and turn reminders for the dialects that need them;
  :mod:`server.listening`: which port speaks which dialect;
* :mod:`server.rounds`: one round's actions, in join order, and its deadline;
* :mod:`server.replay`: replay files, written as games go and re-run exactly;
* :mod:`server.render`: which reply each world event becomes;
* :mod:`server.cli`: the ``dod-server`` command; :mod:`server.replay_cli`: ``dod-replay``.
"""

from .app import Server, serve
from .config import ServerConfig

__all__ = ["Server", "ServerConfig", "serve"]
