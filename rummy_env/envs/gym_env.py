"""Rummy 500 as a single-agent Gymnasium env: one learning seat against fixed opponents.

==================  ===========================================================
Ids                 ``Rummy500-v1`` (a game to the target),
                    ``Rummy500Hand-v1`` (one hand); ``gymnasium.make(id, **config)``
Class               ``rummy_env.envs.gym_env.RummyGymEnv``
Actions             Discrete(A), A = 955 with one deck
Observations        float32 [D], the learning seat's view (``observation.py``)
Action mask         ``env.action_masks()`` (bool [A], sb3-contrib MaskablePPO),
                    ``info["action_mask"]`` (int8 [A], for ``action_space.sample``)
Rewards             the learning seat's share of ``episode.py``'s rewards
==================  ===========================================================

Configuration: the rules as in every env (``rules=``, ``rules_file=``, or
``preset=`` plus rule flags); ``opponents``: one opponent for every other seat,
or a list of P-1 (the seats after the learner, in turn order), each an
``rummy500.agents.base.Agent`` or a callable ``(observation [D], mask [A]) -> action``
(default: uniformly random legal actions from the env's seeded generator);
``seat``: the learning seat, an int or ``"random"`` (drawn at each reset);
``episode``, ``reward`` as in ``rummy_env/envs/episode.py``; ``illegal_action``.

``step`` plays the learner's action, then the opponents' until the learner must
act again or the episode ends, and returns the learner's reward summed over all
of it. The seat that acts is always the core's ``state.current_player``.

**Info.** At reset and after every step: ``action_mask`` (int8 [A]), ``seat``
(the learner's, int) and the numeric keys of ``rummy_env/envs/info.py``
(``winner``, ``hand_winner``, ``game_winner``, ``totals``, ``hand_scores``,
``hands``, ``length``, ``illegal_action``): the same keys and types at every
step, so vector wrappers and replay buffers can stack them.

**The mask after the last step.** Once an episode has ended, ``action_masks()``
and ``info["action_mask"]`` hold exactly one entry, ``TERMINAL_MASK_ACTION``
(id 0), as pgx does: a mask a masked sampler can draw from, meaningless there.
Gymnasium's vector envs (``SyncVectorEnv``, ``AsyncVectorEnv``, next-step
autoreset) ignore the action they draw from it and reset; ``step`` on the bare
finished env raises ``RuntimeError``. ``action_masks()`` before ``reset()`` is
a ``RuntimeError`` too.

**Illegal actions.** ``illegal_action="penalize"`` (the default here, so that
unmasked learners and ``check_env``'s random actions work) ends the episode,
terminated, with reward -1 and ``info["illegal_action"]`` holding the action's
id; ``"raise"`` raises ``ValueError`` naming the legal texts. An action that is
not an integer id (``2.9``, ``"0"``, ``True``) is a ``ValueError`` either way,
and so is a seed that is not None or an integer >= 0. An opponent that returns
an illegal or out-of-range id is a ``ValueError`` naming the opponent and the id.

>>> import gymnasium, rummy_env
>>> env = gymnasium.make("Rummy500-v1", preset="web")
>>> obs, info = env.reset(seed=0)
>>> obs.shape == env.observation_space.shape and info["action_mask"].dtype.name == "int8"
True
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from rummy_env.core import Games, Rules, State, action_layout

from .episode import auto_deal, outcome
from .info import game_info
from .inputs import action_id, check_seed
from .opponents import UniformLegal, as_policy, opponent_list
from .options import TERMINAL_MASK_ACTION, check_seat, configure, single_spaces
from .render import render_text


class RummyGymEnv(gym.Env):
    """One learning seat; the other seats are played by ``opponents`` (module docstring)."""

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}
    rules: Rules
    episode: str
    reward: str
    pcr: int
    illegal_action: str
    """Set by ``options.configure``, as in every single-game env."""

    def __init__(
        self,
        rules: Rules | None = None,
        *,
        rules_file: str | None = None,
        preset: str | None = None,
        opponents: Any = None,
        seat: int | str = 0,
        episode: str = "game",
        reward: str = "win",
        illegal_action: str = "penalize",
        render_mode: str | None = None,
        **rule_flags: Any,
    ) -> None:
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
        p = self.rules.players
        self.seat_option = check_seat(seat, p)
        self._layout = action_layout(self.rules)
        self.observation_space, self.action_space = single_spaces(self.rules)
        self._random = UniformLegal(np.random.default_rng())
        opponents = opponent_list(opponents, self._random, p)
        self._policies = [as_policy(o, single=True) for o in opponents]
        self._auto_deal = auto_deal(self.episode)
        self._games: Games | None = None
        self._state: State | None = None
        self._mask: np.ndarray | None = None
        self._done_mask = np.zeros((1, self._layout.size), bool)
        self._done_mask[0, TERMINAL_MASK_ACTION] = True

    # -- episode -----------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=check_seed(seed))
        self._random.rng = self.np_random
        p = self.rules.players
        self.seat = (
            int(self.np_random.integers(p))
            if self.seat_option == "random"
            else int(self.seat_option)
        )
        self._games = Games(
            self.rules,
            1,
            int(self.np_random.integers(2**63)),
            auto_deal=self._auto_deal,
            one_game=True,
        )
        self._state = self._games.state
        self._done = self._terminated = self._truncated = False
        self._winner = -1
        self._length = 0
        self._mask = self._games.mask()
        reward = self._play_opponents()
        if reward:  # nothing scores before the learner's first action
            raise AssertionError("reset: reward before the learner acted")
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._games is None or self._done:
            raise RuntimeError("step: call reset() first (the episode is over)")
        a = action_id(action)
        if not (0 <= a < self._layout.size and self._mask[0, a]):
            return self._illegal(a)
        reward = self._apply(a)
        terminated, truncated = self._terminated, self._truncated
        if not self._done:
            reward += self._play_opponents()
            terminated, truncated = self._terminated, self._truncated
        if self.render_mode == "human":
            self.render()
        return self._observation(), float(reward), terminated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """bool [A]: the learner's legal actions now (sb3-contrib MaskablePPO convention);
        after the episode's last step, only ``TERMINAL_MASK_ACTION`` (module docstring)."""
        if self._mask is None:
            raise RuntimeError("action_masks: call reset() first")
        return self._mask[0].copy()

    # -- internals ---------------------------------------------------------------
    def _apply(self, action: int) -> float:
        """Play one action of the seat to play; the learner's reward from it."""
        state = self._state
        self._games.step(np.array([action]))
        self._length += 1
        reward = 0.0
        self._terminated = self._truncated = False
        if state.hand_ended[0]:
            result = outcome(
                self.rules, state, np.zeros(1, np.int64), self.episode, self.reward, pcr=self.pcr
            )
            reward = float(result.rewards[0, self.seat])
            self._terminated = bool(result.terminated[0])
            self._truncated = bool(result.truncated[0])
            self._winner = int(result.winner[0])
        self._done = self._terminated or self._truncated
        self._mask = self._done_mask if self._done else self._games.mask()
        return reward

    def _play_opponents(self) -> float:
        """Opponents act until the learner must act or the episode ends."""
        reward = 0.0
        p = self.rules.players
        while not self._done and int(self._state.current_player[0]) != self.seat:
            k = (int(self._state.current_player[0]) - self.seat) % p
            action = int(self._policies[k - 1](self.rules, self._state, self._mask)[0])
            reward += self._apply(action)
        return reward

    def _illegal(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        message = self._layout.illegal_message(action, self._mask[0])
        if self.illegal_action == "raise":
            raise ValueError(message)
        self._done = True
        self._mask = self._done_mask
        info = self._info()
        info["illegal_action"] = int(action)
        return self._observation(), -1.0, True, False, info

    def _observation(self) -> np.ndarray:
        return self._games.observe_one(self.seat)

    def _info(self) -> dict[str, Any]:
        """The fixed keys: ``action_mask``, ``seat`` and those of ``rummy_env/envs/info.py``."""
        info: dict[str, Any] = {"action_mask": self._mask[0].astype(np.int8), "seat": self.seat}
        info.update(game_info(self._state, winner=self._winner, length=self._length))
        return info

    def render(self) -> str | None:  # type: ignore[override]  # ansi text, as gymnasium's docs allow
        if self.render_mode is None:
            gym.logger.warn(
                "render() called without a render_mode (pass render_mode='ansi' or 'human')"
            )
            return None
        names = [
            f"player_{i}" + (" (learner)" if i == self.seat else "")
            for i in range(self.rules.players)
        ]
        text = render_text(self.rules, self._state, 0, names)
        if self.render_mode == "human":
            print(text)
            return None
        return text
