"""``rummy500 ladder``: rate agents against each other on one Elo scale.

    rummy500 ladder [--agents AGENT ...] [--no-defaults] --games N --players P
                    --preset NAME [--set FLAG=VALUE ...] --seed S [--out DIR]

Plays a duplicate round robin of random, casual, sharp and expert (plus any
``--agents``: ``expert:worlds=32``, ``ckpt:PATH`` ...; ``--no-defaults`` keeps
only those): every pairing (every group of P agents) plays about ``--games``
games. Prints the ladder (Bradley-Terry ratings with 95% bootstrap intervals,
decisions per second), the head-to-head table and the match report;
``--out DIR`` writes ladder.json, ladder.csv and ladder.md.
"""

from __future__ import annotations

import argparse
import sys

from rummy500.cli import stopped_status
from rummy500.commands.arg_checks import (
    CommandParser,
    bootstrap_count,
    check_output_dir,
    positive_int,
)
from rummy500.commands.rules_args import add_rules_arguments, rules_from_args
from rummy500.commands.seed_args import add_seed_arguments
from rummy500.commands.torch_threads import add_torch_threads_argument, apply_torch_threads
from rummy500.commands.workers_args import add_workers_arguments, workers_from_args
from rummy500.eval.ladder import DEFAULT_AGENTS, ladder_markdown, play_ladder, write_ladder
from rummy500.eval.oracle import ARENA_FORMS, check_arena_spec, make_arena_agent
from rummy500.eval.sealing import match_seeds
from rummy500.eval.shards import agent_seed


def build_parser() -> argparse.ArgumentParser:
    p = CommandParser(
        prog="rummy500 ladder",
        description="Rate agents in a duplicate round robin: Bradley-Terry ratings on the Elo "
        "scale with 95% bootstrap intervals, head to head, decisions per second.",
    )
    p.add_argument(
        "--agents", nargs="+", default=[], metavar="AGENT", help=f"agents to add: {ARENA_FORMS}"
    )
    p.add_argument(
        "--no-defaults",
        action="store_true",
        help=f"rate only --agents, not the defaults ({' '.join(DEFAULT_AGENTS)})",
    )
    p.add_argument(
        "--games",
        type=positive_int,
        default=100,
        help="games per pairing (per group of P agents), default 100; rounded up "
        "to whole cycles of seat orders (at 4 players 24 a group). The default "
        "four agents at 100 games cost about a quarter of an hour of CPU time, "
        "nearly all of it the expert's search, shared among the workers",
    )
    add_rules_arguments(p)
    add_seed_arguments(p, "ladder")
    p.add_argument("--out", metavar="DIR", help="write ladder.json, ladder.csv, ladder.md here")
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
        help="bootstrap resamples for the rating intervals, at least 10 (default 200)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_torch_threads_argument(p)
    add_workers_arguments(p)
    return p


def agent_specs(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[str]:
    """The ladder's agent specs in order, each once, all valid (or a one-line exit)."""
    specs = ([] if args.no_defaults else list(DEFAULT_AGENTS)) + args.agents
    specs = list(dict.fromkeys(s.strip() for s in specs))
    for spec in specs:
        try:
            check_arena_spec(spec)
        except ValueError as e:
            parser.error(str(e))
    if len(specs) < 3:
        parser.error(f"a ladder needs at least three agents, got {len(specs)}")
    return specs


def main(argv: list[str] | None = None) -> int:
    args_in = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = parser.parse_args(args_in)
    check_output_dir(parser, args.out, "--out")
    specs = agent_specs(parser, args)
    rules = rules_from_args(parser, args)
    seeds = match_seeds(specs, args.seed, args.agent_seed)
    try:
        agents = [
            make_arena_agent(spec, rules, agent_seed(seeds.agents, i, 0))
            for i, spec in enumerate(specs)
        ]
    except (ValueError, NotImplementedError) as e:
        parser.error(str(e))
    apply_torch_threads(args.torch_threads)
    for agent, spec in zip(agents, specs):  # the spec as given names the agent
        agent.name = spec
    report = play_ladder(
        rules,
        agents,
        args.games,
        seed=seeds.deal,
        agent_root=seeds.agents,
        batch_size=args.batch_size,
        bootstrap=args.bootstrap,
        progress=not args.no_progress,
        meta={
            "command": "rummy500 ladder " + " ".join(args_in),
            **seeds.report_fields(),
        },
        specs=specs,
        workers=workers_from_args(parser, args),
    )
    if report["stopped"]:
        print(
            f"rummy500 ladder: {report['stopped']}; the ladder stopped after "
            f"{report['meta']['games']:,} finished games, rated below",
            file=sys.stderr,
        )
    print(ladder_markdown(report), end="")
    if args.out:
        try:
            print("wrote " + ", ".join(str(p) for p in write_ladder(report, args.out)))
        except OSError as e:
            print(
                f"rummy500 ladder: cannot write {e.filename or args.out}: "
                f"{e.strerror or e}; the ladder above is whole",
                file=sys.stderr,
            )
            return 1
    return stopped_status(report["stopped"])


if __name__ == "__main__":
    raise SystemExit(main())
