"""The tests' own PostgreSQL server (``tests/postgres.py``) starts even when the port
it found free is taken before PostgreSQL binds it (by another run, say), and each test's
database is dropped after it, so the server's folder does not grow with the session."""

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


def test_a_tests_database_is_dropped_after_it_even_with_a_connection_left_open(
    postgres_server: str,
) -> None:
    import psycopg

    def names() -> list[str]:
        with psycopg.connect(postgres_server) as connection:
            return [row[0] for row in connection.execute("SELECT datname FROM pg_database")]

    with postgres.fresh_database(postgres_server) as url:
        name = url.rsplit("/", 1)[1]
        assert name in names()
        left_open = psycopg.connect(url)
    try:
        assert name not in names()
    finally:
        left_open.close()
