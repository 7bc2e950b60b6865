"""The records' real PostgreSQL, for tournaments recorded into one."""

from ..records.conftest import postgres_server, postgres_url

__all__ = ["postgres_server", "postgres_url"]
