"""Rummy 500 as a PettingZoo AEC environment (``rummy_env.env`` / ``rummy_env.raw_env``).

==================  ===========================================================
Import              ``from rummy_env import env`` (wrapped) or ``raw_env``
Agents              ``player_0`` .. ``player_{P-1}`` (P = ``players``, 2..8)
Actions             Discrete(A), A = 955 with one deck (``rummy_env/core/actions.py``)
Observations        ``{"observation": float32 [D], "action_mask": int8 [A]}``
Observation values  see ``rummy_env/core/observation.py`` (``OBS_VERSION``)
Episode             a whole game to the target; ``episode="hand"``: one hand
Rewards             ``win`` (default), ``points``, ``points_diff``
Name / version      ``rummy500_v1``
==================  ===========================================================

Configuration (all keywords): the rules as ``rules=Rules(...)``,
``rules_file="rules.yaml"``, or ``preset="web"`` plus any rule flag
(``players=3, target=250``); ``episode`` (``game`` / ``hand``); ``reward``
(``win`` / ``points`` / ``points_diff``, see ``rummy_env/envs/episode.py``);
``max_cycles``; ``illegal_action`` (``raise`` / ``penalize``); ``render_mode``
(``ansi`` / ``human``).

**Turns.** A turn is several micro-actions (draw or take, melds and lay-offs,
discard); the same agent keeps ``agent_selection`` until it discards or the hand
ends. The agent to act is always the core's ``state.current_player``, never an assumed
turn order (rule variants may let a seat act out of turn).

**Observation.** The observing seat's view, relative to it (seat 0 = me). Only
the agent to act gets a non-zero ``action_mask``: exactly the core's legal mask.
Every other agent's mask is all zero (PettingZoo's convention: it is not to
move), and so is every agent's once the episode is over (it must step
``None``). Observations are computed only for agents that ask (``observe`` /
``last``).

**Info.** ``infos[agent]`` holds, at reset and after every step, the same
numeric keys (``winner``, ``hand_winner``, ``game_winner``, ``totals``,
``hand_scores``, ``hands``, ``length``, ``illegal_action``), documented in
``rummy_env/envs/info.py``; ``winner`` is the seat the ``win`` reward pays (with
``episode="hand"`` the hand's winner), -1 while the episode runs.

**Rewards.** ``win``: +1 to the winner and -1/(P-1) to each other seat when the
game ends, 0 when it is truncated. ``points``: each seat's hand score / 100 at
every hand end. ``points_diff``: own hand score minus the mean of the others',
/ 100, at every hand end.

**Termination and truncation.** Terminated when the game (or, with
``episode="hand"``, the hand) ends; truncated when the core's ``max_hands``
guard stops the game (``state.truncated``), when a single hand hits
``max_turns`` with ``episode="hand"``, or when some agent has taken
``max_cycles`` steps.

**Illegal actions.** By default ``step`` raises ``ValueError`` naming the action
and the legal action texts, and nothing changes. ``illegal_action="penalize"``
ends the game instead: the offender gets -1, the others 0, and
``infos[offender]["illegal_action"]`` holds the action's id (PettingZoo's
classic-game convention). An action that is not an integer id (``2.9``,
``"0"``, ``True``) is a ``ValueError`` either way (``rummy_env/envs/inputs.py``).

**After the episode.** Each agent steps ``None`` once (PettingZoo's dead step)
and leaves ``agents``; a ``step`` after every agent has left is a
``RuntimeError`` asking for ``reset()``.

**Seeding.** ``reset(seed=s)`` makes the game, and every game after it reset
without a seed, a function of ``s`` alone; ``s`` is None or an integer >= 0.

A parallel-API view of the same game is ``rummy_env.parallel_env``
(``rummy_env/envs/parallel.py``).

Version history: v0, first release (observation version 1); v1, the tournament and chips
rule flags and observation version 2 (D = 1051 for two players), fixed numeric ``info`` keys.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv

from rummy_env.core import (
    Games,
    Rules,
    action_layout,
    observation_bounds,
    observation_size,
)

from .checked import CheckedAEC
from .episode import auto_deal, outcome
from .info import hand_info, with_hand_info
from .inputs import action_id, check_seed
from .options import configure
from .render import render_text


class ActionSpace(gymnasium.spaces.Discrete):
    """``Discrete(A)`` that answers ``contains`` for a plain ``int`` with one comparison
    (the bounds-check wrapper asks it at every step); anything else as ``Discrete`` does."""

    def contains(self, x: Any) -> bool:
        if type(x) is int:
            return int(self.start) <= x < int(self.start) + int(self.n)
        return super().contains(x)


def env(**config: Any) -> AECEnv:
    """``raw_env(**config)`` with PettingZoo's standard checks (call order, action bounds),
    in one wrapper (``rummy_env/envs/checked.py``)."""
    return CheckedAEC(raw_env(**config))


class raw_env(AECEnv):  # noqa: N801 - PettingZoo's name for the unwrapped env
    """The unwrapped AEC env; see the module docstring."""

    metadata = {
        "render_modes": ["ansi", "human"],
        "name": "rummy500_v1",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        rules: Rules | None = None,
        *,
        rules_file: str | None = None,
        preset: str | None = None,
        episode: str = "game",
        reward: str = "win",
        max_cycles: int | None = None,
        illegal_action: str = "raise",
        render_mode: str | None = None,
        **rule_flags: Any,
    ) -> None:
        super().__init__()
        configure(
            self,
            rules,
            rules_file,
            preset,
            episode,
            reward,
            illegal_action,
            render_mode,
            **rule_flags,
        )
        if max_cycles is not None and max_cycles < 1:
            raise ValueError(f"max_cycles={max_cycles!r} must be None or an integer >= 1")
        self.max_cycles = max_cycles

        p = self.rules.players
        self._layout = action_layout(self.rules)
        self._n_actions = self._layout.size
        self._auto_deal = auto_deal(self.episode)
        self.possible_agents = [f"player_{i}" for i in range(p)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        low, high = observation_bounds(self.rules)
        obs_space = gymnasium.spaces.Dict(
            {
                "observation": gymnasium.spaces.Box(
                    low, high, (observation_size(self.rules),), np.float32
                ),
                "action_mask": gymnasium.spaces.Box(0, 1, (self._n_actions,), np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: ActionSpace(self._n_actions) for a in self.possible_agents}
        self._rng: np.random.Generator | None = None

    # -- spaces ------------------------------------------------------------------
    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    # -- episode -----------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        seed = check_seed(seed)
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(seed)
        self._games = Games(
            self.rules, 1, int(self._rng.integers(2**63)), auto_deal=self._auto_deal, one_game=True
        )
        self._state = self._games.state
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._rewarded = False
        self._agent_steps = [0] * self.rules.players
        self._game_steps = 0
        self._winner = -1
        self._hand_info: dict[str, Any] | None = None
        self._set_infos()
        self._next_turn()
        if self.render_mode == "human":
            self.render()

    def _next_turn(self) -> None:
        """Legal mask and agent of the new position; observations are made on demand."""
        self._mask = self._games.mask()
        self._mask_i8 = self._mask[0].astype(np.int8)
        self._current_player = int(self._state.current_player[0])
        self._obs_cache: list[np.ndarray | None] = [None] * self.rules.players
        self.agent_selection = self.possible_agents[self._current_player]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        obs = self._obs_cache[seat]
        if obs is None:
            obs = self._games.observe_one(seat)
            self._obs_cache[seat] = obs
        # Only the seat to act has legal actions; a finished episode zeroes _mask_i8.
        if seat == self._current_player:
            mask = self._mask_i8.copy()
        else:
            mask = np.zeros(self._n_actions, np.int8)
        return {"observation": obs, "action_mask": mask}

    def step(self, action: Any) -> None:
        if not self.agents:
            raise RuntimeError("step: the episode is over and every agent has left; call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} must act (it is not done); got None")
        a = action_id(action)
        self._cumulative_rewards[agent] = 0.0
        if self._rewarded:
            self._clear_rewards()
            self._rewarded = False
        if not (0 <= a < self._n_actions and self._mask[0, a]):
            self._illegal(agent, a)
            return

        state = self._state
        self._games.step(np.array([a]))
        seat = self._seat[agent]
        self._agent_steps[seat] += 1
        self._game_steps += 1
        terminated = truncated = False
        if state.hand_ended[0]:
            result = outcome(
                self.rules, state, np.zeros(1, np.int64), self.episode, self.reward, pcr=self.pcr
            )
            for a_name, r in zip(self.possible_agents, result.rewards[0].tolist()):
                self.rewards[a_name] = r
            self._rewarded = True
            terminated, truncated = bool(result.terminated[0]), bool(result.truncated[0])
            self._winner = int(result.winner[0])
        if (
            not (terminated or truncated)
            and self.max_cycles is not None
            and self._agent_steps[seat] >= self.max_cycles
        ):
            truncated = True
        if terminated or truncated:
            self.terminations = dict.fromkeys(self.agents, terminated)
            self.truncations = dict.fromkeys(self.agents, truncated)
            self._end_turns()
        else:
            self._next_turn()
        self._set_infos()
        if self._rewarded:
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _illegal(self, agent: str, action: int) -> None:
        message = self._layout.illegal_message(action, self._mask[0], f" by {agent}")
        if self.illegal_action == "raise":
            raise ValueError(message)
        for a_name in self.agents:
            self.rewards[a_name] = -1.0 if a_name == agent else 0.0
        self._rewarded = True
        self.terminations = dict.fromkeys(self.agents, True)
        self._end_turns()
        self._set_infos()
        self.infos[agent]["illegal_action"] = int(action)
        self._accumulate_rewards()

    def _end_turns(self) -> None:
        """The episode is over: nobody may act, every mask is zero."""
        self._mask = np.zeros_like(self._mask)
        self._mask_i8 = np.zeros(self._n_actions, np.int8)
        self._obs_cache = [None] * self.rules.players

    def _set_infos(self) -> None:
        """Every agent's info now: the fixed numeric keys of ``rummy_env/envs/info.py``. Its
        hand fields change only at a hand's end (``_end_hands``, which sets ``hand_ended``),
        so they are worked out then and at reset."""
        if self._hand_info is None or self._state.hand_ended[0]:
            self._hand_info = hand_info(self._state)
        info = with_hand_info(self._hand_info, winner=self._winner, length=self._game_steps)
        self.infos = {a_name: dict(info) for a_name in self.agents}

    # -- rendering ---------------------------------------------------------------
    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() called without a render_mode (pass render_mode='ansi' or 'human')"
            )
            return None
        text = render_text(self.rules, self._state, 0, self.possible_agents)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
