"""The cluster's settings: checked however they arrive."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from server.cluster.links import Links
from server.setup.config import ConfigError, ServerConfig


def test_the_cluster_url_must_be_postgresql() -> None:
    assert ServerConfig(cluster="postgresql://dod@db/dod").cluster == "postgresql://dod@db/dod"
    assert ServerConfig(cluster="").cluster is None
    with pytest.raises(ConfigError, match="cluster: must be a postgresql:// URL"):
        ServerConfig(cluster="sqlite:///x.db")


@pytest.mark.parametrize("address", ["host", "host:", ":40004", "host:0", "host:65536", "h:x"])
def test_the_advertised_address_must_be_host_and_port(address: str) -> None:
    with pytest.raises(ConfigError, match="advertise: must be HOST:PORT"):
        ServerConfig(advertise=address)


def test_the_heartbeat_is_bounded() -> None:
    assert ServerConfig(advertise="[::1]:40004", heartbeat=0.5).heartbeat == 0.5
    with pytest.raises(ConfigError, match=r"heartbeat: must be at least 0\.05"):
        ServerConfig(heartbeat=0.01)


def test_the_relay_s_tls_files_go_together_and_must_load(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="relay_cert, relay_key and relay_ca go together"):
        ServerConfig(relay_cert="node.pem", relay_key="node.key")
    assert ServerConfig(relay_cert="", relay_key="", relay_ca="").relay_cert is None
    missing = str(tmp_path / "missing.pem")
    config = ServerConfig(relay_cert=missing, relay_key=missing, relay_ca=missing)
    with pytest.raises(
        ConfigError, match=r"relay_cert, relay_key, relay_ca: cannot load .*missing"
    ):
        Links.from_config(config)
    assert not Links.from_config(ServerConfig(relay_timeout=3)).tls


def test_a_node_given_unreadable_certificates_says_so_and_does_not_start(tmp_path: Path) -> None:
    bad = tmp_path / "bad.pem"
    bad.write_text("not a certificate\n")
    flags = ("--relay-cert", str(bad), "--relay-key", str(bad), "--relay-ca", str(bad))
    server = (sys.executable, "-m", "server", "--port", "0", "--no-http", "--no-replays")
    result = subprocess.run(
        [*server, "--no-db", "--cluster", "postgresql://dod@127.0.0.1:1/dod", *flags],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "relay_cert, relay_key, relay_ca: cannot load" in result.stderr
