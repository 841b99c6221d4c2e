"""Points: what each seat has on the table and what its hand costs.

A low ace (the first card of a run that starts at the ace) is judged on the
table as it stands when asked, so lay-offs that wrap a run change it.
"""

from __future__ import annotations

import numpy as np

from .cards import N_RANKS
from .lookup import lookup_tables
from .patterns import KIND_SET
from .rules import Rules
from .state import State


def slot_points(rules: Rules, state: State, rows: np.ndarray, melds: int | None = None
                ) -> np.ndarray:
    """int32 [n, m, 13]: points of the card in each slot of the first ``melds`` table
    melds (default: all), empty slots included."""
    t = lookup_tables(rules)
    m = state.meld_kind.shape[1] if melds is None else melds
    kind = state.meld_kind[rows, :m][:, :, None]
    key = state.meld_key[rows, :m].astype(np.int64)[:, :, None]
    start = state.meld_start[rows, :m][:, :, None]
    slot = np.arange(N_RANKS)[None, None, :]
    run_pts = np.where((slot == 0) & (start == 0), rules.low_ace_value, t.rank_points[slot])
    pts = np.where(kind == KIND_SET, t.rank_points[key], run_pts)
    if t.joker_points >= 0:
        pts = np.where(state.meld_joker[rows, :m], t.joker_points, pts)
    return pts


def table_points(rules: Rules, state: State, rows: np.ndarray) -> np.ndarray:
    """int32 [n, P]: points each seat has on the table this hand."""
    n, p = rows.size, rules.players
    used = int(state.n_melds[rows].max(initial=0))
    if used == 0:
        return np.zeros((n, p), np.int32)
    by = state.meld_by[rows, :used].astype(np.int64)
    filled = by >= 0
    owner = (np.arange(n)[:, None, None] * p + by)[filled]
    pts = slot_points(rules, state, rows, used)[filled]
    return np.bincount(owner, weights=pts, minlength=n * p).reshape(n, p).astype(np.int32)


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
