"""The tests' own PostgreSQL server (``tests/postgres.py``) starts even when the port
it found free is taken before PostgreSQL binds it (by another run, say)."""

from __future__ import annotations

import socket

import pytest

from .. import postgres


def test_a_port_taken_before_postgresql_binds_it_is_given_up_for_another(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import psycopg

    free_port = postgres._free_port
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        held: int = taken.getsockname()[1]
        ports = iter([held])
        monkeypatch.setattr(postgres, "_free_port", lambda: next(ports, None) or free_port())
        with postgres.running_postgres() as url:
            assert f":{held}/" not in url
            with psycopg.connect(url) as connection:
                assert connection.execute("SELECT 1").fetchone() == (1,)
