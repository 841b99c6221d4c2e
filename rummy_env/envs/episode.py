"""Episodes and rewards: what ends an episode and what it pays, for every env.

Two episode kinds (``episode=``):

=========  ==================================================================
``game``   a whole game to the target. Terminated when a seat wins;
           truncated when the game stops at ``max_hands`` with no winner
           (``state.truncated``). Hands that hit ``max_turns`` are scored as
           if the stock ran out and the game goes on.
``hand``   hand 0 of a fresh game, played with ``auto_deal=False``. The
           episode ends with the hand: truncated if the hand hit the
           ``max_turns`` guard with nobody going out (docs/rules.md),
           terminated otherwise.
=========  ==================================================================

Four rewards (``reward=``), per seat, paid on the step that causes them:

===============  ============================================================
``win``          at the end of the episode: +1 to the winner, -1/(P-1) to
                 every other seat (zero-sum). In ``hand`` episodes the winner
                 is the seat with the highest hand score, and a tie for it
                 pays 0 to all. A truncated episode pays 0.
``points``       at every hand end: each seat's hand score / 100.
``points_diff``  at every hand end: (own hand score - mean of the other
                 seats' hand scores) / 100 (zero-sum).
``chips``        at the end of the episode: the game's chips
                 (``rummy_env.core.chips``: each seat pays the winner
                 (winner's total - own total) x ``pcr``) / 100 (zero-sum).
                 In ``hand`` episodes the hand scores and the hand's winner
                 settle. A truncated episode, or a tie, pays 0.
===============  ============================================================

Everything is batched: ``outcome`` looks at the games ``rows`` after a core step
and never loops over games.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rummy_env.core import Rules, State, chips

POINTS_SCALE = 100.0


def auto_deal(episode: str) -> bool:
    """Whether the core should deal the next hand itself (``game`` episodes)."""
    return episode == "game"


def hand_truncated(rules: Rules, state: State, rows: np.ndarray) -> np.ndarray:
    """bool [n]: each game's ended hand stopped at ``max_turns`` (needs ``auto_deal=False``)."""
    return (state.turn[rows] >= rules.max_turns) & (state.went_out[rows] < 0)


def top_scorer(scores: np.ndarray) -> np.ndarray:
    """int64 [n]: the seat with the highest of each row of hand ``scores`` [n, P], -1 on a tie
    (the winner of a hand, as ``hand`` episodes pay it)."""
    if scores.shape[0] == 1:  # one game: plain Python
        row = scores[0].tolist()
        best_one = max(row)
        return np.array([row.index(best_one) if row.count(best_one) == 1 else -1], np.int64)
    best = scores.max(axis=1, keepdims=True)
    unique_top = (scores == best).sum(axis=1) == 1
    return np.where(unique_top, scores.argmax(axis=1), -1).astype(np.int64)


@dataclass
class Outcome:
    """What a step did to the games ``rows``: n games, P seats (absolute order)."""

    rewards: np.ndarray  # float32 [n, P]
    terminated: np.ndarray  # bool [n]
    truncated: np.ndarray  # bool [n]
    winner: np.ndarray  # int64 [n]  winning seat of a finished episode, -1 none

    @property
    def done(self) -> np.ndarray:
        return self.terminated | self.truncated


def outcome(
    rules: Rules, state: State, rows: np.ndarray, episode: str, reward: str, pcr: int = 1
) -> Outcome:
    """Rewards and episode ends of the games ``rows`` after a step.

    Call it for the games whose ``state.hand_ended`` is set: every other game
    has zero rewards and goes on. ``pcr`` is the point chip ratio of ``chips``.
    """
    rows = np.asarray(rows, dtype=np.int64)
    p = rules.players
    scores = state.hand_scores[rows].astype(np.float32)
    if episode == "game":
        truncated = state.truncated[rows].copy()
        terminated = state.game_over[rows] & ~truncated
        winner = np.where(terminated, state.winner[rows], -1).astype(np.int64)
    else:
        truncated = hand_truncated(rules, state, rows)
        terminated = ~truncated
        winner = np.where(terminated, top_scorer(scores), -1).astype(np.int64)

    if reward == "win":
        rewards: np.ndarray = np.zeros((rows.size, p), np.float32)
        won = np.flatnonzero(winner >= 0)
        rewards[won] = -1.0 / (p - 1)
        rewards[won, winner[won]] = 1.0
    elif reward == "chips":
        final = state.totals[rows] if episode == "game" else scores
        rewards = chips(final, winner, pcr) / POINTS_SCALE
    elif reward == "points":
        rewards = scores / POINTS_SCALE
    else:
        others_mean = (scores.sum(axis=1, keepdims=True) - scores) / (p - 1)
        rewards = (scores - others_mean) / POINTS_SCALE
    return Outcome(rewards.astype(np.float32), terminated, truncated, winner)
