"""Generalized advantage estimation for a turn-based game with several seats.

In a batch of games each step is taken by one seat, so a seat's trajectory is
its own decisions, interleaved with everyone else's. The rollout records, for
each learner decision (t, b), the step of that seat's next decision in the same
game (``next_step``, -1 when there is none in the rollout), the reward the
seat collected until then and whether its episode ended before it. GAE then
runs backwards over each seat's own chain:

    delta_i = r_i + gamma * (1 - done_i) * V_next(i) - V_i
    A_i     = delta_i + gamma * lambda * (1 - done_i) * A_next(i)

where V_next(i) is the value at the seat's next decision, or the bootstrap
value of its observation at the end of the rollout.
"""

from __future__ import annotations

import numpy as np


def turn_based_gae(
    rewards: np.ndarray,
    values: np.ndarray,
    dones: np.ndarray,
    next_step: np.ndarray,
    bootstrap: np.ndarray,
    learner: np.ndarray,
    gamma: float,
    lam: float,
) -> tuple[np.ndarray, np.ndarray]:
    """(advantages, returns), float32 [T, B], zero where ``learner`` is False.

    rewards, values, bootstrap: float [T, B]; dones, learner: bool [T, B];
    next_step: int [T, B] (a later step of the same game, or -1).
    """
    t_steps, batch = rewards.shape
    advantages = np.zeros((t_steps, batch), np.float32)
    cols = np.arange(batch)
    for t in range(t_steps - 1, -1, -1):
        nxt = next_step[t]
        has_next = nxt >= 0
        safe = np.where(has_next, nxt, 0)
        next_value = np.where(has_next, values[safe, cols], bootstrap[t])
        next_adv = np.where(has_next, advantages[safe, cols], 0.0)
        alive = 1.0 - dones[t].astype(np.float32)
        delta = rewards[t] + gamma * alive * next_value - values[t]
        advantages[t] = np.where(learner[t], delta + gamma * lam * alive * next_adv, 0.0)
    returns = np.where(learner, advantages + values, 0.0).astype(np.float32)
    return advantages, returns
