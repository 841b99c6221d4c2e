"""Differential check: the vectorized core against the scalar reference engine.

Both engines play the same seeded games with the same random legal moves; at
every step their legal action sets must be equal and their snapshots (every
card's place, phase, seat, obligation, scores, totals) identical.

    python -m rummy500.commands.differential --preset standard --players 2 --games 2000
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

import numpy as np

from rummy500.commands.arg_checks import CommandParser, positive_int, seed_number
from rummy500.commands.rules_args import add_rules_arguments, rules_from_args
from rummy_env.core import Rules, action_layout, init, legal_mask, snapshot, step_inplace
from rummy_env.reference import ReferenceGame


@dataclass
class DifferentialReport:
    games: int = 0
    steps: int = 0
    hands: int = 0
    disagreements: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.disagreements


def _first_difference(a: dict, b: dict) -> str:
    for key in a:
        if a[key] != b.get(key):
            return f"{key}: core {a[key]!r} != reference {b.get(key)!r}"
    return "?"


def run_differential(
    rules: Rules,
    games: int,
    seed: int = 0,
    max_steps: int = 5000,
    batch_size: int = 256,
    stop_after: int = 5,
) -> DifferentialReport:
    """Play ``games`` games in both engines, batch by batch; collect disagreements."""
    report = DifferentialReport()
    action_ids = action_layout(rules)
    rng = np.random.default_rng(seed)
    for first in range(0, games, batch_size):
        ids = np.arange(first, min(games, first + batch_size))
        state = init(rules, seed, game_ids=ids)
        refs = [ReferenceGame(rules, seed, int(g)) for g in ids]
        live = np.ones(ids.size, bool)
        for _ in range(max_steps):
            mask = legal_mask(rules, state)
            for i in np.flatnonzero(live):
                ours, theirs = snapshot(rules, state, i, mask), refs[i].snapshot()
                if ours != theirs:
                    report.disagreements.append(
                        f"game {ids[i]} step {report.steps}: {_first_difference(ours, theirs)}"
                    )
                    live[i] = False
            live &= ~state.game_over
            if len(report.disagreements) >= stop_after or not live.any():
                break
            noise = rng.random(mask.shape) * mask
            actions = noise.argmax(axis=1)
            step_inplace(rules, state, actions, mask=mask)
            for i in np.flatnonzero(live):
                refs[i].apply(action_ids.text(int(actions[i])))
            report.steps += int(live.sum())
            report.hands += int(state.hand_ended[live].sum())
        report.games += ids.size
        if len(report.disagreements) >= stop_after:
            break
    return report


def main(argv: list[str] | None = None) -> int:
    parser = CommandParser(
        prog="rummy500 difftest",
        description="Play seeded random games in the vectorized core and the scalar reference "
        "engine side by side and report any disagreement in legal actions or state.",
    )
    parser.add_argument("--games", type=positive_int, default=1000)
    parser.add_argument("--seed", type=seed_number, default=0)
    parser.add_argument(
        "--max-hands",
        type=positive_int,
        default=3,
        help="hands per game (keeps random games short; default 3)",
    )
    add_rules_arguments(parser)
    args = parser.parse_args(argv)
    rules = rules_from_args(parser, args, max_hands=args.max_hands)
    report = run_differential(rules, args.games, args.seed)
    print(
        f"{report.games} games, {report.hands} hands, {report.steps} steps: "
        f"{len(report.disagreements)} disagreements"
    )
    for line in report.disagreements:
        print("  " + line)
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
