"""The legal mask of one game in plain Python: the one-game envs' path.

``masks.legal_mask`` works a batch in whole-array operations; for one game each
of them costs its call overhead, not its work. Without jokers every part of the
mask is a short loop over one hand and one pile: the runs a suit's 13-bit mask
holds are one table lookup, a dig is decided by walking the pile from the top.
``legal_mask_one`` does that on Python lists and equals ``legal_mask(rules,
state, fits)`` for a one-game state (tested at every step of whole games of every
preset and variant without jokers). Rules with jokers, and the rummy-call phases,
go to ``legal_mask``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..cards import N_NATURAL, N_RANKS, N_SUITS
from ..lookup import NO_CARD, lookup_tables
from ..masks import legal_mask
from ..patterns import N_RUN_LENGTHS, N_RUNS_PER_SUIT, N_SET_PATTERNS, PATTERN_CONTAINS
from ..rules import Rules
from ..state import PHASE_DRAW, PHASE_PLAY, State

_RANK_BITS = 1 << np.arange(N_RANKS)
_SUIT_BITS = 1 << np.arange(N_SUITS)


def _sets_of_suits(bits: int) -> tuple[tuple[int, int], ...]:
    """(lacking suit k, size) of the set patterns a rank's 4-bit suit mask holds."""
    held = [s for s in range(N_SUITS) if bits >> s & 1]
    if len(held) == 4:
        return tuple((k, 3) for k in range(N_SUITS)) + ((N_SUITS, 4),)
    if len(held) == 3:
        return ((6 - sum(held), 3),)
    return ()


_SETS_OF_SUITS = tuple(_sets_of_suits(bits) for bits in range(16))
"""Per 4-bit suit mask of one rank: (lacking suit, size) of each set pattern it holds."""


def supports(rules: Rules) -> bool:
    """Whether ``legal_mask_one`` has a plain path for these rules (no jokers)."""
    return rules.n_jokers == 0


@dataclass(frozen=True)
class _Tables:
    """Plain-Python forms of the lookup tables one rules config needs."""

    partners: tuple[tuple[tuple[int, int], ...], ...]
    """Per natural card: the pairs that make an allowed 3-card meld with it."""
    runs_in_suit: tuple[tuple[int, ...], ...]
    """Per 13-bit rank mask: the allowed runs it holds, as suit 0's run index (0..142)."""
    holding: tuple[frozenset[int], ...]
    """Per natural card: the patterns holding it."""


@lru_cache(maxsize=16)
def _tables(rules: Rules) -> _Tables:
    t = lookup_tables(rules)
    partners = tuple(
        tuple((int(a), int(b)) for a, b in t.partners[c] if a != NO_CARD) for c in range(N_NATURAL)
    )
    allowed_runs = t.allowed[N_SET_PATTERNS : N_SET_PATTERNS + N_RUNS_PER_SUIT]
    held = (t.run_missing == 0) & allowed_runs[None, :]
    runs_in_suit = tuple(tuple(np.flatnonzero(row).tolist()) for row in held)
    holding = tuple(
        frozenset(np.flatnonzero(PATTERN_CONTAINS[c]).tolist()) for c in range(N_NATURAL)
    )
    return _Tables(partners, runs_in_suit, holding)


def legal_mask_one(rules: Rules, state: State, fits: np.ndarray) -> np.ndarray:
    """bool [1, A]: the legal actions of the one game in ``state``; ``fits`` is its
    ``layoff_fits`` [1, 52, 3] (kept by the caller while the table stands)."""
    phase = int(state.phase[0])
    if not supports(rules) or phase not in (PHASE_DRAW, PHASE_PLAY):
        return legal_mask(rules, state, fits=fits)
    ids = lookup_tables(rules).layout
    mask = np.zeros((1, ids.size), bool)
    seat = int(state.current_player[0])
    may_lay = not rules.layoff_requires_meld or bool(state.melded[0, seat])
    if phase == PHASE_DRAW:
        _draw(rules, state, seat, fits, may_lay, ids, mask[0])
    else:
        _play(rules, state, seat, fits, may_lay, ids, mask[0])
    return mask


def _draw(
    rules: Rules, state: State, seat: int, fits: np.ndarray, may_lay: bool, ids, row: np.ndarray
) -> None:
    """``draw`` / ``end`` and every legal ``take d``: a dig's deepest card must meld with
    two cards held or taken above it, or lay off."""
    stock_left = int(state.stock_size[0]) > 0
    row[ids.DRAW] = stock_left
    row[ids.END] = not stock_left
    pile_size = int(state.pile_size[0])
    if pile_size == 0:
        return
    if not rules.dig and not rules.top_card_must_meld:
        row[ids.TAKE] = True
        return
    partners = _tables(rules).partners
    have = (state.hand[0, seat, :N_NATURAL] > 0).tolist()
    # Cards that fit some meld in some direction (one flat pass: tiny axes reduce slowly).
    fit_any = {i // 3 for i in fits[0].reshape(-1).nonzero()[0].tolist()} if may_lay else set()
    size = int(state.hand_size[0, seat])
    pile = state.pile[0, :pile_size].tolist()
    takes = []
    for depth in range(1, (pile_size if rules.dig else 1) + 1):
        card = pile[pile_size - depth]
        if depth == 1 and not rules.top_card_must_meld:
            takes.append(True)  # the top card alone: always legal
        else:
            ok = card in fit_any
            if not ok and (not rules.discard_required or size + depth >= 4):
                for a, b in partners[card]:
                    if have[a] and have[b]:
                        ok = True
                        break
            takes.append(ok)
        have[card] = True  # taken with every deeper card
    row[ids.TAKE : ids.TAKE + len(takes)] = takes


def _play(
    rules: Rules, state: State, seat: int, fits: np.ndarray, may_lay: bool, ids, row: np.ndarray
) -> None:
    """Melds, lay-offs and discards after the draw (no jokers: nothing to swap)."""
    tables = _tables(rules)
    counts = state.hand[0, seat]
    present = counts[:N_NATURAL] > 0
    grid = present.reshape(N_SUITS, N_RANKS)
    size = int(state.hand_size[0, seat])
    owed = int(state.owed[0])
    longest = size - 1 if rules.discard_required else N_NATURAL

    melds = []
    for rank, suits in enumerate((_SUIT_BITS @ grid).tolist()):
        if sets := _SETS_OF_SUITS[suits]:  # most ranks hold none
            melds += [rank * 5 + k for k, n in sets if n <= longest]
    for suit, ranks in enumerate((grid @ _RANK_BITS).tolist()):
        if runs := tables.runs_in_suit[ranks]:
            first = N_SET_PATTERNS + suit * N_RUNS_PER_SUIT
            melds += [first + run for run in runs if run % N_RUN_LENGTHS + 3 <= longest]
    if owed >= 0:
        melds = [p for p in melds if p in tables.holding[owed]]
    if melds:
        row[ids.MELD + np.array(melds)] = True

    if may_lay and (size >= 2 or not rules.discard_required):
        fit = fits[0] & present[:, None]
        if owed >= 0:
            row[ids.LAYOFF + owed * 3 : ids.LAYOFF + owed * 3 + 3] = fit[owed]
        else:
            row[ids.LAYOFF : ids.DISCARD] = fit.reshape(-1)

    if owed >= 0:
        return
    discards = row[ids.DISCARD : ids.SWAP]
    discards[:] = counts > 0
    if rules.keep_taken:
        taken = state.taken[0]
        if (discards & ~taken).any():
            discards &= ~taken
    else:
        banned = int(state.no_discard[0])
        if banned >= 0 and size != counts[banned]:
            discards[banned] = False
