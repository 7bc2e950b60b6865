"""The Dungeon of Doom server: trio networking around pure world plugins.

* :mod:`server.app`: :class:`Server`, listeners and connection tasks;
* :mod:`server.config`: every setting, declared once; :mod:`server.settings`: how a
  setting is read from flags, the environment and a TOML file, and checked;
* :mod:`server.transport`: one client's bytes on any trio stream, its output queue and limits;
* :mod:`server.connection`: one client's session, from commands to its game and back;
* :mod:`server.lobby`: the games on a server, creating, joining and watching them;
  :mod:`server.seating`: which client is in which, and what each address holds;
* :mod:`server.ladder`: the records' side of a server (``LEADERBOARD``, claimed names),
  its logins bounded by :mod:`server.login_limits`;
* :mod:`server.game`: one game: its members and names, commands in, events out; beside
  it :mod:`server.roster` (who plays), :mod:`server.audience` (who watches, chat, the
  board of :mod:`server.board`),
  :mod:`server.chronicle` (replay and record), :mod:`server.commands` (each verb),
  :mod:`server.tell` (events to whom they concern), :mod:`server.table` (the game as
  its parts see it) and :mod:`server.steward` (its task, its end, its restarts, by
  the state table of :mod:`server.lifecycle`, in the world slot of :mod:`server.restarts`);
* :mod:`server.pacing`: when actions are played (at once; not before the game is full),
  :mod:`server.rounds` in rounds and :mod:`server.turns` in turns; docs/architecture.md;
* :mod:`server.outbox`: all a game or the lobby knows of a client;
* :mod:`server.dialects`: greetings and turn reminders for the dialects that need them;
  :mod:`server.listening`: which port speaks which dialect;
* :mod:`server.replay`: replay files, written as games go; :mod:`server.replay_reader`:
  read and re-run exactly;
* :mod:`server.render`: which reply each world event becomes;
* :mod:`server.cli`: the ``dod-server`` command; :mod:`server.replay_cli`: ``dod-replay``.
"""

from .app import Server, serve
from .config import ServerConfig

__all__ = ["Server", "ServerConfig", "serve"]
