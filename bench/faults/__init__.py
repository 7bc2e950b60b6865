"""``python -m bench.faults``: the cluster tested as databases are, with faults.

Real nodes on hosts of their own (network namespaces), PostgreSQL on its own host, a
``--workers`` server beside them (:mod:`bench.faults.rig`); clients racing for the same
game and player names on every node, each command and its answer recorded
(:mod:`bench.faults.workload`); a schedule of faults drawn from the seed, injected one at
a time and healed (:mod:`bench.faults.nemesis`); after each heal, the nodes' state
checked (their ``GAMES`` agree within three heartbeats, only live nodes' games are
listed, no game has two holders, every node answers), and at the end the invariants
checked on the whole history and the records databases (:mod:`bench.faults.check`),
with the directory's own record of who held which name when
(:mod:`bench.faults.observe`).

It prints the seed, the schedule, each fault as it is injected and healed, each
violation with the history around it, the figures, and last ``violations: N``; it exits
with status 1 if N is not 0. The same seed replays the same schedule and the same
clients' choices.
"""
