"""The batched game state: a struct of numpy arrays, batch first.

Every field has the batch of B games as its leading dimension; P is the number of
seats, N the number of cards in the deck(s), M the most melds a table can hold.

    field          dtype   shape      meaning
    hand           int8    [B,P,53]   copies of each card id in each seat's hand
    hand_size      int16   [B,P]      cards in each hand (sum of ``hand``)
    known          int8    [B,P,53]   copies each seat is publicly known to hold
                                      (taken from the pile, not yet played)
    stock          int16   [B,N]      stock cards, bottom first; top = stock[stock_size-1]
    stock_size     int16   [B]
    pile           int16   [B,N]      discard pile, oldest first; top = pile[pile_size-1]
    pile_size      int16   [B]
    meld_kind      int8    [B,M]      0 empty, 1 set, 2 run (table order = meld index)
    meld_key       int8    [B,M]      rank of a set, suit of a run
    meld_start     int8    [B,M]      first rank of a run (ranks go (start+i) % 13)
    meld_len       int8    [B,M]      cards in the meld
    meld_by        int8    [B,M,13]   seat that laid each slot's card, -1 if empty;
                                      slot = suit for a set, rank for a run
    meld_joker     bool    [B,M,13]   the slot holds a joker declared as that card
    n_melds        int16   [B]
    phase          int8    [B]        PHASE_* below
    current_player int8    [B]        the seat that must act now (out of turn in a call window)
    owed           int16   [B]        card the next meld/lay-off must contain, -1 none
    no_discard     int16   [B]        card that may not be discarded this turn, -1 none
    taken          bool    [B,53]     card ids taken from the pile this turn (``keep_taken``)
    drew_last      bool    [B]        this turn's draw emptied the stock (``last_draw``)
    started_floating bool  [B]        the seat to play began this turn with an empty hand
    call_from      int8    [B]        discarder whose discard opened the call window, -1
    call_eligible  bool    [B,P]      seats that may call in the open window
    melded         bool    [B,P]      seat has melded this hand (``layoff_requires_meld``)
    turn           int16   [B]        finished turns this hand
    hand_number    int16   [B]        hands finished before this one
    dealer         int8    [B]
    totals         int32   [B,P]      running totals
    hand_scores    int32   [B,P]      scores of the last finished hand
    hand_ended     bool    [B]        a hand ended during the last step (an event flag)
    went_out       int8    [B]        seat that emptied its hand in the last hand, -1 none
    winner         int8    [B]        -1 until the game is won
    game_over      bool    [B]
    truncated      bool    [B]        the game stopped at ``max_hands`` (no winner)
    key            uint64  [B]        per-game deal key (deal.game_keys)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from .cards import N_CARD_IDS, N_RANKS
from .rules import Rules

PHASE_DRAW, PHASE_PLAY, PHASE_HAND_OVER, PHASE_GAME_OVER, PHASE_CALL, PHASE_CALL_PLAY = range(6)
PHASE_NAMES = ("draw", "play", "hand_over", "game_over", "call", "call_play")


def max_melds(rules: Rules) -> int:
    """Upper bound on the melds one table can hold (every meld has >= 3 cards)."""
    return rules.deck_cards // 3


@dataclass
class State:
    """A batch of games. See the module docstring for every field."""

    hand: np.ndarray
    hand_size: np.ndarray
    known: np.ndarray
    stock: np.ndarray
    stock_size: np.ndarray
    pile: np.ndarray
    pile_size: np.ndarray
    meld_kind: np.ndarray
    meld_key: np.ndarray
    meld_start: np.ndarray
    meld_len: np.ndarray
    meld_by: np.ndarray
    meld_joker: np.ndarray
    n_melds: np.ndarray
    phase: np.ndarray
    current_player: np.ndarray
    owed: np.ndarray
    no_discard: np.ndarray
    taken: np.ndarray
    drew_last: np.ndarray
    started_floating: np.ndarray
    call_from: np.ndarray
    call_eligible: np.ndarray
    melded: np.ndarray
    turn: np.ndarray
    hand_number: np.ndarray
    dealer: np.ndarray
    totals: np.ndarray
    hand_scores: np.ndarray
    hand_ended: np.ndarray
    went_out: np.ndarray
    winner: np.ndarray
    game_over: np.ndarray
    truncated: np.ndarray
    key: np.ndarray

    @property
    def batch_size(self) -> int:
        return self.phase.shape[0]

    def copy(self) -> State:
        return State(**{f.name: getattr(self, f.name).copy() for f in dataclasses.fields(self)})

    def select(self, index) -> State:
        """The games at ``index`` (an int array or slice) as a new State."""
        return State(
            **{f.name: getattr(self, f.name)[index].copy() for f in dataclasses.fields(self)}
        )

    def assign(self, index, other: State) -> None:
        """Overwrite the games at ``index`` with the games of ``other`` (in place)."""
        for f in dataclasses.fields(self):
            getattr(self, f.name)[index] = getattr(other, f.name)


def empty_state(rules: Rules, batch_size: int) -> State:
    """A zeroed batch with the right shapes and dtypes (no cards anywhere)."""
    b, p, n, m = batch_size, rules.players, rules.deck_cards, max_melds(rules)
    return State(
        hand=np.zeros((b, p, N_CARD_IDS), np.int8),
        hand_size=np.zeros((b, p), np.int16),
        known=np.zeros((b, p, N_CARD_IDS), np.int8),
        stock=np.zeros((b, n), np.int16),
        stock_size=np.zeros(b, np.int16),
        pile=np.zeros((b, n), np.int16),
        pile_size=np.zeros(b, np.int16),
        meld_kind=np.zeros((b, m), np.int8),
        meld_key=np.zeros((b, m), np.int8),
        meld_start=np.zeros((b, m), np.int8),
        meld_len=np.zeros((b, m), np.int8),
        meld_by=np.full((b, m, N_RANKS), -1, np.int8),
        meld_joker=np.zeros((b, m, N_RANKS), bool),
        n_melds=np.zeros(b, np.int16),
        phase=np.zeros(b, np.int8),
        current_player=np.zeros(b, np.int8),
        owed=np.full(b, -1, np.int16),
        no_discard=np.full(b, -1, np.int16),
        taken=np.zeros((b, N_CARD_IDS), bool),
        drew_last=np.zeros(b, bool),
        started_floating=np.zeros(b, bool),
        call_from=np.full(b, -1, np.int8),
        call_eligible=np.zeros((b, p), bool),
        melded=np.zeros((b, p), bool),
        turn=np.zeros(b, np.int16),
        hand_number=np.zeros(b, np.int16),
        dealer=np.zeros(b, np.int8),
        totals=np.zeros((b, p), np.int32),
        hand_scores=np.zeros((b, p), np.int32),
        hand_ended=np.zeros(b, bool),
        went_out=np.full(b, -1, np.int8),
        winner=np.full(b, -1, np.int8),
        game_over=np.zeros(b, bool),
        truncated=np.zeros(b, bool),
        key=np.zeros(b, np.uint64),
    )
