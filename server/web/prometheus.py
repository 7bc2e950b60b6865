"""``/metrics``: the server's state and counts in the Prometheus text format.

A :class:`ServerCollector` reads everything at scrape time (connections, players
and games by world from the lobby; the totals of :class:`server.metrics.Counts`),
so nothing is counted twice and the hot path only ever adds to plain integers.
Each server has its own :class:`prometheus_client.CollectorRegistry`, so several
servers in one process (tests) never share a figure they should not.
"""

from __future__ import annotations

import collections
from collections.abc import Iterator

import trio
from prometheus_client import CollectorRegistry, Histogram
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

from ..metrics import ROUND_SECONDS
from .site import Site

LAG_TICK = 0.25
"""Seconds between the event-loop lag probe's wake-ups."""


class ServerCollector(Collector):
    """Every figure of one :class:`~server.app.Server`, read when scraped."""

    def __init__(self, server: Site) -> None:
        self.server = server

    def collect(self) -> Iterator[Metric]:
        server = self.server
        counts = server.counts
        # The info-metric idiom: a constant 1 whose labels name this node, so a
        # dashboard can join any figure to the node it came from by its scrape.
        node = GaugeMetricFamily(
            "dod_node_info",
            "This node: the HOST:PORT it advertises to clients, and its id in the cluster",
            labels=["node", "id"],
        )
        directory = server.directory
        node.add_metric([directory.advertise or "", directory.node], 1)
        yield node
        yield GaugeMetricFamily(
            "dod_connections", "Client connections open now", value=len(server.connections)
        )
        players = GaugeMetricFamily(
            "dod_players", "Players in games now, by world", labels=["world"]
        )
        games = GaugeMetricFamily(
            "dod_games", "Games on the server now, by world", labels=["world"]
        )
        watchers = GaugeMetricFamily("dod_watchers", "Spectators now, by world", labels=["world"])
        by_world: collections.Counter[str] = collections.Counter()
        players_by_world: collections.Counter[str] = collections.Counter()
        watchers_by_world: collections.Counter[str] = collections.Counter()
        for game in server.games.values():
            info = game.info()
            by_world[info.world] += 1
            players_by_world[info.world] += info.players
            watchers_by_world[info.world] += info.watchers
        for world in sorted(by_world):
            games.add_metric([world], by_world[world])
            players.add_metric([world], players_by_world[world])
            watchers.add_metric([world], watchers_by_world[world])
        yield games
        yield players
        yield watchers
        commands = CounterMetricFamily("dod_commands", "Commands handled, by verb", labels=["verb"])
        by_verb: collections.Counter[str] = collections.Counter()
        for kind, count in counts.commands.items():
            by_verb[str(getattr(kind, "verb", kind.__name__)).upper()] += count
        for verb in sorted(by_verb):
            commands.add_metric([verb], by_verb[verb])
        yield commands
        yield CounterMetricFamily(
            "dod_protocol_errors", "Lines refused as malformed", value=counts.protocol_errors
        )
        yield CounterMetricFamily(
            "dod_connections_served", "Connections accepted and served", value=counts.connections
        )
        yield CounterMetricFamily(
            "dod_connections_refused",
            "Connections refused (full, too many from one address, stopping)",
            value=counts.refused,
        )
        yield CounterMetricFamily(
            "dod_clients_cut_off", "Clients cut off for not reading", value=counts.cut_off
        )
        rounds = HistogramMetricFamily(
            "dod_round_duration_seconds", "Seconds from a round's first action to its resolution"
        )
        rounds.add_metric([], ROUND_SECONDS.cumulative(), sum_value=ROUND_SECONDS.sum)
        yield rounds


class ServerMetrics:
    """The registry ``/metrics`` serves, and the event-loop lag probe that feeds it."""

    def __init__(self, server: Site) -> None:
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(ServerCollector(server))
        self.loop_lag = Histogram(
            "dod_event_loop_lag_seconds",
            f"How late the event loop woke a task that slept {LAG_TICK:g} s",
            buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0),
            registry=self.registry,
        )

    async def probe_loop_lag(self) -> None:
        """Measure, forever, how late the loop wakes a sleeping task: its lag."""
        while True:
            due = trio.current_time() + LAG_TICK
            await trio.sleep_until(due)
            self.loop_lag.observe(max(0.0, trio.current_time() - due))
