"""The large-map, LOOK, idle-memory and scaling benchmarks: they run and count right.

Nothing here times anything (figures are measured by the scripts, never asserted):
each runs at a tiny size against the real code or a real server and its figures are
checked for consistency.
"""

from __future__ import annotations

from pathlib import Path

from bench import bigmap, idle_memory, look_bench, scaling
from dungeon_of_doom.worlds.classic import parse_map


def test_the_open_arena_is_a_classic_map_of_the_side_asked() -> None:
    arena = parse_map(bigmap.arena(40))
    assert (arena.height, arena.width) == (40, 40)
    assert sum(row.count("#") for row in arena.rows) > 4 * 39  # a border and pillars


def test_a_big_map_is_measured_in_a_fresh_process_for_each_world(tmp_path: Path) -> None:
    path = tmp_path / "arena.map"
    path.write_text(bigmap.arena(60))
    for world in bigmap.WORLDS:
        figures = bigmap.run_child(world, str(path), None)
        assert figures["world"] == world and (figures["rows"], figures["columns"]) == (60, 60)
        assert figures["peak_mib"] >= figures["rss_mib"] > 0
        assert figures["look_us"] > 0 and figures["parse_s"] >= 0


def test_the_look_benchmark_times_both_paths_which_send_the_same_bytes() -> None:
    best = look_bench.measure(players=12, rounds=1, number=2)
    assert set(best) == {"strings", "bytes", "look", "look_bytes"}
    assert all(0 < value < float("inf") for value in best.values())


def test_idle_connections_are_held_and_each_becomes_a_player() -> None:
    figures = idle_memory.run(40)
    assert figures["connections"] == 40
    assert figures["rss_players_kib"] >= figures["rss_empty_kib"] > 0


def test_two_servers_are_driven_at_once_and_their_figures_summed() -> None:
    figures = scaling.run_servers(
        2, ["-n", "3", "--duration", "0.5", "--warmup", "0.2", "--commands", "mix"]
    )
    assert figures["servers"] == 2 and len(figures["runs"]) == 2
    assert all(run["errors"] == 0 and run["connections"] == 3 for run in figures["runs"])
    assert figures["throughput"] == sum(run["throughput"] for run in figures["runs"]) > 0
