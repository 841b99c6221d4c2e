"""What one game's table accepts, in plain Python: the one-game paths' ``meld_accepts``.

``table.meld_accepts`` answers for a batch in whole-array operations, which for one
game cost their call overhead: a table holds a dozen melds at most, so a loop over
them is faster. The answers equal the batched ones (held to them by the one-game
path tests).
"""

from __future__ import annotations

import numpy as np

from ..actions import LAYOFF_DOWN, LAYOFF_SET, LAYOFF_UP
from ..cards import N_NATURAL, N_RANKS
from ..patterns import KIND_RUN, KIND_SET
from ..rules import Rules
from ..state import State
from ..table import run_ends


def accepts_one(rules: Rules, state: State) -> list[tuple[int, int, int]]:
    """The card each table meld of game 0 accepts as ``set`` / ``up`` / ``down``, -1 none,
    oldest meld first."""
    up_ends, down_ends = run_ends(bool(rules.runs_ace_high), bool(rules.wrap))
    n = int(state.n_melds[0])
    kinds, keys = state.meld_kind[0, :n].tolist(), state.meld_key[0, :n].tolist()
    starts, lengths = state.meld_start[0, :n].tolist(), state.meld_len[0, :n].tolist()
    accepts = []
    for m, (kind, key, start, length) in enumerate(zip(kinds, keys, starts, lengths)):
        if kind == KIND_SET:
            if length == 3:  # a set of three lacks one suit: the sum of the empty ones
                by = state.meld_by[0, m, :4].tolist()
                missing = sum(suit for suit in (1, 2, 3) if by[suit] < 0)
                accepts.append((missing * N_RANKS + key, -1, -1))
            else:
                accepts.append((-1, -1, -1))
        elif kind == KIND_RUN:
            end_at = start * (N_RANKS + 1) + length
            up, down = int(up_ends[end_at]), int(down_ends[end_at])
            accepts.append(
                (
                    -1,
                    key * N_RANKS + up if up >= 0 else -1,
                    key * N_RANKS + down if down >= 0 else -1,
                )
            )
        else:
            accepts.append((-1, -1, -1))
    return accepts


def oldest_fit(rules: Rules, state: State, card: int, direction: int) -> int:
    """The first table meld of game 0 that accepts ``card`` in ``direction``."""
    for m, accepted in enumerate(accepts_one(rules, state)):
        if accepted[direction] == card:
            return m
    raise ValueError(f"no meld accepts card {card} in direction {direction}")


def layoff_fits_one(rules: Rules, state: State) -> np.ndarray:
    """bool [1, 52, 3]: ``layoff_fits`` of the one game in ``state``."""
    fits = np.zeros((1, N_NATURAL, 3), bool)
    for accepted in accepts_one(rules, state):
        for direction in (LAYOFF_SET, LAYOFF_UP, LAYOFF_DOWN):
            if accepted[direction] >= 0:
                fits[0, accepted[direction], direction] = True
    return fits
