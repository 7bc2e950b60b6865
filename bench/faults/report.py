"""What the campaign prints at its end: each violation with the history around it, then
the figures: faults injected, commands answered, answer times, and for each fault what
the clients got while it lasted and how soon the nodes agreed again once it healed."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Final

from .check import Violation, excused
from .history import ERROR, FINAL, OK, Fault, History, Op

SHOWN: Final = 20
"""Violations printed with the history around them (the others on a line each)."""


def report(history: History, violations: list[Violation], *, markdown: bool = False) -> None:
    for number, violation in enumerate(violations):
        print(f"\nviolation ({violation.kind}) at {violation.moment:.3f}: {violation.text}")
        if number < SHOWN:
            for line in history.around(violation.moment, clients=violation.clients or None):
                print(f"    {line}")
    if len(violations) > SHOWN:
        print(f"\n(the history around the first {SHOWN} violations only: --history has it all)")
    ops = [op for op in history.ops if not op.command.startswith("(")]
    answered = Counter(op.outcome for op in ops)
    print("\nfigures:")
    kinds = Counter(fault.kind for fault in history.faults)
    shown = ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items()))
    print(f"  faults injected: {len(history.faults)} ({shown})")
    print(f"  commands sent: {len(ops)}; answered: {dict(sorted(answered.items()))}")
    wins = sum(1 for op in history.told_wins if op.game and op.game[0] != "default")
    print(f"  created games won (each checked in the records): {wins}")
    latencies = sorted(op.done - op.sent for op in ops if op.done is not None and op.outcome == OK)
    if latencies:
        p50, p99 = _pick(latencies, 0.5) * 1000, _pick(latencies, 0.99) * 1000
        print(f"  answer time: p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {latencies[-1]:.2f} s")
    end = max((op.done or op.sent for op in history.ops), default=0.0)
    rows = []
    for fault in history.faults:
        during = _during(ops, fault, end)
        rows.append((fault, during))
        took = "never" if fault.converged is None else f"{fault.converged:.2f} s"
        print(
            f"  {fault.line()}: converged in {took}; while it lasted, {_told(during, fault, end)}"
        )
    if markdown:
        print()
        print(table(rows, end))


def _pick(values: list[float], share: float) -> float:
    return values[min(len(values) - 1, int(share * len(values)))]


def _during(ops: list[Op], fault: Fault, end: float) -> list[Op]:
    """The commands sent while ``fault`` lasted (until it healed)."""
    healed = fault.healed if fault.healed is not None else end
    return [op for op in ops if fault.began <= op.sent <= healed]


def _told(ops: list[Op], fault: Fault, end: float) -> str:
    """What the clients got for ``ops``, sent while ``fault`` lasted."""
    counted = Counter(op.outcome for op in ops)
    excused = sum(1 for op in ops if _down(op, fault, end))
    slowest = max((op.done - op.sent for op in ops if op.done is not None), default=0.0)
    errors = Counter(op.lines[0][:60] for op in ops if op.outcome == ERROR and op.lines)
    common = "; ".join(f"{count}x {text}..." for text, count in errors.most_common(2))
    return (
        f"{len(ops)} commands: {counted[OK]} answered, {counted[ERROR]} ERROR, "
        f"{counted[FINAL]} final lines, {excused} unanswered on the node down; "
        f"slowest answer {slowest:.2f} s" + (f"; most common errors: {common}" if common else "")
    )


def _down(op: Op, fault: Fault, end: float) -> bool:
    """Whether ``op`` went unanswered because ``fault`` had its node down."""
    return op.outcome not in (OK, ERROR, FINAL) and excused(op, [fault], end)


def table(rows: list[tuple[Fault, list[Op]]], end: float) -> str:
    """Each kind of fault's figures, as a Markdown table."""
    kinds: dict[str, list[tuple[Fault, list[Op]]]] = defaultdict(list)
    for fault, during in rows:
        kinds[fault.kind].append((fault, during))
    head = (
        "fault",
        "times",
        "commands while it lasted",
        "answered",
        "`ERROR`",
        "unanswered on the node down",
        "slowest answer",
        "nodes agree after healing (max)",
    )
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for kind, faults in sorted(kinds.items()):
        ops = [op for _, during in faults for op in during]
        counted = Counter(op.outcome for op in ops)
        excused = sum(1 for fault, during in faults for op in during if _down(op, fault, end))
        slowest = max((op.done - op.sent for op in ops if op.done is not None), default=0.0)
        converged = [fault.converged for fault, _ in faults if fault.converged is not None]
        agree = f"{max(converged):.2f} s" if converged else "never"
        lines.append(
            f"| `{kind}` | {len(faults)} | {len(ops)} | {counted[OK] + counted[FINAL]} | "
            f"{counted[ERROR]} | {excused} | {slowest:.2f} s | {agree} |"
        )
    return "\n".join(lines)
