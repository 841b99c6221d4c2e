"""The ``info`` of the single-game envs (AEC, parallel, Gymnasium): fixed numeric keys.

Every step's (and every reset's) info holds the same keys with the same types,
numbers and arrays only, so trainers that store info in replay buffers
(Tianshou, TorchRL) can batch it. Seats are absolute (``player_i`` is seat i).

==================  ===========  ===================================================
``winner``          int          the episode's winner, the seat the ``win`` reward
                                 pays: the game's winner (``episode="game"``) or
                                 the hand's (``"hand"``); -1 while the episode
                                 runs, after a truncation, or on a tied hand
``hand_winner``     int          top scorer of the last finished hand, -1 before
                                 any hand ended or on a tie
``game_winner``     int          the seat that won the game, -1 until one has
``totals``          int64 [P]    the game's running totals
``hand_scores``     int64 [P]    each seat's score in the last finished hand
``hands``           int          hands dealt in this game so far (1 in the first)
``length``          int          agent-steps (micro-actions) in this episode
``illegal_action``  int          with ``illegal_action="penalize"``: the refused
                                 action id in the offender's info; -1 otherwise
==================  ===========  ===================================================

The arrays are read-only: the AEC env shares them between the steps of a hand.
``rummy_env.core.action_layout(rules).text(i)`` gives the text of action id i.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rummy_env.core import State

from .episode import top_scorer

INFO_KEYS = (
    "winner",
    "hand_winner",
    "game_winner",
    "totals",
    "hand_scores",
    "hands",
    "length",
    "illegal_action",
)
"""The keys of every info dict of the single-game envs, in this order."""


def game_info(
    state: State, *, winner: int, length: int, illegal_action: int = -1
) -> dict[str, Any]:
    """The info of game 0 of ``state`` (a one-game batch) for the keys of ``INFO_KEYS``.

    Before any hand ended the hand scores are all zero, a tie: ``hand_winner`` is -1.
    """
    return with_hand_info(
        hand_info(state), winner=winner, length=length, illegal_action=illegal_action
    )


def hand_info(state: State) -> dict[str, Any]:
    """The keys of ``game_info`` that change only when a hand ends (``hand_winner``,
    ``game_winner``, ``totals``, ``hand_scores``) or the next is dealt (``hands``), for an
    env to keep between those steps; its arrays are read-only, as they are shared."""
    hand_scores = state.hand_scores[0].astype(np.int64)
    totals = state.totals[0].astype(np.int64)
    for array in (hand_scores, totals):
        array.setflags(write=False)
    return {
        "hand_winner": int(top_scorer(hand_scores[None])[0]),
        "game_winner": int(state.winner[0]),
        "totals": totals,
        "hand_scores": hand_scores,
        "hands": int(state.hand_number[0]) + 1,
    }


def with_hand_info(
    hand: dict[str, Any], *, winner: int, length: int, illegal_action: int = -1
) -> dict[str, Any]:
    """``game_info`` from its kept ``hand_info`` and this step's numbers (keys in order)."""
    return {
        "winner": int(winner),
        **hand,
        "length": int(length),
        "illegal_action": int(illegal_action),
    }
