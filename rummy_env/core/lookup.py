"""Lookup tables of one rules config, built once and cached.

The core never loops over games or cards: whether a hand holds a pattern is a
table lookup by the hand's 13-bit mask of one suit (runs) or 4-bit mask of one
rank (sets); whether a card can be melded with two others is a lookup of its
partner pairs.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .actions import ActionLayout, action_layout
from .cards import JOKER, N_CARD_IDS, N_RANKS, N_SUITS, rank_points
from .patterns import (
    KIND_SET,
    N_RUNS_PER_SUIT,
    N_SET_PATTERNS,
    PATTERN_CARDS,
    PATTERN_KIND,
    PATTERN_SIZE,
    allowed_patterns,
)
from .rules import Rules

NO_CARD = N_CARD_IDS  # padding id of the partner table: a column that is never available


@dataclass(frozen=True)
class LookupTables:
    layout: ActionLayout
    allowed: np.ndarray
    """bool [N_PATTERNS]: patterns the rules allow."""
    run_missing: np.ndarray
    """int8 [8192, 143]: cards of run (start, length) missing from a suit's 13-bit mask."""
    set_missing: np.ndarray
    """int8 [16, 5]: cards of set pattern k missing from a rank's 4-bit suit mask."""
    run_makeable: np.ndarray
    """bool [(J + 1) * 8192, 143]: row j * 8192 + mask: run (start, length) is allowed and
    at most j of its cards are missing from a suit's 13-bit mask (J = the deck's jokers)."""
    set_makeable: np.ndarray
    """bool [(J + 1) * 16, 5]: row j * 16 + mask: set pattern k is allowed and at most j of
    its cards are missing from a rank's 4-bit suit mask."""
    run_complete: np.ndarray
    """bool [8192, 143]: run (start, length) is allowed and all in a suit's 13-bit mask
    (the first rows of ``run_makeable``)."""
    set_complete: np.ndarray
    """bool [16, 5]: set pattern k is allowed and all in a rank's 4-bit suit mask."""
    partners: np.ndarray
    """int16 [53, K, 2]: for each card, the other two cards of each allowed 3-card
    meld containing it (padded with NO_CARD)."""
    pattern_slots: np.ndarray
    """int8 [N_PATTERNS, 13]: table slot of each pattern card (suit in a set, rank in a run)."""
    rank_points: np.ndarray
    """int32 [13]: points of each rank counted high (A = 15)."""
    card_values: np.ndarray
    """int32 [53]: points each card id costs when left in hand."""
    joker_points: int
    """Points a melded joker scores (-1: as its declared card)."""


@lru_cache(maxsize=64)
def lookup_tables(rules: Rules) -> LookupTables:
    allowed = allowed_patterns(rules.runs_ace_high, rules.wrap)
    rank_pts = np.array([rank_points(r, rules.pip_values) for r in range(N_RANKS)], np.int32)
    card_values = np.concatenate([np.tile(rank_pts, N_SUITS), [0]]).astype(np.int32)
    joker_in_hand = 15 if rules.joker_value == "declared" else int(rules.joker_value)
    card_values[JOKER] = joker_in_hand
    run_makeable = _frozen(
        _makeable_table(_run_missing_table(), allowed[N_SET_PATTERNS:], N_SUITS, rules.n_jokers)
    )
    set_makeable = _frozen(
        _makeable_table(_set_missing_table(), allowed[:N_SET_PATTERNS], N_RANKS, rules.n_jokers)
    )
    return LookupTables(
        layout=action_layout(rules),
        allowed=_frozen(allowed),
        run_missing=_frozen(_run_missing_table()),
        set_missing=_frozen(_set_missing_table()),
        run_makeable=run_makeable,
        set_makeable=set_makeable,
        run_complete=run_makeable[: 1 << N_RANKS],
        set_complete=set_makeable[:16],
        partners=_frozen(_partner_table(allowed)),
        pattern_slots=_frozen(_pattern_slots()),
        rank_points=_frozen(rank_pts),
        card_values=_frozen(card_values),
        joker_points=-1 if rules.joker_value == "declared" else int(rules.joker_value),
    )


def _frozen(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


def _popcount(x: np.ndarray) -> np.ndarray:
    if hasattr(np, "bitwise_count"):  # numpy >= 2.0
        return np.bitwise_count(x).astype(np.int8)
    bits = (x[..., None] >> np.arange(16)) & 1
    return bits.sum(-1).astype(np.int8)


@lru_cache(maxsize=1)
def _run_missing_table() -> np.ndarray:
    """Every suit has the same runs, so suit 0's 143 rank masks serve all four."""
    first = N_SET_PATTERNS
    ranks = PATTERN_CARDS[first : first + N_RUNS_PER_SUIT].astype(np.int64) % N_RANKS
    present = PATTERN_CARDS[first : first + N_RUNS_PER_SUIT] >= 0
    run_masks = np.where(present, 1 << ranks, 0).sum(axis=1)
    hands = np.arange(1 << N_RANKS, dtype=np.int64)[:, None]
    return _popcount(run_masks[None, :] & ~hands)


@lru_cache(maxsize=1)
def _set_missing_table() -> np.ndarray:
    set_masks = np.array([0b1111 & ~(1 << k) if k < 4 else 0b1111 for k in range(5)], np.int64)
    hands = np.arange(16, dtype=np.int64)[:, None]
    return _popcount(set_masks[None, :] & ~hands)


def _makeable_table(
    missing: np.ndarray, allowed: np.ndarray, groups: int, jokers: int
) -> np.ndarray:
    """bool [(jokers + 1) * masks, k]: allowed and missing at most j cards, block j of the
    rows for j = 0..jokers, from ``missing`` [masks, k] and the ``allowed`` flags of
    ``groups`` groups (suits or ranks) of k patterns, the same in every group."""
    per_group = allowed.reshape(groups, -1)
    assert (per_group == per_group[0]).all(), "every suit (rank) allows the same patterns"
    held = np.arange(jokers + 1, dtype=np.int8)[:, None, None]
    return ((missing[None] <= held) & per_group[0][None, None, :]).reshape(-1, missing.shape[1])


def _partner_table(allowed: np.ndarray) -> np.ndarray:
    pairs: list[list[tuple[int, ...]]] = [[] for _ in range(N_CARD_IDS)]
    for p in np.flatnonzero(allowed & (PATTERN_SIZE == 3)):
        cards = [int(c) for c in PATTERN_CARDS[p, :3]]
        for c in cards:
            pairs[c].append(tuple(x for x in cards if x != c))
    width = max(len(x) for x in pairs)
    table = np.full((N_CARD_IDS, width, 2), NO_CARD, np.int16)
    for c, plist in enumerate(pairs):
        if plist:
            table[c, : len(plist)] = plist
    return table


def _pattern_slots() -> np.ndarray:
    cards = PATTERN_CARDS.astype(np.int32)
    is_set = (PATTERN_KIND == KIND_SET)[:, None]
    slots = np.where(is_set, cards // N_RANKS, cards % N_RANKS)
    return np.where(cards >= 0, slots, -1).astype(np.int8)
