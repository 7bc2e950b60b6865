"""One server on many processes and machines: the cluster's directory of games.

:mod:`server.cluster.directory` is the small interface the lobby calls; without
``--cluster`` it is :class:`~server.cluster.directory.LocalDirectory`, which changes
nothing. :mod:`server.cluster.postgres` keeps the directory in PostgreSQL.
"""
