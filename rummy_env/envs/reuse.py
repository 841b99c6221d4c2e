"""Output arrays handed out again once nobody holds them: a fresh array costs page faults.

A batched env returns a new observation array at every step (17 MB at B = 4096 and
two players). Fresh memory of that size comes from the kernel, which zeroes and maps
every page on its first write, about half a millisecond a step. An array the caller
has dropped (no reference left but the pool's own: not a variable, a view, a tensor
made from it, a list) is as good as a new one, so ``ArrayPool.take`` hands it out again
and otherwise allocates: nothing a caller still holds is ever overwritten.

>>> pool = ArrayPool((2, 3), np.float32)
>>> a = pool.take()
>>> pool.take() is a   # still held: a new array
False
>>> b = pool.take(); del b
>>> pool.take() is not a
True
"""

from __future__ import annotations

import sys

import numpy as np


def _references(arrays: list[np.ndarray], i: int) -> int:
    """References to ``arrays[i]``, counted the same way for every call."""
    return sys.getrefcount(arrays[i])


def _unheld_count() -> int:
    """What ``_references`` counts for an array that only its list holds (the
    interpreter's own temporaries differ between Python versions, so measure them)."""
    return _references([np.empty(0)], 0)


_UNHELD = _unheld_count()


class ArrayPool:
    """Arrays of one shape and dtype, each taken again once nothing outside holds it.

    ``take`` returns an array whose contents are arbitrary: the caller overwrites every
    element. At most ``keep`` arrays are remembered; beyond that a held one is replaced
    in the pool (the caller keeps it, the pool forgets it).
    """

    def __init__(self, shape: tuple[int, ...], dtype: np.dtype | type, keep: int = 3) -> None:
        self.shape, self.dtype, self.keep = tuple(shape), np.dtype(dtype), keep
        self._arrays: list[np.ndarray] = []
        self._next = 0  # the slot a new array replaces when the pool is full

    def take(self) -> np.ndarray:
        """An array of the pool's shape that nobody else holds (reused or new)."""
        arrays = self._arrays
        for i in range(len(arrays)):
            if _references(arrays, i) <= _UNHELD:
                return arrays[i]
        array = np.empty(self.shape, self.dtype)
        if len(arrays) < self.keep:
            arrays.append(array)
        else:
            arrays[self._next] = array
            self._next = (self._next + 1) % self.keep
        return array
