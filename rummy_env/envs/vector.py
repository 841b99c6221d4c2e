"""Batched environments for trainers: B games stepped together on the core.

``RummyVectorEnv``: self-play. Every game is played by whichever seat must act
(``state.current_player``); one action per game per step, rewards for every seat.

    env = RummyVectorEnv(Rules(), num_envs=4096, seed=0)
    obs, mask, seat = env.reset()            # float32 [B,D], bool [B,A], int64 [B]
    obs, mask, seat, rewards, terminated, truncated, info = env.step(actions)
    # rewards float32 [B,P] by absolute seat; terminated, truncated bool [B]

With ``compact=True`` the observations are ``CompactObservation`` (uint8 codes and
float32 numbers, widened bit for bit by ``obs.widen(rules)`` or ``rummy500.agents.widen``), a
quarter of the bytes and no widening in the step; ``info["final_obs"]`` stays float32.

``RummySingleAgentVectorEnv``: a ``gymnasium.vector.VectorEnv`` with one learning
seat per game; the other seats are played, batched, by opponents (an
``rummy500.agents.base.Agent`` acting on ``Decision`` batches or a callable
``(obs [n,D], mask [n,A]) -> actions [n]``; default: uniformly random legal).
It is the vector entry point of ``gymnasium.make_vec("Rummy500-v1", num_envs=B)``.

**Autoreset: same-step.** A game whose episode ends in a step is replaced by a
fresh game inside that step: the returned ``obs``/``mask``/``seat`` of that row
already belong to the new game, and ``info`` holds what the finished game left
(``metadata["autoreset_mode"] = AutoresetMode.SAME_STEP``), so no returned mask
is ever empty. New games take the
next game ids of the run's seed, so a run is a function of (seed, actions).

**info of ``RummyVectorEnv.step``** (k = games whose episode ended this step):

==========================  ==================================================
``hand_ended``    bool [B]  a hand ended in this game during the step
``episode``       dict      per finished game, arrays of length k:
                            ``game`` (row), ``winner`` (seat the ``win``
                            reward pays, -1 none), ``hand_winner`` (top
                            scorer of the last hand, -1 tie),
                            ``game_winner`` (-1 unless a seat won the game),
                            ``totals`` [k,P] (``game``: final totals;
                            ``hand``: the hand's scores), ``length``
                            (agent-steps), ``hands``, ``truncated``
``final_obs``     [k,P,D]   each seat's last observation of each finished
                            game (absolute seat order), for bootstrapping
==========================  ==================================================

Every key is there at every step (arrays of length 0 when no game ended).
Actions must be an integer array of shape ``(B,)`` and seeds None or an integer
>= 0 (``ValueError`` otherwise, see ``rummy_env/envs/inputs.py``).

Episodes and rewards (``episode=``, ``reward=``) are those of
``rummy_env/envs/episode.py``. The hot path has no Python loop over games; a Python
loop runs only over seats (opponent groups) and action ranges.
"""

from __future__ import annotations

import functools
import secrets
import time
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv

from rummy_env.core import (
    CompactObservation,
    Decision,
    Games,
    Rules,
    State,
    action_layout,
    observation_size,
)
from rummy_env.core.deal import MAX_SEED

from .episode import Outcome, auto_deal, outcome, top_scorer
from .inputs import action_batch, check_seed
from .opponents import UniformLegal, as_policy, opponent_list
from .options import (
    AUTORESETS,
    EPISODES,
    ILLEGAL_ACTIONS,
    REWARDS,
    TERMINAL_MASK_ACTION,
    check_choice,
    check_num_envs,
    check_pcr,
    check_seat,
    resolve_rules,
    single_spaces,
)

Observations = np.ndarray | CompactObservation
"""float32 [B, D], or the compact codes and numbers of an env made with ``compact=True``."""


class _Games:
    """B games of one run: the engine's driver (``driver``: the games, their deals, what
    their tables keep), the episode's rules of scoring and per-episode counters."""

    def __init__(
        self, rules: Rules, num_envs: int, episode: str, reward: str, pcr: int = 1
    ) -> None:
        self.rules, self.num_envs = rules, check_num_envs(num_envs)
        self.episode = check_choice("episode", episode, EPISODES)
        self.reward = check_choice("reward", reward, REWARDS)
        self.pcr = check_pcr(pcr)
        self.auto_deal = auto_deal(episode)
        self.driver: Games | None = None

    @property
    def state(self) -> State | None:
        """The games (None before the first ``start``)."""
        return None if self.driver is None else self.driver.state

    def start(self, seed: int) -> None:
        self.driver = Games(
            self.rules, self.num_envs, seed, auto_deal=self.auto_deal, sees="observations"
        )
        self.length = np.zeros(self.num_envs, np.int64)

    def restart(self, rows: np.ndarray) -> None:
        """Deal fresh games (the next ids of the run) in ``rows``."""
        self.driver.replace(rows)
        self.length[rows] = 0

    def results(self, rows: np.ndarray) -> tuple[np.ndarray, Outcome] | None:
        """(the games among ``rows`` that just ended a hand, their outcome), or None."""
        ended = rows[self.state.hand_ended[rows]]
        if ended.size == 0:
            return None
        return ended, outcome(self.rules, self.state, ended, self.episode, self.reward, self.pcr)

    def final_scores(self, rows: np.ndarray) -> np.ndarray:
        """int32 [k, P]: final totals (``game``) or the hand's scores (``hand``)."""
        if self.episode == "game":
            return self.state.totals[rows].copy()
        return self.state.hand_scores[rows].copy()

    def winners(self, rows: np.ndarray) -> dict[str, np.ndarray]:
        """int64 [k] each: ``hand_winner`` (top scorer of the last hand, -1 tie) and
        ``game_winner`` (-1 until a seat won the game) of the games ``rows``."""
        return {
            "hand_winner": top_scorer(self.state.hand_scores[rows]),
            "game_winner": self.state.winner[rows].astype(np.int64),
        }


class RummyVectorEnv:
    """Self-play over B games; see the module docstring for shapes and ``info``."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        rules: Rules | None = None,
        num_envs: int = 1,
        seed: int = 0,
        *,
        reward: str = "win",
        episode: str = "game",
        pcr: int = 1,
        compact: bool = False,
        **rule_config: Any,
    ) -> None:
        self.rules = resolve_rules(rules, **rule_config)
        self.num_envs = check_num_envs(num_envs)
        if not isinstance(compact, bool):
            raise ValueError(f"compact={compact!r} must be True or False")
        self.compact = compact
        self.num_players = self.rules.players
        self.observation_size = observation_size(self.rules)
        self.num_actions = action_layout(self.rules).size
        self._games = _Games(self.rules, num_envs, episode, reward, pcr)
        self.episode, self.reward = episode, reward
        seed = check_seed(seed)
        self._seed = secrets.randbelow(MAX_SEED + 1) if seed is None else seed
        self.timings = dict.fromkeys(("core_step", "outcome_reset", "core_mask", "observe"), 0.0)
        self.mask: np.ndarray | None = None

    @property
    def state(self) -> State:
        """The batch of games (read it; do not modify it)."""
        return self._games.state

    def decision(self, rows: np.ndarray, observations: np.ndarray | None = None) -> Decision:
        """What the seat to play in games ``rows`` sees now, as agents take it."""
        return Decision(
            self.rules, self.mask[rows], self._games.driver.view(rows=rows), observations
        )

    def snapshot(self) -> dict[str, Any]:
        """The games in progress and the run's next deal, as numpy arrays and ints (a
        trainer's checkpoint stores it; ``restore`` puts it back)."""
        games = self._games
        return {**games.driver.snapshot(), "length": games.length.copy()}

    def restore(self, snapshot: dict[str, Any]) -> tuple[Observations, np.ndarray, np.ndarray]:
        """Continue from a ``snapshot`` of a run of the same rules and size (after
        ``reset``); returns (obs, mask, seat) as ``reset`` does."""
        games = self._games
        games.driver.restore(snapshot)
        games.length[:] = snapshot["length"]
        return self._mask_and_observe(None)

    def observations(self, seats: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """float32 [n, D]: what seat ``seats[i]`` of game ``rows[i]`` observes now."""
        return self._games.driver.observe(seats, rows)

    def reset(
        self, seed: int | None = None, *, out: np.ndarray | None = None
    ) -> tuple[Observations, np.ndarray, np.ndarray]:
        """Deal B new games: (obs float32 [B,D], mask bool [B,A], seat int64 [B]).

        ``seed`` restarts the run's game ids from 0; without it, the run goes on
        with its next games (a fresh run seeded at construction on first reset).
        ``out``: a float32 [B, D] array to write the observations into (and return), so
        a loop that reuses one array skips a fresh one's page faults; default a new one.
        """
        seed = check_seed(seed)
        if seed is not None:
            self._seed = seed
        if seed is not None or self._games.state is None:
            self._games.start(self._seed)
        else:
            self._games.restart(np.arange(self.num_envs))
        return self._mask_and_observe(out)

    def _mask_and_observe(
        self, out: np.ndarray | None
    ) -> tuple[Observations, np.ndarray, np.ndarray]:
        """(obs, mask, seat) of the games as they stand."""
        self.mask = self._games.driver.mask()
        return self._observe(out), self.mask, self.state.current_player.astype(np.int64)

    def _observe(self, out: np.ndarray | None) -> Observations:
        """What the seat to play in every game observes now (compact when asked for),
        written into ``out`` when given."""
        games = self._games
        if out is not None and self.compact:
            raise ValueError("out= takes float observations; a compact env makes its own")
        return games.driver.observe(out=out, compact=self.compact)

    def step(
        self, actions: np.ndarray, *, out: np.ndarray | None = None
    ) -> tuple[
        Observations, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]
    ]:
        """One action per game (for the seat to play); see the module docstring. ``out``:
        as for ``reset``, the array the observations are written into."""
        if self.mask is None:
            raise RuntimeError("step: call reset() first")
        games = self._games
        b, p = self.num_envs, self.num_players
        actions = action_batch(actions, b)
        t0 = time.perf_counter()
        games.driver.step(actions)
        games.length += 1
        t1 = time.perf_counter()

        rewards = np.zeros((b, p), np.float32)
        terminated = np.zeros(b, bool)
        truncated = np.zeros(b, bool)
        info: dict[str, Any] = {"hand_ended": games.state.hand_ended.copy()}
        ended = games.results(np.arange(b))
        done = np.zeros(0, np.int64)
        winner = np.zeros(0, np.int64)
        if ended is not None:
            rows, result = ended
            rewards[rows] = result.rewards
            terminated[rows] = result.terminated
            truncated[rows] = result.truncated
            done, winner = rows[result.done], result.winner[result.done]
        info["episode"] = {
            "game": done,
            "winner": winner,
            "totals": games.final_scores(done),
            "length": games.length[done].copy(),
            "hands": games.state.hand_number[done].astype(np.int64) + 1,
            "truncated": truncated[done].copy(),
            **games.winners(done),
        }
        info["final_obs"] = (
            np.stack([games.driver.observe(np.full(done.size, s), done) for s in range(p)], axis=1)
            if done.size
            else np.zeros((0, p, self.observation_size), np.float32)
        )
        if done.size:
            games.restart(done)
        t2 = time.perf_counter()
        self.mask = games.driver.mask()
        t3 = time.perf_counter()
        obs = self._observe(out)
        t4 = time.perf_counter()
        for key, dt in zip(self.timings, (t1 - t0, t2 - t1, t3 - t2, t4 - t3)):
            self.timings[key] += dt
        return (
            obs,
            self.mask,
            games.state.current_player.astype(np.int64),
            rewards,
            terminated,
            truncated,
            info,
        )


class RummySingleAgentVectorEnv(VectorEnv):
    """One learning seat per game against batched opponents (a Gymnasium ``VectorEnv``).

    ``step(actions [B])`` plays each learner's action, then the opponents until
    every learner must act again. Returns obs float32 [B,D], rewards float32 [B]
    (the learner's share of everything that happened in the step), terminations,
    truncations bool [B], and ``info``, with the same keys at every step:
    ``action_mask`` bool [B,A]; ``final_obs`` float32 [B,D] (the learner's last
    view of a game that finished in the step, zeros elsewhere) and ``episode`` =
    {``r`` return, ``l`` learner steps, ``winner`` seat the ``win`` reward pays
    or -1, ``hand_winner``, ``game_winner`` (as in ``RummyVectorEnv``), ``seat``
    the learner's}, each [B], meaningful where ``_final_obs`` / ``_episode``
    (bool [B]) are set.
    Illegal actions: ``illegal_action="penalize"`` (default) ends that game with
    reward -1; ``"raise"`` raises ``ValueError`` and changes nothing.

    ``autoreset="same_step"`` (default) deals a finished game's successor inside the
    step that ended it. ``"next_step"`` (Gymnasium's own default, and what RLlib's
    env runners expect) returns the finished game's last view in that step and deals
    its successor in the next one, ignoring the action given for that row; the row's
    mask meanwhile holds ``TERMINAL_MASK_ACTION`` alone, so a masked sampler can draw.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int = 1,
        rules: Rules | None = None,
        *,
        opponents: Any = None,
        seat: int | str = 0,
        episode: str = "game",
        reward: str = "win",
        illegal_action: str = "penalize",
        seed: int | None = None,
        pcr: int = 1,
        autoreset: str = "same_step",
        **rule_config: Any,
    ) -> None:
        self.rules = resolve_rules(rules, **rule_config)
        p = self.rules.players
        self.num_envs = check_num_envs(num_envs)
        self.next_step = check_choice("autoreset", autoreset, AUTORESETS) == "next_step"
        self.metadata = {**self.metadata, "autoreset_mode": AutoresetMode[autoreset.upper()]}
        self._games = _Games(self.rules, num_envs, episode, reward, pcr)
        self.illegal_action = check_choice("illegal_action", illegal_action, ILLEGAL_ACTIONS)
        self.seat_option = check_seat(seat, p)
        self._layout = action_layout(self.rules)
        self.single_observation_space, self.single_action_space = single_spaces(self.rules)
        self.observation_space = gym.vector.utils.batch_space(
            self.single_observation_space, num_envs
        )
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, num_envs)
        self._rng = np.random.default_rng(seed)
        self._random = UniformLegal(self._rng)
        opponents = opponent_list(opponents, self._random, p)
        policies = {id(o): as_policy(o) for o in opponents}
        self._policies = [policies[id(o)] for o in opponents]
        self._one_policy = len(policies) == 1
        self._mask: np.ndarray | None = None
        self.moves = 0
        """Decisions every seat made (the learners' and the opponents'), over all resets."""

    # -- API ---------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal B new games and play the opponents up to each learner's first action."""
        seed = check_seed(seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self._random.rng = self._rng
        b = self.num_envs
        self._games.start(int(self._rng.integers(2**63)))
        self.seat = np.zeros(b, np.int64)
        self._draw_seats(np.arange(b))
        self._return = np.zeros(b, np.float32)
        self._steps = np.zeros(b, np.int64)
        self._waiting = np.zeros(b, bool)  # next_step: finished, successor dealt next step
        self._begin_step()
        self._play_opponents()
        self._mask = self._games.driver.mask()
        return self._observe(), self._info()

    def step(
        self, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if self._mask is None:
            raise RuntimeError("step: call reset() first")
        b, games = self.num_envs, self._games
        actions = action_batch(actions, b)
        legal = self._layout.legal(self._mask, actions)
        if not legal[~self._waiting].all() and self.illegal_action == "raise":
            g = int(np.flatnonzero(~legal & ~self._waiting)[0])
            raise ValueError(
                self._layout.illegal_message(actions[g], self._mask[g], f" in game {g}")
            )

        self._begin_step()
        waiting = np.flatnonzero(self._waiting)
        if waiting.size:  # next_step autoreset: these rows only get their fresh game
            legal[waiting] = False
            self._waiting[:] = False
            self._deal(waiting)
        self._steps += 1
        self._steps[waiting] = 0
        if legal.all():
            games.driver.step(actions)
            stepped = np.arange(b)
        else:
            bad = np.setdiff1d(np.flatnonzero(~legal), waiting)
            stepped = np.flatnonzero(legal)
            games.driver.step(actions[stepped], stepped)
            self._book(bad, np.full(bad.size, -1.0, np.float32))
            self._terminated[bad] = True
            self._finish(bad, np.full(bad.size, -1, np.int64))
        games.length[stepped] += 1
        self.moves += stepped.size
        self._collect(stepped)
        self._play_opponents()
        self._mask = games.driver.mask()
        if self._waiting.any():
            self._mask = self._mask.copy()  # the driver's own stays the games' true mask
            self._mask[self._waiting] = False
            self._mask[self._waiting, TERMINAL_MASK_ACTION] = True
        return (self._observe(), self._reward, self._terminated, self._truncated, self._info())

    def action_masks(self) -> np.ndarray:
        """bool [B,A]: each learner's legal actions now (sb3-contrib convention)."""
        if self._mask is None:
            raise RuntimeError("action_masks: call reset() first")
        return self._mask.copy()

    # -- internals ---------------------------------------------------------------
    def _begin_step(self) -> None:
        b = self.num_envs
        self._reward = np.zeros(b, np.float32)
        self._terminated = np.zeros(b, bool)
        self._truncated = np.zeros(b, bool)
        self._final = self._no_final()

    def _no_final(self) -> dict[str, np.ndarray]:
        """What finished games leave in ``info``, for none yet: all rows unset."""
        b = self.num_envs
        final = {
            "mask": np.zeros(b, bool),
            "obs": np.zeros((b, observation_size(self.rules)), np.float32),
            "r": np.zeros(b, np.float32),
            "l": np.zeros(b, np.int64),
        }
        for key in ("winner", "hand_winner", "game_winner", "seat"):
            final[key] = np.full(b, -1, np.int64)
        return final

    def _draw_seats(self, rows: np.ndarray) -> None:
        if self.seat_option == "random":
            self.seat[rows] = self._rng.integers(self.rules.players, size=rows.size)
        else:
            self.seat[rows] = int(self.seat_option)

    def _observe(self) -> np.ndarray:
        obs = self._games.driver.observe(self.seat)
        obs[self._waiting] = self._final["obs"][self._waiting]
        return obs

    def _book(self, rows: np.ndarray, rewards: np.ndarray) -> None:
        self._reward[rows] += rewards
        self._return[rows] += rewards

    def _collect(self, rows: np.ndarray) -> None:
        """Book the learner's rewards of the games ``rows`` after they stepped."""
        found = self._games.results(rows)
        if found is None:
            return
        ended, result = found
        self._book(ended, result.rewards[np.arange(ended.size), self.seat[ended]])
        self._terminated[ended] |= result.terminated
        self._truncated[ended] |= result.truncated
        self._finish(ended[result.done], result.winner[result.done])

    def _finish(self, rows: np.ndarray, winner: np.ndarray) -> None:
        """Record the finished games ``rows`` and deal new games in their place."""
        if rows.size == 0:
            return
        final = self._final
        final["mask"][rows] = True
        final["obs"][rows] = self._games.driver.observe(self.seat[rows], rows)
        final["r"][rows] = self._return[rows]
        final["l"][rows] = self._steps[rows]
        final["winner"][rows] = winner
        for key, values in self._games.winners(rows).items():
            final[key][rows] = values
        final["seat"][rows] = self.seat[rows]
        self._return[rows] = 0.0
        self._steps[rows] = 0
        if self.next_step:
            self._waiting[rows] = True
        else:
            self._deal(rows)

    def _deal(self, rows: np.ndarray) -> None:
        """Fresh games, and the learner's seat in each, in ``rows``."""
        self._games.restart(rows)
        self._draw_seats(rows)

    def _play_opponents(self) -> None:
        """Opponents act, batched, until every game waits for its learner."""
        games = self._games
        while True:
            rows = np.flatnonzero((games.state.current_player != self.seat) & ~self._waiting)
            if rows.size == 0:
                return
            games.driver.play(rows, functools.partial(self._opponent_actions, rows))
            games.length[rows] += 1
            self.moves += rows.size
            self._collect(rows)

    def _opponent_actions(self, rows: np.ndarray, sub: State, mask: np.ndarray) -> np.ndarray:
        """int64 [n]: the opponents' actions in the games ``rows`` (``sub`` their states,
        ``mask`` their legal actions), each seat's opponent by its place after the learner.
        A subclass may seat opponents otherwise (train/rllib_env.py: by game)."""
        if self._one_policy:
            return self._policies[0](self.rules, sub, mask)
        actions = np.zeros(rows.size, np.int64)
        rel = (sub.current_player.astype(np.int64) - self.seat[rows]) % self.rules.players
        for k in range(1, self.rules.players):
            group = np.flatnonzero(rel == k)
            if group.size:
                actions[group] = self._policies[k - 1](self.rules, sub.select(group), mask[group])
        return actions

    def _info(self) -> dict[str, Any]:
        final = self._final
        keys = ("r", "l", "winner", "hand_winner", "game_winner", "seat")
        return {
            "action_mask": self._mask.copy(),
            "final_obs": final["obs"],
            "_final_obs": final["mask"],
            "episode": {key: final[key] for key in keys},
            "_episode": final["mask"].copy(),
        }
