"""``rummy500 play``: a person plays in the terminal against bots.

The screen shows only what the person's seat may see: their hand, sorted; the
spread discard pile with each card's depth (``take d`` takes the top d); the
table melds with who laid each card; hand sizes, known cards, scores and the
stock. Moves are chosen by number or typed as canonical text (``take 3``,
``meld 9C 9H 9S``). Bad input gets a short message and the prompt again; the
game never changes on it. Ctrl-C, Ctrl-D or SIGTERM leaves cleanly, also where
the shell started the program with SIGINT ignored.

The game opens with its variant and rules in words (``rules_words``).
"""

from __future__ import annotations

import select
import signal
import sys
from collections.abc import Callable

import numpy as np

from rummy500.agents.base import Agent
from rummy500.agents.registry import SPEC_FORMS, make_agent
from rummy500.agents.rules_words import counted, game_words, rules_words
from rummy500.commands.arg_checks import CommandParser, check_output_file, seed_number
from rummy500.commands.rules_args import add_rules_arguments, rules_from_args
from rummy500.train.interrupt import STOP_SIGNALS
from rummy_env.core import (
    PHASE_NAMES,
    BatchRecorder,
    Decision,
    Games,
    Rules,
    State,
    action_layout,
    card_text,
    count_texts,
    daily_seed,
    meld_cards,
    player_view,
    write_records,
)


def _cards(counts: np.ndarray) -> str:
    return " ".join(count_texts(counts)) or "-"


def render_for_seat(rules: Rules, state: State, seat: int, names: list[str]) -> str:
    """What ``seat`` sees of game 0, as text (no hidden card appears)."""
    view = player_view(rules, state, np.array([seat]), np.array([0]))
    p = rules.players
    lines = [
        f"--- hand {int(state.hand_number[0]) + 1}, turn {int(state.turn[0]) + 1}, "
        f"{names[int(state.current_player[0])]} to play "
        f"({PHASE_NAMES[int(state.phase[0])]}) ---"
    ]
    for k in range(p):
        s = (seat + k) % p
        known = view.known[0, k]
        extra = f", known to hold {_cards(known)}" if known.any() and k else ""
        lines.append(
            f"  {names[s]:<18} {counted(int(view.hand_sizes[0, k]), 'card'):>8}{extra}   "
            f"total {int(view.totals[0, k]):>5}   "
            f"on table {int(view.table_points[0, k]):>4}"
        )
    size = int(view.pile_size[0])
    pile = "  ".join(f"{card_text(int(view.pile[0, i]))}({size - i})" for i in range(size))
    lines.append(f"  stock: {counted(int(view.stock_size[0]), 'card')}")
    lines.append(f"  discard pile (depth): {pile or '-'}")
    melds = []
    for m in range(int(state.n_melds[0])):
        texts, by = meld_cards(state, 0, m)
        melds.append("    " + "  ".join(f"{t}:{names[b]}" for t, b in zip(texts, by)))
    lines.append("  table:" + ("\n" + "\n".join(melds) if melds else " -"))
    lines.append(f"  your hand: {_cards(view.hand[0])}")
    if int(view.owed[0]) >= 0:
        lines.append(f"  you must meld or lay off {card_text(int(view.owed[0]))} first")
    return "\n".join(lines)


QUIT_WORDS = ("q", "quit", "exit")
"""Answers that leave the game (as Ctrl-D and Ctrl-C do)."""


class Quit(Exception):
    """The person asked to leave the game."""


def read_move(
    legal: list[str], action_ids, ask: Callable[[str], str], say: Callable[[str], None]
) -> int:
    """Ask until the person names a legal move (by number or text); returns its id, or
    raises ``Quit`` on one of ``QUIT_WORDS``."""
    while True:
        answer = ask("your move (number or text, ? for the list, q to quit): ").strip()
        if answer.lower() in QUIT_WORDS:
            raise Quit
        if answer in ("?", "help"):
            say("  " + "  ".join(f"[{i + 1}] {t}" for i, t in enumerate(legal)))
            continue
        if answer.isdigit():  # "12", but also "²" or a thousand digits: read them safely
            k = int(answer) if answer.isascii() and len(answer) <= 6 else 0
            if 1 <= k <= len(legal):
                return action_ids.parse(legal[k - 1])
            say(f"  no move {answer[:12]}: choose 1..{len(legal)}")
            continue
        try:
            action = action_ids.parse(answer)
        except ValueError as e:
            say(f"  {e}")
            continue
        if action_ids.text(action) in legal:
            return action
        say(f"  {action_ids.text(action)!r} is not legal now")


def prompt_line(prompt: str) -> str:
    """``input`` that wakes up four times a second, so Ctrl-C is handled at once even
    when the signal lands on a worker thread (numpy's BLAS threads) rather than ours."""
    print(prompt, end="", flush=True)
    while not select.select([sys.stdin], [], [], 0.25)[0]:
        pass
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line.rstrip("\n")


def play_game(
    rules: Rules,
    opponents: list[Agent],
    seed: int,
    game_id: int = 0,
    seat: int = 0,
    ask: Callable[[str], str] = prompt_line,
    say: Callable[[str], None] = print,
) -> BatchRecorder:
    """Play one game with the person at ``seat``; returns the game's record."""
    p = rules.players
    action_ids = action_layout(rules)
    bots = {
        s: opponents[k % len(opponents)] for k, s in enumerate(x for x in range(p) if x != seat)
    }
    names = ["you" if s == seat else f"{bots[s].name} (seat {s})" for s in range(p)]
    game = Games(rules, 1, seed, deals=[game_id], one_game=True)
    state = game.state
    recorder = BatchRecorder(rules, seed)
    recorder.start(0, game_id, ["human" if s == seat else bots[s].name for s in range(p)])
    say(f"{game_words(rules)} Seed {seed}.")
    say("\n".join(f"  {line}" for line in rules_words(rules)))
    while not state.game_over[0]:
        mask = game.mask()
        actor = int(state.current_player[0])
        if actor == seat:
            say(render_for_seat(rules, state, seat, names))
            legal = [action_ids.text(a) for a in np.flatnonzero(mask[0])]
            say("  moves: " + "  ".join(f"[{i + 1}] {t}" for i, t in enumerate(legal)))
            action = read_move(legal, action_ids, ask, say)
        else:
            view = game.view(np.array([actor]), np.array([0]))
            action = int(bots[actor].act(Decision(rules, mask, view))[0])
            say(f"  {names[actor]}: {action_ids.text(action)}")
        recorder.actions(np.array([0]), np.array([action]))
        game.step(np.array([action]))
        if state.hand_ended[0]:
            say(
                f"*** hand over: scores {state.hand_scores[0].tolist()}, "
                f"totals {state.totals[0].tolist()}"
            )
    recorder.finish(state, np.array([0]))
    winner = int(state.winner[0])
    say(
        "game over: "
        + (f"{names[winner]} won" if winner >= 0 else "no winner (max_hands)")
        + f", totals {state.totals[0].tolist()}"
    )
    return recorder


def _leave(number: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    parser = CommandParser(prog="rummy500 play", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--opponents",
        nargs="+",
        default=["sharp"],
        help=f"bots for the other seats, in order ({SPEC_FORMS}); repeated if there are more seats",
    )
    parser.add_argument(
        "--seed", type=seed_number, default=None, help="deal seed (default: random)"
    )
    parser.add_argument(
        "--daily",
        action="store_true",
        help="today's deal: everyone with the same table size gets it",
    )
    parser.add_argument("--seat", type=int, default=0, help="your seat (0 plays first)")
    parser.add_argument("--record", metavar="FILE", help="append the game to a JSON-lines file")
    add_rules_arguments(parser)
    args = parser.parse_args(argv)
    rules = rules_from_args(parser, args)
    check_output_file(parser, args.record, "--record")
    try:
        if not 0 <= args.seat < rules.players:
            raise ValueError(f"--seat must be in 0..{rules.players - 1}")
        opponents = [make_agent(spec, rules, seed=k) for k, spec in enumerate(args.opponents)]
    except ValueError as e:
        parser.error(str(e))
    seed = (
        daily_seed()[0]
        if args.daily
        else (args.seed if args.seed is not None else int(np.random.default_rng().integers(2**31)))
    )
    for number in STOP_SIGNALS:  # a person's Ctrl-C leaves, whatever the shell ignored
        signal.signal(number, _leave)
    try:
        recorder = play_game(rules, opponents, seed, seat=args.seat)
    except (KeyboardInterrupt, EOFError, Quit):
        print("\nbye")
        return 0
    if args.record:
        write_records(args.record, recorder.done)
        print(f"record appended to {args.record}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
