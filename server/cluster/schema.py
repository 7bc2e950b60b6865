"""The cluster's tables in PostgreSQL, and the triggers that announce their changes.

``cluster_nodes`` holds one row per live node (its id, the address it advertises and
when it is gone unless it beats again); ``cluster_games`` one row per game name,
whose primary key is what makes a name unique across the cluster. Every change of a
game row, a node's reaping included (its games go by cascade), is announced on the
``cluster_games`` channel as JSON, which every node's local copy follows.
"""

from __future__ import annotations

from typing import Final

CHANNEL: Final = "cluster_games"
SCHEMA_LOCK: Final = 0x444F44_0C1
"""The advisory lock nodes take to create the schema one at a time."""

STATEMENTS: Final = (
    """
    CREATE TABLE IF NOT EXISTS cluster_nodes (
        id text PRIMARY KEY,
        address text NOT NULL,
        relay text NOT NULL,
        expires timestamptz NOT NULL,
        started timestamptz NOT NULL DEFAULT now()
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS cluster_games (
        name text PRIMARY KEY,
        node text NOT NULL REFERENCES cluster_nodes (id) ON DELETE CASCADE,
        info text
    )
    """,
    "CREATE INDEX IF NOT EXISTS cluster_games_node ON cluster_games (node)",
    """
    CREATE TABLE IF NOT EXISTS cluster_secret (
        one boolean PRIMARY KEY DEFAULT true CHECK (one),
        secret text NOT NULL
    )
    """,
    f"""
    CREATE OR REPLACE FUNCTION cluster_games_announce() RETURNS trigger AS $$
    BEGIN
        IF TG_OP = 'DELETE' THEN
            PERFORM pg_notify('{CHANNEL}', json_build_object(
                'op', 'delete', 'name', OLD.name, 'node', OLD.node)::text);
            RETURN OLD;
        END IF;
        PERFORM pg_notify('{CHANNEL}', json_build_object(
            'op', 'put', 'name', NEW.name, 'node', NEW.node, 'info', NEW.info,
            'address', (SELECT address FROM cluster_nodes WHERE id = NEW.node),
            'relay', (SELECT relay FROM cluster_nodes WHERE id = NEW.node))::text);
        RETURN NEW;
    END
    $$ LANGUAGE plpgsql
    """,
    """
    CREATE TABLE IF NOT EXISTS cluster_names (
        name text NOT NULL,
        node text NOT NULL REFERENCES cluster_nodes (id) ON DELETE CASCADE,
        PRIMARY KEY (name, node)
    )
    """,
    f"""
    CREATE OR REPLACE FUNCTION cluster_names_announce() RETURNS trigger AS $$
    BEGIN
        IF TG_OP = 'DELETE' THEN
            PERFORM pg_notify('{CHANNEL}', json_build_object(
                'op', 'unname', 'name', OLD.name, 'node', OLD.node)::text);
            RETURN OLD;
        END IF;
        PERFORM pg_notify('{CHANNEL}', json_build_object(
            'op', 'name', 'name', NEW.name, 'node', NEW.node)::text);
        RETURN NEW;
    END
    $$ LANGUAGE plpgsql
    """,
    "DROP TRIGGER IF EXISTS cluster_names_announce ON cluster_names",
    """
    CREATE TRIGGER cluster_names_announce AFTER INSERT OR DELETE ON cluster_names
    FOR EACH ROW EXECUTE FUNCTION cluster_names_announce()
    """,
    "DROP TRIGGER IF EXISTS cluster_games_announce ON cluster_games",
    """
    CREATE TRIGGER cluster_games_announce AFTER INSERT OR UPDATE OR DELETE ON cluster_games
    FOR EACH ROW EXECUTE FUNCTION cluster_games_announce()
    """,
)
"""Run in one transaction under :data:`SCHEMA_LOCK`; each is safe to run again."""

SNAPSHOT: Final = """
    SELECT g.name, g.node, n.address, n.relay, g.info
    FROM cluster_games g JOIN cluster_nodes n ON n.id = g.node
    WHERE n.expires >= now() AND g.node <> %(node)s
"""

BEAT: Final = """
    UPDATE cluster_nodes
    SET expires = now() + %(life)s * interval '1 second', address = %(address)s, relay = %(relay)s
    WHERE id = %(node)s RETURNING id
"""

REGISTER: Final = """
    INSERT INTO cluster_nodes (id, address, relay, expires)
    VALUES (%(node)s, %(address)s, %(relay)s, now() + %(life)s * interval '1 second')
"""

REAP: Final = "DELETE FROM cluster_nodes WHERE expires < now()"

CLAIM: Final = """
    INSERT INTO cluster_games (name, node) VALUES (%(name)s, %(node)s)
    ON CONFLICT (name) DO UPDATE SET node = excluded.node, info = NULL
    WHERE cluster_games.node NOT IN (SELECT id FROM cluster_nodes WHERE expires >= now())
    RETURNING name
"""
"""One atomic statement: a free name, or one whose node is gone, becomes ours."""

PUT: Final = """
    INSERT INTO cluster_games (name, node, info) VALUES (%(name)s, %(node)s, %(info)s)
    ON CONFLICT (name) DO UPDATE SET info = excluded.info, node = excluded.node
    WHERE cluster_games.node = excluded.node
       OR cluster_games.node NOT IN (SELECT id FROM cluster_nodes WHERE expires >= now())
    RETURNING name
"""

DROP: Final = "DELETE FROM cluster_games WHERE name = %(name)s AND node = %(node)s"

SECRET: Final = """
    WITH made AS (
        INSERT INTO cluster_secret (secret) VALUES (%(secret)s) ON CONFLICT DO NOTHING
        RETURNING secret
    )
    SELECT secret FROM made UNION ALL SELECT secret FROM cluster_secret
"""
"""The cluster's shared secret, made by the first node that asks (relays are signed with it)."""

NAMES: Final = """
    SELECT c.name, c.node FROM cluster_names c JOIN cluster_nodes n ON n.id = c.node
    WHERE n.expires >= now() AND c.node <> %(node)s
"""
NAME: Final = (
    "INSERT INTO cluster_names (name, node) VALUES (%(name)s, %(node)s) ON CONFLICT DO NOTHING"
)
UNNAME: Final = "DELETE FROM cluster_names WHERE name = %(name)s AND node = %(node)s"

LEAVE: Final = "DELETE FROM cluster_nodes WHERE id = %(node)s"

STATUS_NODES: Final = """
    SELECT n.id, n.address, n.relay, n.started,
           (SELECT count(*) FROM cluster_names c WHERE c.node = n.id)
    FROM cluster_nodes n WHERE n.expires >= now() ORDER BY n.started
"""
STATUS_GAMES: Final = "SELECT name, node, info FROM cluster_games ORDER BY name"

BARRIER: Final = f"SELECT pg_notify('{CHANNEL}', %(payload)s)"
"""A change record of no change, sent behind every committed one (``caught_up``)."""
