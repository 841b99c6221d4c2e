"""Rummy 500 in PettingZoo's parallel API (``rummy_env.parallel_env``): the AEC game,
stepped with one dict of actions for every agent.

==================  ===========================================================
Import              ``from rummy_env import parallel_env``
Agents, spaces      those of ``rummy_env.env`` (``rummy_env/envs/aec.py``)
Configuration       the same keywords as ``rummy_env.env``
Passes              ``pettingzoo.test.parallel_api_test``
==================  ===========================================================

**Who acts.** The game stays turn-based: at each step only the agent to play
(``current_agent``, the one whose observation has a non-zero ``action_mask``)
acts. Every other agent gets an all-zero mask and its action is ignored (give
anything, or leave it out). Sampling each agent's action with its mask, as
PettingZoo's tests and AgileRL do, is therefore always legal.

**Rewards, ends, info.** Each step returns every live agent's reward for that
step, and the info keys of ``rummy_env/envs/info.py``. The episode ends for all
agents at once; then ``agents`` is empty.

**Why its own class.** ``pettingzoo.utils.aec_to_parallel`` (and wrappers built
on it) needs every agent to act once per cycle in turn order; here a seat plays
several micro-actions in a row and rummy calls move out of turn, so the AEC
env declares ``is_parallelizable: False`` and this view is the parallel one.
SuperSuit's parallel wrappers (``black_death_v3``) and AgileRL's multi-agent
vector envs take it.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from pettingzoo import ParallelEnv

from .aec import raw_env


def parallel_env(**config: Any) -> RummyParallelEnv:
    """The parallel-API view of ``rummy_env.env(**config)`` (see the module docstring)."""
    return RummyParallelEnv(**config)


class RummyParallelEnv(ParallelEnv):
    """One dict of actions per step; only the agent to play acts (module docstring)."""

    metadata = {**raw_env.metadata, "is_parallelizable": True}

    def __init__(self, **config: Any) -> None:
        self._game = raw_env(**config)
        self.possible_agents = self._game.possible_agents[:]
        self.render_mode = self._game.render_mode
        self.agents: list[str] = []

    @property
    def rules(self):
        """The rules of the game (``rummy_env.core.Rules``)."""
        return self._game.rules

    @property
    def max_cycles(self) -> int | None:
        """Truncate when some agent has taken this many actions (None: never)."""
        return self._game.max_cycles

    @max_cycles.setter
    def max_cycles(self, value: int | None) -> None:
        self._game.max_cycles = value

    @property
    def current_agent(self) -> str:
        """The agent whose action the next ``step`` plays."""
        return self._game.agent_selection

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self._game.observation_space(agent)

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self._game.action_space(agent)

    def reset(
        self, seed: int | None = None, options: dict | None = None
    ) -> tuple[dict[str, Any], dict[str, dict]]:
        self._game.reset(seed=seed, options=options)
        self.agents = self._game.agents[:]
        return self._observations(), self._infos()

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        if not self.agents:
            raise RuntimeError("step: the episode is over; call reset()")
        agent = self._game.agent_selection
        if agent not in actions:
            raise ValueError(f"step: no action for {agent}, the agent to play")
        self._game.step(actions[agent])
        game = self._game
        rewards = {a: float(game.rewards[a]) for a in self.agents}
        terminations = {a: bool(game.terminations[a]) for a in self.agents}
        truncations = {a: bool(game.truncations[a]) for a in self.agents}
        observations, infos = self._observations(), self._infos()
        if any(terminations.values()) or any(truncations.values()):
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        return {a: self._game.observe(a) for a in self.agents}

    def _infos(self) -> dict[str, dict[str, Any]]:
        return {a: dict(self._game.infos[a]) for a in self.agents}

    def render(self) -> str | None:
        return self._game.render()

    def close(self) -> None:
        self._game.close()
