"""Periodic evaluation of the learner against fixed opponents, through the arena.

Each evaluation plays a duplicate match (every deal with the seats swapped) of
the learner, acting greedily, against one opponent, and reports the learner's
win rate (with its 95% interval, deals as clusters) and its mean points per hand.
"""

from __future__ import annotations

import torch

from rummy500.agents.base import AgentFailure
from rummy500.agents.registry import make_agent
from rummy500.agents.torch_policy import TorchAgent
from rummy500.eval.arena import play_match
from rummy500.eval.report import win_rate_by_deal
from rummy500.eval.shards import Workers
from rummy_env.core import Rules


def evaluate(
    rules: Rules,
    policy: torch.nn.Module,
    opponents: list[str],
    games: int,
    seed: int,
    device: str | torch.device = "cpu",
    workers: int = 1,
) -> dict[str, dict[str, float]]:
    """{opponent: {"win_rate", "win_lo", "win_hi", "points_per_hand", "games"}}; each match
    played by ``workers`` processes (a copy of the learner in each), or in this process."""
    learner = TorchAgent(policy, rules, name="learner", greedy=True, device=device, seed=seed)
    out: dict[str, dict[str, float]] = {}
    was_training = policy.training
    policy.eval()
    for name in opponents:
        try:
            opponent = make_agent(name, rules, seed)
        except ValueError as e:  # an outside agent that does not start
            raise AgentFailure(f"{e}; the training's evaluation stopped") from None
        result = play_match(
            rules,
            [learner, opponent],
            games,
            seed=seed,
            duplicate=True,
            batch_size=min(512, max(games, 2)),
            progress=False,
            specs=[None, name],
            workers=Workers(workers),
        )
        result.raise_if_stopped("the training's evaluation")
        mine = result.lineups == 0  # [G, P] seats the learner held
        points = (result.totals * mine).sum()
        rate, _ = win_rate_by_deal(result, 0)
        out[name] = {
            "win_rate": rate.value,
            "win_lo": rate.lo,
            "win_hi": rate.hi,
            "points_per_hand": float(points / max(1, result.hands.sum())),
            "games": float(result.n_games),
        }
    policy.train(was_training)
    return out
