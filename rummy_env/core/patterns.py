"""Meld patterns: every set and run a meld action can name, as fixed tables.

A pattern is a set of distinct card ids. The same 637 patterns exist under every
rules config (the rules only forbid some of them), so action ids never move:

    index        pattern                         count
    0 .. 64      set of rank r lacking suit k    13 ranks x 5 (k = 0..3 lacks that
                 (k = 4: all four suits)                       suit, k = 4 is complete)
    65 .. 636    run (suit, start, length)       4 suits x 13 starts x 11 lengths (3..13);
                                                 ranks (start + i) % 13, printed from start

A run is allowed without ``wrap`` when ``start + length <= 13`` (ace low, up to K),
or ``start + length == 14`` with ``ace_high`` (it ends with a high ace). With
``wrap`` every run is allowed.
"""

from __future__ import annotations

import numpy as np

from .cards import N_CARD_IDS, N_RANKS, N_SUITS, card_id

N_SET_PATTERNS = N_RANKS * 5
RUN_LENGTHS = range(3, 14)
N_RUN_LENGTHS = len(RUN_LENGTHS)
N_RUNS_PER_SUIT = N_RANKS * N_RUN_LENGTHS
N_RUN_PATTERNS = N_SUITS * N_RUNS_PER_SUIT
N_PATTERNS = N_SET_PATTERNS + N_RUN_PATTERNS
MAX_PATTERN_CARDS = 13

KIND_NONE, KIND_SET, KIND_RUN = 0, 1, 2


def set_pattern(rank: int, lacking_suit: int) -> int:
    """Index of the set of ``rank`` lacking ``lacking_suit`` (4 = the complete set)."""
    return rank * 5 + lacking_suit


def run_pattern(suit: int, start: int, length: int) -> int:
    """Index of the run of ``suit`` from rank ``start`` with ``length`` cards."""
    return N_SET_PATTERNS + (suit * N_RANKS + start) * N_RUN_LENGTHS + (length - 3)


def run_allowed(start, length, ace_high: bool, wrap: bool):
    """Whether a run from ``start`` of ``length`` cards is legal (works on arrays too)."""
    if wrap:
        return np.asarray(length) <= 13
    end = np.asarray(start) + np.asarray(length)
    return (np.asarray(length) <= 13) & ((end <= 13) | (ace_high & (end == 14)))


def _build() -> dict[str, np.ndarray]:
    """The rules-independent tables, built once at import."""
    cards = np.full((N_PATTERNS, MAX_PATTERN_CARDS), -1, dtype=np.int16)
    size = np.zeros(N_PATTERNS, dtype=np.int8)
    kind = np.zeros(N_PATTERNS, dtype=np.int8)
    key = np.zeros(N_PATTERNS, dtype=np.int8)  # rank of a set, suit of a run
    start = np.zeros(N_PATTERNS, dtype=np.int8)  # first rank of a run
    for rank in range(N_RANKS):
        for lacking in range(5):
            p = set_pattern(rank, lacking)
            members = [card_id(s, rank) for s in range(N_SUITS) if s != lacking]
            cards[p, : len(members)] = members
            size[p], kind[p], key[p] = len(members), KIND_SET, rank
    for suit in range(N_SUITS):
        for first in range(N_RANKS):
            for length in RUN_LENGTHS:
                p = run_pattern(suit, first, length)
                cards[p, :length] = [card_id(suit, (first + i) % N_RANKS) for i in range(length)]
                size[p], kind[p], key[p], start[p] = length, KIND_RUN, suit, first
    contains = np.zeros((N_CARD_IDS, N_PATTERNS), dtype=bool)
    for p in range(N_PATTERNS):
        contains[cards[p, : size[p]], p] = True
    for arr in (cards, size, kind, key, start, contains):
        arr.setflags(write=False)
    return {
        "cards": cards,
        "size": size,
        "kind": kind,
        "key": key,
        "start": start,
        "contains": contains,
    }


_T = _build()
PATTERN_CARDS: np.ndarray = _T["cards"]
"""int16 [N_PATTERNS, 13]: the pattern's cards in print order, padded with -1."""
PATTERN_SIZE: np.ndarray = _T["size"]
PATTERN_KIND: np.ndarray = _T["kind"]
PATTERN_KEY: np.ndarray = _T["key"]
PATTERN_START: np.ndarray = _T["start"]
PATTERN_CONTAINS: np.ndarray = _T["contains"]
"""bool [53, N_PATTERNS]: whether card id c is one of pattern p's cards."""


def allowed_patterns(ace_high: bool, wrap: bool) -> np.ndarray:
    """bool [N_PATTERNS]: the patterns these rules allow (every set; runs per the rule above)."""
    allowed = PATTERN_KIND == KIND_SET
    runs = PATTERN_KIND == KIND_RUN
    allowed[runs] = run_allowed(PATTERN_START[runs], PATTERN_SIZE[runs], ace_high, wrap)
    return allowed
