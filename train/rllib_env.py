"""What an RLlib env runner steps: many games at once on the batched engine.

``LeagueVectorEnv`` is a ``gymnasium.vector.VectorEnv`` of B games. In each the
learner holds one seat (drawn per game) and a league member the others, all
games stepped together and each member acting, batched, on its own games, as
the built-in trainer seats its games. Games are given to members in fixed
blocks of rows, in proportion to each member's share:

* ``self``: a frozen copy of the learner, refreshed by the trainer
  (``set_snapshot``) every few iterations: self-play at numpy speed;
* any agent name of the registry (``random``, ``casual``, ``sharp``,
  ``champion@1``, ``py:...``), played through the agent protocol.

An observation is the seat's observation followed by its legal-action mask
(0/1), one flat float32 row: RLlib splits a batch into rows per game at every
step, and a flat row is far cheaper to split than a dict. A finished game's
row is dealt afresh on the next step (next-step autoreset, what RLlib's env
runners expect). ``moves`` counts every seat's decisions, the learner's and the
members', so that speeds compare with the built-in trainer's agent-steps.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import torch

from rummy500.agents.registry import make_agent
from rummy500.agents.torch_policy import MLPPolicy, TorchAgent
from rummy_env.core import Rules, State
from rummy_env.envs.opponents import as_policy
from rummy_env.envs.vector import RummySingleAgentVectorEnv

SELF = "self"
"""The member that is a frozen copy of the learner."""


def block_sizes(shares: dict[str, float], num_envs: int) -> dict[str, int]:
    """Games per member: ``num_envs`` split by ``shares`` (largest remainders), every member
    with a positive share getting at least one game; ValueError when there are too few."""
    members = {name: float(share) for name, share in shares.items() if share > 0}
    if not members:
        raise ValueError("opponents: give at least one member a positive share")
    if num_envs < len(members):
        raise ValueError(f"num_envs_per_env_runner={num_envs} is fewer than the "
                         f"{len(members)} opponents with a share; each needs a game")
    total = sum(members.values())
    exact = {name: share / total * num_envs for name, share in members.items()}
    sizes = {name: max(1, int(value)) for name, value in exact.items()}
    by_remainder = sorted(members, key=lambda name: exact[name] - sizes[name], reverse=True)
    for k in range(num_envs - sum(sizes.values())):
        sizes[by_remainder[k % len(by_remainder)]] += 1
    while sum(sizes.values()) > num_envs:  # the minimum of one game overdrew
        sizes[max(sizes, key=sizes.get)] -= 1
    return sizes


class LeagueVectorEnv(RummySingleAgentVectorEnv):
    """B games against league members, a block of rows each (see the module docstring)."""

    def __init__(self, num_envs: int, rules: Rules, *, opponents: dict[str, float],
                 reward: str = "points_diff", hidden: tuple[int, ...] = (256, 128),
                 seed: int = 0) -> None:
        super().__init__(num_envs, rules, seat="random", reward=reward, autoreset="next_step",
                         seed=seed)
        self.observation_size = int(self.single_observation_space.shape[0])
        self._snapshot: MLPPolicy | None = None
        sizes = block_sizes(opponents, num_envs)
        self.members = [as_policy(self._member(name, hidden, seed + k))
                        for k, name in enumerate(sizes)]
        self.member_of_game = np.repeat(np.arange(len(sizes)), list(sizes.values()))
        n_actions = int(self.single_action_space.n)
        seat_view = self.single_observation_space
        self.single_observation_space = gym.spaces.Box(
            np.concatenate([seat_view.low, np.zeros(n_actions, np.float32)]),
            np.concatenate([seat_view.high, np.ones(n_actions, np.float32)]), dtype=np.float32)
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space,
                                                              num_envs)

    def _member(self, name: str, hidden: tuple[int, ...], seed: int) -> Any:
        if name != SELF:
            return make_agent(name, self.rules, seed=seed)
        if self._snapshot is None:
            self._snapshot = MLPPolicy(self.observation_size, int(self.single_action_space.n),
                                       tuple(hidden)).eval()
        return TorchAgent(self._snapshot, self.rules, SELF, seed=seed)

    def set_snapshot(self, weights: dict[str, torch.Tensor]) -> None:
        """Load the learner's current weights into the ``self`` member (no-op without one)."""
        if self._snapshot is not None:
            self._snapshot.load_state_dict(weights)

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        obs, info = super().reset(seed=seed, options=options)
        return self._with_mask(obs, info), {}

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                 np.ndarray, dict]:
        obs, rewards, terminated, truncated, info = super().step(actions)
        return self._with_mask(obs, info), rewards, terminated, truncated, {}

    @staticmethod
    def _with_mask(obs: np.ndarray, info: dict[str, Any]) -> np.ndarray:
        return np.concatenate([obs, info["action_mask"]], axis=1, dtype=np.float32)

    def _opponent_actions(self, rows: np.ndarray, sub: State, mask: np.ndarray) -> np.ndarray:
        member = self.member_of_game[rows]
        if (member == member[0]).all():
            return self.members[member[0]](self.rules, sub, mask)
        actions = np.zeros(rows.size, np.int64)
        for k in np.unique(member):
            group = np.flatnonzero(member == k)
            actions[group] = self.members[k](self.rules, sub.select(group), mask[group])
        return actions
