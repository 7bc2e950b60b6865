"""The cluster's tables in PostgreSQL, and the triggers that announce their changes.

``cluster_nodes`` holds one row per live node (its id, the address it advertises and
when it is gone unless it beats again); ``cluster_games`` one row per game name,
whose primary key is what makes a name unique across the cluster;
``cluster_name_keys`` one row per lookalike key (:func:`records.names.lookalike_keys`)
of each player's name in play, whose primary key makes a name and every name that looks
like it one claim. Every change of a game or name row, a node's reaping included (its
rows go by cascade), is announced on the ``cluster_games`` channel as JSON, which every
node's local copy follows.

**Leases.** A node's row is its lease: its claims live exactly as long as the row. A
claim succeeds only on a free name (``ON CONFLICT DO NOTHING``), never by taking a row
from its holder, so the only way a name passes to another node is a reap (in
``cluster_renew``, which every beat and claim calls) deleting the holder's row, its
claims going with it by cascade. Hence a node whose :data:`BEAT` finds its row still
there holds every claim it made, however late it beats; one that finds it gone has lost
them all and must claim each again (``server.cluster.postgres``). Whether a node lives
is judged on the database's clock only (``now()``), and a node gets a full life after
the database itself (re)starts (:data:`ALIVE`), so that a PostgreSQL restart or outage
costs no node its claims. Every beat and claim is one statement, one round trip.
"""

from __future__ import annotations

from typing import Final

CHANNEL: Final = "cluster_games"
SCHEMA_LOCK: Final = 0x444F44_0C1
"""The advisory lock nodes take to create the schema one at a time."""
SCHEMA_VERSION: Final = 3
"""The version of :data:`STATEMENTS` (2: names claimed by their lookalike keys, and
nodes' lives; 3: each claim numbered); a database holding it is not changed again, so a
node starting takes no lock that the other nodes' readers would wait on (or deadlock
with)."""
VERSION_TABLE: Final = """
    CREATE TABLE IF NOT EXISTS cluster_schema (
        one boolean PRIMARY KEY DEFAULT true CHECK (one),
        version integer NOT NULL
    )
"""
READ_VERSION: Final = "SELECT version FROM cluster_schema"
WRITE_VERSION: Final = """
    INSERT INTO cluster_schema (version) VALUES (%(version)s)
    ON CONFLICT (one) DO UPDATE SET version = excluded.version
"""

ALIVE: Final = (
    "greatest({n}.expires, pg_postmaster_start_time() + {n}.life * interval '1 second') >= now()"
)
"""Whether the node row ``{n}`` lives: it beat within its life, or the database started
less than a life ago (every node beats again before it is judged)."""


def alive(row: str) -> str:
    """:data:`ALIVE` of the row called ``row`` in a statement."""
    return ALIVE.format(n=row)


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
    # Seconds a beat buys (three heartbeats); a table of an earlier version gains it.
    "ALTER TABLE cluster_nodes ADD COLUMN IF NOT EXISTS life double precision NOT NULL DEFAULT 3",
    """
    CREATE TABLE IF NOT EXISTS cluster_games (
        name text PRIMARY KEY,
        node text NOT NULL REFERENCES cluster_nodes (id) ON DELETE CASCADE,
        info text
    )
    """,
    "CREATE INDEX IF NOT EXISTS cluster_games_node ON cluster_games (node)",
    # Each claim's number, from its node's count of claims: a release or a clean-up
    # written before a claim never takes it, however late it reaches the database.
    "ALTER TABLE cluster_games ADD COLUMN IF NOT EXISTS claim bigint NOT NULL DEFAULT 0",
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
    # The names of an earlier version, keyed by spelling: no claim was atomic there.
    "DROP TABLE IF EXISTS cluster_names",
    """
    CREATE TABLE IF NOT EXISTS cluster_name_keys (
        key text PRIMARY KEY,
        name text NOT NULL,
        node text NOT NULL REFERENCES cluster_nodes (id) ON DELETE CASCADE
    )
    """,
    "CREATE INDEX IF NOT EXISTS cluster_name_keys_node ON cluster_name_keys (node)",
    "ALTER TABLE cluster_name_keys ADD COLUMN IF NOT EXISTS claim bigint NOT NULL DEFAULT 0",
    f"""
    CREATE OR REPLACE FUNCTION cluster_names_announce() RETURNS trigger AS $$
    BEGIN
        IF TG_OP = 'DELETE' THEN
            PERFORM pg_notify('{CHANNEL}', json_build_object(
                'op', 'unname', 'name', OLD.name, 'node', OLD.node, 'key', OLD.key)::text);
            RETURN OLD;
        END IF;
        PERFORM pg_notify('{CHANNEL}', json_build_object(
            'op', 'name', 'name', NEW.name, 'node', NEW.node, 'key', NEW.key)::text);
        RETURN NEW;
    END
    $$ LANGUAGE plpgsql
    """,
    "DROP TRIGGER IF EXISTS cluster_names_announce ON cluster_name_keys",
    """
    CREATE TRIGGER cluster_names_announce AFTER INSERT OR DELETE ON cluster_name_keys
    FOR EACH ROW EXECUTE FUNCTION cluster_names_announce()
    """,
    f"""
    CREATE OR REPLACE FUNCTION cluster_renew(
        p_node text, p_address text, p_relay text, p_life double precision
    ) RETURNS boolean AS $$
    BEGIN
        UPDATE cluster_nodes
        SET expires = now() + p_life * interval '1 second', life = p_life,
            address = p_address, relay = p_relay
        WHERE id = p_node;
        IF NOT FOUND THEN
            RETURN false;
        END IF;
        DELETE FROM cluster_nodes WHERE id IN (
            SELECT id FROM cluster_nodes n WHERE NOT {alive("n")} AND id <> p_node
            FOR UPDATE SKIP LOCKED
        );
        RETURN true;
    END
    $$ LANGUAGE plpgsql
    """,
    """
    CREATE OR REPLACE FUNCTION cluster_beat(
        p_node text, p_address text, p_relay text, p_life double precision,
        p_games text[], p_keys text[], p_upto bigint
    ) RETURNS boolean AS $$
    BEGIN
        IF NOT cluster_renew(p_node, p_address, p_relay, p_life) THEN
            RETURN false;
        END IF;
        DELETE FROM cluster_games
        WHERE node = p_node AND NOT (name = ANY(p_games)) AND claim <= p_upto;
        DELETE FROM cluster_name_keys
        WHERE node = p_node AND NOT (key = ANY(p_keys)) AND claim <= p_upto;
        RETURN true;
    END
    $$ LANGUAGE plpgsql
    """,
    """
    CREATE OR REPLACE FUNCTION cluster_claim_game(
        p_node text, p_address text, p_relay text, p_life double precision, p_name text,
        p_claim bigint
    ) RETURNS integer AS $$
    BEGIN
        IF NOT cluster_renew(p_node, p_address, p_relay, p_life) THEN
            RETURN 0;
        END IF;
        INSERT INTO cluster_games (name, node, claim) VALUES (p_name, p_node, p_claim)
        ON CONFLICT (name) DO NOTHING;
        IF FOUND THEN
            RETURN 1;
        END IF;
        UPDATE cluster_games SET claim = p_claim WHERE name = p_name AND node = p_node;
        RETURN CASE WHEN FOUND THEN 1 ELSE 2 END;  -- this node's already, or another's
    END
    $$ LANGUAGE plpgsql
    """,
    """
    CREATE OR REPLACE FUNCTION cluster_claim_name(
        p_node text, p_address text, p_relay text, p_life double precision,
        p_name text, p_keys text[], p_claim bigint
    ) RETURNS integer AS $$
    BEGIN
        IF NOT cluster_renew(p_node, p_address, p_relay, p_life) THEN
            RETURN 0;
        END IF;
        BEGIN
            INSERT INTO cluster_name_keys (key, name, node, claim)
            SELECT key, p_name, p_node, p_claim FROM unnest(p_keys) AS key
            ON CONFLICT (key) DO NOTHING;
            UPDATE cluster_name_keys SET claim = p_claim
            WHERE key = ANY(p_keys) AND node = p_node;
            IF (SELECT count(*) FROM cluster_name_keys WHERE key = ANY(p_keys) AND node = p_node)
               <> cardinality(p_keys) THEN
                RAISE SQLSTATE 'DOD01';  -- another node holds a key: take none of them
            END IF;
            RETURN 1;
        EXCEPTION WHEN SQLSTATE 'DOD01' THEN
            RETURN 2;
        END;
    END
    $$ LANGUAGE plpgsql
    """,
    "DROP TRIGGER IF EXISTS cluster_games_announce ON cluster_games",
    """
    CREATE TRIGGER cluster_games_announce AFTER INSERT OR UPDATE OR DELETE ON cluster_games
    FOR EACH ROW EXECUTE FUNCTION cluster_games_announce()
    """,
)
"""Run in one transaction under :data:`SCHEMA_LOCK`; each is safe to run again."""

SNAPSHOT: Final = f"""
    SELECT g.name, g.node, n.address, n.relay, g.info
    FROM cluster_games g JOIN cluster_nodes n ON n.id = g.node
    WHERE {alive("n")} AND g.node <> %(node)s
"""

RENEW_ARGUMENTS: Final = "%(node)s, %(address)s, %(relay)s, %(life)s"

BEAT: Final = (
    f"SELECT cluster_beat({RENEW_ARGUMENTS}, %(games)s::text[], %(keys)s::text[], %(upto)s)"
)
"""One round trip: renew this node's lease (``false``: the node was reaped, and its claims
are gone), reap the nodes judged gone, and let go of whatever this node holds but does
not know it holds (a claim whose answer came after its caller gave up on it: the call
passed its time limit, yet committed), among its claims numbered ``upto`` at most (a
beat that reaches the database late never takes a claim made after it was sent)."""

REGISTER: Final = """
    INSERT INTO cluster_nodes (id, address, relay, expires, life)
    VALUES (%(node)s, %(address)s, %(relay)s, now() + %(life)s * interval '1 second', %(life)s)
"""

CLAIM: Final = f"SELECT cluster_claim_game({RENEW_ARGUMENTS}, %(name)s, %(claim)s)"
"""One round trip: renew this node, reap, and claim a free game name: 1 if it is ours
now, 2 if another node's, 0 if this node was reaped (and claims nothing)."""

CLAIM_NAME: Final = (
    f"SELECT cluster_claim_name({RENEW_ARGUMENTS}, %(name)s, %(keys)s::text[], %(claim)s)"
)
"""The same for a player's name: every one of its keys, or none (0, 1 or 2 likewise)."""

PUT: Final = """
    UPDATE cluster_games SET info = %(info)s WHERE name = %(name)s AND node = %(node)s
    RETURNING name
"""
"""Describe a game this node holds; no row means the claim is gone."""

DROP: Final = """
    DELETE FROM cluster_games WHERE name = %(name)s AND node = %(node)s AND claim <= %(upto)s
"""
"""Let a game's name go, unless claimed again after this was written (``upto``)."""

SECRET: Final = """
    WITH made AS (
        INSERT INTO cluster_secret (secret) VALUES (%(secret)s) ON CONFLICT DO NOTHING
        RETURNING secret
    )
    SELECT secret FROM made UNION ALL SELECT secret FROM cluster_secret
"""
"""The cluster's shared secret, made by the first node that asks (relays are signed with it)."""

NAMES: Final = f"""
    SELECT DISTINCT c.name, c.node FROM cluster_name_keys c JOIN cluster_nodes n ON n.id = c.node
    WHERE {alive("n")} AND c.node <> %(node)s
"""
UNNAME: Final = """
    DELETE FROM cluster_name_keys
    WHERE node = %(node)s AND key = ANY(%(keys)s) AND claim <= %(upto)s
"""
"""Let keys go, unless claimed again after this was written (``upto``)."""

LEAVE: Final = "DELETE FROM cluster_nodes WHERE id = %(node)s"

STATUS_NODES: Final = f"""
    SELECT n.id, n.address, n.relay, n.started,
           (SELECT count(DISTINCT c.name) FROM cluster_name_keys c WHERE c.node = n.id)
    FROM cluster_nodes n WHERE {alive("n")} ORDER BY n.started
"""
STATUS_GAMES: Final = "SELECT name, node, info FROM cluster_games ORDER BY name"

BARRIER: Final = f"SELECT pg_notify('{CHANNEL}', %(payload)s)"
"""A change record of no change, sent behind every committed one (``caught_up``)."""
