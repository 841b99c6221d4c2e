"""``rummy500 benchmark AGENT``: rate one agent under the benchmark protocol.

    rummy500 benchmark AGENT [--players 2|4] [--quick] [--json] [--out DIR]

Plays AGENT (any agent spec) against the protocol's pinned references on its
sealed deals (``rummy500.eval.benchmark``: protocol ``rummy500-bench/2`` at two
seats, ``rummy500-bench-4p/3`` at four) and prints the report card: the table of
matches, the rating with its interval and a one-line summary to quote. ``--json``
prints one JSON line instead; ``--out DIR`` also writes benchmark.json and
benchmark.md.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from rummy500.agents.registry import SPEC_FORMS, make_agent
from rummy500.cli import stopped_status
from rummy500.commands.arg_checks import (
    CommandParser,
    check_output_dir,
    positive_int,
    seed_number,
)
from rummy500.commands.torch_threads import add_torch_threads_argument, apply_torch_threads
from rummy500.commands.workers_args import add_workers_arguments, workers_from_args
from rummy500.eval.benchmark import TRACKS, benchmark, card_markdown, track_for
from rummy500.eval.report import to_json
from rummy500.eval.sealing import MatchSeeds
from rummy_env.core.records import write_whole


def main(argv: list[str] | None = None) -> int:
    parser = CommandParser(
        prog="rummy500 benchmark",
        description="Rate an agent under the fixed benchmark protocol: duplicate standard "
        "games against pinned references at their pinned ratings, "
        + "; ".join(
            f"{p} players: {t.protocol}, against {', '.join(t.pinned)}" for p, t in TRACKS.items()
        )
        + ".",
    )
    parser.add_argument("agent", help=f"the agent to rate ({SPEC_FORMS})")
    parser.add_argument(
        "--players",
        type=positive_int,
        default=2,
        metavar="P",
        help=f"the track: seats at the table, {' or '.join(map(str, TRACKS))} (default 2)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="the quick level: "
        + ", ".join(
            f"{t.levels['quick'].games} games a table instead of {t.levels['full'].games} "
            f"at {p} seats"
            for p, t in TRACKS.items()
        )
        + ": a check, not a measurement (at two seats about half a minute on 2 cores, the "
        "expert's games most of it, one shard that a second worker does not shorten; "
        "longer on a busy machine)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON line, no table")
    parser.add_argument(
        "--seed",
        type=seed_number,
        metavar="S",
        help="replay a card: its deal seed (default: drawn unseen, sealed)",
    )
    parser.add_argument(
        "--agent-seed",
        type=seed_number,
        metavar="R",
        help="replay a card: its agent seed (with --seed)",
    )
    parser.add_argument("--out", metavar="DIR", help="also write benchmark.json and benchmark.md")
    parser.add_argument(
        "--batch-size",
        type=positive_int,
        default=512,
        help="games played side by side (default 512)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    add_torch_threads_argument(parser)
    add_workers_arguments(parser)
    args = parser.parse_args(argv)
    if (args.seed is None) != (args.agent_seed is None):
        parser.error(
            "--seed and --agent-seed replay a card together: give both (a card "
            "prints them), or neither for a sealed run"
        )
    try:
        track = track_for(args.players)
    except ValueError as e:
        parser.error(str(e))
    check_output_dir(parser, args.out, "--out")
    try:
        agent = make_agent(args.agent, track.rules, seed=1)
    except (ValueError, NotImplementedError) as e:
        parser.error(str(e))
    agent.name = args.agent.strip()
    apply_torch_threads(args.torch_threads)
    level = "quick" if args.quick else "full"
    card = benchmark(
        agent,
        level,
        batch_size=args.batch_size,
        progress=not args.no_progress,
        spec=args.agent,
        workers=workers_from_args(parser, args),
        seeds=None if args.seed is None else MatchSeeds(args.seed, args.agent_seed, sealed=False),
        track=track,
    )
    if card["stopped"]:
        print(
            f"rummy500 benchmark: {card['stopped']}; the benchmark stopped during the match "
            f"against {card['stopped_during']}",
            file=sys.stderr,
        )
    if args.json:
        print(json.dumps(json.loads(to_json(card)), separators=(",", ":")))
    else:
        print(card_markdown(card), end="")
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        try:
            write_whole(out / "benchmark.json", to_json(card).encode())
            write_whole(out / "benchmark.md", card_markdown(card).encode())
        except OSError as e:
            print(
                f"rummy500 benchmark: cannot write {e.filename or out}: {e.strerror or e}; "
                "the card above is whole",
                file=sys.stderr,
            )
            return 1
        if not args.json:
            print(f"wrote {out / 'benchmark.json'}, {out / 'benchmark.md'}")
    return stopped_status(card["stopped"])


if __name__ == "__main__":
    sys.exit(main())
