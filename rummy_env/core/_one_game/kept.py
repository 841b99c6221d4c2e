"""What a one-game env keeps while the table stands: its mask's ``layoff_fits`` and the
table's part of each seat's observation.

The table of a game's trajectory is named by the key the batched cache uses
(``rummy_env.core._table_cache``: the game's key, the hand's number, the melds laid,
the cards and the jokers on the table), here worked out for one game
(``table_key_one``), and what it accepts (``layoff_fits``, a fifth of the mask's cost
for one game) and what it shows (``table_part``, half of the observation's) are
worked out only when it changes. Each cache holds the state it
was made for: any other state, a reset's new one included, is worked out afresh.
The mask itself is ``legal_mask_one``'s plain-Python path where the rules have one
(no jokers).
"""

from __future__ import annotations

import numpy as np

from .._table_cache import table_key_one
from ..rules import Rules
from ..state import State
from .mask import legal_mask_one
from .observe import TablePart, observe_one, table_part
from .table import layoff_fits_one


class OneGameMask:
    """``legal_mask`` of a one-game state, with its table's ``layoff_fits`` kept (worked
    out by ``layoff_fits_one``'s loop over the melds)."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self._state: State | None = None
        self._table: tuple[int, ...] | None = None
        self._fits: np.ndarray | None = None

    def __call__(self, state: State) -> np.ndarray:
        table = table_key_one(self.rules, state)
        if state is not self._state or table != self._table:
            self._state, self._table = state, table
            self._fits = layoff_fits_one(self.rules, state)
        return legal_mask_one(self.rules, state, self._fits)


class OneGameObserver:
    """``observe_one`` of a one-game state, with each seat's ``table_part`` kept."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self._state: State | None = None
        self._table: tuple[int, ...] | None = None
        self._parts: dict[int, TablePart] = {}

    def __call__(self, state: State, seat: int) -> np.ndarray:
        table = table_key_one(self.rules, state)
        if state is not self._state or table != self._table:
            self._state, self._table, self._parts = state, table, {}
        part = self._parts.get(seat)
        if part is None:
            part = self._parts[seat] = table_part(self.rules, state, seat)
        return observe_one(self.rules, state, seat, table=part)
