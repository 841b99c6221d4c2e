"""Sharp: the point-planning computer player of the web game (seed 001).

Every decision compares the outcomes of the legal choices with one evaluation
of "where my turn leaves me" (``SharpAgent.evaluate``):

    value = points melded and laid off this turn (best plan, greedy by points)
          + sum over the cards still held of  v * (a * p - risk * (1 - p))
          - the card it would discard (the held card worth least)
          + a bonus for going out (the cards the opponents are left holding)

where v is the card's value, p the chance the card still gets melded (its pair
or run fragment completes, or it fits a meld once the next card is laid off),
counted from the cards still unseen (every card it has seen is dead: its hand,
the table, the pile, the cards others are known to hold; pile cards count as
reachable by digging) and the draws it has left; ``risk`` grows with the cards
it holds and with how soon the hand may end (stock size, the opponents' hand
sizes).

* Draw: every legal draw is evaluated: the stock (averaged over sampled unseen
  cards), the top card, each legal dig depth (with the deepest card melded
  first), and ``end`` when the stock is out; it takes the best.
* Meld / lay off: each legal meld and lay-off (the best few by points) is
  followed by the greedy rest of the plan; it plays the first step of the best.
* Discard: the card whose loss costs least, less a penalty for feeding the next
  player (a card that fits a table meld, or melds with cards the next player
  is known to hold).

It reads only the legal mask and the ``PlayerView``. Action kinds it does not
know (swap, call, pass, done...) are picked uniformly when nothing it knows is
legal.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rummy500.agents.cardsense import (
    HeuristicTables,
    action_kinds,
    best_meld,
    card_tables,
    layoff_fits,
    melds_in_hand,
    melds_with,
    pile_counts,
    row_counts,
    table_counts,
)
from rummy_env.core import N_CARD_IDS, N_NATURAL, N_RANKS, N_SUITS, Decision, Rules, sample_legal
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
class _Context:
    """What the acting seats know, per decision row (n rows)."""

    hand: np.ndarray        # int8 [n, 53]
    live: np.ndarray        # float32 [n, 53] copies unseen (stock or hidden in a hand)
    pile: np.ndarray        # int8 [n, 53]    copies in the pile
    fits: np.ndarray        # bool [n, 53, 3] where a card can be laid off now
    may_lay: np.ndarray     # bool [n]        laying off is open to me now
    melded: np.ndarray      # bool [n]        I have melded this hand
    turns: np.ndarray       # float32 [n]     my draws left, estimated
    q_draw: np.ndarray      # float32 [n]     chance of drawing one given unseen card
    opp_hold: np.ndarray    # float32 [n]     points the opponents are expected to hold
    next_fits: np.ndarray   # bool [n, 53]    cards the next player could lay off
    next_known: np.ndarray  # int8 [n, 53]    cards the next player is known to hold


class SharpAgent:
    """Point planning: draws, melds and discards by one evaluation of the turn's outcome."""

    name = "sharp"

    def __init__(self, rules: Rules, seed: int = 0, params: SharpParams | None = None):
        self.rules = rules
        self.params = params or SharpParams()
        self.tables: HeuristicTables = card_tables(rules)
        self.rng = np.random.default_rng(seed)
        self._values = self.tables.card_values.astype(np.float32)
        self._action_ids = self.tables.layout

    # ------------------------------------------------------------------ act
    def act(self, decision: Decision) -> np.ndarray:
        mask, action_ids = decision.mask, self._action_ids
        n = mask.shape[0]
        action = np.full(n, -1, np.int64)
        kinds = action_kinds(action_ids, mask)
        ctx = self._context(decision)

        rows = np.flatnonzero(kinds.draw)
        if rows.size:
            action[rows] = self._draw(decision, ctx, rows)
        play = ~kinds.draw
        rows = np.flatnonzero(play & (kinds.meld | kinds.layoff))
        if rows.size:
            action[rows] = self._play(decision, ctx, rows)
        rows = np.flatnonzero(play & ~kinds.meld & ~kinds.layoff & kinds.discard)
        if rows.size:
            action[rows] = self._discard(decision, ctx, rows)
        rest = np.flatnonzero(action < 0)
        if rest.size:
            action[rest] = sample_legal(mask[rest], self.rng)
        return action

    # ------------------------------------------------------------------ context
    def _context(self, decision: Decision) -> _Context:
        rules, view, p = self.rules, decision.view, self.params
        hand = view.hand
        n = hand.shape[0]
        table = table_counts(view)
        pile = pile_counts(view)
        known_others = view.known[:, 1:].sum(axis=1)
        live = (rules.n_decks - hand.astype(np.int16) - table - pile - known_others)
        live = np.clip(live, 0, None).astype(np.float32)
        live[:, N_NATURAL] = 0
        unseen = np.maximum(live.sum(axis=1), 1.0)

        sizes = view.hand_sizes.astype(np.float32)
        opp_min = sizes[:, 1:].min(axis=1)
        stock_turns = view.stock_size.astype(np.float32) / rules.players
        per_card = p.turns_per_card
        if per_card is None:
            per_card = 0.8 if rules.dig else 2.5
        turns = np.maximum(np.minimum(stock_turns, per_card * opp_min), 0.0)
        q_draw = np.clip(turns / unseen, 0.0, 1.0)

        values = self._values
        mean_unseen = (live * values).sum(axis=1) / unseen
        known_count = view.known[:, 1:].sum(axis=2).astype(np.float32)
        known_value = (view.known[:, 1:].astype(np.float32) * values).sum(axis=2)
        opp_hold = (known_value + (sizes[:, 1:] - known_count) * mean_unseen[:, None]).sum(axis=1)

        fits = layoff_fits(self.tables, view)
        melded = view.melded[:, 0].copy()
        may_lay = melded.copy() if rules.layoff_requires_meld else np.ones(n, bool)
        next_fits = fits.any(axis=2)
        if rules.layoff_requires_meld:
            next_fits &= view.melded[:, 1][:, None]
        return _Context(hand=hand, live=live, pile=pile, fits=fits, may_lay=may_lay,
                        melded=melded, turns=turns, q_draw=q_draw, opp_hold=opp_hold,
                        next_fits=next_fits, next_known=view.known[:, 1])

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, ctx: _Context, row: np.ndarray, hands: np.ndarray, fits: np.ndarray,
                 owed: np.ndarray, no_discard: np.ndarray, pile: np.ndarray | None = None,
                 melded: np.ndarray | None = None) -> np.ndarray:
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

    def _meld_all(self, hands: np.ndarray, fits: np.ndarray, owed: np.ndarray,
                  made: np.ndarray) -> np.ndarray:
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

    def holding_values(self, ctx: _Context, row: np.ndarray, hands: np.ndarray,
                       fits: np.ndarray, pile: np.ndarray) -> np.ndarray:
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
        risk = np.clip(prm.risk_base + prm.risk_slope * np.maximum(count - 1, 0)
                       / np.maximum(2.0 * turns + count, 1.0), 0.0, 1.0)
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
            pres[:, :, 2: 2 + N_RANKS] = present
            logq[:, :, 2: 2 + N_RANKS] = lq
            if rules.runs_ace_high:
                pres[:, :, 2 + N_RANKS] = present[:, :, 0]
                logq[:, :, 2 + N_RANKS] = lq[:, :, 0]

            def at(a, k):
                return a[:, :, 2 + k: a.shape[2] - 2 + k]
        me = at(pres, 0)
        l1, l2, r1, r2 = at(pres, -1), at(pres, -2), at(pres, 1), at(pres, 2)
        adj_l, adj_r = me & l1, me & r1
        gap_l, gap_r = me & l2 & ~l1, me & r2 & ~r1
        log_miss = (adj_l * at(logq, -2) + (adj_r | gap_l) * at(logq, -1)
                    + (adj_l | gap_r) * at(logq, 1) + adj_r * at(logq, 2))
        chance = -np.expm1(log_miss)
        if rules.wrap or not rules.runs_ace_high:
            return chance
        out = chance[:, :, :N_RANKS].copy()
        out[:, :, 0] = 1.0 - (1.0 - out[:, :, 0]) * (1.0 - chance[:, :, N_RANKS])
        return out

    # ------------------------------------------------------------------ decisions
    def _draw(self, decision: Decision, ctx: _Context, rows: np.ndarray) -> np.ndarray:
        """Evaluate every legal draw of each row; the action of the best."""
        action_ids, view, prm = self._action_ids, decision.view, self.params
        mask = decision.mask[rows]
        n = rows.size
        opt_row, opt_action, opt_hand, opt_owed, opt_nd = [], [], [], [], []

        # Stock: the mean over sampled unseen cards.
        can_draw = np.flatnonzero(mask[:, action_ids.DRAW])
        s = prm.stock_samples
        if can_draw.size:
            live = ctx.live[rows[can_draw]]
            cum = np.cumsum(live, axis=1)
            u = self.rng.random((can_draw.size, s)) * cum[:, -1:]
            card = (cum[:, None, :] <= u[:, :, None]).sum(axis=2)
            card = np.minimum(card, N_NATURAL - 1)
            hand = np.repeat(ctx.hand[rows[can_draw]], s, axis=0)
            hand[np.arange(hand.shape[0]), card.ravel()] += 1
            opt_row.append(np.repeat(can_draw, s))
            opt_action.append(np.full(hand.shape[0], action_ids.DRAW))
            opt_hand.append(hand)
            opt_owed.append(np.full(hand.shape[0], -1))
            opt_nd.append(np.full(hand.shape[0], -1))

        # Every legal take.
        takes = mask[:, action_ids.TAKE: action_ids.MELD]
        tr, td = np.nonzero(takes)
        if tr.size:
            depth = td + 1
            pile = view.pile[rows[tr]].astype(np.int64)
            size = view.pile_size[rows[tr]].astype(np.int64)
            pos = np.arange(pile.shape[1])[None, :]
            taken = (pos >= (size - depth)[:, None]) & (pos < size[:, None])
            rr = np.broadcast_to(np.arange(tr.size)[:, None], pile.shape)[taken]
            hand = ctx.hand[rows[tr]] + row_counts(rr, pile[taken], tr.size)
            deepest = pile[np.arange(tr.size), size - depth]
            owe = (depth >= 2) | self.rules.top_card_must_meld
            opt_row.append(tr)
            opt_action.append(action_ids.TAKE + td)
            opt_hand.append(hand)
            opt_owed.append(np.where(owe, deepest, -1))
            opt_nd.append(np.where(depth == 1, deepest, -1))

        values = np.full((n, 2 + takes.shape[1]), -np.inf, np.float32)  # [draw, end, takes...]
        if opt_row:
            orow = np.concatenate(opt_row)
            oact = np.concatenate(opt_action)
            hands = np.concatenate(opt_hand).astype(np.int8)
            grow = rows[orow]
            taken_cards = hands.astype(np.int16) - ctx.hand[grow]
            is_take = oact != action_ids.DRAW
            pile = ctx.pile[grow] - np.where(is_take[:, None], taken_cards, 0)
            fits = ctx.fits[grow].copy()
            v = self.evaluate(ctx, grow, hands, fits, np.concatenate(opt_owed),
                              np.concatenate(opt_nd), pile=pile.astype(np.int8))
            v -= np.where(is_take, prm.take_card_cost * taken_cards.sum(axis=1), 0.0)
            col = np.where(is_take, oact - action_ids.TAKE + 2, 0)
            # Stock samples share column 0: average them.
            stock = ~is_take
            if stock.any():
                sums = np.zeros(n, np.float32)
                np.add.at(sums, orow[stock], v[stock])
                values[can_draw, 0] = sums[can_draw] / s
            values[orow[is_take], col[is_take]] = v[is_take]
        end_ok = mask[:, action_ids.END]
        if end_ok.any():
            held = (ctx.hand[rows].astype(np.float32) * self._values).sum(axis=1)
            values[end_ok, 1] = -held[end_ok]
        best = np.argmax(values, axis=1)
        action = np.where(best == 0, action_ids.DRAW,
                          np.where(best == 1, action_ids.END, action_ids.TAKE + best - 2))
        bad = ~np.isfinite(values[np.arange(n), best])
        if bad.any():
            action[bad] = sample_legal(mask[bad], self.rng)
        return action

    def _play(self, decision: Decision, ctx: _Context, rows: np.ndarray) -> np.ndarray:
        """Rows with a legal meld or lay-off: the first step of the best plan."""
        action_ids, prm, ct = self._action_ids, self.params, self.tables
        mask = decision.mask[rows]
        k = prm.candidates
        melds = mask[:, action_ids.MELD: action_ids.LAYOFF]
        mscore = np.where(melds, ct.pattern_points[None, :].astype(np.float32), -1.0)
        mtop = np.argsort(-mscore, axis=1)[:, :k]
        mok = np.take_along_axis(mscore, mtop, axis=1) >= 0
        lays = mask[:, action_ids.LAYOFF: action_ids.DISCARD]
        lscore = np.where(lays, ct.layoff_points[:N_NATURAL].reshape(1, -1).astype(np.float32),
                          -1.0)
        ltop = np.argsort(-lscore, axis=1)[:, :k]
        lok = np.take_along_axis(lscore, ltop, axis=1) >= 0

        mr, mj = np.nonzero(mok)
        lr, lj = np.nonzero(lok)
        pattern = mtop[mr, mj]
        code = ltop[lr, lj]
        cand_row = np.concatenate([mr, lr])
        cand_action = np.concatenate([action_ids.MELD + pattern, action_ids.LAYOFF + code])
        grow = rows[cand_row]
        hands = ctx.hand[grow].copy()
        fits = ctx.fits[grow].copy()
        points = np.zeros(cand_row.size, np.float32)
        made = ctx.melded[grow].copy()
        nm = mr.size
        self._apply_melds(hands, fits, points, made, np.arange(nm), pattern)
        card, direction = code // 3, code % 3
        self._apply_layoffs(hands, fits, points, np.arange(nm, cand_row.size), card, direction)
        owed = np.full(cand_row.size, -1)
        nd = decision.view.no_discard[grow].astype(np.int64)
        value = points + self.evaluate(ctx, grow, hands, fits, owed, nd, melded=made)
        best = group_max(cand_row, value, rows.size)
        is_best = value >= best[cand_row]
        choice = np.full(rows.size, -1, np.int64)
        choice[cand_row[is_best][::-1]] = cand_action[is_best][::-1]  # first best wins
        return choice

    def _discard(self, decision: Decision, ctx: _Context, rows: np.ndarray) -> np.ndarray:
        """The discard that costs least, less a penalty for feeding the next player."""
        action_ids, prm = self._action_ids, self.params
        legal = decision.mask[rows, action_ids.DISCARD: action_ids.SWAP]
        cr, cc = np.nonzero(legal)
        grow = rows[cr]
        hands = ctx.hand[grow].copy()
        hands[np.arange(cr.size), cc] -= 1
        fits = ctx.fits[grow]
        held = self.holding_values(ctx, grow, hands, fits, ctx.pile[grow])
        count = hands.sum(axis=1)
        value = (held * hands).sum(axis=1)
        value += np.where(count == 0, prm.go_out_weight * ctx.opp_hold[grow], 0.0)
        v = self._values[cc]
        feeds_fit = ctx.next_fits[grow, cc]
        feeds_known = melds_with(self.tables, cc, ctx.next_known[grow])
        value -= prm.feed_fit * v * feeds_fit + prm.feed_known * (v + 10.0) * feeds_known
        best = group_max(cr, value, rows.size)
        is_best = value >= best[cr]
        choice = np.full(rows.size, -1, np.int64)
        choice[cr[is_best][::-1]] = action_ids.DISCARD + cc[is_best][::-1]
        return choice
