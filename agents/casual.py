"""Casual: the longest-first computer player of the web game.

* Draw: takes the top discard only when it can meld it at once (it makes a
  meld with two cards in hand, or lays off on the table); otherwise draws from
  the stock. It never digs. With the stock empty it ends the hand.
* Play: lays down the longest meld it has (ties: more points) until none is
  left, then lays off every card that fits.
* Discard: its highest-value card that is not part of a pair or a two-card run
  fragment (two consecutive cards of a suit); if every card is, its
  highest-value card. Ties go to the higher card id.

Fully batched: every step is a handful of numpy operations over the batch.
Action kinds it does not know (swap, call, pass, done...) are picked uniformly
at random when nothing it knows is legal, so it keeps working as variants arrive.
"""

from __future__ import annotations

import numpy as np

from rummy500.agents.cardsense import action_kinds, card_tables, layoff_fits, melds_with, top_cards
from rummy_env.core import (
    JOKER,
    N_CARD_IDS,
    N_NATURAL,
    N_RANKS,
    N_SUITS,
    Decision,
    Rules,
    sample_legal,
)
from rummy_env.core.patterns import PATTERN_SIZE


def protected_cards(hand: np.ndarray, rules: Rules) -> np.ndarray:
    """bool [n, 53]: cards in a pair (two suits of one rank) or a two-card run fragment.

    Jokers count as protected too (they complete any meld).

    A fragment is two cards of one suit in consecutive ranks that a run could
    hold together: A-2 always, K-A only when the rules allow Q-K-A, and every
    pair round the corner when runs wrap.
    """
    n = hand.shape[0]
    present = hand[:, :N_NATURAL].reshape(n, N_SUITS, N_RANKS) > 0
    pair = present & (present.sum(axis=1, keepdims=True) >= 2)
    if rules.wrap:
        frag = present & (np.roll(present, 1, axis=2) | np.roll(present, -1, axis=2))
    else:
        # Ranks on a line A 2 .. K, plus a high ace at position 13 when Q-K-A is a run.
        line = np.zeros((n, N_SUITS, N_RANKS + 3), bool)
        line[:, :, 1 : 1 + N_RANKS] = present
        if rules.runs_ace_high:
            line[:, :, 1 + N_RANKS] = present[:, :, 0]
        on_line = line[:, :, 1:-1] & (line[:, :, :-2] | line[:, :, 2:])
        frag = on_line[:, :, :N_RANKS].copy()
        frag[:, :, 0] |= on_line[:, :, N_RANKS]
    out = np.zeros((n, N_CARD_IDS), bool)
    out[:, :N_NATURAL] = (pair | frag).reshape(n, N_NATURAL)
    out[:, JOKER] = hand[:, JOKER] > 0  # a joker completes anything: never loose
    return out


class CasualAgent:
    """Longest-first melds, never digs, sheds its highest loose card."""

    name = "casual"

    def __init__(self, rules: Rules, seed: int = 0):
        self.rules = rules
        self.tables = card_tables(rules)
        self.rng = np.random.default_rng(seed)
        action_ids = self.tables.layout
        # Meld score: length first, then points; card value x 64 + id breaks discard ties.
        self._meld_score = np.where(
            self.tables.pattern_allowed,
            PATTERN_SIZE.astype(np.int32) * 4096 + self.tables.pattern_points,
            -1,
        ).astype(np.int32)
        self._discard_score = (self.tables.card_values * 64 + np.arange(N_CARD_IDS)).astype(
            np.int32
        )
        self._action_ids = action_ids

    def act(self, decision: Decision) -> np.ndarray:
        mask, view, action_ids = decision.mask, decision.view, self._action_ids
        n = mask.shape[0]
        action = np.full(n, -1, np.int64)
        kinds = action_kinds(action_ids, mask)

        rows = np.flatnonzero(kinds.draw)
        if rows.size:
            action[rows] = self._draw(decision, rows)

        play = ~kinds.draw
        rows = np.flatnonzero(play & kinds.meld)
        if rows.size:
            melds = mask[rows, action_ids.MELD : action_ids.LAYOFF]
            score = np.where(melds, self._meld_score[None, :], -1)
            action[rows] = action_ids.MELD + np.argmax(score, axis=1)

        rows = np.flatnonzero(play & ~kinds.meld & kinds.layoff)
        if rows.size:
            layoffs = mask[rows, action_ids.LAYOFF : action_ids.DISCARD]
            action[rows] = action_ids.LAYOFF + np.argmax(layoffs, axis=1)

        rows = np.flatnonzero(play & ~kinds.meld & ~kinds.layoff & kinds.discard)
        if rows.size:
            legal = mask[rows, action_ids.DISCARD : action_ids.SWAP]
            loose = legal & ~protected_cards(view.hand[rows], self.rules)
            pick_from = np.where(loose.any(axis=1)[:, None], loose, legal)
            score = np.where(pick_from, self._discard_score[None, :], -1)
            action[rows] = action_ids.DISCARD + np.argmax(score, axis=1)

        rest = np.flatnonzero(action < 0)
        if rest.size:
            action[rest] = sample_legal(mask[rest], self.rng)
        return action

    def _draw(self, decision: Decision, rows: np.ndarray) -> np.ndarray:
        mask, action_ids = decision.mask, self._action_ids
        view = decision.view
        top = top_cards(view, 1)[rows]
        hand = view.hand[rows]
        fits = layoff_fits(self.tables, view, rows)
        if self.rules.layoff_requires_meld:
            fits &= view.melded[rows, 0][:, None, None]
        usable = melds_with(self.tables, top, hand) | _lays_off(self.tables, top, hand, fits)
        take = mask[rows, action_ids.TAKE] & usable
        out = np.where(mask[rows, action_ids.DRAW], action_ids.DRAW, action_ids.END)
        out = np.where(take, action_ids.TAKE, out)
        stuck = ~mask[rows, out]
        if stuck.any():
            out[stuck] = sample_legal(mask[rows[stuck]], self.rng)
        return out


def _lays_off(ct, card: np.ndarray, hand: np.ndarray, fits: np.ndarray) -> np.ndarray:
    """bool [n]: ``card`` [n] can be laid off on the table, at once or after hand cards.

    ``fits`` [n, 53, 3] is where cards fit now; a run end takes the card after
    the hand's own cards that lead up (or down) to it have been laid off.
    """
    n = card.shape[0]
    rows = np.arange(n)
    c = np.maximum(card, 0)
    ok = fits[rows, c].any(axis=1)
    for direction, step_back in ((1, ct.down), (2, ct.up)):
        # Walk from the card back towards the meld through cards held in hand.
        prev = step_back[c].astype(np.int64)
        for _ in range(N_RANKS):
            live = prev >= 0
            if not live.any():
                break
            p = np.maximum(prev, 0)
            ok |= live & fits[rows, p, direction] & (hand[rows, p] > 0)
            prev = np.where(live & (hand[rows, p] > 0), step_back[p], -1)
    return ok & (card >= 0)
