"""The PostgreSQL queue of matches: one match to one worker, leases that run out, a result
stored once, idle workers woken. A real PostgreSQL (skipped where none can be started)."""

from __future__ import annotations

import threading

from dungeon_of_doom.arena import queue

MATCHES = [{"world": "battle", "seed": 1, "entrants": ["a", "b"]}]


def test_two_workers_racing_for_one_match_get_it_once(postgres_url: str) -> None:
    setup = queue.connect(postgres_url)
    queue.ensure_schema(setup)
    assert queue.submit(setup, "race", {"format": "round-robin"}, MATCHES) == 1
    assert queue.submit(setup, "race", {"format": "round-robin"}, MATCHES) == 0  # once
    start = threading.Barrier(8)
    got: list[queue.Claimed | None] = []

    def worker(name: str) -> None:
        with queue.connect(postgres_url) as connection:
            start.wait()
            got.append(queue.claim(connection, name, lease=600))

    threads = [threading.Thread(target=worker, args=(f"w{n}",)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    won = [claimed for claimed in got if claimed is not None]
    assert len(got) == 8 and len(won) == 1
    assert won[0].spec == MATCHES[0] and won[0].attempts == 1
    assert queue.status(setup, "race") == {"pending": 0, "playing": 1, "done": 0, "claims": 1}


def test_a_lost_lease_hands_the_match_on_and_its_result_is_stored_once(
    postgres_url: str,
) -> None:
    connection = queue.connect(postgres_url)
    queue.ensure_schema(connection)
    queue.submit(connection, "lost", {}, MATCHES)
    held = queue.claim(connection, "killed", lease=600)
    assert held is not None
    assert queue.claim(connection, "other", lease=600) is None  # its lease still runs
    # The worker is killed mid-match: its lease is let run out (made to, here, at once).
    connection.execute("UPDATE arena_matches SET lease_until = now() - interval '1 second'")
    again = queue.claim(connection, "other", lease=600)
    assert again is not None and (again.number, again.attempts) == (0, 2)
    assert not queue.renew(connection, held, "killed", 600)  # no longer the killed one's
    assert queue.renew(connection, again, "other", 600)
    assert queue.finish(connection, again, "other", {"winner": "a"})
    # The first worker was only cut off, and comes back with its own result: refused.
    assert not queue.finish(connection, held, "killed", {"winner": "b"})
    assert queue.results(connection, "lost") == {0: {"winner": "a"}}
    assert queue.status(connection, "lost") == {"pending": 0, "playing": 0, "done": 1, "claims": 2}
    assert queue.claim(connection, "third", lease=600) is None


def test_a_draining_worker_releases_its_match_and_an_idle_one_is_woken(
    postgres_url: str,
) -> None:
    connection = queue.connect(postgres_url)
    queue.ensure_schema(connection)
    idle = queue.connect(postgres_url)
    queue.listen(idle)
    woken = threading.Event()

    def wait() -> None:
        if queue.wait_for_work(idle, timeout=120):
            woken.set()

    waiter = threading.Thread(target=wait)
    waiter.start()
    queue.submit(connection, "drain", {}, MATCHES)
    waiter.join()
    assert woken.is_set()
    held = queue.claim(idle, "draining", lease=600)
    assert held is not None
    assert queue.release(connection, held, "draining")
    assert queue.wait_for_work(idle, timeout=120)  # the release woke idle workers too
    taken = queue.claim(connection, "next", lease=600)
    assert taken is not None and taken.attempts == 2
