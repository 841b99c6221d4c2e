"""Sharp's hand planning: the value of where a turn leaves the seat.

``SharpPlanner.evaluate`` plays the greedy rest of a turn (melds, lay-offs) on
candidate hands and values what is left: the points laid down, the chance each held
card still melds, the risk of being caught holding it, the card it would discard and a
bonus for going out (the formula is in ``rummy500.agents.sharp``). The draw
(``sharp_draw``), the plays and the discard (``sharp_discard``) all ask it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rummy500.agents.cardsense import (
    HeuristicTables,
    best_meld,
    melds_in_hand,
)
from rummy_env.core import N_CARD_IDS, N_NATURAL, N_RANKS, N_SUITS, Rules
from rummy_env.core.patterns import PATTERN_CONTAINS

SET, UP, DOWN = 0, 1, 2


def group_max(group: np.ndarray, value: np.ndarray, n: int) -> np.ndarray:
    """float32 [n]: the largest ``value`` of each group 0..n-1 (-inf for a group with none):
    one stable sort and ``maximum.reduceat``, far cheaper than ``np.maximum.at``."""
    best = np.full(n, -np.inf, np.float32)
    if group.size == 0:
        return best
    order = np.argsort(group, kind="stable")
    present = np.bincount(group, minlength=n) > 0
    starts = np.searchsorted(group[order], np.flatnonzero(present))
    best[present] = np.maximum.reduceat(value[order], starts)
    return best


@dataclass(frozen=True)
class SharpParams:
    """The knobs of the evaluation (defaults tuned against Casual, standard and web)."""

    stock_samples: int = 8
    """Unseen cards sampled to value a draw from the stock."""
    future_weight: float = 1.0
    """a: what a card that will probably meld later is worth now, per point."""
    risk_base: float = 0.05
    """Least share of a loose card's value counted as lost."""
    risk_slope: float = 0.8
    """Share added as the held cards outgrow the turns left."""
    pile_reach: float = 0.5
    """Chance of getting a pile card by digging when it is needed (dig rules only)."""
    turns_per_card: float | None = None
    """Turns an opponent needs per card in hand to go out. None: 0.8 when the rules
    allow digging (whole melds come off the pile, hands go out fast), else 2.5."""
    go_out_weight: float = 1.0
    """Bonus for going out, per point the opponents are expected to hold."""
    feed_fit: float = 3.0
    """Penalty per point for discarding a card the next player can lay off."""
    feed_known: float = 3.0
    """Penalty per point (card + 10) for a card that melds with the next player's known cards."""
    take_card_cost: float = 0.0
    """Penalty per card taken from the pile."""
    candidates: int = 6
    """Melds (and lay-offs) tried as the next play."""


@dataclass
class SeatContext:
    """What the acting seats know, per decision row (n rows)."""

    hand: np.ndarray  # int8 [n, 53]
    live: np.ndarray  # float32 [n, 53] copies unseen (stock or hidden in a hand)
    pile: np.ndarray  # int8 [n, 53]    copies in the pile
    fits: np.ndarray  # bool [n, 53, 3] where a card can be laid off now
    may_lay: np.ndarray  # bool [n]        laying off is open to me now
    melded: np.ndarray  # bool [n]        I have melded this hand
    turns: np.ndarray  # float32 [n]     my draws left, estimated
    q_draw: np.ndarray  # float32 [n]     chance of drawing one given unseen card
    opp_hold: np.ndarray  # float32 [n]     points the opponents are expected to hold
    next_fits: np.ndarray  # bool [n, 53]    cards the next player could lay off
    next_known: np.ndarray  # int8 [n, 53]    cards the next player is known to hold


class SharpPlanner:
    """Sharp's evaluation of a turn's outcome; the agent (``SharpAgent``) sets ``rules``,
    ``params``, ``tables`` and ``_values``."""

    rules: Rules
    params: SharpParams
    tables: HeuristicTables
    _values: np.ndarray

    # ------------------------------------------------------------------ evaluation
    def evaluate(
        self,
        ctx: SeatContext,
        row: np.ndarray,
        hands: np.ndarray,
        fits: np.ndarray,
        owed: np.ndarray,
        no_discard: np.ndarray,
        pile: np.ndarray | None = None,
        melded: np.ndarray | None = None,
    ) -> np.ndarray:
        """float32 [r]: value of holding ``hands`` [r, 53] at the play step of decision ``row``.

        ``hands`` and ``fits`` [r, 53, 3] are changed in place. ``owed`` [r]: card
        the first play must use (-1 none); ``no_discard`` [r]: card that may not
        be discarded; ``pile`` [r, 53]: pile counts (default: the decision's);
        ``melded`` [r]: already melded this hand (default: the decision's).
        """
        made = ctx.melded[row].copy() if melded is None else melded.copy()
        points = self._meld_all(hands, fits, owed, made)
        may_lay = ctx.may_lay[row] | made if self.rules.layoff_requires_meld else ctx.may_lay[row]
        points += self._lay_off_all(hands, fits, may_lay)
        pile = ctx.pile[row] if pile is None else pile
        held = self.holding_values(ctx, row, hands, fits, pile)
        count = hands.sum(axis=1)
        # The discard: the held card worth least (not the one just taken from the pile).
        discardable = hands[:, :N_CARD_IDS] > 0
        r = np.arange(hands.shape[0])
        nd = no_discard >= 0
        only = nd & (count == hands[r, np.maximum(no_discard, 0)])
        block = nd & ~only
        discardable[r[block], no_discard[block]] = False
        worst = np.where(discardable, held, np.inf).min(axis=1)
        worst = np.where(np.isfinite(worst), worst, 0.0)
        value = points + (held * hands).sum(axis=1) - np.where(count > 0, worst, 0.0)
        out = count <= 1
        value += np.where(out, self.params.go_out_weight * ctx.opp_hold[row], 0.0)
        return value.astype(np.float32)

    def _meld_all(
        self, hands: np.ndarray, fits: np.ndarray, owed: np.ndarray, made: np.ndarray
    ) -> np.ndarray:
        """Meld greedily by points (the owed card first); returns the points per row."""
        ct = self.tables
        points = np.zeros(hands.shape[0], np.float32)
        rows = np.flatnonzero(owed >= 0)
        if rows.size:
            melds = melds_in_hand(self.rules, hands[rows]) & PATTERN_CONTAINS[owed[rows]]
            score = np.where(melds, ct.pattern_points[None, :], -1)
            pattern = np.argmax(score, axis=1)
            ok = score[np.arange(rows.size), pattern] >= 0
            self._apply_melds(hands, fits, points, made, rows[ok], pattern[ok])
            rest = rows[~ok]
            rest = rest[fits[rest, owed[rest]].any(axis=1)]
            if rest.size:  # the owed card must be laid off instead
                card = owed[rest]
                scores = np.where(fits[rest, card], ct.layoff_points[card], -1)
                self._apply_layoffs(hands, fits, points, rest, card, np.argmax(scores, axis=1))
        active = np.arange(hands.shape[0])
        for _ in range(N_CARD_IDS // 3):
            pattern, _pts = best_meld(ct, hands[active])
            ok = pattern >= 0
            if not ok.any():
                break
            active = active[ok]
            self._apply_melds(hands, fits, points, made, active, pattern[ok])
        return points

    def _apply_melds(self, hands, fits, points, made, rows, pattern) -> None:
        ct = self.tables
        hands[rows] -= ct.pattern_cards[pattern]
        points[rows] += ct.pattern_points[pattern]
        made[rows] = True
        for d in range(3):
            card = ct.pattern_fits[pattern, d]
            ok = card >= 0
            fits[rows[ok], card[ok], d] = True

    def _apply_layoffs(self, hands, fits, points, rows, card, direction) -> None:
        ct = self.tables
        hands[rows, card] -= 1
        points[rows] += ct.layoff_points[card, direction]
        fits[rows, card, direction] = False
        for d, nxt_of in ((UP, ct.up), (DOWN, ct.down)):
            sel = direction == d
            nxt = nxt_of[card[sel]]
            ok = nxt >= 0
            fits[rows[sel][ok], nxt[ok], d] = True

    def _lay_off_all(self, hands: np.ndarray, fits: np.ndarray, may_lay: np.ndarray) -> np.ndarray:
        """Lay off every card that fits (chains included); returns the points per row."""
        ct = self.tables
        points = np.zeros(hands.shape[0], np.float32)
        active = np.flatnonzero(may_lay)
        for _ in range(N_RANKS * 2):
            if active.size == 0:
                break
            can = (hands[active, :, None] > 0) & fits[active]
            score = np.where(can, ct.layoff_points[None], -1)
            best_dir = np.argmax(score, axis=2)
            ok = np.take_along_axis(score, best_dir[..., None], axis=2)[..., 0] >= 0
            r, c = np.nonzero(ok)
            if r.size == 0:
                break
            self._apply_layoffs(hands, fits, points, active[r], c, best_dir[r, c])
            active = np.unique(active[r])
        return points

    def holding_values(
        self,
        ctx: SeatContext,
        row: np.ndarray,
        hands: np.ndarray,
        fits: np.ndarray,
        pile: np.ndarray,
    ) -> np.ndarray:
        """float32 [r, 53]: what each held card is worth per copy (v * (a p - risk (1 - p)))."""
        rules, prm = self.rules, self.params
        r = hands.shape[0]
        present = hands[:, :N_NATURAL].reshape(r, N_SUITS, N_RANKS) > 0
        reach = prm.pile_reach if rules.dig else 0.0
        q = ctx.live[row, :N_NATURAL] * ctx.q_draw[row, None] + pile[:, :N_NATURAL] * reach
        q = np.clip(q, 0.0, 0.95).reshape(r, N_SUITS, N_RANKS)
        lq = np.log1p(-q)  # log(1 - q)

        # Sets: a pair completes with any missing suit of its rank.
        ns = present.sum(axis=1)
        miss = np.where(present, 0.0, lq).sum(axis=1)
        p_set = np.where(ns == 2, -np.expm1(miss), 0.0)[:, None, :] * present

        # Runs: two cards side by side or one apart complete with the cards around them.
        p_run = self._run_chance(present, lq)

        # Lay-offs later: a card two past a table end once the card between arrives.
        qflat = q.reshape(r, N_NATURAL)
        p_lay = np.zeros((r, N_NATURAL), np.float32)
        for d, nxt_of in ((UP, self.tables.up), (DOWN, self.tables.down)):
            src = np.flatnonzero(nxt_of[:N_NATURAL] >= 0)
            dst = nxt_of[src]
            p_lay[:, dst] = np.maximum(p_lay[:, dst], fits[:, src, d] * qflat[:, src])
        p_lay = p_lay.reshape(r, N_SUITS, N_RANKS) * present

        p = 1.0 - (1.0 - p_set) * (1.0 - p_run) * (1.0 - p_lay)
        count = hands.sum(axis=1).astype(np.float32)
        turns = ctx.turns[row]
        risk = np.clip(
            prm.risk_base
            + prm.risk_slope * np.maximum(count - 1, 0) / np.maximum(2.0 * turns + count, 1.0),
            0.0,
            1.0,
        )
        v = self._values[:N_NATURAL].reshape(1, N_SUITS, N_RANKS)
        held = v * (prm.future_weight * p - risk[:, None, None] * (1.0 - p))
        out = np.zeros((r, N_CARD_IDS), np.float32)
        out[:, :N_NATURAL] = held.reshape(r, N_NATURAL)
        out[:, N_NATURAL] = self._values[N_NATURAL] * prm.future_weight  # a joker fits anywhere
        return out

    def _run_chance(self, present: np.ndarray, lq: np.ndarray) -> np.ndarray:
        """float [r, 4, 13]: chance each held card's run fragment completes."""
        rules = self.rules
        r = present.shape[0]
        if rules.wrap:

            def at(a, k):
                return np.roll(a, -k, axis=2)

            pres, logq = present, lq
        else:
            width = N_RANKS + 1 if rules.runs_ace_high else N_RANKS
            pres = np.zeros((r, N_SUITS, width + 4), bool)
            logq = np.zeros((r, N_SUITS, width + 4), lq.dtype)
            pres[:, :, 2 : 2 + N_RANKS] = present
            logq[:, :, 2 : 2 + N_RANKS] = lq
            if rules.runs_ace_high:
                pres[:, :, 2 + N_RANKS] = present[:, :, 0]
                logq[:, :, 2 + N_RANKS] = lq[:, :, 0]

            def at(a, k):
                return a[:, :, 2 + k : a.shape[2] - 2 + k]

        me = at(pres, 0)
        l1, l2, r1, r2 = at(pres, -1), at(pres, -2), at(pres, 1), at(pres, 2)
        adj_l, adj_r = me & l1, me & r1
        gap_l, gap_r = me & l2 & ~l1, me & r2 & ~r1
        log_miss = (
            adj_l * at(logq, -2)
            + (adj_r | gap_l) * at(logq, -1)
            + (adj_l | gap_r) * at(logq, 1)
            + adj_r * at(logq, 2)
        )
        chance = -np.expm1(log_miss)
        if rules.wrap or not rules.runs_ace_high:
            return chance
        out = chance[:, :, :N_RANKS].copy()
        out[:, :, 0] = 1.0 - (1.0 - out[:, :, 0]) * (1.0 - chance[:, :, N_RANKS])
        return out

    # ------------------------------------------------------------------ decisions
