r"""A warm start for PPO by imitating Sharp: a fresh network fitted to Sharp's choices.

Plays Sharp against Sharp until ``--decisions`` of the first Sharp's decisions are kept
(observation, legal mask, the action it played), fits a fresh network of the
quickstart's shape to them by cross-entropy, and writes a checkpoint that PPO trains on
from (``init_from=PATH``). Every decision kept counts toward the step budget it is
compared at: 250,000 of Sharp's decisions and 749,568 of PPO's make the quickstart's
million::

    python scripts/imitate_sharp.py --decisions 250000 --epochs 10 --out sharp_bc.pt
    rummy500 train --config quickstart init_from=sharp_bc.pt total_steps=750000

The results page records what it gave ("The quickstart's knobs").
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch

from rummy500.agents.base import Decision
from rummy500.agents.registry import make_agent
from rummy500.agents.torch_policy import build_policy
from rummy500.eval.arena import match_games, play_games
from rummy500.train.distill import Labels, fit
from rummy500.train.run_folder import save_checkpoint
from rummy_env.core import Rules, action_layout, check_seed, encode, observation_size


class KeepingSharp:
    """An agent: Sharp, keeping every decision it takes."""

    def __init__(self, rules: Rules, seed: int) -> None:
        self.sharp = make_agent("sharp", rules, seed)
        self.name = "sharp"
        self.obs: list[np.ndarray] = []
        self.mask: list[np.ndarray] = []
        self.action: list[np.ndarray] = []
        self.kept = 0

    def act(self, decision: Decision) -> np.ndarray:
        action = np.asarray(self.sharp.act(decision))
        self.obs.append(encode(decision.rules, decision.view))
        self.mask.append(decision.mask.copy())
        self.action.append(action.copy())
        self.kept += action.shape[0]
        return action


def collect(rules: Rules, decisions: int, seed: int) -> Labels:
    """The first ``decisions`` choices of Sharp against Sharp, as hard labels (each
    decision's one candidate the action Sharp played)."""
    keeper = KeepingSharp(rules, seed)
    rival = make_agent("sharp", rules, seed + 1)
    first_deal = 0
    while keeper.kept < decisions:
        lineups, deals = match_games(2, rules.players, 100, duplicate=True, first_deal=first_deal)
        play_games(
            rules, [keeper, rival], lineups, deals, seed + first_deal, progress=False
        ).raise_if_stopped("the collection")
        first_deal += 50
    obs, mask, action = (
        np.concatenate(part)[:decisions] for part in (keeper.obs, keeper.mask, keeper.action)
    )
    return Labels(
        obs=obs,
        mask=mask,
        action=action,
        proposed=action,
        searched=np.zeros(decisions, bool),
        candidates=action[:, None],
        gains=np.zeros((decisions, 1), np.float32),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decisions", type=int, default=250_000, help="Sharp's decisions kept")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--hidden", type=int, nargs="+", default=[128, 128], help="MLP widths")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", required=True, help="the checkpoint to write")
    args = parser.parse_args(argv)
    if args.decisions < 1000 or args.epochs < 1 or min(args.hidden) < 1:
        parser.error("--decisions must be at least 1000, --epochs and --hidden positive")
    try:
        check_seed(args.seed)
        rules = Rules.preset_named("standard", players=args.players)
    except ValueError as e:
        parser.error(str(e))
    started = time.perf_counter()
    labels = collect(rules, args.decisions, args.seed)
    print(f"imitate_sharp: {args.decisions:,} decisions in {time.perf_counter() - started:.0f} s")
    torch.manual_seed(args.seed)
    policy = build_policy(
        "mlp", rules, observation_size(rules), action_layout(rules).size, hidden=args.hidden
    )
    for row in fit(policy, labels, args.epochs, lr=1e-3, seed=args.seed, held_out=0.05)[1:]:
        agree = row["agree_all"]
        print(f"imitate_sharp: epoch {row['epoch']}: held-out agreement with Sharp {agree:.3f}")
    target = save_checkpoint(
        Path(args.out),
        policy,
        arch="mlp",
        arch_kwargs={"hidden": args.hidden},
        rules=rules,
        config=vars(args),
        global_step=args.decisions,
        extra={"made_by": f"scripts/imitate_sharp.py: {args.decisions} decisions of Sharp"},
    )
    print(f"imitate_sharp: wrote {target}; train on from it with init_from={target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
