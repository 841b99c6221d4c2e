"""``rummy500 speed``: throughput of the core (and, when present, the environments and agents).

The core benchmark plays uniformly random legal moves on a batch of games with
auto-reset of finished games, and reports agent-steps/s (one micro-action of one
game), hands/s and the peak memory of the process.
"""

from __future__ import annotations

import functools
import json
import resource
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np

from rummy500.commands.arg_checks import (
    CommandParser,
    positive_float,
    positive_int,
    seed_number,
)
from rummy500.commands.rules_args import add_rules_arguments, rules_from_args
from rummy500.commands.speed_peers import PEERS, bench_peers
from rummy_env.core import Games, Rules, legal_mask, sample_legal

DEFAULT_BATCHES = (1, 64, 1024, 4096)


def peak_memory_mb() -> float:
    """Peak resident memory of this process in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def bench_core(rules: Rules, batch_size: int, seconds: float, seed: int = 0) -> dict:
    """Random legal play through the engine's driver (``Games``: the mask, the step and
    fresh games for finished ones, the tables kept between steps) for ``seconds``."""
    rng = np.random.default_rng(seed)
    games = Games(rules, batch_size, seed, sees="mask")
    legal_mask(rules, games.state)  # build the rules' lookup tables outside the timing
    steps = hands = 0
    start = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds:
        games.step(sample_legal(games.mask(), rng))
        steps += batch_size
        hands += int(games.state.hand_ended.sum())
        games.replace(games.finished())
        elapsed = time.perf_counter() - start
    return {
        "what": "core",
        "preset": rules.preset,
        "players": rules.players,
        "batch_size": batch_size,
        "seconds": round(elapsed, 3),
        "agent_steps_per_s": round(steps / elapsed),
        "hands_per_s": round(hands / elapsed, 1),
        "peak_memory_mb": round(peak_memory_mb(), 1),
    }


def _line(r: dict) -> str:
    what = r.get("what") or r.get("env")
    if "skipped" in r:
        return f"{what:15s} skipped: {r['skipped']}"
    if "ratio" in r:
        rounds = r.get("round_ratios")
        spread = (
            f"; {len(rounds)} rounds: median {statistics.median(rounds):.2f}, "
            f"{min(rounds):.2f}-{max(rounds):.2f}"
            if rounds
            else ""
        )
        return (
            f"{what:15s}      {r['agent_steps_per_s']:>12,.0f} agent-steps/s  "
            f"({r['ratio_of']} is {r['ratio']:.2f}x this, same run{spread})"
        )
    head = f"{what:7s} {r['preset']:9s} P={r['players']}"
    if what == "agents":
        return "\n".join(
            f"{head} B={v['batch_size']:5d}  {name:>8s} {v['decisions_per_s']:>12,.0f} decisions/s"
            for name, v in r["agents"].items()
        )
    batch = f" B={r['batch_size']:5d}" if "batch_size" in r else " B=    1"
    extra = (
        f"  {r['hands_per_s']:>9,.1f} hands/s  peak {r['peak_memory_mb']:,.0f} MiB"
        if what == "core"
        else ""
    )
    if r.get("observations") == "compact":
        extra += "  (compact observations)"
    return f"{head}{batch}  {r['agent_steps_per_s']:>12,.0f} agent-steps/s{extra}"


def against_peers(
    bench_ours: Callable[[float, int], dict],
    peers: str,
    seconds: float,
    seed: int,
    rounds: int,
    ours_name: str,
) -> list[dict]:
    """Our env and then each peer of ``peers``, for ``seconds / rounds`` each, ``rounds``
    times over: on a shared machine the load drifts within seconds, and a ratio taken
    within one round sees the same load on both sides. Each row sums its rounds; each
    peer row has ``ratio`` (our agent-steps/s over the peer's, of the sums; ``ratio_of``
    names our env) and, over several rounds, ``round_ratios``."""
    slice_s = seconds / rounds
    played = [
        (bench_ours(slice_s, seed + r), bench_peers(peers, slice_s, seed + r))
        for r in range(rounds)
    ]
    ours = _summed([mine for mine, _ in played])
    rows = [ours]
    for i in range(len(played[0][1])):
        runs = [theirs[i] for _, theirs in played]
        if any("skipped" in run for run in runs):
            rows.append(runs[0])
            continue
        row = _summed(runs)
        row["ratio"] = ours["agent_steps_per_s"] / row["agent_steps_per_s"]
        row["ratio_of"] = ours_name
        if rounds > 1:
            row["round_ratios"] = [
                round(mine["agent_steps_per_s"] / run["agent_steps_per_s"], 3)
                for (mine, _), run in zip(played, runs)
            ]
        rows.append(row)
    return rows


def _summed(runs: list[dict]) -> dict:
    """One row for several timed runs of one env: steps and seconds added up."""
    row = dict(runs[0])
    for key in ("seconds", "agent_steps", "env_steps", "games_finished"):
        if key in row:
            row[key] = sum(run[key] for run in runs)
    for steps in ("agent_steps", "env_steps"):
        if steps in row:
            row[f"{steps}_per_s"] = row[steps] / row["seconds"]
    return row


def main(argv: list[str] | None = None) -> int:
    parser = CommandParser(
        prog="rummy500 speed",
        description="Measure throughput: random legal games through the vectorized core "
        "(agent-steps/s, hands/s, peak memory), the batched self-play env with "
        "observations, the PettingZoo AEC env, the Gymnasium env, and the baseline agents' "
        "decisions/s.",
    )
    parser.add_argument(
        "--what",
        nargs="+",
        default=["core"],
        choices=["core", "vector", "aec", "gym", "agents"],
        help="what to measure (default: core)",
    )
    parser.add_argument(
        "--batch",
        type=positive_int,
        nargs="+",
        default=list(DEFAULT_BATCHES),
        help="batch sizes for core and vector (default: 1 64 1024 4096)",
    )
    parser.add_argument(
        "--compact",
        action="store_true",
        help="with --what vector: hand out compact observations (uint8 codes "
        "and float32 numbers, widened by the trainer), as rummy500 train does",
    )
    parser.add_argument(
        "--seconds", type=positive_float, default=3.0, help="duration of each measurement"
    )
    parser.add_argument("--seed", type=seed_number, default=0)
    parser.add_argument("--json", action="store_true", help="print JSON lines instead of a table")
    parser.add_argument(
        "--against",
        choices=sorted(PEERS),
        help="with --what aec or gym: also measure peer engines of this game "
        "in the same run and print the ratios (gin: PettingZoo's classic "
        "gin_rummy_v4, RLCard's and OpenSpiel's gin rummy; see speed_peers)",
    )
    parser.add_argument(
        "--rounds",
        type=positive_int,
        default=1,
        help="with --against: split --seconds into this many rounds of our env "
        "then each peer, so that both sides of each ratio see the same load "
        "(default 1)",
    )
    add_rules_arguments(parser)
    args = parser.parse_args(argv)
    rules = rules_from_args(parser, args)
    for what in args.what:
        if what == "core":
            results = [bench_core(rules, b, args.seconds, args.seed) for b in args.batch]
        elif what == "vector":
            from .speed_envs import bench_vector

            results = [
                bench_vector(rules, b, args.seconds, args.seed, args.compact) for b in args.batch
            ]
        elif what in ("aec", "gym"):
            from .speed_envs import bench_aec, bench_gym

            bench_one_game = bench_aec if what == "aec" else bench_gym
            if args.against:
                results = against_peers(
                    functools.partial(bench_one_game, rules),
                    args.against,
                    args.seconds,
                    args.seed,
                    args.rounds,
                    what,
                )
            else:
                results = [bench_one_game(rules, args.seconds, args.seed)]
        else:
            from rummy500.eval.agent_speed import agent_speed

            batch = max(args.batch)
            results = [
                {
                    "what": "agents",
                    "preset": rules.preset,
                    "players": rules.players,
                    "agents": agent_speed(rules, batch, args.seconds, seed=args.seed),
                }
            ]
        for r in results:
            print(json.dumps(r) if args.json else _line(r), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
