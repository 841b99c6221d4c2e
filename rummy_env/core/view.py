"""What one seat may see of a game: the structured public view.

``player_view(rules, state, seats)`` cuts from the full state exactly what the
given seat of each game may know, with every per-seat array rotated so that
index 0 is that seat, 1 the next seat to its left, and so on. Heuristic agents
read it, and the flat observation vector is encoded from it, so nothing hidden
(other hands' unknown cards, the stock's order) can leak into either.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .rules import Rules
from .scoring import table_points
from .state import State


@dataclass
class PlayerView:
    """One seat's view of n games. Per-seat arrays are relative: index 0 = me.

    Shapes: n games, P seats, N deck cards, M table melds.
    """

    seat: np.ndarray  # int8 [n]        my absolute seat
    hand: np.ndarray  # int8 [n,53]     my cards (copies per id)
    hand_sizes: np.ndarray  # int16 [n,P]     cards in each hand
    known: np.ndarray  # int8 [n,P,53]   cards each seat is known to hold (taken from the pile)
    pile: np.ndarray  # int16 [n,N]     discard pile, oldest first
    pile_size: np.ndarray  # int16 [n]
    stock_size: np.ndarray  # int16 [n]
    meld_kind: np.ndarray  # int8 [n,M]      0 empty, 1 set, 2 run
    meld_key: np.ndarray  # int8 [n,M]      rank of a set, suit of a run
    meld_start: np.ndarray  # int8 [n,M]      first rank of a run
    meld_len: np.ndarray  # int8 [n,M]
    meld_by: np.ndarray | None  # int8 [n,M,13] relative seat that laid each slot, -1 empty
    #                         (None from ``player_view(owners=False)``)
    meld_joker: np.ndarray  # bool [n,M,13]
    n_melds: np.ndarray  # int16 [n]
    table_points: np.ndarray  # int32 [n,P]   points each seat has on the table this hand
    totals: np.ndarray  # int32 [n,P]     running totals
    melded: np.ndarray  # bool [n,P]      seat has melded this hand
    phase: np.ndarray  # int8 [n]
    current_player: np.ndarray  # int8 [n]        relative seat to act (0 = me)
    dealer: np.ndarray  # int8 [n]        relative seat of the dealer
    owed: np.ndarray  # int16 [n]       card the next meld/lay-off must contain, -1
    no_discard: np.ndarray  # int16 [n]       card that may not be discarded, -1
    taken: np.ndarray  # bool [n,53]     cards taken from the pile this turn (public)
    turn: np.ndarray  # int16 [n]
    hand_number: np.ndarray  # int16 [n]

    @property
    def size(self) -> int:
        return self.seat.shape[0]

    def laid_by(self) -> np.ndarray:
        """``meld_by``; a ValueError for a view made with ``owners=False``, which has none."""
        if self.meld_by is None:
            raise ValueError(
                "this PlayerView was made with owners=False: it does not say who laid each meld"
            )
        return self.meld_by


def relative_order(players: int, seats: np.ndarray) -> np.ndarray:
    """int64 [n, P]: absolute seat at each relative position (0 = the seat itself)."""
    return _orders(players)[seats]


@lru_cache(maxsize=16)
def _orders(players: int) -> np.ndarray:
    """int64 [P, P]: ``relative_order`` of each seat, looked up instead of worked out."""
    seat = np.arange(players)
    table = (seat[:, None] + seat[None, :]) % players
    table.setflags(write=False)
    return table


@lru_cache(maxsize=16)
def _relative_owner(players: int) -> np.ndarray:
    """int8 [P, P + 1]: [s, b + 1] is absolute seat b seen from seat s, -1 for b = -1
    (an empty slot): one lookup turns a table's owners relative."""
    seat = np.arange(players)[:, None]
    owner = np.arange(-1, players)[None, :]
    table = np.where(owner >= 0, (owner - seat) % players, -1).astype(np.int8)
    table.setflags(write=False)
    return table


def _relative_owners(state: State, rows: np.ndarray, seats: np.ndarray, p: int) -> np.ndarray:
    """int8 [n, M, 13]: who laid each table slot of games ``rows``, relative to ``seats``."""
    # Only the melds some game of the batch uses need their owners turned relative.
    used = int(state.n_melds[rows].max(initial=0))
    rel_by = np.full((rows.size,) + state.meld_by.shape[1:], -1, np.int8)
    if used:
        by = state.meld_by[rows, :used].reshape(rows.size, -1)  # 2-D: broadcasts fast
        rel_by[:, :used] = _turned(by, seats.astype(np.int8), p).reshape(rows.size, used, -1)
    return rel_by


def _turned(by: np.ndarray, seats: np.ndarray, p: int) -> np.ndarray:
    """int8 [n, k]: owners ``by`` (absolute seats, -1 none) relative to ``seats`` [n],
    (b - s) mod p, by int8 arithmetic alone, cheaper than a gather by owner or np.where
    and % on int8."""
    turned = by - seats[:, None]
    turned += (turned < 0).view(np.int8) * np.int8(p)
    turned += np.int8(1)
    turned *= (by >= 0).view(np.int8)  # none: 0, then -1 below
    turned -= np.int8(1)
    return turned


def player_view(
    rules: Rules,
    state: State,
    seats: np.ndarray | None = None,
    rows: np.ndarray | None = None,
    *,
    share: bool = False,
    points: np.ndarray | None = None,
    owners: bool = True,
) -> PlayerView:
    """The view of ``seats[i]`` in game ``rows[i]`` (defaults: every game, the seat to play).

    ``share`` (with ``rows`` None): the per-game arrays that need no turning are the
    state's own, not copies, for a caller that reads the view before the state
    changes (``observation.observe``). ``points``: ``table_points`` of every game of
    the batch [B, P] when the caller keeps it (``TableCache``). ``owners`` False: no
    ``meld_by`` (None), for an encoder given the table's kept columns.
    """
    whole = rows is None and share
    rows = np.arange(state.batch_size) if rows is None else np.asarray(rows, dtype=np.int64)

    def pick(a: np.ndarray) -> np.ndarray:
        """The games ``rows`` of a per-game array (itself, when shared whole)."""
        return a if whole else a[rows]

    seats = state.current_player[rows] if seats is None else np.asarray(seats)
    p = rules.players
    order = relative_order(p, seats)
    r = rows[:, None]
    relative = _relative_owner(p)
    rel_by = _relative_owners(state, rows, seats, p) if owners else None
    return PlayerView(
        seat=seats.astype(np.int8),
        hand=state.hand[rows, seats],
        hand_sizes=state.hand_size[r, order],
        known=state.known[r, order],
        pile=pick(state.pile),
        pile_size=pick(state.pile_size),
        stock_size=pick(state.stock_size),
        meld_kind=pick(state.meld_kind),
        meld_key=pick(state.meld_key),
        meld_start=pick(state.meld_start),
        meld_len=pick(state.meld_len),
        meld_by=rel_by,
        meld_joker=pick(state.meld_joker),
        n_melds=pick(state.n_melds),
        table_points=(table_points(rules, state, rows) if points is None else points[rows])[
            np.arange(rows.size)[:, None], order
        ],
        totals=state.totals[r, order],
        melded=state.melded[r, order],
        phase=pick(state.phase),
        current_player=relative[seats, pick(state.current_player) + 1],
        dealer=relative[seats, pick(state.dealer) + 1],
        owed=pick(state.owed),
        no_discard=pick(state.no_discard),
        taken=pick(state.taken),
        turn=pick(state.turn),
        hand_number=pick(state.hand_number),
    )
