"""What a batch's tables accept and score, kept while each table stands.

Within a hand a table only grows: a meld adds a meld, a lay-off adds a slot, a
joker swap puts a natural card where a joker was (one joker fewer). So the deal
key, the hand number, the meld count, the filled slots and the jokers on the
table name one game's table along its trajectory (``table_keys``), and a new
trajectory in a row starts from an empty table, the same whatever game held the
row before. ``TableCache.update`` therefore works ``layoff_fits``, ``table_points``,
under one-deck joker rules ``blocked_cards`` and, when asked, the observation's table
columns (``table_codes``), each a large share of the mask's or the view's cost, out
again only for the games whose key changed, a small share of them at each
micro-step. The one-game envs key a lone game's
table the same way, in plain Python (``rummy_env/core/_one_game/kept.py``).

Call ``update`` after every change of the batch (each step, each reset of some
games): a row skipped over several changes could meet a new table with an old
table's key. ``forget`` drops what is kept, for a batch changed any other way.
``Games`` (``rummy_env/core/games.py``) is the one caller outside the engine's tests:
it brings the cache up to date before every step and every read, so nothing above the
engine holds one.
"""

from __future__ import annotations

import numpy as np

from .observation import table_codes
from .rules import Rules
from .scoring import table_points
from .state import State
from .table import blocked_cards, layoff_fits


def table_keys(rules: Rules, state: State) -> np.ndarray:
    """int64 [B, 5]: what names each game's table along its trajectory (module docstring)."""
    keys = np.empty((state.batch_size, 5), np.int64)
    keys[:, 0] = state.key.view(np.int64)
    keys[:, 1] = state.hand_number
    keys[:, 2] = state.n_melds
    # The filled slots, as the cards neither in the stock, the pile nor a hand: a few
    # whole-column subtractions, where a sum along the tiny meld axis is five times slower.
    on_table = rules.deck_cards - state.stock_size.astype(np.int64) - state.pile_size
    for seat in range(rules.players):
        on_table -= state.hand_size[:, seat]
    keys[:, 3] = on_table
    if rules.n_jokers:
        keys[:, 4] = state.meld_joker.reshape(state.batch_size, -1).sum(axis=1, dtype=np.int64)
    else:
        keys[:, 4] = 0
    return keys


def table_key_one(rules: Rules, state: State) -> tuple[int, ...]:
    """``tuple(table_keys(rules, state)[0])``, worked out in plain Python for a one-game
    state (numpy calls on arrays of a few elements cost more than the arithmetic):
    the one-game envs key their kept tables by it."""
    key = int(state.key[0])
    on_table = (
        rules.deck_cards
        - int(state.stock_size[0])
        - int(state.pile_size[0])
        - sum(state.hand_size[0].tolist())
    )
    jokers = int(state.meld_joker[0].sum()) if rules.n_jokers else 0
    return (
        key - (1 << 64) if key >= 1 << 63 else key,
        int(state.hand_number[0]),
        int(state.n_melds[0]),
        on_table,
        jokers,
    )


class TableCache:
    """``layoff_fits``, ``table_points``, ``blocked_cards`` and (``observed``) the
    observation's ``table_codes`` of every game of a batch, kept between steps."""

    def __init__(self, rules: Rules, points: bool = True, observed: bool = False) -> None:
        self.rules = rules
        self.keeps_points = points
        """Whether ``points`` is kept (a caller that builds no views does without)."""
        self.keeps_columns = observed
        """Whether ``columns`` is kept (a caller that encodes observations)."""
        self.columns: np.ndarray | None = None
        """uint8 [B, W]: ``table_codes`` of each game (seats absolute); None unless
        kept."""
        self.fits: np.ndarray | None = None
        """bool [B, 52, 3]: ``layoff_fits`` of each game, as of the last ``update``."""
        self.points: np.ndarray | None = None
        """int32 [B, P]: ``table_points`` of each game (absolute seats); None unless kept."""
        self.blocked: np.ndarray | None = None
        """bool [B, 52]: ``blocked_cards`` of each game, under rules where a joker may not
        stand for a card on the table (one deck); None under the others."""
        self._keys: np.ndarray | None = None

    def forget(self) -> None:
        """Keep nothing: the next ``update`` works every game out."""
        self._keys = None

    def update(self, state: State) -> None:
        """Bring what is kept up to date with ``state``."""
        keys = table_keys(self.rules, state)
        if self._keys is None or self._keys.shape != keys.shape:
            rows = np.arange(state.batch_size)
            self.fits = layoff_fits(self.rules, state)
            self.columns, self.points = self._columns_and_points(state, None)
            self.blocked = blocked_cards(self.rules, state, rows)  # None if the rules block none
        else:
            # Column by column: any() along the tiny key axis is three times slower.
            changed = keys[:, 0] != self._keys[:, 0]
            for column in range(1, keys.shape[1]):
                changed |= keys[:, column] != self._keys[:, column]
            rows = np.flatnonzero(changed)
            if rows.size:
                self.fits[rows] = layoff_fits(self.rules, state, rows)
                columns, points = self._columns_and_points(state, rows)
                if columns is not None:
                    self.columns[rows] = columns
                if points is not None:
                    self.points[rows] = points
                if self.blocked is not None:
                    self.blocked[rows] = blocked_cards(self.rules, state, rows)
        self._keys = keys

    def _columns_and_points(
        self, state: State, rows: np.ndarray | None
    ) -> tuple[np.ndarray | None, np.ndarray | None]:
        """(``table_codes``, ``table_points``) of the games ``rows`` (None: all), each None
        unless kept; both from one walk over the filled slots when both are kept."""
        if self.keeps_columns and self.keeps_points:
            return table_codes(self.rules, state, rows, points=True)
        every = np.arange(state.batch_size) if rows is None else rows
        points = table_points(self.rules, state, every) if self.keeps_points else None
        return (table_codes(self.rules, state, rows) if self.keeps_columns else None), points

    def select(self, rows: np.ndarray) -> None:
        """Keep only the games ``rows``, in that order (as ``State.select`` does)."""
        if self._keys is not None:
            self.fits, self._keys = self.fits[rows], self._keys[rows]
            if self.keeps_points:
                self.points = self.points[rows]
            if self.keeps_columns:
                self.columns = self.columns[rows]
            if self.blocked is not None:
                self.blocked = self.blocked[rows]
