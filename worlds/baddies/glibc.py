"""glibc's ``rand()``, bit for bit, so that a seed draws the boards the original drew.

glibc's default generator is the "TYPE_3" additive feedback generator: 31 words
of state, each new word the sum (mod 2**32) of the words 31 and 3 places back,
and each output that word shifted right by one. ``srand(seed)`` fills the state
with the Park–Miller "minimal standard" sequence (16807 × previous mod 2**31 - 1,
computed in signed 32-bit arithmetic the way glibc does), starting from the seed
(0 counts as 1), and then throws the first 310 outputs away.

A caller may rely on: ``GlibcRandom(seed).rand()`` returning, call after call,
exactly what ``srand(seed)`` followed by ``rand()`` returns in a C program on
glibc, for every ``unsigned int`` seed (Python ints are taken modulo 2**32, as C
converts them). Every output lies in ``0 .. RAND_MAX``.
"""

from __future__ import annotations

from typing import Final

RAND_MAX: Final = 2**31 - 1
_DEGREE: Final = 31
_SEPARATION: Final = 3
_DISCARDED: Final = 10 * _DEGREE
_MASK: Final = 2**32 - 1


class GlibcRandom:
    """One ``srand``/``rand`` stream; independent of every other instance."""

    __slots__ = ("_front", "_rear", "_state")

    def __init__(self, seed: int = 1) -> None:
        self._state: list[int] = []
        self._front = 0
        self._rear = 0
        self.srand(seed)

    def srand(self, seed: int) -> None:
        """Restart the stream as C's ``srand(seed)`` does."""
        seed &= _MASK
        if seed == 0:
            seed = 1
        # glibc keeps the seed in an int32_t, so seeds of 2**31 and above are negative.
        word = seed - 2**32 if seed > RAND_MAX else seed
        state = [word & _MASK]
        for _ in range(1, _DEGREE):
            # C division truncates toward zero and the remainder takes the dividend's sign.
            high = abs(word) // 127773 * (1 if word >= 0 else -1)
            low = word - high * 127773
            word = 16807 * low - 2836 * high
            if word < 0:
                word += RAND_MAX
            state.append(word & _MASK)
        self._state = state
        self._front = _SEPARATION
        self._rear = 0
        for _ in range(_DISCARDED):
            self.rand()

    def rand(self) -> int:
        """The next output, as C's ``rand()``."""
        state = self._state
        front = self._front
        rear = self._rear
        value = (state[front] + state[rear]) & _MASK
        state[front] = value
        self._front = front + 1 if front + 1 < _DEGREE else 0
        self._rear = rear + 1 if rear + 1 < _DEGREE else 0
        return value >> 1
