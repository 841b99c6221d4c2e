"""Sharp's plays and discard safety: the best first step of the turn's plan, then the
card whose loss costs least, less a penalty for feeding the next player (a card that
fits a table meld, or melds with cards the next player is known to hold).
"""

from __future__ import annotations

import numpy as np

from rummy500.agents.cardsense import (
    melds_with,
)
from rummy500.agents.sharp_plan import SeatContext, SharpPlanner, group_max
from rummy_env.core import N_NATURAL, Decision


class PlayAndDiscard(SharpPlanner):
    """The meld, lay-off and discard steps of ``SharpAgent``."""

    def _play(self, decision: Decision, ctx: SeatContext, rows: np.ndarray) -> np.ndarray:
        """Rows with a legal meld or lay-off: the first step of the best plan."""
        action_ids, prm, ct = self._action_ids, self.params, self.tables
        mask = decision.mask[rows]
        k = prm.candidates
        melds = mask[:, action_ids.MELD : action_ids.LAYOFF]
        mscore = np.where(melds, ct.pattern_points[None, :].astype(np.float32), -1.0)
        mtop = np.argsort(-mscore, axis=1)[:, :k]
        mok = np.take_along_axis(mscore, mtop, axis=1) >= 0
        lays = mask[:, action_ids.LAYOFF : action_ids.DISCARD]
        lscore = np.where(
            lays, ct.layoff_points[:N_NATURAL].reshape(1, -1).astype(np.float32), -1.0
        )
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

    def _discard(self, decision: Decision, ctx: SeatContext, rows: np.ndarray) -> np.ndarray:
        """The discard that costs least, less a penalty for feeding the next player."""
        action_ids, prm = self._action_ids, self.params
        legal = decision.mask[rows, action_ids.DISCARD : action_ids.SWAP]
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
