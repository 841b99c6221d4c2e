"""Environment throughput: agent-steps per second with random legal actions.

``bench_vector(rules, batch_size, seconds)`` runs ``RummyVectorEnv`` (observations
included; ``compact=True``: the compact ones the trainer takes), ``bench_aec(rules,
seconds)`` the wrapped PettingZoo env the way a user loop does (``last()`` then
``step()``), and ``bench_gym(rules, seconds)`` the Gymnasium env (``Rummy500-v1``
with its checker wrappers) against its default
opponent. An agent-step is one action of one seat in one game (the Gymnasium
env's opponents' actions count too; its ``env_steps_per_s`` is the learner's).
Each returns a plain dict (JSON-able) for ``rummy500 speed``; the vector one
adds the share of time spent in each stage (``time_share``).

>>> from rummy_env.core import Rules
>>> bench_vector(Rules(), batch_size=8, seconds=0.05)["batch_size"]
8
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from rummy_env.core import Rules, sample_legal


def bench_vector(
    rules: Rules, batch_size: int, seconds: float, seed: int = 0, compact: bool = False
) -> dict[str, Any]:
    """Self-play throughput of ``RummyVectorEnv`` at B = ``batch_size`` (``compact``: with
    compact observations, as the trainer takes them)."""
    from rummy_env.envs.vector import RummyVectorEnv

    env = RummyVectorEnv(rules, num_envs=batch_size, seed=seed, compact=compact)
    rng = np.random.default_rng(seed)
    # A trainer's loop writes float observations into one array of its own (out=).
    out = None if compact else np.empty((batch_size, env.observation_size), np.float32)
    obs, mask, _ = env.reset(out=out)
    sampling = 0.0
    steps = games = 0
    start = time.perf_counter()
    while True:
        t0 = time.perf_counter()
        actions = sample_legal(mask, rng)
        sampling += time.perf_counter() - t0
        obs, mask, _, _, _, _, info = env.step(actions, out=out)
        steps += 1
        games += info["episode"]["game"].size
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
    stages = {**env.timings, "sample_actions": sampling}
    return {
        "env": "vector",
        "observations": "compact" if compact else "float32",
        "preset": rules.preset,
        "players": rules.players,
        "batch_size": batch_size,
        "seconds": elapsed,
        "steps": steps,
        "agent_steps": steps * batch_size,
        "agent_steps_per_s": steps * batch_size / elapsed,
        "games_finished": games,
        "observation_size": env.observation_size,
        "time_share": {k: v / elapsed for k, v in stages.items()},
    }


def bench_aec(rules: Rules, seconds: float, seed: int = 0) -> dict[str, Any]:
    """Throughput of the wrapped PettingZoo AEC env, one game, random legal actions."""
    from rummy_env.envs.aec import env as make_env

    result = time_aec_games(make_env(rules=rules), seconds, seed)
    return {"env": "aec", "preset": rules.preset, "players": rules.players, **result}


def time_aec_games(env: Any, seconds: float, seed: int = 0) -> dict[str, Any]:
    """Play games of any PettingZoo AEC env with an ``action_mask`` in its observations,
    the way a user loop does (``last()`` then ``step()``), for about ``seconds``: the
    same driver for our env and for PettingZoo's own card games."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    agent_steps = games = 0
    start = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds:
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[int(rng.integers(legal.size))])
                agent_steps += 1
            env.step(action)
            if agent_steps % 256 == 0:
                elapsed = time.perf_counter() - start
                if elapsed >= seconds:
                    break
        else:
            games += 1
            env.reset()
        elapsed = time.perf_counter() - start
    return {
        "seconds": elapsed,
        "agent_steps": agent_steps,
        "agent_steps_per_s": agent_steps / elapsed,
        "games_finished": games,
    }


def bench_gym(rules: Rules, seconds: float, seed: int = 0) -> dict[str, Any]:
    """Throughput of ``gymnasium.make("Rummy500-v1")``, one game, random legal learner."""
    import gymnasium

    import rummy_env  # noqa: F401 - registers the env ids

    env = gymnasium.make("Rummy500-v1", rules=rules)
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    env_steps = agent_steps = games = 0
    start = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds:
        legal = np.flatnonzero(info["action_mask"])
        _, _, terminated, truncated, info = env.step(int(legal[int(rng.integers(legal.size))]))
        env_steps += 1
        if terminated or truncated:
            agent_steps += int(info["length"])
            games += 1
            _, info = env.reset()
        if env_steps % 256 == 0:
            elapsed = time.perf_counter() - start
    elapsed = time.perf_counter() - start
    agent_steps += int(info["length"])
    return {
        "env": "gym",
        "preset": rules.preset,
        "players": rules.players,
        "seconds": elapsed,
        "env_steps": env_steps,
        "env_steps_per_s": env_steps / elapsed,
        "agent_steps": agent_steps,
        "agent_steps_per_s": agent_steps / elapsed,
        "games_finished": games,
    }
