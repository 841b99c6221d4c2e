"""``rummy500 demo``: one game played by random legal moves, printed move by move."""

from __future__ import annotations

import sys

import numpy as np

from rummy500.commands.arg_checks import CommandParser, seed_number
from rummy500.commands.rules_args import add_rules_arguments, rules_from_args
from rummy_env.core import (
    Games,
    Rules,
    action_layout,
    meld_cards,
    sample_legal,
)


def play_demo(rules: Rules, seed: int, out=sys.stdout) -> dict:
    """Play game 0 of ``seed`` with uniform random moves, writing each move to ``out``."""
    rng = np.random.default_rng(seed)
    action_ids = action_layout(rules)
    game = Games(rules, 1, seed, one_game=True)
    state = game.state
    print(f"Rummy 500, {rules.players} players, preset {rules.preset}, seed {seed}", file=out)
    steps = 0
    while not state.game_over[0]:
        action = sample_legal(game.mask(), rng)
        seat, hand = int(state.current_player[0]), int(state.hand_number[0])
        table = [" ".join(meld_cards(state, 0, m)[0]) for m in range(int(state.n_melds[0]))]
        game.step(action)
        steps += 1
        print(f"hand {hand + 1:3d}  seat {seat}: {action_ids.text(int(action[0]))}", file=out)
        if state.hand_ended[0]:
            print(f"  hand over; table was: {' | '.join(table) or '-'}", file=out)
            print(
                f"  hand scores {state.hand_scores[0].tolist()}  totals {state.totals[0].tolist()}",
                file=out,
            )
    result = {
        "steps": steps,
        "hands": int(state.hand_number[0]) + 1,
        "totals": state.totals[0].tolist(),
        "winner": int(state.winner[0]) if state.winner[0] >= 0 else None,
        "truncated": bool(state.truncated[0]),
    }
    print(
        f"game over after {result['hands']} hands and {steps} moves: "
        + (
            f"seat {result['winner']} wins"
            if result["winner"] is not None
            else "stopped at max_hands, no winner"
        ),
        file=out,
    )
    return result


def main(argv: list[str] | None = None) -> int:
    parser = CommandParser(prog="rummy500 demo", description=__doc__.split("\n")[0])
    add_rules_arguments(parser)
    parser.add_argument("--seed", type=seed_number, default=0)
    args = parser.parse_args(argv)
    rules = rules_from_args(parser, args)
    play_demo(rules, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
