"""The commonest steps of one game in plain Python: draws, takes and plain discards.

``step_inplace`` moves a batch with whole-array operations; for one game each costs
its call overhead. Four steps in five of a game are a draw, a take or a discard
that neither empties the hand nor ends the hand (by the turn limit or the last
stock card) nor may open a rummy-call window: ``step_one`` applies those to a
one-game state with scalar reads and writes, exactly as the batched functions do
(held to them by the one-game path tests), and leaves every other step to them.
"""

from __future__ import annotations

from .actions import ActionLayout
from .rules import Rules
from .state import PHASE_DRAW, PHASE_PLAY, State


def step_one(rules: Rules, ids: ActionLayout, state: State, action: int) -> bool:
    """Apply legal ``action`` to game 0 of ``state`` if it is a draw, a take or a plain
    discard, and say so; otherwise change nothing and return False."""
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
        for card in state.pile[0, pile_size - depth: pile_size].tolist():
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
    if not ids.DISCARD <= action < ids.SWAP or rules.rummy_call:
        return False
    size = int(state.hand_size[0, seat])
    if size <= 1 or state.drew_last[0] or int(state.turn[0]) + 1 >= rules.max_turns:
        return False  # the hand ends: the batched path scores it
    card = action - ids.DISCARD
    state.hand[0, seat, card] -= 1
    state.known[0, seat, card] = max(int(state.known[0, seat, card]) - 1, 0)
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


def _start_play(state: State, seat: int) -> None:
    state.started_floating[0] = state.hand_size[0, seat] == 0
    state.phase[0] = PHASE_PLAY
