"""What an RLlib env runner steps: many games at once on the batched engine.

``LeagueVectorEnv`` is a ``gymnasium.vector.VectorEnv`` of B games. In each the
learner holds one seat (drawn per game) and a league member the others, all
games stepped together and each member acting, batched, on its own games, as
the built-in trainer seats its games. The league is the built-in trainer's
(``self_play`` and ``opponents``, train/league.py), its games given to members
in fixed blocks of rows (``fixed_tables``):

* ``SELF``: a frozen copy of the learner, refreshed by the trainer
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

from .league import SELF, fixed_tables


class LeagueVectorEnv(RummySingleAgentVectorEnv):
    """B games against league members, a block of rows each (see the module docstring)."""

    def __init__(
        self,
        num_envs: int,
        rules: Rules,
        *,
        self_play: float,
        opponents: list[str],
        reward: str = "points_diff",
        hidden: tuple[int, ...] = (256, 128),
        seed: int = 0,
    ) -> None:
        super().__init__(
            num_envs, rules, seat="random", reward=reward, autoreset="next_step", seed=seed
        )
        self.observation_size = int(self.single_observation_space.shape[0])
        self._snapshot: MLPPolicy | None = None
        self.member_of_game = fixed_tables(self_play, len(opponents), num_envs)
        """int [B]: SELF or the index in ``opponents`` of the member holding each game."""
        self.members = {
            k: as_policy(self._member(opponents, k, hidden, seed + 1 + k))
            for k in np.unique(self.member_of_game).tolist()
        }
        n_actions = int(self.single_action_space.n)
        seat_view = self.single_observation_space
        self.single_observation_space = gym.spaces.Box(
            np.concatenate([seat_view.low, np.zeros(n_actions, np.float32)]),
            np.concatenate([seat_view.high, np.ones(n_actions, np.float32)]),
            dtype=np.float32,
        )
        self.observation_space = gym.vector.utils.batch_space(
            self.single_observation_space, num_envs
        )

    def _member(self, opponents: list[str], k: int, hidden: tuple[int, ...], seed: int) -> Any:
        if k != SELF:
            return make_agent(opponents[k], self.rules, seed=seed)
        self._snapshot = MLPPolicy(
            self.observation_size, int(self.single_action_space.n), tuple(hidden)
        ).eval()
        return TorchAgent(self._snapshot, self.rules, "self", seed=seed)

    def set_snapshot(self, weights: dict[str, torch.Tensor]) -> None:
        """Load the learner's current weights into the SELF member (no-op without one)."""
        if self._snapshot is not None:
            self._snapshot.load_state_dict(weights)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict]:
        obs, info = super().reset(seed=seed, options=options)
        return self._with_mask(obs, info), {}

    def step(
        self, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        obs, rewards, terminated, truncated, info = super().step(actions)
        return self._with_mask(obs, info), rewards, terminated, truncated, {}

    @staticmethod
    def _with_mask(obs: np.ndarray, info: dict[str, Any]) -> np.ndarray:
        return np.concatenate([obs, info["action_mask"]], axis=1, dtype=np.float32)

    def _opponent_actions(self, rows: np.ndarray, sub: State, mask: np.ndarray) -> np.ndarray:
        member = self.member_of_game[rows]
        if (member == member[0]).all():
            return self.members[int(member[0])](self.rules, sub, mask)
        actions = np.zeros(rows.size, np.int64)
        for k in np.unique(member).tolist():
            group = np.flatnonzero(member == k)
            actions[group] = self.members[k](self.rules, sub.select(group), mask[group])
        return actions
