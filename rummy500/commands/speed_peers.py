"""Peer card games measured like ``bench_aec``: one game at a time, random legal moves.

``rummy500 speed --what aec --against gin`` runs these right after the project's
own AEC env, in the same process, and prints the ratios, so a speed claim can
be checked on any machine (``--rounds N`` alternates them N times, so that each
ratio is taken under one load on a shared machine). The peers are optional
(``pip install -e ".[peers]"``):

* ``pettingzoo-gin``: PettingZoo's classic ``gin_rummy_v4``, an AEC env with an
  action mask like ours, driven by the very loop that times ours
  (``speed_envs.time_aec_games``). PettingZoo 1.27 no longer ships it: it needs
  ``pettingzoo[classic]<1.27`` (and its ``pygame``), which our env also runs on;
* ``rlcard-gin``: RLCard's gin rummy, the engine behind that env, stepped bare
  (observation and legal actions built at every step);
* ``openspiel-gin``: OpenSpiel's C++ gin rummy, with the observation tensor read
  at every step.

A peer that is not installed, or does not import, is reported as skipped with the
reason, never as a failure.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np


def bench_pettingzoo_gin(seconds: float, seed: int = 0) -> dict[str, Any]:
    """Agent-steps/s of PettingZoo's ``gin_rummy_v4`` (wrapped, as ``env()`` makes it)."""
    from pettingzoo.classic import gin_rummy_v4

    from .speed_envs import time_aec_games

    result = time_aec_games(gin_rummy_v4.env(), seconds, seed)
    return {"env": "pettingzoo-gin", "preset": "peer", "players": 2, **result}


def bench_rlcard_gin(seconds: float, seed: int = 0) -> dict[str, Any]:
    """Agent-steps/s of RLCard's gin rummy (``rlcard.make("gin-rummy")``)."""
    import rlcard

    env = rlcard.make("gin-rummy", config={"seed": seed})
    rng = np.random.default_rng(seed)
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state, _ = env.reset()
        while not env.is_over():
            legal = list(state["legal_actions"])
            state, _ = env.step(legal[int(rng.integers(len(legal)))])
            steps += 1
        games += 1
    return _result("rlcard-gin", steps, games, time.perf_counter() - start)


def bench_openspiel_gin(seconds: float, seed: int = 0) -> dict[str, Any]:
    """Agent-steps/s of OpenSpiel's gin rummy, observation tensor read every step."""
    import pyspiel

    game = pyspiel.load_game("gin_rummy")
    rng = np.random.default_rng(seed)
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
                continue
            state.observation_tensor(state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
            steps += 1
        games += 1
    return _result("openspiel-gin", steps, games, time.perf_counter() - start)


def _result(env: str, steps: int, games: int, elapsed: float) -> dict[str, Any]:
    return {
        "env": env,
        "preset": "peer",
        "players": 2,
        "seconds": elapsed,
        "agent_steps": steps,
        "agent_steps_per_s": steps / elapsed,
        "games_finished": games,
    }


PEERS: dict[str, list[tuple[str, str, Callable[..., dict[str, Any]]]]] = {
    "gin": [
        (
            "pettingzoo-gin",
            "pip install 'pettingzoo[classic]<1.27' pygame (1.27 dropped it)",
            bench_pettingzoo_gin,
        ),
        ("rlcard-gin", "pip install -e '.[peers]'", bench_rlcard_gin),
        ("openspiel-gin", "pip install -e '.[peers]'", bench_openspiel_gin),
    ],
}
"""``--against`` name -> (peer, what installs it, benchmark) for each peer."""


def bench_peers(name: str, seconds: float, seed: int = 0) -> list[dict[str, Any]]:
    """Every peer of ``name`` that imports, measured; the others as ``skipped`` rows."""
    rows = []
    for peer, install, bench in PEERS[name]:
        try:
            rows.append(bench(seconds, seed))
        except ImportError:
            rows.append({"env": peer, "skipped": f"not importable here: {install}"})
    return rows
