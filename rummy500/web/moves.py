"""One move of one game, keeping the table of a hand that the move ended.

The engine deals the next hand as soon as one ends; a person wants to see the
last table and its scores first, so the move is also stepped without the deal
and that ended hand is handed back for the page to show.
"""

from __future__ import annotations

import numpy as np

from rummy_env.core import Games, State, action_layout, step


class IllegalMove(ValueError):
    """A well-formed move that the rules do not allow now."""


def play_move(game: Games, action: int) -> State | None:
    """Apply ``action`` to the one game ``game`` (next hand dealt when one ends).

    Returns the game as it stood when the hand ended (before the next deal) if
    this move ended a hand, else None. Raises ``IllegalMove`` and changes
    nothing when the action is not legal.
    """
    mask = game.mask()
    ids = action_layout(game.rules)
    if not 0 <= action < ids.size or not mask[0, action]:
        raise IllegalMove(ids.illegal_message(action, mask[0]))
    actions = np.array([action])
    ended = step(game.rules, game.state, actions, auto_deal=False, mask=mask)
    game.step(actions)  # the same move, the next hand dealt if it ended one
    return ended if ended.hand_ended[0] else None
