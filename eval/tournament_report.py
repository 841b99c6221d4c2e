"""Tournament reports: per agent, tournaments won, finishing round and chips (JSON, CSV, MD).

``build_tournament_report(result)`` turns a ``TournamentResult`` into plain data:
per agent, its entries, the tournaments one of its entries won with the 95%
Wilson interval (and the share an agent no better than the rest would win: its
entries / all entries), the mean round its entries finished in (the final round
for a winner) with a 95% interval, and with ``pcr`` its mean chips per
tournament with a 95% interval. ``write_tournament_report`` writes
tournament.json, tournament.csv and tournament.md.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from rummy500.eval.report import num, pct, to_json
from rummy500.eval.stats import mean_interval, win_rate
from rummy500.eval.tournament import TournamentResult
from rummy_env.core.names import table_cell


def build_tournament_report(
    result: TournamentResult, pcr: int | None = None, meta: dict | None = None
) -> dict:
    """All the numbers of a tournament series as JSON-able data."""
    n_t = result.n_tournaments
    winner_agent = result.entries[result.winner]  # [T]
    agents = []
    for a, name in enumerate(result.agent_names):
        mine = result.entries == a
        wins = int((winner_agent == a).sum())
        rate = win_rate(wins, n_t)
        finish = mean_interval(result.finish_round[:, mine])
        row: dict[str, Any] = {
            "agent": name,
            "entries": int(mine.sum()),
            "tournaments": n_t,
            "wins": wins,
            "win_rate": rate.value,
            "win_lo": rate.lo,
            "win_hi": rate.hi,
            "even_rate": float(mine.mean()),
            "mean_finish_round": finish.value,
            "finish_lo": finish.lo,
            "finish_hi": finish.hi,
        }
        if result.chips is not None:
            est = mean_interval(result.chips[:, mine].sum(axis=1))
            row.update(chips_per_tournament=est.value, chips_lo=est.lo, chips_hi=est.hi)
        agents.append(row)
    return {
        "meta": {
            "agents": result.agent_names,
            "entrants": int(result.entries.size),
            "table_size": result.table_size,
            "rounds": result.rounds,
            "tournaments": n_t,
            "games": result.games,
            "truncated": result.truncated,
            "seed": result.seed,
            "pcr": pcr,
            **(meta or {}),
        },
        "agents": agents,
    }


def tournament_markdown(report: dict) -> str:
    """The report as a Markdown table."""
    meta = report["meta"]
    chips = meta["pcr"] is not None
    lines = [
        f"## Tournaments: {meta['tournaments']} x {meta['entrants']} entrants at tables of "
        f"{meta['table_size']}, {meta['rounds']} rounds",
        "",
        f"preset {meta.get('preset', '?')}, seed {meta['seed']}"
        + (f" (daily deals of {meta['daily']})" if meta.get("daily") else "")
        + (
            f" and agent seed {meta['agent_seed']}, both drawn unseen (sealed: --seed "
            f"{meta['seed']} --agent-seed {meta['agent_seed']} replays them)"
            if meta.get("sealed")
            else ""
        )
        + f", {meta['games']} games, {meta['truncated']} truncated",
        "",
        "| agent | entries | won | win rate | 95% CI | even share | mean finish round | 95% CI |"
        + (f" chips/tournament (PCR {meta['pcr']}) | 95% CI |" if chips else ""),
        "| --- | ---: | ---: | ---: | --- | ---: | ---: | --- |"
        + (" ---: | --- |" if chips else ""),
    ]
    for a in report["agents"]:
        lines.append(
            f"| {table_cell(a['agent'])} | {a['entries']} | {a['wins']} | {pct(a['win_rate'])} | "
            f"{pct(a['win_lo'])} - {pct(a['win_hi'])} | {pct(a['even_rate'])} | "
            f"{num(a['mean_finish_round'], 2)} | "
            f"{num(a['finish_lo'], 2)} - {num(a['finish_hi'], 2)} |"
            + (
                f" {num(a['chips_per_tournament'])} | {num(a['chips_lo'])} - {num(a['chips_hi'])} |"
                if chips
                else ""
            )
        )
    return "\n".join(lines) + "\n"


CSV_FIELDS = (
    "agent",
    "entries",
    "tournaments",
    "wins",
    "win_rate",
    "win_lo",
    "win_hi",
    "even_rate",
    "mean_finish_round",
    "finish_lo",
    "finish_hi",
)
CHIP_FIELDS = ("chips_per_tournament", "chips_lo", "chips_hi")


def write_tournament_report(report: dict, out_dir: str | Path) -> list[Path]:
    """Write tournament.json, tournament.csv and tournament.md; their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "tournament.json", out / "tournament.csv", out / "tournament.md"]
    paths[0].write_text(to_json(report))
    fields = CSV_FIELDS + (CHIP_FIELDS if report["meta"]["pcr"] is not None else ())
    with open(paths[1], "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(fields)
        for a in report["agents"]:
            writer.writerow([a[k] for k in fields])
    paths[2].write_text(tournament_markdown(report))
    return paths
