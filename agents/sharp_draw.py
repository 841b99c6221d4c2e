"""Sharp's draw: every legal draw valued by the planner, the best taken.

The stock is valued over sampled unseen cards, the top card and each legal dig
depth with the deepest card melded first, and ``end`` when the stock is out.
"""

from __future__ import annotations

import numpy as np

from rummy500.agents.cardsense import (
    row_counts,
)
from rummy500.agents.sharp_plan import SeatContext, SharpPlanner
from rummy_env.core import N_NATURAL, Decision, sample_legal


class DrawChoice(SharpPlanner):
    """The draw step of ``SharpAgent``."""

    def _draw(self, decision: Decision, ctx: SeatContext, rows: np.ndarray) -> np.ndarray:
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
        takes = mask[:, action_ids.TAKE : action_ids.MELD]
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
            v = self.evaluate(
                ctx,
                grow,
                hands,
                fits,
                np.concatenate(opt_owed),
                np.concatenate(opt_nd),
                pile=pile.astype(np.int8),
            )
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
        action = np.where(
            best == 0,
            action_ids.DRAW,
            np.where(best == 1, action_ids.END, action_ids.TAKE + best - 2),
        )
        bad = ~np.isfinite(values[np.arange(n), best])
        if bad.any():
            action[bad] = sample_legal(mask[bad], self.rng)
        return action
