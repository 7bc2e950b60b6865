"""The closing note of issue 25, played: a game created on one host, joined by ``nc`` on a
second, and watched in a browser through a third (three network-namespace hosts, one
PostgreSQL, Debian's ``nc`` and a headless Chromium).

It writes what ``nc`` sent and read to ``transcript.txt`` and the browser's view to
``watched.png``, both in the test's temporary folder, whose path it prints.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import browser, page, wait_for_text

from .conftest import WAIT, Cluster, eventually, on_hosts
from .hosts import Hosts

__all__ = ["browser", "page"]


class Netcat:
    """``nc HOST PORT`` on a host: lines typed in, lines read out, each kept."""

    def __init__(self, on: list[str], host: str, port: int, transcript: list[str]) -> None:
        self.process = subprocess.Popen(
            [*on, "nc", host, str(port)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.transcript = transcript

    def ask(self, line: str) -> str:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.transcript.append(f"> {line}")
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        return self.line()

    def line(self) -> str:
        assert self.process.stdout is not None
        answer = self.process.stdout.readline()
        assert answer.endswith("\n"), f"nc ended: {answer!r}"
        self.transcript.append(answer.rstrip("\n"))
        return answer.rstrip("\n")

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=WAIT)


def test_created_on_one_host_joined_by_nc_on_a_second_watched_in_a_browser_via_a_third(
    cluster: Cluster, hosts: Hosts, page: Any, tmp_path: Path
) -> None:
    if shutil.which("nc") is None:
        pytest.skip("nc is missing: apt-get install netcat-openbsd")
    (a, b), database = on_hosts(cluster, hosts, 2)
    on_c, c_address = hosts.host(3)
    # Host C reaches PostgreSQL as A and B do: through the link on the switch.
    direct = cluster.url.split("@", 1)[1].split("/", 1)[0]
    through_switch = cluster.url.replace(direct, f"{hosts.own}:{database.port}")
    c = cluster.node(
        "--cluster",
        through_switch,
        "--http-port",
        "0",
        "--http-host",
        c_address,
        on=on_c,
        host=c_address,
    )
    transcript: list[str] = []
    nic: Netcat | None = None
    try:
        ada = a.client()
        assert ada.ask("EXTEND events") == "EXTENDED events"
        assert ada.ask("HELLO Ada") == "GOLD 3"
        assert ada.ask("CREATE arena classic").startswith("GAME arena ")
        assert ada.ask("JOIN arena").startswith("GAME arena ")
        eventually(lambda: "arena" in b.client().games(), "host B lists the game on host A")
        eventually(lambda: "arena" in c.client().games(), "host C lists the game on host A")
        web = c.wait_for(r"web page listening.*?url=(http://[^\s]+)").group(1)
        page.goto(web + "#/watch/arena")
        page.locator(".tag[data-player='Ada']").wait_for()

        transcript.append(f"$ nc {b.host} {b.port}          (on host B)")
        nic = Netcat(["ip", "netns", "exec", _namespace(hosts, b.host)], b.host, b.port, transcript)
        assert nic.ask("HELLO Nic") == "GOLD 3"
        assert nic.ask("GAMES").startswith("GAMES ")
        listed = int(transcript[-1].split()[1])
        assert any(nic.line().startswith("GAME arena ") for _ in range(listed))
        assert nic.ask("JOIN arena").startswith("GAME arena ")
        assert ada.line() == "JOINED Nic"
        assert any(nic.ask(f"MOVE {direction}") == "SUCCESS" for direction in "NESW")
        assert nic.ask("LOOK") == "LOOKREPLY"
        for _ in range(5):
            nic.line()
        # Host C's page shows Nic, who plays through host B in host A's game.
        page.locator(".tag[data-player='Nic']").wait_for()
        page.locator(".card[data-player='Nic']", has_text=re.compile(r"moves\s*[1-9]")).wait_for()
        wait_for_text(page, "#events", "Nic")
        shot = tmp_path / "watched.png"
        page.screenshot(path=str(shot), full_page=True)
        assert shot.stat().st_size > 5000
        assert nic.ask("QUIT") == "BYE Thanks for playing."
        assert ada.line() == "LEFT Nic: quit"
        (tmp_path / "transcript.txt").write_text("\n".join(transcript) + "\n")
        print(f"\ntranscript: {tmp_path / 'transcript.txt'}\nscreenshot: {shot}")
        print("\n".join(transcript))
    finally:
        if nic is not None:
            nic.close()
        database.cut()


def _namespace(hosts: Hosts, address: str) -> str:
    """The namespace of the host at ``address`` (hosts are numbered from .2)."""
    number = int(address.rsplit(".", 1)[1]) - 1
    return f"dod{hosts.tag}h{number}"
