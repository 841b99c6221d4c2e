"""The commonest steps of one game in plain Python: draws, takes, plain discards,
and melds and lay-offs of natural cards.

``step_inplace`` moves a batch with whole-array operations; for one game each costs
its call overhead. Nearly every step of a game is a draw, a take, a discard that
neither empties the hand nor ends the hand (by the turn limit or the last stock
card) nor may open a rummy-call window, or a meld or lay-off in the play phase of
cards the player holds (no joker) that leaves a card in hand: ``step_one``
applies those to a one-game state with scalar reads and writes, exactly as the
batched functions do (held to them, field by field, by the one-game path tests),
and leaves every other step to them.
"""

from __future__ import annotations

from functools import lru_cache

from ..actions import LAYOFF_DOWN, LAYOFF_SET, ActionLayout
from ..cards import JOKER, N_RANKS
from ..patterns import (
    KIND_SET,
    PATTERN_CARDS,
    PATTERN_CONTAINS,
    PATTERN_KEY,
    PATTERN_KIND,
    PATTERN_START,
)
from ..rules import Rules
from ..state import PHASE_DRAW, PHASE_PLAY, State
from .table import oldest_fit


def step_one(rules: Rules, ids: ActionLayout, state: State, action: int) -> bool:
    """Apply legal ``action`` to game 0 of ``state`` if it is a draw, a take, a plain
    discard or a plain meld or lay-off (module docstring), and say so; otherwise change
    nothing and return False."""
    seat = int(state.current_player[0])
    if action == ids.DRAW:
        _start_play(state, seat)
        top = int(state.stock_size[0]) - 1
        card = int(state.stock[0, top])
        state.stock_size[0] = top
        state.hand[0, seat, card] += 1
        state.hand_size[0, seat] += 1
        state.drew_last[0] = top == 0 and rules.stock_out == "last_draw"
        return True
    if ids.TAKE <= action < ids.MELD:
        depth = action - ids.TAKE + 1
        _start_play(state, seat)
        pile_size = int(state.pile_size[0])
        for card in state.pile[0, pile_size - depth : pile_size].tolist():
            state.hand[0, seat, card] += 1
            state.known[0, seat, card] += 1
            state.taken[0, card] = True
        state.hand_size[0, seat] += depth
        deepest = int(state.pile[0, pile_size - depth])
        state.pile_size[0] = pile_size - depth
        state.owed[0] = deepest if depth >= 2 or rules.top_card_must_meld else -1
        state.no_discard[0] = deepest if depth == 1 else -1
        state.drew_last[0] = False
        return True
    if ids.MELD <= action < ids.LAYOFF:
        return int(state.phase[0]) == PHASE_PLAY and _meld(state, seat, action - ids.MELD)
    if ids.LAYOFF <= action < ids.DISCARD:
        return int(state.phase[0]) == PHASE_PLAY and _layoff(
            rules, state, seat, action - ids.LAYOFF
        )
    if not ids.DISCARD <= action < ids.SWAP or rules.rummy_call:
        return False
    size = int(state.hand_size[0, seat])
    if size <= 1 or state.drew_last[0] or int(state.turn[0]) + 1 >= rules.max_turns:
        return False  # the hand ends: the batched path scores it
    card = action - ids.DISCARD
    _remove(state, seat, card)
    state.hand_size[0, seat] = size - 1
    pile_size = int(state.pile_size[0])
    state.pile[0, pile_size] = card
    state.pile_size[0] = pile_size + 1
    state.turn[0] += 1
    state.current_player[0] = (seat + 1) % rules.players
    state.phase[0] = PHASE_DRAW
    state.owed[0] = state.no_discard[0] = state.call_from[0] = -1
    state.taken[0] = state.call_eligible[0] = False
    state.drew_last[0] = state.started_floating[0] = False
    return True


def _meld(state: State, seat: int, pattern: int) -> bool:
    """Lay meld ``pattern`` from the hand if every card is held and one stays in hand."""
    cards, slots, kind, key, start = _patterns()[pattern]
    hand = state.hand[0, seat]
    size = int(state.hand_size[0, seat]) - len(cards)
    if size <= 0 or not all(hand[card] > 0 for card in cards):
        return False  # a joker stands in, or the hand empties: the batched path
    m = int(state.n_melds[0])
    for card, slot in zip(cards, slots):
        _remove(state, seat, card)
        state.meld_by[0, m, slot] = seat
    state.hand_size[0, seat] = size
    state.meld_kind[0, m], state.meld_key[0, m] = kind, key
    state.meld_start[0, m], state.meld_len[0, m] = start, len(cards)
    state.n_melds[0] = m + 1
    state.melded[0, seat] = True
    owed = int(state.owed[0])
    if owed >= 0 and owed != JOKER and PATTERN_CONTAINS[owed, pattern]:
        state.owed[0] = -1
    return True


def _layoff(rules: Rules, state: State, seat: int, code: int) -> bool:
    """Lay off a held natural card on the oldest meld it fits, if one stays in hand."""
    card, direction = divmod(code, 3)
    size = int(state.hand_size[0, seat]) - 1
    if size <= 0 or state.hand[0, seat, card] == 0:
        return False  # a joker declared as the card, or the hand empties: the batched path
    m = oldest_fit(rules, state, card, direction)
    _remove(state, seat, card)
    state.hand_size[0, seat] = size
    slot = card // N_RANKS if direction == LAYOFF_SET else card % N_RANKS
    state.meld_by[0, m, slot] = seat
    state.meld_joker[0, m, slot] = False
    state.meld_len[0, m] += 1
    if direction == LAYOFF_DOWN:
        state.meld_start[0, m] = (int(state.meld_start[0, m]) - 1) % N_RANKS
    if int(state.owed[0]) == card:
        state.owed[0] = -1
    return True


def _remove(state: State, seat: int, card: int) -> None:
    """One copy of ``card`` out of the seat's hand, a known copy first."""
    state.hand[0, seat, card] -= 1
    state.known[0, seat, card] = max(int(state.known[0, seat, card]) - 1, 0)


@lru_cache(maxsize=1)
def _patterns() -> tuple[tuple[tuple[int, ...], tuple[int, ...], int, int, int], ...]:
    """Each meld pattern's (cards, table slots, kind, key, start) as plain integers (a
    slot is the card's suit in a set, its rank in a run)."""
    rows = []
    for cards, kind, key, start in zip(
        PATTERN_CARDS.tolist(), PATTERN_KIND.tolist(), PATTERN_KEY.tolist(), PATTERN_START.tolist()
    ):
        cards = tuple(card for card in cards if card >= 0)
        slots = tuple(card // N_RANKS if kind == KIND_SET else card % N_RANKS for card in cards)
        rows.append((cards, slots, kind, key, start))
    return tuple(rows)


def _start_play(state: State, seat: int) -> None:
    state.started_floating[0] = state.hand_size[0, seat] == 0
    state.phase[0] = PHASE_PLAY
