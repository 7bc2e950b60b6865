"""``dod-records``: the ladder on the command line — leaderboard, a player's history, a
game's record, exports to CSV and JSON.

::

    dod-records leaderboard [--world classic] [--limit 20] [--json]
    dod-records history NAME [--world W] [--limit 50] [--json]
    dod-records game ID-OR-ITS-START [--json]
    dod-records export games|players|ratings [--format csv|json] [--world W] [-o FILE]
    dod-records migrate            # bring the schema to the newest revision
    dod-records rerate WORLD       # compute WORLD's ratings afresh from its games
    dod-records compare OTHER-URL [--prefix T] [--json]   # the same games in both stores?

``--db`` (or ``$DOD_DB``) names the store as ``dod-server --db`` does; the default is
the server's own: ``sqlite:///records.db`` (beside ``replays/``). Exit status: 0, or 2 with a
one-line error (an unreachable store, an unknown game); ``compare`` exits 1 when the
stores differ. Output cut short by its reader (``dod-records export games | head``) ends
quietly, as with other command-line tools.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

from commandline import run_command

from .urls import safe_url

# The store (SQLAlchemy, Alembic) and Rich load once a command runs, not for ``--help``.
if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from .store import Store

__all__ = ["DEFAULT_DB", "main"]

DEFAULT_DB = "sqlite:///records.db"
"""Where ``dod-server`` records by default (``--db auto`` with the default replay folder)."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dod-records",
        description="Read the records a Dungeon of Doom server keeps: ratings, games, players.",
    )
    parser.add_argument(
        "--db",
        default=os.environ.get("DOD_DB") or DEFAULT_DB,
        metavar="URL",
        help="the store: sqlite:///FILE or postgresql://USER@HOST/DB "
        "(default: $DOD_DB, else %(default)s)",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    board = commands.add_parser("leaderboard", help="ratings, best first, per world")
    board.add_argument("--world", help="one world only")
    board.add_argument("--limit", type=int, default=None, help="players per world")
    board.add_argument("--json", action="store_true", help="one JSON array")

    history = commands.add_parser("history", help="a player's games, newest first")
    history.add_argument("name")
    history.add_argument("--world")
    history.add_argument("--limit", type=int, default=50)
    history.add_argument("--json", action="store_true")

    game = commands.add_parser("game", help="one game's record, by its id or its id's start")
    game.add_argument("id")
    game.add_argument("--json", action="store_true")

    export = commands.add_parser("export", help="a whole table as CSV or JSON")
    export.add_argument("table", choices=("games", "players", "ratings"))
    export.add_argument("--format", choices=("csv", "json"), default="csv")
    export.add_argument("--world")
    export.add_argument("-o", "--output", help="file to write (default: standard output)")

    commands.add_parser("migrate", help="bring the schema to the newest revision")
    rerate = commands.add_parser("rerate", help="compute a world's ratings afresh")
    rerate.add_argument("world")

    compare = commands.add_parser(
        "compare",
        help="whether another store holds the same games (all fields but ids, times, "
        "server and replay path); exit 1 if not",
    )
    compare.add_argument("other", metavar="OTHER-URL", help="the store to compare with")
    compare.add_argument("--prefix", help="only games whose name starts so (a tournament)")
    compare.add_argument("--json", action="store_true")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    options = build_parser().parse_args(argv)
    return run_command(lambda: _main(options))


def _main(options: argparse.Namespace) -> int:
    from .store import Store, StoreError

    try:
        store = Store(options.db)
        try:
            store.migrate()
            return _run(store, options, sys.stdout)
        finally:
            store.close()
    except StoreError as error:
        print(f"dod-records: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        raise
    except Exception as error:  # the database itself: unreachable, refused, broken
        first = str(error).strip().splitlines()
        reason = first[0] if first else type(error).__name__
        print(f"dod-records: error: {safe_url(options.db)}: {reason}", file=sys.stderr)
        return 2


def _run(store: Store, options: argparse.Namespace, out: TextIO) -> int:
    command = options.command
    if command == "leaderboard":
        table = store.leaderboard(options.world, options.limit)
        if options.json:
            _json([s.as_dict() for s in table], out)
        else:
            _print_leaderboard([s.as_dict() for s in table], out)
    elif command == "history":
        rows = store.history(options.name, options.world, options.limit)
        if options.json:
            _json(rows, out)
        else:
            _print_rows(f"{options.name}: {len(rows)} games", rows, out)
    elif command == "game":
        row = store.game(options.id).as_dict()
        if options.json:
            _json(row, out)
        else:
            players = row.pop("players")
            _print_rows("game", [row], out)
            _print_rows("players", players, out)
    elif command == "export":
        rows = _export_rows(store, options.table, options.world)
        if options.output:
            with open(options.output, "w", newline="", encoding="utf-8") as file:
                _write_export(rows, options.format, file)
        else:
            _write_export(rows, options.format, out)
    elif command == "migrate":
        print(f"schema at revision {store.revision()}", file=out)
    elif command == "rerate":
        games = store.rerate(options.world)
        print(f"{options.world}: ratings computed afresh from {games} rated games", file=out)
    elif command == "compare":
        return _compare(store, options, out)
    return 0


def _compare(store: Store, options: argparse.Namespace, out: TextIO) -> int:
    from .compare import compare
    from .store import Store

    other = Store(options.other)
    try:
        found = compare(store.games(), other.games(), prefix=options.prefix)
    finally:
        other.close()
    if options.json:
        _json(found.as_dict(), out)
        return 0 if found.identical else 1
    print(
        f"{found.paired} games in both, {found.same} identical; only in {safe_url(options.db)}: "
        f"{len(found.only_first)}; only in {safe_url(options.other)}: {len(found.only_second)}",
        file=out,
    )
    for game, name, first, second in found.differences:
        print(f"{game}: {name}: {first!r} != {second!r}", file=out)
    for label, names in (
        ("only in the first", found.only_first),
        ("only in the other", found.only_second),
    ):
        if names:
            print(f"{label}: {' '.join(names)}", file=out)
    print("identical" if found.identical else "different", file=out)
    return 0 if found.identical else 1


def _export_rows(store: Store, table: str, world: str | None) -> list[dict[str, Any]]:
    if table == "ratings":
        return [s.as_dict() for s in store.leaderboard(world)]
    rows = [row.as_dict() for row in store.games(world)]
    if table == "games":
        for row in rows:
            row.pop("players")
        return rows
    return [{"world": row["world"], **player} for row in rows for player in row["players"]]


def _write_export(rows: list[dict[str, Any]], fmt: str, out: TextIO) -> None:
    if fmt == "json":
        _json(rows, out)
        return
    if not rows:
        return
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)


def _json(data: Any, out: TextIO) -> None:
    json.dump(data, out, indent=2, default=str)
    out.write("\n")


def leaderboard_table(rows: list[dict[str, Any]], title: str | None = None) -> Table:
    """The leaderboard as a rich table (``dod-arena`` prints the same one)."""
    from rich.table import Table
    from rich.text import Text

    table = Table(title=title)
    for column in ("world", "rank", "name", "rating", "mu", "± sigma", "games", "wins"):
        table.add_column(column, justify="left" if column in ("world", "name") else "right")
    for row in rows:
        table.add_row(  # a name is text, never Rich markup: a player may be called [/]
            Text(row["world"]),
            str(row["rank"]),
            Text(row["name"]),
            f"{row['rating']:.2f}",
            f"{row['mu']:.2f}",
            f"{row['sigma']:.2f}",
            str(row["games"]),
            str(row["wins"]),
        )
    return table


def _console(out: TextIO) -> Console:
    from rich.console import Console

    return Console(file=out, width=120 if not out.isatty() else None)


def _print_leaderboard(rows: list[dict[str, Any]], out: TextIO) -> None:
    if not rows:
        print("no rated games yet", file=out)
        return
    _console(out).print(leaderboard_table(rows))


def _print_rows(title: str, rows: list[dict[str, Any]], out: TextIO) -> None:
    if not rows:
        print(f"{title}: none", file=out)
        return
    from rich.table import Table
    from rich.text import Text

    table = Table(title=Text(title))
    for column in rows[0]:
        table.add_column(column)
    for row in rows:
        table.add_row(
            *(
                Text("" if v is None else f"{v:.2f}" if isinstance(v, float) else str(v))
                for v in row.values()
            )
        )
    _console(out).print(table)


if __name__ == "__main__":
    sys.exit(main())
