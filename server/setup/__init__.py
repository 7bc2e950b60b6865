"""How a server is set up before it serves: its settings and how they are read, where
it listens, who may reach its web face, and its logs.

* :mod:`server.setup.config`: every setting, declared once;
* :mod:`server.setup.settings`: how a setting is read from flags, the environment and
  a TOML file, and checked;
* :mod:`server.setup.listening`: which port speaks which dialect;
* :mod:`server.setup.access`: lists of networks and names in settings;
* :mod:`server.setup.logs`: structlog, readable or JSON, and limits on log lines.
"""
