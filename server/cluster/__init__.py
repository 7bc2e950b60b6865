"""One server on many processes and machines: the cluster's directory of games.

:mod:`server.cluster.directory` is the small interface the lobby calls; without
``--cluster`` it is :class:`~server.cluster.directory.LocalDirectory`, which changes
nothing. :mod:`server.cluster.postgres` keeps the directory in PostgreSQL (its calls to
the database in :mod:`server.cluster.postgres_calls`), and :mod:`server.cluster.embedded`
in a process of ``--workers``;
:func:`server.cluster.opening.open_directory` opens the one a server's settings ask for.
"""
