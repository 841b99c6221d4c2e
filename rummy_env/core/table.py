"""Questions about the melds on the table, answered for many games at once.

A meld is stored by slots (see state.py): slot = suit in a set, rank in a run,
so the card a slot shows follows from the meld's kind and key alone.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .actions import LAYOFF_DOWN, LAYOFF_SET, LAYOFF_UP
from .cards import N_NATURAL, N_RANKS
from .patterns import KIND_RUN, KIND_SET, run_allowed
from .rules import Rules
from .state import State

_DIRECTIONS = np.arange(3)[None, None, :]  # the last axis of layoff_fits: set, up, down


def _slot_card_table() -> np.ndarray:
    """int16 [3, 13, 13]: the card slot j of a meld of kind k and key shows (0 for an
    empty meld), so a table's cards are one lookup (``SLOT_CARD``)."""
    key, slot = np.arange(N_RANKS)[:, None], np.arange(N_RANKS)[None, :]
    table = np.zeros((3, N_RANKS, N_RANKS), np.int16)
    table[KIND_SET] = slot * N_RANKS + key
    table[KIND_RUN] = key * N_RANKS + slot
    table.setflags(write=False)
    return table


SLOT_CARD = _slot_card_table()
"""int16 [kind, key, slot]: the card each slot of a meld shows (``_slot_card_table``)."""


def used_melds(state: State, rows: np.ndarray) -> int:
    """Melds in use in the most crowded of these games (the rest are empty)."""
    return int(state.meld_kind.shape[1] and state.n_melds[rows].max(initial=0))


def slot_cards(state: State, rows: np.ndarray) -> np.ndarray:
    """int16 [n, m, 13]: the card id each slot of the m used melds shows (filled or not;
    0 in an empty meld)."""
    m = used_melds(state, rows)
    return SLOT_CARD[state.meld_kind[rows, :m], state.meld_key[rows, :m]]


def _cards_where(state: State, rows: np.ndarray, slots: np.ndarray) -> np.ndarray:
    """bool [n, 52]: the cards shown by the selected slots (``slots``: bool [n, m, 13])."""
    r, m, j = slots.nonzero()
    g = rows[r]
    out = np.zeros((rows.size, N_NATURAL), bool)
    out[r, SLOT_CARD[state.meld_kind[g, m], state.meld_key[g, m], j]] = True
    return out


def on_table(state: State, rows: np.ndarray) -> np.ndarray:
    """bool [n, 52]: a natural copy of the card, or a joker declared as it, is on the table."""
    return _cards_where(state, rows, state.meld_by[rows, :used_melds(state, rows)] >= 0)


def jokers_declared(state: State, rows: np.ndarray) -> np.ndarray:
    """bool [n, 52]: some table meld holds a joker declared as the card."""
    return _cards_where(state, rows, state.meld_joker[rows, :used_melds(state, rows)])


@lru_cache(maxsize=8)
def _run_ends(ace_high: bool, wrap: bool) -> np.ndarray:
    """int16 [13, 14, 2]: the rank a run from ``start`` of ``length`` cards accepts
    ``up`` and ``down``, -1 none (so a table's run targets are one lookup)."""
    start, length = np.arange(N_RANKS)[:, None], np.arange(N_RANKS + 1)[None, :]
    up = np.where(run_allowed(start, length + 1, ace_high, wrap), (start + length) % N_RANKS, -1)
    down_ok = (length + 1 <= 13) & ((start >= 1) | wrap)
    down = np.where(down_ok, (start - 1) % N_RANKS, -1)
    ends = np.stack([up, down], axis=-1).astype(np.int16)
    ends.setflags(write=False)
    return ends


def layoff_targets(rules: Rules, melds, rows: np.ndarray | None = None) -> np.ndarray:
    """int16 [n, m, 3]: the card each of the first m melds (those in use) accepts as
    ``set`` / ``up`` / ``down``, -1 none.

    ``melds`` is anything holding the table arrays (a ``State`` or a ``PlayerView``);
    ``rules`` anything with ``runs_ace_high`` and ``wrap``; ``rows`` picks its games
    (default: all).
    """
    sel = slice(None) if rows is None else rows
    m = int(melds.n_melds[sel].max(initial=0))  # melds past the most crowded table are empty
    kind = melds.meld_kind[sel, :m]
    targets = np.full(kind.shape + (3,), -1, np.int16)
    if m == 0:
        return targets
    key = melds.meld_key[sel, :m].astype(np.int16)
    length = melds.meld_len[sel, :m]

    is_set = (kind == KIND_SET) & (length == 3)
    missing_suit = np.argmax(melds.meld_by[sel, :m, :4] < 0, axis=2)
    targets[..., LAYOFF_SET] = np.where(is_set, missing_suit * N_RANKS + key, -1)

    ends = _run_ends(bool(rules.runs_ace_high), bool(rules.wrap))
    ends = ends[melds.meld_start[sel, :m], length]  # [n, m, 2]: up, down
    accepts = (kind == KIND_RUN)[..., None] & (ends >= 0)
    targets[..., LAYOFF_UP: LAYOFF_DOWN + 1] = np.where(
        accepts, key[..., None] * N_RANKS + ends, -1)
    return targets


def layoff_fits(rules: Rules, melds, rows: np.ndarray | None = None) -> np.ndarray:
    """bool [n, 52, 3]: card c fits some table meld in direction d (``melds``, ``rules``,
    ``rows``: as for ``layoff_targets``)."""
    targets = layoff_targets(rules, melds, rows)
    n = targets.shape[0]
    fits = np.zeros((n, N_NATURAL + 1, 3), bool)
    if targets.shape[1]:  # melds that accept nothing write into the spare column N_NATURAL
        fits[np.arange(n)[:, None, None], np.where(targets >= 0, targets, N_NATURAL),
             _DIRECTIONS] = True
    return fits[:, :N_NATURAL]


def any_direction(fits: np.ndarray) -> np.ndarray:
    """bool [n, 52]: the card fits in some direction (unrolled: tiny axes reduce slowly)."""
    return fits[..., 0] | fits[..., 1] | fits[..., 2]
