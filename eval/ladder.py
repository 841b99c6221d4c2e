"""The rating ladder: a round robin of agents, rated on one Elo scale.

``play_ladder`` seats every group of P agents (every pairing at two seats;
with no more agents than seats, all of them at one table) for about ``games``
duplicate games each, so the luck of the cards cancels, and builds the match
report of ``rummy500.eval.report`` (win rates, the head-to-head table, Bradley-Terry
ratings with bootstrap intervals). On top it adds the ladder itself: the
agents in rating order with their decisions per second. ``ladder_markdown``
and ``write_ladder`` print it and write it (``ladder.json``, ``ladder.csv``,
``ladder.md``).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from pathlib import Path

from rummy500.agents.base import Agent
from rummy500.agents.registry import ANY_RULES
from rummy500.eval.arena import play_match
from rummy500.eval.report import build_report, markdown, to_json
from rummy500.eval.shards import Workers
from rummy_env.core import Rules
from rummy_env.core.names import table_cell
from rummy_env.core.records import write_whole

DEFAULT_AGENTS = ANY_RULES
"""The agents every ladder holds unless told otherwise, weakest first: the built-in ones
that play under every rule set."""

LADDER_FIELDS = (
    "rank",
    "agent",
    "rating",
    "rating_lo",
    "rating_hi",
    "games",
    "win_rate",
    "decisions_per_s",
)


def ladder_games(n_agents: int, players: int, games: int) -> int:
    """Games in all, so that each table group (a pairing at two seats) plays about ``games``."""
    groups = math.comb(n_agents, players) if n_agents > players else 1
    return games * groups


def play_ladder(
    rules: Rules,
    agents: Sequence[Agent],
    games: int,
    seed: int = 0,
    batch_size: int = 1024,
    bootstrap: int = 200,
    progress: bool = True,
    meta: dict | None = None,
    specs: Sequence[str | None] | None = None,
    workers: Workers | None = None,
    agent_root: int | None = None,
) -> dict:
    """The match report of a duplicate round robin, with ``report["ladder"]`` in rating order
    (``specs``, ``workers`` and ``agent_root``: how ``rummy500.eval.arena.play_match`` plays
    it).

    A match that an agent or Ctrl-C stopped is rated on the games finished before, and
    ``report["stopped"]`` says why (None for a whole one); with none finished, the failure
    is raised (``MatchResult.raise_if_stopped``)."""
    if len(agents) < 3:
        raise ValueError("a ladder needs at least three agents")
    total = ladder_games(len(agents), rules.players, games)
    match = play_match(
        rules,
        agents,
        total,
        seed=seed,
        duplicate=True,
        batch_size=batch_size,
        progress=progress,
        specs=specs,
        workers=workers,
        agent_root=agent_root,
    )
    if not match.n_games:
        match.raise_if_stopped("the ladder")
    report = build_report(match, bootstrap=bootstrap, meta=meta)
    report["stopped"] = match.stopped
    by_name = {a["agent"]: a for a in report["agents"]}
    order = sorted(report["ratings"].items(), key=lambda kv: -kv[1]["rating"])
    report["ladder"] = [
        {
            "rank": i + 1,
            "agent": name,
            "rating": r["rating"],
            "rating_lo": r["lo"],
            "rating_hi": r["hi"],
            "games": by_name[name]["games"],
            "win_rate": by_name[name]["win_rate"],
            "decisions_per_s": 1000.0 / by_name[name]["ms_per_decision"],
        }
        for i, (name, r) in enumerate(order)
    ]
    return report


def ladder_markdown(report: dict) -> str:
    """The ladder table (rating order), then the full match report."""
    lines = [
        "## Ladder",
        "",
        "| rank | agent | rating | 95% CI | games | win rate | decisions/s |",
        "| ---: | --- | ---: | --- | ---: | ---: | ---: |",
    ]
    for row in report["ladder"]:
        lines.append(
            f"| {row['rank']} | {table_cell(row['agent'])} | {row['rating']:.0f} | "
            f"{row['rating_lo']:.0f} - {row['rating_hi']:.0f} | {row['games']} | "
            f"{100 * row['win_rate']:.1f}% | {row['decisions_per_s']:.0f} |"
        )
    return "\n".join(lines) + "\n\n" + markdown(report)


def write_ladder(report: dict, out_dir: str | Path) -> list[Path]:
    """Write ladder.json (everything), ladder.csv (the ladder rows) and ladder.md, each whole
    or not at all (``write_whole``: a full disk raises OSError); their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rows = io.StringIO(newline="")
    writer = csv.DictWriter(rows, fieldnames=LADDER_FIELDS)
    writer.writeheader()
    writer.writerows(report["ladder"])
    return [
        write_whole(out / "ladder.json", to_json(report).encode()),
        write_whole(out / "ladder.csv", rows.getvalue().encode()),
        write_whole(out / "ladder.md", ladder_markdown(report).encode()),
    ]
