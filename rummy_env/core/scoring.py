"""Points: what each seat has on the table and what its hand costs.

A low ace (the first card of a run that starts at the ace) is judged on the
table as it stands when asked, so lay-offs that wrap a run change it.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .cards import N_RANKS
from .lookup import lookup_tables
from .patterns import KIND_RUN
from .rules import Rules
from .state import State
from .table import selected_slots


@lru_cache(maxsize=64)
def slot_points_table(rules: Rules) -> np.ndarray:
    """int32 [3, 13, 13]: points of the card in slot j of a meld with key k, by the meld's
    shape: 0 a set (key = rank), 1 a run from the ace (slot 0 is a low ace), 2 any other
    run. One lookup then prices every filled slot of a table."""
    t = lookup_tables(rules)
    table = np.empty((3, N_RANKS, N_RANKS), np.int32)
    table[0] = t.rank_points[:, None]
    table[1:] = t.rank_points[None, None, :]
    table[1, :, 0] = rules.low_ace_value
    table.setflags(write=False)
    return table


def table_points(rules: Rules, state: State, rows: np.ndarray) -> np.ndarray:
    """int32 [n, P]: points each seat has on the table this hand."""
    n = rows.size
    used = int(state.n_melds[rows].max(initial=0))
    if used == 0:
        return np.zeros((n, rules.players), np.int32)
    r, meld, j = selected_slots(state, rows, state.meld_by[rows, :used] >= 0)
    slot = meld * N_RANKS + j  # flat index of each filled slot in the [B, M, 13] arrays

    def of_meld(a: np.ndarray) -> np.ndarray:
        """The [B, M] table array ``a`` at each filled slot's meld."""
        return a.reshape(-1)[meld]

    return seat_points(
        rules,
        n,
        r,
        state.meld_by.reshape(-1)[slot],
        of_meld(state.meld_kind),
        of_meld(state.meld_start),
        of_meld(state.meld_key),
        j,
        state.meld_joker.reshape(-1)[slot],
    )


def seat_points(
    rules: Rules,
    n: int,
    r: np.ndarray,
    owner: np.ndarray,
    kind: np.ndarray,
    start: np.ndarray,
    key: np.ndarray,
    j: np.ndarray,
    joker: np.ndarray,
) -> np.ndarray:
    """int32 [n, P]: the points of k filled table slots (as for ``slot_points``) summed by
    the row ``r`` (< n) and the seat ``owner`` that laid each."""
    p = rules.players
    pts = slot_points(rules, kind, start, key, j, joker)
    owned = np.bincount(r * p + owner, weights=pts, minlength=n * p)
    return owned.reshape(n, p).astype(np.int32)


def slot_points(
    rules: Rules,
    kind: np.ndarray,
    start: np.ndarray,
    key: np.ndarray,
    j: np.ndarray,
    joker: np.ndarray,
) -> np.ndarray:
    """[k]: points of k filled table slots, each given its meld's kind, start and key, its
    slot j and whether a joker fills it (a joker scores ``joker_points`` where set)."""
    shape = (kind == KIND_RUN) * (1 + (start != 0))
    pts = slot_points_table(rules)[shape, key, j]
    joker_points = lookup_tables(rules).joker_points
    return np.where(joker, joker_points, pts) if joker_points >= 0 else pts


def hand_points(rules: Rules, state: State, rows: np.ndarray) -> np.ndarray:
    """int32 [n, P]: points of the cards left in each hand."""
    t = lookup_tables(rules)
    return (state.hand[rows].astype(np.int32) * t.card_values[None, None, :]).sum(axis=2)


def lowest_card_values(rules: Rules, state: State, rows: np.ndarray) -> np.ndarray:
    """int32 [n, P]: value of each seat's lowest card in hand (``tie_break: lowest_card``);
    -1 for an empty hand, which beats any card."""
    t = lookup_tables(rules)
    values = np.where(state.hand[rows] > 0, t.card_values[None, None, :], np.iinfo(np.int32).max)
    return np.where(state.hand_size[rows] > 0, values.min(axis=2), -1).astype(np.int32)
