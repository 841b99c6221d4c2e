"""The legal mask of a one-game env, reusing what the table accepts while the table stands.

Within a hand the table only grows: every meld and lay-off adds slots, and a joker
swap changes no meld's shape. So the hand's number, the meld count and the slots
in use name the table of one game's trajectory, and what it accepts
(``layoff_fits``, a fifth of the mask's cost for one game) is worked out only when
they change. The cache holds the state it was made for: any other state, a reset's
new one included, is worked out afresh. The mask itself is ``legal_mask_one``'s
plain-Python path where the rules have one (no jokers).
"""

from __future__ import annotations

import numpy as np

from rummy_env.core import Rules, State, layoff_fits, legal_mask_one


class OneGameMask:
    """``legal_mask`` of a one-game state, with its table's ``layoff_fits`` kept."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self._state: State | None = None
        self._table: tuple[int, int, int] | None = None
        self._fits: np.ndarray | None = None

    def __call__(self, state: State) -> np.ndarray:
        table = (int(state.hand_number[0]), int(state.n_melds[0]), int(state.meld_len[0].sum()))
        if state is not self._state or table != self._table:
            self._state, self._table = state, table
            self._fits = layoff_fits(self.rules, state)
        return legal_mask_one(self.rules, state, self._fits)
