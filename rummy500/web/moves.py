"""One move of one game, keeping the table of a hand that the move ended.

The engine deals the next hand as soon as one ends; a person wants to see the
last table and its scores first, so the move is also stepped without the deal
and that ended hand is handed back for the page to show.
"""

from __future__ import annotations

import numpy as np

from rummy_env.core import (
    PHASE_GAME_OVER,
    Rules,
    State,
    action_layout,
    legal_mask,
    step,
    step_inplace,
)


class IllegalMove(ValueError):
    """A well-formed move that the rules do not allow now."""


def play_move(rules: Rules, state: State, action: int) -> State | None:
    """Apply ``action`` to the one game of ``state`` in place (next hand dealt when one ends).

    Returns the game as it stood when the hand ended (before the next deal) if
    this move ended a hand, else None. Raises ``IllegalMove`` and changes
    nothing when the action is not legal.
    """
    mask = legal_mask(rules, state)
    ids = action_layout(rules)
    if not 0 <= action < ids.size or not mask[0, action]:
        raise IllegalMove(ids.illegal_message(action, mask[0]))
    actions = np.array([action])
    ended = step(rules, state, actions, auto_deal=False, mask=mask)
    if not ended.hand_ended[0]:
        state.assign(slice(None), ended)
        return None
    if ended.phase[0] == PHASE_GAME_OVER:
        state.assign(slice(None), ended)
    else:
        step_inplace(rules, state, actions, mask=mask)
    return ended
