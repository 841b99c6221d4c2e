"""Sharp: the point-planning computer player of the web game (the web preset).

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

import numpy as np

from rummy500.agents.cardsense import (
    HeuristicTables,
    action_kinds,
    card_tables,
    layoff_fits,
    pile_counts,
    table_counts,
)
from rummy500.agents.sharp_discard import PlayAndDiscard
from rummy500.agents.sharp_draw import DrawChoice
from rummy500.agents.sharp_plan import SeatContext, SharpParams
from rummy_env.core import N_NATURAL, Decision, Rules, sample_legal

__all__ = ["SharpAgent", "SharpParams"]


class SharpAgent(DrawChoice, PlayAndDiscard):
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
    def _context(self, decision: Decision) -> SeatContext:
        rules, view, p = self.rules, decision.view, self.params
        hand = view.hand
        n = hand.shape[0]
        table = table_counts(view)
        pile = pile_counts(view)
        known_others = view.known[:, 1:].sum(axis=1)
        live = rules.n_decks - hand.astype(np.int16) - table - pile - known_others
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
        return SeatContext(
            hand=hand,
            live=live,
            pile=pile,
            fits=fits,
            may_lay=may_lay,
            melded=melded,
            turns=turns,
            q_draw=q_draw,
            opp_hold=opp_hold,
            next_fits=next_fits,
            next_known=view.known[:, 1],
        )
