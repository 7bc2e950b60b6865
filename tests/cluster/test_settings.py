"""The cluster's settings: checked however they arrive."""

from __future__ import annotations

import pytest

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
