"""What one seat may see of a game: the structured public view.

``player_view(rules, state, seats)`` cuts from the full state exactly what the
given seat of each game may know, with every per-seat array rotated so that
index 0 is that seat, 1 the next seat to its left, and so on. Heuristic agents
read it, and the flat observation vector is encoded from it, so nothing hidden
(other hands' unknown cards, the stock's order) can leak into either.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .rules import Rules
from .scoring import table_points
from .state import State


@dataclass
class PlayerView:
    """One seat's view of n games. Per-seat arrays are relative: index 0 = me.

    Shapes: n games, P seats, N deck cards, M table melds.
    """

    seat: np.ndarray        # int8 [n]        my absolute seat
    hand: np.ndarray        # int8 [n,53]     my cards (copies per id)
    hand_sizes: np.ndarray  # int16 [n,P]     cards in each hand
    known: np.ndarray       # int8 [n,P,53]   cards each seat is known to hold (taken from the pile)
    pile: np.ndarray        # int16 [n,N]     discard pile, oldest first
    pile_size: np.ndarray   # int16 [n]
    stock_size: np.ndarray  # int16 [n]
    meld_kind: np.ndarray   # int8 [n,M]      0 empty, 1 set, 2 run
    meld_key: np.ndarray    # int8 [n,M]      rank of a set, suit of a run
    meld_start: np.ndarray  # int8 [n,M]      first rank of a run
    meld_len: np.ndarray    # int8 [n,M]
    meld_by: np.ndarray     # int8 [n,M,13]   relative seat that laid each slot, -1 empty
    meld_joker: np.ndarray  # bool [n,M,13]
    n_melds: np.ndarray     # int16 [n]
    table_points: np.ndarray  # int32 [n,P]   points each seat has on the table this hand
    totals: np.ndarray      # int32 [n,P]     running totals
    melded: np.ndarray      # bool [n,P]      seat has melded this hand
    phase: np.ndarray       # int8 [n]
    current_player: np.ndarray  # int8 [n]        relative seat to act (0 = me)
    dealer: np.ndarray      # int8 [n]        relative seat of the dealer
    owed: np.ndarray        # int16 [n]       card the next meld/lay-off must contain, -1
    no_discard: np.ndarray  # int16 [n]       card that may not be discarded, -1
    taken: np.ndarray       # bool [n,53]     cards taken from the pile this turn (public)
    turn: np.ndarray        # int16 [n]
    hand_number: np.ndarray  # int16 [n]

    @property
    def size(self) -> int:
        return self.seat.shape[0]


def relative_order(players: int, seats: np.ndarray) -> np.ndarray:
    """int64 [n, P]: absolute seat at each relative position (0 = the seat itself)."""
    return (seats.astype(np.int64)[:, None] + np.arange(players)[None, :]) % players


def player_view(rules: Rules, state: State, seats: np.ndarray | None = None,
                rows: np.ndarray | None = None) -> PlayerView:
    """The view of ``seats[i]`` in game ``rows[i]`` (defaults: every game, the seat to play)."""
    if rows is None:
        rows = np.arange(state.batch_size)
    rows = np.asarray(rows, dtype=np.int64)
    seats = state.current_player[rows] if seats is None else np.asarray(seats)
    p = rules.players
    order = relative_order(p, seats)
    r = rows[:, None]
    # Only the melds some game of the batch uses need their owners turned relative.
    used = int(state.n_melds[rows].max(initial=0))
    rel_by = np.full(state.meld_by.shape[1:], -1, np.int8)[None].repeat(rows.size, axis=0)
    by = state.meld_by[rows, :used].astype(np.int16)
    rel_by[:, :used] = np.where(by >= 0, (by - seats.astype(np.int16)[:, None, None]) % p, -1)
    return PlayerView(
        seat=seats.astype(np.int8),
        hand=state.hand[rows, seats],
        hand_sizes=state.hand_size[r, order],
        known=state.known[r, order],
        pile=state.pile[rows],
        pile_size=state.pile_size[rows],
        stock_size=state.stock_size[rows],
        meld_kind=state.meld_kind[rows],
        meld_key=state.meld_key[rows],
        meld_start=state.meld_start[rows],
        meld_len=state.meld_len[rows],
        meld_by=rel_by,
        meld_joker=state.meld_joker[rows],
        n_melds=state.n_melds[rows],
        table_points=table_points(rules, state, rows)[np.arange(rows.size)[:, None], order],
        totals=state.totals[r, order],
        melded=state.melded[r, order],
        phase=state.phase[rows],
        current_player=((state.current_player[rows] - seats) % p).astype(np.int8),
        dealer=((state.dealer[rows] - seats) % p).astype(np.int8),
        owed=state.owed[rows],
        no_discard=state.no_discard[rows],
        taken=state.taken[rows],
        turn=state.turn[rows],
        hand_number=state.hand_number[rows],
    )
