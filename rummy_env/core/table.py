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


def selected_slots(
    state: State, rows: np.ndarray, slots: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(r, meld, j) of each selected slot (``slots``: bool [n, m, 13] over the first m melds
    of the games ``rows``): its row in ``rows``, the flat index of its meld in the [B, M]
    table arrays and its slot, found by one 1-D pass (much faster than a 3-D nonzero), so
    callers read the table by flat lookups."""
    found = np.flatnonzero(slots)
    r, at = np.divmod(found, slots.shape[1] * N_RANKS)
    m, j = np.divmod(at, N_RANKS)
    return r, rows[r] * state.meld_kind.shape[1] + m, j


def _cards_where(state: State, rows: np.ndarray, slots: np.ndarray) -> np.ndarray:
    """bool [n, 52]: the cards shown by the selected slots (``slots``: bool [n, m, 13])."""
    r, meld, j = selected_slots(state, rows, slots)
    kind = state.meld_kind.reshape(-1)[meld].astype(np.intp)
    card = SLOT_CARD.reshape(-1)[(kind * N_RANKS + state.meld_key.reshape(-1)[meld]) * N_RANKS + j]
    out = np.zeros(rows.size * N_NATURAL, bool)
    out[r * N_NATURAL + card] = True
    return out.reshape(rows.size, N_NATURAL)


def on_table(state: State, rows: np.ndarray) -> np.ndarray:
    """bool [n, 52]: a natural copy of the card, or a joker declared as it, is on the table."""
    return _cards_where(state, rows, state.meld_by[rows, : used_melds(state, rows)] >= 0)


def blocked_cards(rules: Rules, state: State, rows: np.ndarray) -> np.ndarray | None:
    """bool [n, 52] cards a joker may not stand for (one deck: on the table), or None."""
    if rules.n_jokers and rules.n_decks == 1:
        return on_table(state, rows)
    return None


def jokers_declared(state: State, rows: np.ndarray) -> np.ndarray:
    """bool [n, 52]: some table meld holds a joker declared as the card."""
    return _cards_where(state, rows, state.meld_joker[rows, : used_melds(state, rows)])


@lru_cache(maxsize=8)
def run_ends(ace_high: bool, wrap: bool) -> tuple[np.ndarray, ...]:
    """(up, down) int16 [13 * 14]: the rank a run from ``start`` of ``length`` cards
    accepts at each end (entry ``start * 14 + length``), -1 none (so a table's run
    targets are one lookup)."""
    start, length = np.arange(N_RANKS)[:, None], np.arange(N_RANKS + 1)[None, :]
    up = np.where(run_allowed(start, length + 1, ace_high, wrap), (start + length) % N_RANKS, -1)
    down_ok = (length + 1 <= 13) & ((start >= 1) | wrap)
    down = np.where(down_ok, (start - 1) % N_RANKS, -1)
    ends = tuple(np.broadcast_to(e, down_ok.shape).astype(np.int16).ravel() for e in (up, down))
    for e in ends:
        e.setflags(write=False)
    return ends


def meld_accepts(rules: Rules, melds, at: tuple) -> np.ndarray:
    """int16 [..., 3]: the card each meld at ``at`` accepts as ``set`` / ``up`` / ``down``,
    -1 none (an empty meld accepts nothing).

    ``melds`` is anything holding the table arrays (a ``State`` or a ``PlayerView``);
    ``rules`` anything with ``runs_ace_high`` and ``wrap``; ``at`` a (games, melds) index
    of those [B, M] arrays, such as ``(rows, slice(0, m))``.
    """
    kind = melds.meld_kind[at]
    key = melds.meld_key[at].astype(np.int16)
    length = melds.meld_len[at]
    accepts = np.empty(kind.shape + (3,), np.int16)

    # A set of three lacks exactly one suit (a set's slots are its suits): the sum of
    # the empty suits' numbers.
    missing_suit = sum(np.int16(suit) * (melds.meld_by[at + (suit,)] < 0) for suit in (1, 2, 3))
    is_set = (kind == KIND_SET) & (length == 3)
    accepts[..., LAYOFF_SET] = np.where(is_set, missing_suit * N_RANKS + key, -1)

    end_at = melds.meld_start[at].astype(np.intp) * (N_RANKS + 1) + length
    is_run = kind == KIND_RUN
    for direction, ends in zip(
        (LAYOFF_UP, LAYOFF_DOWN), run_ends(bool(rules.runs_ace_high), bool(rules.wrap))
    ):
        end = ends[end_at]
        accepts[..., direction] = np.where(is_run & (end >= 0), key * N_RANKS + end, -1)
    return accepts


def layoff_targets(rules: Rules, melds, rows: np.ndarray | None = None) -> np.ndarray:
    """int16 [n, m, 3]: the card each of the first m melds (those in use) accepts as
    ``set`` / ``up`` / ``down``, -1 none (``melds``, ``rules``: as for ``meld_accepts``;
    ``rows`` picks its games, default all)."""
    games = slice(None) if rows is None else rows
    m = int(melds.n_melds[games].max(initial=0))  # melds past the most crowded table are empty
    return meld_accepts(rules, melds, (games, slice(0, m)))


def layoff_fits(rules: Rules, melds, rows: np.ndarray | None = None) -> np.ndarray:
    """bool [n, 52, 3]: card c fits some table meld in direction d (``melds``, ``rules``,
    ``rows``: as for ``layoff_targets``, whose melds in use are the ones that count)."""
    accepts = layoff_targets(rules, melds, rows)
    found = np.flatnonzero(accepts >= 0)  # flat: one 1-D pass is much faster than 3-D
    fits = np.zeros((accepts.shape[0], N_NATURAL, 3), bool)
    fits[found // (accepts.shape[1] * 3), accepts.reshape(-1)[found], found % 3] = True
    return fits


def any_direction(fits: np.ndarray) -> np.ndarray:
    """bool [n, 52]: the card fits in some direction (unrolled: tiny axes reduce slowly)."""
    return fits[..., 0] | fits[..., 1] | fits[..., 2]
