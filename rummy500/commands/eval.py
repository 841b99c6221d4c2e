"""``rummy500 eval``: play a fair match between agents and report win rates with intervals.

    rummy500 eval --agents sharp casual [random] [ckpt:PATH ...] --games N --players P
                  --preset NAME --seed S [--duplicate] [--daily] [--pcr N] [--out DIR]
    python -m rummy500.commands.eval ...      (the same)

Seats rotate so every agent sits in every seat equally often (with more agents
than seats, every group of P agents plays); the game count is rounded up to
whole rotations. ``--duplicate`` plays every deal once per seating so the luck
of the cards cancels, and reports how much that narrows the interval.
A match that seats a ``cmd:`` agent is sealed (``rummy500.eval.sealing``): its deal
seed and the agents' seeds are drawn unseen and printed with the report, and
``--seed S --agent-seed R`` replays it.
``--daily`` seeds the deals from today's UTC date: everyone who runs it today
with the same rules and table size gets the same deals. ``--pcr N`` adds each
agent's chips per game (the point chip ratio). The Markdown table is
printed; ``--out DIR`` also writes report.json, agents.csv, report.md and
win_rates.png; ``--record FILE`` appends every game as a replayable JSON line.
"""

from __future__ import annotations

import argparse
import sys

from rummy500.cli import stopped_status
from rummy500.commands.arg_checks import (
    CommandParser,
    bootstrap_count,
    check_output_dir,
    check_output_file,
    positive_int,
)
from rummy500.commands.rules_args import add_rules_arguments, rules_from_args
from rummy500.commands.seed_args import add_seed_arguments
from rummy500.commands.torch_threads import add_torch_threads_argument, apply_torch_threads
from rummy500.commands.workers_args import add_workers_arguments, workers_from_args
from rummy500.eval.arena import distinct_names, match_games, play_match, seating_plan
from rummy500.eval.oracle import ARENA_FORMS, make_arena_agent
from rummy500.eval.report import build_report, markdown, write_report
from rummy500.eval.sealing import match_seeds
from rummy500.eval.shards import agent_seed
from rummy_env.core import BatchRecorder, daily_seed


def build_parser() -> argparse.ArgumentParser:
    p = CommandParser(
        prog="rummy500 eval",
        description="Play a fair match between agents (whole games to the target) and report "
        "win rates and points per hand with 95% intervals.",
    )
    p.add_argument(
        "--agents",
        nargs="+",
        required=True,
        metavar="AGENT",
        help=f"agents: {ARENA_FORMS} (at least two; sharp sharp plays Sharp against itself)",
    )
    p.add_argument(
        "--games",
        type=positive_int,
        default=200,
        help="games to play, rounded up to whole seat rotations (default 200)",
    )
    add_rules_arguments(p)
    add_seed_arguments(p, "match")
    p.add_argument(
        "--duplicate",
        action="store_true",
        help="play every deal once per seating so card luck cancels",
    )
    p.add_argument(
        "--daily",
        action="store_true",
        help="seed the deals from today's UTC date (overrides --seed)",
    )
    p.add_argument(
        "--pcr",
        type=positive_int,
        metavar="N",
        help="also report chips per game at this point chip ratio",
    )
    p.add_argument(
        "--out", metavar="DIR", help="write report.json, agents.csv, report.md, win_rates.png here"
    )
    p.add_argument(
        "--record",
        metavar="FILE",
        help="append every game to a JSON-lines file (replay: rummy500 replay FILE)",
    )
    p.add_argument(
        "--batch-size",
        type=positive_int,
        default=1024,
        help="games played side by side (default 1024)",
    )
    p.add_argument(
        "--bootstrap",
        type=bootstrap_count,
        default=200,
        help="bootstrap resamples for the ratings, at least 10 (default 200)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_torch_threads_argument(p)
    add_workers_arguments(p)
    return p


def main(argv: list[str] | None = None) -> int:
    args_in = list(sys.argv[1:] if argv is None else argv)
    if args_in[:1] == ["eval"]:  # called as `rummy500 eval ...` with the subcommand kept
        args_in = args_in[1:]
    parser = build_parser()
    args = parser.parse_args(args_in)
    if len(args.agents) < 2:  # one agent in every seat wins every game: no measurement
        parser.error(
            f"--agents: name at least two agents (e.g. {args.agents[0]} sharp, or "
            f"{args.agents[0]} {args.agents[0]} against itself)"
        )
    rules = rules_from_args(parser, args)
    check_output_file(parser, args.record, "--record")
    check_output_dir(parser, args.out, "--out")
    workers = workers_from_args(parser, args)
    day = daily_seed()[1] if args.daily else None
    seeds = match_seeds(args.agents, daily_seed()[0] if args.daily else args.seed, args.agent_seed)
    seed = seeds.deal
    try:
        agents = [
            make_arena_agent(spec, rules, agent_seed(seeds.agents, i, 0))
            for i, spec in enumerate(args.agents)
        ]
    except (ValueError, NotImplementedError) as e:
        print(f"rummy500 eval: {e}", file=sys.stderr)
        return 2
    apply_torch_threads(args.torch_threads)
    kinds = [spec.strip().lower() for spec in args.agents]  # one spec seats as one player
    distinct_names(agents, args.agents)
    lineups, _ = match_games(len(agents), rules.players, args.games, args.duplicate, kinds=kinds)
    print(
        f"playing {len(lineups):,} games ({len(seating_plan(len(agents), rules.players, kinds))}"
        f" seatings{', duplicate deals' if args.duplicate else ''})"
        f"{'' if args.no_progress else '; the progress bar shows the time left'}",
        file=sys.stderr,
    )
    recorder = BatchRecorder(rules, seed, args.record) if args.record else None
    match = play_match(
        rules,
        agents,
        args.games,
        seed=seed,
        duplicate=args.duplicate,
        batch_size=args.batch_size,
        progress=not args.no_progress,
        recorder=recorder,
        kinds=kinds,
        specs=args.agents,
        workers=workers,
        agent_root=seeds.agents,
    )
    if recorder is not None and recorder.failed:
        print(
            f"rummy500 eval: --record: {recorder.failed}; the {recorder.written:,} games "
            "recorded before are whole in it, and the report below counts every game",
            file=sys.stderr,
        )
    elif recorder is not None:
        print(f"appended {recorder.written} game records to {args.record}")
    if match.stopped:
        print(
            f"rummy500 eval: {match.stopped}; the match stopped after {match.n_games:,} "
            "finished games" + (", reported below" if match.n_games else ""),
            file=sys.stderr,
        )
        if not match.n_games:
            return stopped_status(match.stopped)
    command = "rummy500 eval " + " ".join(args_in)
    report = build_report(
        match,
        bootstrap=args.bootstrap,
        meta={"daily": day, "command": command, **seeds.report_fields()},
        pcr=args.pcr,
    )
    print(markdown(report), end="")
    if args.out:
        try:
            paths = write_report(report, args.out)
        except OSError as e:
            print(
                f"rummy500 eval: --out: cannot write {e.filename or args.out}: "
                f"{e.strerror or e}; each file there is whole or absent, and the report "
                "above is whole",
                file=sys.stderr,
            )
            return stopped_status(match.stopped) or 1
        print("wrote " + ", ".join(str(p) for p in paths.values()))
        if "png" not in paths:
            print(
                "win_rates.png skipped: matplotlib is not installed "
                "(pip install matplotlib, or the [plots] extra)"
            )
    if recorder is not None and recorder.failed:
        return stopped_status(match.stopped) or 1
    return stopped_status(match.stopped)


if __name__ == "__main__":
    raise SystemExit(main())
