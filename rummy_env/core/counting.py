"""Adding up counts at repeated indices, and listing filled slots, by numpy's fast paths.

``np.add.at(a, (rows, seats, cards), 1)`` takes numpy's slow general path: a tuple
of index arrays, or a value of another dtype than ``a``'s, is much slower than one
flat index with values of ``a``'s own dtype (numpy 2). The engine adds copies of cards
into hands, piles and deals this way at every step.
"""

from __future__ import annotations

import numpy as np


def add_at(counts: np.ndarray, index: tuple[np.ndarray, ...], value: int | float = 1) -> None:
    """``np.add.at(counts, index, value)``, in place, each repeated index adding again.

    >>> counts = np.zeros((2, 3), np.int8)
    >>> add_at(counts, (np.array([0, 0, 1]), np.array([2, 2, 0])))
    >>> counts.tolist()
    [[0, 0, 2], [1, 0, 0]]
    """
    if not counts.flags.c_contiguous:  # a flat view would be a copy
        np.add.at(counts, index, value)
        return
    at = np.ravel_multi_index(index, counts.shape)
    np.add.at(counts.reshape(-1), at, np.full(at.shape, value, counts.dtype))


def filled_slots(sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(row, position) int64: every slot below each row's ``sizes`` (a pile's cards, a
    take's cards), row by row, as ``(np.arange(w) < sizes[:, None]).nonzero()`` lists them
    but by one repeat, without the [n, w] grid.

    >>> [a.tolist() for a in filled_slots(np.array([2, 0, 1]))]
    [[0, 0, 2], [0, 1, 0]]
    """
    sizes = sizes.astype(np.int64)
    row = np.repeat(np.arange(sizes.size), sizes)
    first = np.cumsum(sizes) - sizes
    return row, np.arange(row.size) - first[row]
