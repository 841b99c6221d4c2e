"""Card knowledge the heuristic agents share: tables per rules, and what a view shows.

Everything here reads only a ``PlayerView`` (and the rules), never the State, so
an agent built on it cannot peek. Two parts:

* ``HeuristicTables`` (``card_tables(rules)``, built once per rules): points of each
  meld pattern and lay-off, the best run in a suit's 13-bit mask and the best
  set in a rank's 4-bit mask (so "meld the best pattern in this hand" is a
  lookup, not a scan of 637 patterns), and the card that extends a run up or
  down.
* View readers: the cards on the table, in the pile, known in other hands; where
  a card can be laid off now; which action kinds a mask offers.

Card ids: ``suit * 13 + rank`` (A = 0 .. K = 12), joker 52. Hands are counts
``int8 [n, 53]``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from rummy_env.core import (
    KIND_RUN,
    KIND_SET,
    N_CARD_IDS,
    N_NATURAL,
    N_RANKS,
    N_SUITS,
    ActionLayout,
    PlayerView,
    Rules,
    action_layout,
)
from rummy_env.core.lookup import lookup_tables
from rummy_env.core.meldability import bit_masks, complete_melds
from rummy_env.core.patterns import (
    N_PATTERNS,
    N_RUNS_PER_SUIT,
    N_SET_PATTERNS,
    PATTERN_CARDS,
    PATTERN_CONTAINS,
    PATTERN_KIND,
    PATTERN_SIZE,
    PATTERN_START,
    run_allowed,
)
from rummy_env.core.table import layoff_fits as table_layoff_fits

NONE = -1


@dataclass(frozen=True)
class HeuristicTables:
    """Lookup tables of one rules config for the heuristics (see the module docstring)."""

    rules: Rules
    layout: ActionLayout
    card_values: np.ndarray
    """int32 [53]: points a card costs when left in hand."""
    pattern_points: np.ndarray
    """int32 [637]: points melding the pattern scores (a low ace per ``low_ace_value``)."""
    pattern_allowed: np.ndarray
    """bool [637]: the rules allow the pattern."""
    pattern_cards: np.ndarray
    """int8 [637, 53]: copies of each card the pattern uses."""
    pattern_fits: np.ndarray
    """int16 [637, 3]: card a fresh meld of this pattern accepts as set / up / down, -1 none."""
    best_run: np.ndarray
    """int16 [8192]: local run index (start * 11 + length - 3) scoring most inside a
    suit's rank mask, -1 if none (ties: the longer run)."""
    best_run_points: np.ndarray
    """int32 [8192]: its points (0 if none)."""
    best_set: np.ndarray
    """int16 [13, 16]: set pattern index scoring most in a rank's suit mask, -1 if none."""
    best_set_points: np.ndarray
    """int32 [13, 16]: its points (0 if none)."""
    up: np.ndarray
    """int16 [53]: the card that extends a run whose top card is c, -1 none (joker: -1)."""
    down: np.ndarray
    """int16 [53]: the card that extends a run whose bottom card is c, -1 none."""
    layoff_points: np.ndarray
    """int32 [53, 3]: points of laying card c off as set / up / down (a low ace down)."""
    partners: np.ndarray
    """int16 [53, K, 2]: the other two cards of each allowed 3-card meld holding c (53 = none)."""


@lru_cache(maxsize=32)
def card_tables(rules: Rules) -> HeuristicTables:
    t = lookup_tables(rules)
    allowed = t.allowed
    rank_pts = t.rank_points.astype(np.int32)
    low_ace = int(rules.low_ace_value)

    # Points of each pattern: a run from the ace (start 0) counts the ace low.
    points = np.zeros(N_PATTERNS, np.int32)
    cards = PATTERN_CARDS.astype(np.int64)
    present = cards >= 0
    pts = np.where(present, rank_pts[np.where(present, cards, 0) % N_RANKS], 0)
    is_run = PATTERN_KIND == KIND_RUN
    low = is_run & (PATTERN_START == 0)
    pts[low, 0] = low_ace
    points[:] = pts.sum(axis=1)
    points[~allowed] = 0

    pattern_cards = PATTERN_CONTAINS.T.astype(np.int8)  # [637, 53]

    # Run successor / predecessor of each card (what a run ending/starting there accepts).
    up = np.full(N_CARD_IDS, NONE, np.int16)
    down = np.full(N_CARD_IDS, NONE, np.int16)
    for c in range(N_NATURAL):
        s, r = divmod(c, N_RANKS)
        if 0 < r < N_RANKS - 1:
            up[c] = s * N_RANKS + r + 1
        elif r == N_RANKS - 1 and rules.runs_ace_high:  # K -> high ace
            up[c] = s * N_RANKS
        elif r == 0 and rules.wrap:  # a run tops out at a high ace unless runs wrap
            up[c] = s * N_RANKS + 1
        if r > 0:
            down[c] = s * N_RANKS + r - 1
        elif rules.wrap:
            down[c] = s * N_RANKS + N_RANKS - 1

    layoff_points = np.zeros((N_CARD_IDS, 3), np.int32)
    layoff_points[:N_NATURAL] = t.card_values[:N_NATURAL, None]
    aces = np.arange(N_SUITS) * N_RANKS
    layoff_points[aces, 2] = low_ace  # an ace laid below a 2 sits low

    # The cards a freshly laid meld accepts.
    fits = np.full((N_PATTERNS, 3), NONE, np.int16)
    for p in np.flatnonzero(allowed):
        size = int(PATTERN_SIZE[p])
        pc = [int(c) for c in PATTERN_CARDS[p, :size]]
        if PATTERN_KIND[p] == KIND_SET:
            if size == 3:
                rank = pc[0] % N_RANKS
                missing = ({0, 1, 2, 3} - {c // N_RANKS for c in pc}).pop()
                fits[p, 0] = missing * N_RANKS + rank
        else:
            start = int(PATTERN_START[p])
            if run_allowed(start, size + 1, rules.runs_ace_high, rules.wrap):
                fits[p, 1] = up[pc[-1]]
            if size + 1 <= N_RANKS and (start >= 1 or rules.wrap):
                fits[p, 2] = down[pc[0]]

    # Best run per suit mask (suit 0's patterns stand for every suit).
    first = N_SET_PATTERNS
    run_ok = allowed[first : first + N_RUNS_PER_SUIT]
    run_pts = points[first : first + N_RUNS_PER_SUIT].astype(np.int64)
    run_len = PATTERN_SIZE[first : first + N_RUNS_PER_SUIT].astype(np.int64)
    contained = (t.run_missing == 0) & run_ok[None, :]  # [8192, 143]
    score = np.where(contained, run_pts * 16 + run_len, -1)
    best_run = np.argmax(score, axis=1).astype(np.int16)
    has_run = score.max(axis=1) >= 0
    best_run[~has_run] = NONE
    best_run_points = np.where(has_run, run_pts[np.maximum(best_run, 0)], 0).astype(np.int32)

    # Best set per (rank, suit mask): the complete set if held, else any three.
    best_set = np.full((N_RANKS, 16), NONE, np.int16)
    best_set_points = np.zeros((N_RANKS, 16), np.int32)
    for rank in range(N_RANKS):
        for m in range(16):
            k_ok = [k for k in range(5) if t.set_missing[m, k] == 0]
            if not k_ok:
                continue
            k = 4 if 4 in k_ok else k_ok[0]
            p = rank * 5 + k
            best_set[rank, m] = p
            best_set_points[rank, m] = points[p]

    arrays = (
        points,
        pattern_cards,
        fits,
        best_run,
        best_run_points,
        best_set,
        best_set_points,
        up,
        down,
        layoff_points,
    )
    for a in arrays:
        a.setflags(write=False)
    return HeuristicTables(
        rules=rules,
        layout=action_layout(rules),
        card_values=t.card_values.astype(np.int32),
        pattern_points=points,
        pattern_allowed=allowed,
        pattern_cards=pattern_cards,
        pattern_fits=fits,
        best_run=best_run,
        best_run_points=best_run_points,
        best_set=best_set,
        best_set_points=best_set_points,
        up=up,
        down=down,
        layoff_points=layoff_points,
        partners=t.partners,
    )


# ----------------------------------------------------------------------------- hands
def melds_in_hand(rules: Rules, hand: np.ndarray) -> np.ndarray:
    """bool [n, 637]: allowed patterns whose cards are all in ``hand`` [n, 53] (natural
    cards only: a joker stands in for nothing here)."""
    return complete_melds(lookup_tables(rules), hand > 0)


def best_meld(ct: HeuristicTables, hand: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(pattern [n] or -1, points [n]): the single meld in ``hand`` that scores most."""
    sm, rm = bit_masks(hand > 0)
    run_pts = ct.best_run_points[sm]  # [n, 4]
    set_pts = ct.best_set_points[np.arange(N_RANKS)[None, :], rm]  # [n, 13]
    # Scores carry the pattern size so that equal points prefer the longer meld.
    best_suit = np.argmax(run_pts, axis=1)
    best_rank = np.argmax(set_pts, axis=1)
    rows = np.arange(hand.shape[0])
    rp = run_pts[rows, best_suit]
    sp = set_pts[rows, best_rank]
    run_local = ct.best_run[sm[rows, best_suit]].astype(np.int64)
    run_pattern = N_SET_PATTERNS + best_suit * N_RUNS_PER_SUIT + run_local
    set_pattern = ct.best_set[best_rank, rm[rows, best_rank]].astype(np.int64)
    use_run = rp >= sp
    pattern = np.where(use_run, np.where(run_local >= 0, run_pattern, NONE), set_pattern)
    points = np.where(use_run, rp, sp)
    pattern = np.where(points > 0, pattern, NONE)
    return pattern, points


# ----------------------------------------------------------------------------- views
def row_counts(rows: np.ndarray, cards: np.ndarray, n: int) -> np.ndarray:
    """int8 [n, 53]: how often each card id occurs per row in the pairs (rows[i], cards[i]);
    ids of 53 and above are dropped. One ``bincount``, far cheaper than ``np.add.at``."""
    width = N_CARD_IDS + 1
    flat = rows.astype(np.int64) * width + np.minimum(cards, N_CARD_IDS)
    counts = np.bincount(flat, minlength=n * width).reshape(n, width)
    return counts[:, :N_CARD_IDS].astype(np.int8)


def table_counts(view: PlayerView) -> np.ndarray:
    """int8 [n, 53]: copies of each card on the table (a joker counts as a joker)."""
    n, m = view.meld_kind.shape
    kind = view.meld_kind[:, :, None]
    key = view.meld_key.astype(np.int64)[:, :, None]
    slot = np.arange(N_RANKS)[None, None, :]
    card = np.where(kind == KIND_SET, slot * N_RANKS + key, key * N_RANKS + slot)
    filled = view.meld_by >= 0
    card = np.where(view.meld_joker, N_NATURAL, card)
    rows = np.broadcast_to(np.arange(n)[:, None, None], card.shape)
    return row_counts(rows[filled], card[filled], n)


def pile_counts(view: PlayerView) -> np.ndarray:
    """int8 [n, 53]: copies of each card in the discard pile."""
    n, width = view.pile.shape
    in_pile = np.arange(width)[None, :] < view.pile_size[:, None]
    cards = np.where(in_pile, view.pile, N_CARD_IDS).astype(np.int64)
    rows = np.broadcast_to(np.arange(n)[:, None], cards.shape)
    return row_counts(rows.ravel(), cards.ravel(), n)


def top_cards(view: PlayerView, depth: int = 1) -> np.ndarray:
    """int64 [n]: the card ``depth`` deep in the pile (1 = top), -1 where there is none."""
    pos = view.pile_size.astype(np.int64) - depth
    card = np.take_along_axis(view.pile, np.maximum(pos, 0)[:, None], axis=1)[:, 0]
    return np.where(pos >= 0, card, NONE).astype(np.int64)


def layoff_fits(
    ct: HeuristicTables, view: PlayerView, rows: np.ndarray | None = None
) -> np.ndarray:
    """bool [n, 53, 3]: card c can be laid off on some table meld as set / up / down
    (the joker column is never set). Who may lay off is the caller's business."""
    fits = table_layoff_fits(ct.rules, view, rows)
    return np.concatenate([fits, np.zeros((fits.shape[0], 1, 3), bool)], axis=1)


def melds_with(ct: HeuristicTables, cards: np.ndarray, holding: np.ndarray) -> np.ndarray:
    """bool [n]: card ``cards[i]`` makes a 3-card meld with two cards of ``holding[i]``.

    ``holding`` is counts [n, 53]; a card id of -1 never melds.
    """
    n = cards.shape[0]
    padded = np.zeros((n, N_CARD_IDS + 1), bool)
    padded[:, :N_CARD_IDS] = holding > 0
    pairs = ct.partners[np.maximum(cards, 0)]  # [n, K, 2]
    have = padded[np.arange(n)[:, None, None], pairs]
    return have.all(axis=2).any(axis=1) & (cards >= 0)


# ----------------------------------------------------------------------------- masks
@dataclass
class Kinds:
    """Which rows of a mask [n, A] offer which kinds of action."""

    draw: np.ndarray  # bool [n]: a draw-step decision (draw, take, end)
    meld: np.ndarray  # bool [n]: some meld is legal
    layoff: np.ndarray
    discard: np.ndarray


def action_kinds(action_ids: ActionLayout, mask: np.ndarray) -> Kinds:
    return Kinds(
        draw=(
            mask[:, action_ids.DRAW]
            | mask[:, action_ids.END]
            | mask[:, action_ids.TAKE : action_ids.MELD].any(axis=1)
        ),
        meld=mask[:, action_ids.MELD : action_ids.LAYOFF].any(axis=1),
        layoff=mask[:, action_ids.LAYOFF : action_ids.DISCARD].any(axis=1),
        discard=mask[:, action_ids.DISCARD : action_ids.SWAP].any(axis=1),
    )
