"""Points: what each seat has on the table and what its hand costs.

A low ace (the first card of a run that starts at the ace) is judged on the
table as it stands when asked, so lay-offs that wrap a run change it.
"""

from __future__ import annotations

import numpy as np

from .cards import N_RANKS
from .patterns import KIND_SET
from .rules import Rules
from .state import State
from .tables import tables_for


def slot_points(rules: Rules, state: State, rows: np.ndarray) -> np.ndarray:
    """int32 [n, M, 13]: points of the card in each table slot (empty slots too)."""
    t = tables_for(rules)
    kind = state.meld_kind[rows][:, :, None]
    key = state.meld_key[rows].astype(np.int64)[:, :, None]
    start = state.meld_start[rows][:, :, None]
    slot = np.arange(N_RANKS)[None, None, :]
    run_pts = np.where((slot == 0) & (start == 0), rules.low_ace_value, t.rank_points[slot])
    pts = np.where(kind == KIND_SET, t.rank_points[key], run_pts)
    if t.joker_points >= 0:
        pts = np.where(state.meld_joker[rows], t.joker_points, pts)
    return pts


def table_points(rules: Rules, state: State, rows: np.ndarray) -> np.ndarray:
    """int32 [n, P]: points each seat has on the table this hand."""
    pts = slot_points(rules, state, rows)
    by = state.meld_by[rows]
    return np.stack([(pts * (by == p)).sum(axis=(1, 2)) for p in range(rules.players)], axis=1)


def hand_points(rules: Rules, state: State, rows: np.ndarray) -> np.ndarray:
    """int32 [n, P]: points of the cards left in each hand."""
    t = tables_for(rules)
    return (state.hand[rows].astype(np.int32) * t.card_values[None, None, :]).sum(axis=2)
