"""The Dungeon of Doom server: trio networking around pure world plugins.

* :mod:`server.app`: :class:`Server`, listeners and connection tasks;
* :mod:`server.connection`: one client, from bytes to commands and back;
* :mod:`server.game`: one world and its players;
* :mod:`server.render`: which reply each world event becomes;
* :mod:`server.cli`: the ``dod-server`` command.
"""

from .app import Server, serve
from .config import ServerConfig

__all__ = ["Server", "ServerConfig", "serve"]
