"""Learning curves at fixed step budgets, from the reports of ``rummy500 eval --out``.

Each folder under EVALS is one checkpoint's match, named ``ARCH_seedS_STEPS`` (e.g.
``cards_seed1_245760``), its ``report.json`` written by ``rummy500 eval --agents
ckpt:PATH OPPONENT --duplicate --out FOLDER``. Prints a Markdown table, a row per
network and seed and a column per budget, of the checkpoint's win rate with its 95%
interval by deal; with ``--png`` also draws the win rate against agent-steps, a line
per run with its intervals::

    python scripts/fixed_budget_curves.py EVALS [--png curves.png]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import NamedTuple

FOLDER = re.compile(r"(?P<arch>[a-z0-9_]+?)_seed(?P<seed>\d+)_(?P<steps>\d+)")


class Point(NamedTuple):
    """One checkpoint's win rate against its opponent, with its interval by deal."""

    steps: int
    win_rate: float
    lo: float
    hi: float
    games: int
    opponent: str


def read_points(evals: Path) -> dict[tuple[str, int], list[Point]]:
    """{(network, seed): points by steps} from every ``ARCH_seedS_STEPS/report.json``."""
    runs: dict[tuple[str, int], list[Point]] = defaultdict(list)
    for report in sorted(evals.glob("*/report.json")):
        name = FOLDER.fullmatch(report.parent.name)
        if name is None:
            continue
        data = json.loads(report.read_text())
        if not data["meta"]["duplicate"]:
            raise ValueError(f"{report} is not a duplicate match: its interval is not by deal")
        player = data["agents"][0]
        runs[name["arch"], int(name["seed"])].append(
            Point(
                int(name["steps"]),
                player["win_rate"],
                player["duplicate"]["win_lo"],
                player["duplicate"]["win_hi"],
                player["games"],
                data["meta"]["agents"][1],
            )
        )
    return {run: sorted(points) for run, points in sorted(runs.items())}


def markdown_table(runs: dict[tuple[str, int], list[Point]]) -> str:
    """A row per (network, seed), a column per budget: ``61.0% (56.0-65.7%)``."""
    budgets = sorted({p.steps for points in runs.values() for p in points})
    rows = [
        "| network | seed | " + " | ".join(f"{s:,} agent-steps" for s in budgets) + " |",
        "| --- | ---: |" + " --- |" * len(budgets),
    ]
    for (arch, seed), points in runs.items():
        at = {p.steps: p for p in points}
        cells = [
            f"{100 * at[s].win_rate:.1f}% ({100 * at[s].lo:.1f}-{100 * at[s].hi:.1f}%)"
            if s in at
            else "-"
            for s in budgets
        ]
        rows.append(f"| `{arch}` | {seed} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def draw(runs: dict[tuple[str, int], list[Point]], png: Path) -> None:
    """Win rate against agent-steps, a line per run, its intervals as error bars."""
    opponents = sorted({p.opponent for points in runs.values() for p in points})
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9.5, 4.8))
    colours = {arch: f"C{i}" for i, arch in enumerate(sorted({a for a, _ in runs}))}
    for n, ((arch, seed), points) in enumerate(runs.items()):
        shift = 1 + 0.015 * (n - len(runs) / 2)  # runs side by side, not on one another
        ax.errorbar(
            [p.steps * shift for p in points],
            [100 * p.win_rate for p in points],
            yerr=[
                [100 * (p.win_rate - p.lo) for p in points],
                [100 * (p.hi - p.win_rate) for p in points],
            ],
            color=colours[arch],
            linestyle="-" if seed == min(s for a, s in runs if a == arch) else "--",
            marker="o",
            capsize=3,
            label=f"{arch}, seed {seed}",
        )
    ax.axhline(50, color="grey", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("agent-steps of training")
    ax.set_ylabel(f"win rate against {' / '.join(opponents)} (%), 95% interval by deal")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("evals", type=Path, help="folder of ARCH_seedS_STEPS eval folders")
    parser.add_argument("--png", type=Path, help="also draw the curves into this PNG")
    args = parser.parse_args(argv)
    if not args.evals.is_dir():
        parser.exit(2, f"fixed_budget_curves: {args.evals} is not a folder\n")
    try:
        runs = read_points(args.evals)
    except (ValueError, KeyError, json.JSONDecodeError) as e:
        parser.exit(2, f"fixed_budget_curves: cannot read a report ({e})\n")
    if not runs:
        parser.exit(2, f"fixed_budget_curves: no ARCH_seedS_STEPS/report.json in {args.evals}\n")
    print(markdown_table(runs))
    if args.png:
        draw(runs, args.png)
        print(f"wrote {args.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
