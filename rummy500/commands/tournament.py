"""``rummy500 tournament``: multi-table tournaments between agents.

    rummy500 tournament --agents sharp*3 casual random ... --table-size 4
                        --tournaments 200 [--preset NAME] [--set FLAG=VALUE ...]
                        [--pcr N] [--seed S | --daily] [--out DIR]

Each entry of ``--agents`` is one entrant; ``NAME*N`` (or a name given N times)
enters an agent N times. Entrants are drawn to tables of at most
``--table-size`` seats; each table plays one game and its winner goes on until
one final table (``eval/tournament.py``). Prints, per agent, the tournaments
won with a 95% interval, the mean finishing round and (``--pcr``) chips per
tournament; ``--out DIR`` writes tournament.json, tournament.csv and
tournament.md. ``--table-size`` sets the seats (``--players`` is not used).
"""

from __future__ import annotations

import argparse
import sys

from tqdm import tqdm

from rummy500.agents.registry import SPEC_FORMS, check_spec, make_agent
from rummy500.commands.arg_checks import (
    CommandParser,
    check_output_dir,
    positive_int,
)
from rummy500.commands.rules_args import add_rules_arguments, rules_from_args
from rummy500.commands.seed_args import add_seed_arguments
from rummy500.commands.workers_args import add_workers_arguments, workers_from_args
from rummy500.eval.sealing import match_seeds
from rummy500.eval.shards import agent_seed
from rummy500.eval.tournament import play_tournaments, round_sizes
from rummy500.eval.tournament_report import (
    build_tournament_report,
    tournament_markdown,
    write_tournament_report,
)
from rummy_env.core import daily_seed

MAX_ENTRANTS = 4096
"""Entrants one command may seat (keeps a typo such as ``sharp*100000`` from running away)."""


def build_parser() -> argparse.ArgumentParser:
    p = CommandParser(
        prog="rummy500 tournament",
        description="Play multi-table tournaments: tables of entrants play one game each, "
        "winners go on to the next round until one final table; reports tournaments "
        "won (95% intervals), mean finishing round and chips.",
    )
    p.add_argument(
        "--agents",
        nargs="+",
        required=True,
        metavar="AGENT",
        help=f"entrants: {SPEC_FORMS}; NAME*N enters N times",
    )
    p.add_argument(
        "--table-size", type=int, default=4, help="most seats at a table, 2-8 (default 4)"
    )
    p.add_argument(
        "--tournaments", type=positive_int, default=100, help="tournaments to play (default 100)"
    )
    add_rules_arguments(p)
    p.add_argument(
        "--pcr",
        type=positive_int,
        metavar="N",
        help="also report chips per tournament at this point chip ratio",
    )
    add_seed_arguments(p, "tournament")
    p.add_argument(
        "--daily", action="store_true", help="seed from today's UTC date (overrides --seed)"
    )
    p.add_argument(
        "--out", metavar="DIR", help="write tournament.json, tournament.csv, tournament.md here"
    )
    p.add_argument(
        "--batch-size",
        type=positive_int,
        default=1024,
        help="games played side by side (default 1024)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_workers_arguments(p)
    return p


def parse_entries(parser: argparse.ArgumentParser, texts: list[str]) -> tuple[list[str], list[int]]:
    """(distinct agent specs in order, agent index of each entrant) from ``--agents``."""
    specs: list[str] = []
    entries: list[int] = []
    for text in texts:
        spec, star, copies = text.strip().rpartition("*")
        if not star:
            spec, copies = copies, "1"
        if not copies.isdigit() or int(copies) < 1:
            parser.error(f"--agents {text!r}: write NAME*N with N >= 1, e.g. sharp*3")
        try:
            check_spec(spec)
        except ValueError as e:
            parser.error(f"--agents {text!r}: {e}")
        if spec not in specs:
            specs.append(spec)
        entries += [specs.index(spec)] * int(copies)
        if len(entries) > MAX_ENTRANTS:
            parser.error(f"--agents: at most {MAX_ENTRANTS} entrants")
    if len(entries) < 2:
        parser.error(f"a tournament needs at least two entrants, got {len(entries)}")
    return specs, entries


def main(argv: list[str] | None = None) -> int:
    args_in = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = parser.parse_args(args_in)
    if not 2 <= args.table_size <= 8:
        parser.error(f"--table-size {args.table_size}: a table seats 2 to 8")
    check_output_dir(parser, args.out, "--out")
    specs, entries = parse_entries(parser, args.agents)
    sizes = {s for rnd in round_sizes(len(entries), args.table_size) for s in rnd}
    rules = rules_from_args(parser, args, players=max(sizes))
    for size in sizes:  # every table's rules must deal (e.g. hand_size fits the deck)
        try:
            rules.replace(players=size)
        except ValueError as e:
            parser.error(f"tables of {size}: {e}")
    day = daily_seed()[1] if args.daily else None
    seeds = match_seeds(specs, daily_seed()[0] if args.daily else args.seed, args.agent_seed)
    seed = seeds.deal

    def make_agents(table_rules):
        agents = [
            make_agent(spec, table_rules, agent_seed(seeds.agents, i, 0))
            for i, spec in enumerate(specs)
        ]
        for agent, spec in zip(agents, specs):
            agent.name = spec
        return agents

    try:
        make_agents(rules)
    except (ValueError, NotImplementedError) as e:
        parser.error(str(e))
    plan = round_sizes(len(entries), args.table_size)
    total_games = args.tournaments * sum(len(r) for r in plan)
    print(
        f"{args.tournaments} tournaments of {len(entries)} entrants: rounds of "
        + " / ".join(f"{len(r)} table(s)" for r in plan)
        + f", {total_games:,} games",
        file=sys.stderr,
    )
    with tqdm(total=total_games, unit="game", desc="tournaments", disable=args.no_progress) as bar:
        result = play_tournaments(
            rules,
            make_agents,
            entries,
            args.table_size,
            args.tournaments,
            seed=seed,
            pcr=args.pcr,
            batch_size=args.batch_size,
            on_games=bar.update,
            specs=specs,
            workers=workers_from_args(parser, args),
            agent_root=seeds.agents,
        )
    report = build_tournament_report(
        result,
        pcr=args.pcr,
        meta={
            "preset": rules.preset,
            "rules": rules.to_dict(),
            "daily": day,
            "command": "rummy500 tournament " + " ".join(args_in),
            **seeds.report_fields(),
        },
    )
    print(tournament_markdown(report), end="")
    if args.out:
        print("wrote " + ", ".join(str(p) for p in write_tournament_report(report, args.out)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
