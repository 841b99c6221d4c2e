"""Decisions per second of each agent on realistic mid-game decision batches.

``decision_batch(rules, n, seed)`` plays seeded games (Casual at every seat by
default) and snapshots them at spread-out points of their hands (draw steps
and play steps mixed, piles of every depth), then ``agent_speed`` times each
agent's ``act`` on that one batch (the mask and view are built once, outside
the timing).

    python -m rummy500.eval.agent_speed --preset standard --players 2 --batch-size 4096
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

import numpy as np

from rummy500.agents.registry import HEURISTICS, make_agent
from rummy_env.core import (
    PHASE_DRAW,
    PHASE_PLAY,
    Decision,
    Games,
    Rules,
    State,
    legal_mask,
    player_view,
)
from rummy_env.core.state import empty_state


def midgame_states(
    rules: Rules, n: int, seed: int = 0, players: Sequence[str] = ("casual",), max_steps: int = 160
) -> State:
    """n game positions, each at a seat's decision, snapshotted from seeded self-play.

    Seat s of every game is played by ``players[s % len(players)]``; games are
    snapshotted at random steps after the first few, so draw and play steps,
    shallow and deep piles, early and late hands are all in the batch.
    """
    rng = np.random.default_rng(seed)
    games = Games(rules, max(64, n // 4), seed)
    state = games.state
    agents = [make_agent(spec, rules, seed + i) for i, spec in enumerate(players)]
    seat_agent = np.arange(rules.players) % len(agents)
    picks: list[State] = []
    taken = 0
    per_step = max(1, -(-n // max_steps) * 2)
    for step in range(max_steps * 4):
        live = np.flatnonzero((state.phase == PHASE_DRAW) | (state.phase == PHASE_PLAY))
        if live.size == 0:
            break
        if step >= 4 and taken < n:
            k = min(per_step, n - taken, live.size)
            picks.append(state.select(rng.choice(live, size=k, replace=False)))
            taken += k
        if taken >= n:
            break
        mask = games.mask()
        actions = np.zeros(state.batch_size, np.int64)
        owner = seat_agent[state.current_player]
        acting = np.flatnonzero(~state.game_over)  # call windows too, not only draw and play
        for k, agent in enumerate(agents):
            rows = acting[owner[acting] == k]
            if rows.size:
                actions[rows] = agent.act(
                    Decision(rules=rules, mask=mask[rows], view=games.view(rows=rows))
                )
        games.step(actions)
    pool = empty_state(rules, taken)
    at = 0
    for part in picks:
        pool.assign(np.arange(at, at + part.batch_size), part)
        at += part.batch_size
    if taken < n:  # short of positions (tiny runs): repeat the ones there are
        pool = pool.select(np.arange(n) % taken)
    return pool


def decision_batch(
    rules: Rules, n: int, seed: int = 0, players: Sequence[str] = ("casual",)
) -> Decision:
    """``midgame_states`` as the Decision of the seat to play in each."""
    pool = midgame_states(rules, n, seed, players)
    return Decision(rules=rules, mask=legal_mask(rules, pool), view=player_view(rules, pool))


def agent_speed(
    rules: Rules,
    batch_size: int = 4096,
    seconds: float = 2.0,
    agents: Sequence[str] = HEURISTICS,
    seed: int = 0,
) -> dict:
    """{agent name: {"decisions_per_s", "calls", "seconds", "batch_size"}} timed on one batch.

    Each agent acts on the same batch repeatedly for about ``seconds`` (at least
    one call after a warm-up call).
    """
    decision = decision_batch(rules, batch_size, seed)
    out: dict[str, dict] = {}
    for spec in agents:
        agent = make_agent(spec, rules, seed)
        agent.act(decision)  # warm-up: table building, caches
        calls, start = 0, time.perf_counter()
        while True:
            agent.act(decision)
            calls += 1
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                break
        out[spec] = {
            "decisions_per_s": calls * batch_size / elapsed,
            "calls": calls,
            "seconds": elapsed,
            "batch_size": batch_size,
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m rummy500.eval.agent_speed",
        description="Decisions per second of each agent.",
    )
    parser.add_argument("--agents", nargs="+", default=list(HEURISTICS))
    parser.add_argument("--preset", default="standard")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=4096)
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args(argv)
    rules = Rules.preset_named(args.preset, players=args.players)
    results = agent_speed(rules, args.batch_size, args.seconds, args.agents)
    for name, r in results.items():
        print(
            f"{name:>8}: {r['decisions_per_s']:>12,.0f} decisions/s "
            f"({r['calls']} calls of {r['batch_size']})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
