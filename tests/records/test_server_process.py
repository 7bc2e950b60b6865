"""A real ``dod-server`` process as a user starts it: records on with no configuration,
beside the replays, and a claimed name's token nowhere in its logs."""

from __future__ import annotations

import io
import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

from dungeon_of_doom.records.store import Store


class Line:
    """A blocking line client, enough for a few commands."""

    def __init__(self, port: int) -> None:
        self.socket = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.file = self.socket.makefile("rwb")

    def ask(self, line: str) -> str:
        self.file.write(line.encode() + b"\n")
        self.file.flush()
        return self.file.readline().decode().rstrip("\n")

    def close(self) -> None:
        self.file.close()
        self.socket.close()


def test_records_beside_the_replays_by_default_and_the_token_never_logged(
    tmp_path: Path,
) -> None:
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "dungeon_of_doom.server",
            "--port",
            "0",
            "--no-http",
            "--log-level",
            "debug",
        ],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])},
    )
    # The default buffering makes the pipe a BufferedReader, which can return what is there.
    assert isinstance(server.stderr, io.BufferedReader)
    seen = b""
    try:
        while (found := re.search(rb"listening on [^\s:]+:(\d+)", seen)) is None:
            chunk = server.stderr.read1(4096)
            assert chunk, f"the server exited: {seen.decode()[-1000:]}"
            seen += chunk
        port = int(found.group(1))
        owner = Line(port)
        keyword, name, token = owner.ask("REGISTER Ada").split(" ")
        assert (keyword, name) == ("REGISTERED", "Ada")
        owner.close()
        ada, bob = Line(port), Line(port)
        assert ada.ask(f"LOGIN Ada {token}") == "LOGGEDIN Ada"
        assert ada.ask("LOGIN Ada not-the-token").startswith("ERROR wrong token")
        assert ada.ask("HELLO Ada").startswith("GOLD")
        assert bob.ask("HELLO Bob").startswith("GOLD")
        assert ada.ask("QUIT").startswith("BYE")
        assert bob.ask("QUIT").startswith("BYE")
        ada.close()
        bob.close()
    finally:
        server.send_signal(signal.SIGTERM)
        _, rest = server.communicate(timeout=60)
    logs = (seen + rest).decode()
    assert server.returncode == 0, logs[-2000:]
    assert "logged in" in logs  # the events are there, at debug level ...
    assert token not in logs and "not-the-token" not in logs  # ... the tokens are not
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "records-unwritten",
        "records.db",
        "replays",
    ]
    assert not list((tmp_path / "records-unwritten").iterdir()), "every game is in the store"
    [row] = Store(f"sqlite:///{tmp_path / 'records.db'}").games()
    assert [(p["name"], p["claimed"]) for p in row.players] == [("Ada", True), ("Bob", False)]
