"""Chips (the "point chip ratio"): the payoff of a finished game.

Every seat other than the single winner pays the winner ``(winner's total - its
own total) x pcr`` chips, so each row sums to zero. Seed 004's example, PCR 4,
totals 100 / 70 / 60: the second seat pays 120, the third 160, the winner gains 280.

>>> chips(np.array([[100, 70, 60]]), np.array([0]), pcr=4).tolist()
[[280, -120, -160]]
"""

from __future__ import annotations

import numpy as np


def chips(totals: np.ndarray, winner: np.ndarray, pcr: int = 1) -> np.ndarray:
    """int64 [n, P]: chips won (+) or paid (-) by each seat of n games.

    ``totals`` [n, P] are the final totals, ``winner`` [n] the winning seat, -1 for
    a game without a winner (truncated), which pays nothing.
    """
    totals = np.asarray(totals, dtype=np.int64)
    winner = np.asarray(winner, dtype=np.int64)
    rows = np.arange(totals.shape[0])
    seat = np.where(winner >= 0, winner, 0)
    gap = totals[rows, seat][:, None] - totals  # the winner's own gap is 0
    pays = np.where((winner >= 0)[:, None], gap * pcr, 0)
    out = -pays
    out[rows, seat] += pays.sum(axis=1)
    return out
