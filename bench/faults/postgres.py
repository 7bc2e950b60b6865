"""PostgreSQL on a host of its own, for the campaign and the tests that put a cluster
through it, started from Debian's binaries."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from pathlib import Path


def binary(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


class PostgresOnHost:
    """A PostgreSQL server of its own on a host made by :class:`bench.faults.hosts.Hosts`
    (``on``: the command prefix that runs a program there), listening only on the host's
    ``address``, every host of the subnet trusted; it can be restarted and stopped like a
    real one (``pg_ctl``), to put a cluster through it. :meth:`close` deletes it.

    Raises :class:`RuntimeError` saying why where it cannot run (no binaries, no
    ``postgres`` user to run it as when running as root)."""

    PORT = 5432

    def __init__(self, on: list[str], address: str, subnet: str) -> None:
        initdb, pg_ctl, runuser = binary("initdb"), binary("pg_ctl"), shutil.which("runuser")
        if initdb is None or pg_ctl is None:
            raise RuntimeError(
                "PostgreSQL's initdb and pg_ctl are needed: apt-get install postgresql"
            )
        self._as_user: list[str] = []
        self.folder = Path(tempfile.mkdtemp(prefix="dod-pg-host-"))
        self.data, sockets = self.folder / "data", self.folder / "run"
        sockets.mkdir()
        if os.geteuid() == 0:
            import pwd

            try:
                owner = pwd.getpwnam("postgres")
            except KeyError:
                raise RuntimeError(
                    "running as root, with no postgres user to run PostgreSQL as"
                ) from None
            if runuser is None:
                raise RuntimeError("running as root, and runuser is missing")
            self._as_user = [runuser, "-u", "postgres", "--"]
            for path in (self.folder, sockets):
                os.chown(path, owner.pw_uid, owner.pw_gid)
        self._on, self._pg_ctl = on, pg_ctl
        subprocess.run(
            [*self._as_user, initdb, "-D", str(self.data), "-U", "postgres", "-A", "trust"],
            check=True,
            capture_output=True,
        )
        with (self.data / "pg_hba.conf").open("a") as hba:
            hba.write(f"host all all {subnet}.0/24 trust\n")
        # No synchronous_commit=off: a commit it has answered must outlive its crash
        # (pg_ctl restart -m immediate), or a record told as written would be lost with
        # it. (fsync=off loses nothing to a crash of PostgreSQL alone, only the machine's.)
        self._options = (
            f"-p {self.PORT} -k {sockets} -c listen_addresses={address} -c fsync=off "
            "-c full_page_writes=off -c max_connections=200"
        )
        self.url = f"postgresql://postgres@{address}:{self.PORT}/postgres"
        """The URL of its maintenance database, on the host's address."""

    def _ctl(self, *args: str) -> None:
        done = subprocess.run(
            [*self._on, *self._as_user, self._pg_ctl, "-D", str(self.data), *args],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            log = self.folder / "log"
            said = log.read_text()[-2000:] if log.exists() else ""
            raise RuntimeError(f"pg_ctl {' '.join(args)} failed: {done.stderr}{said}")

    def start(self) -> None:
        """Start it and return once it takes connections."""
        self._ctl("-o", self._options, "-l", str(self.folder / "log"), "-w", "start")

    def restart(self, mode: str) -> None:
        """``pg_ctl restart -m mode`` (``fast`` or ``immediate``), once it is back."""
        self._ctl("-o", self._options, "-l", str(self.folder / "log"), "-m", mode, "-w", "restart")

    def stop(self, mode: str = "fast") -> None:
        self._ctl("-m", mode, "-w", "stop")

    def close(self) -> None:
        """Stop it, however it is, and delete it."""
        subprocess.run(
            [*self._as_user, self._pg_ctl, "-D", str(self.data), "-m", "immediate", "-w", "stop"],
            capture_output=True,
        )
        shutil.rmtree(self.folder, ignore_errors=True)
