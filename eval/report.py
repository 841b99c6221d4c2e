"""Match reports: the numbers (``build_report``) and the files (JSON, CSV, Markdown, PNG).

``build_report(match)`` turns a ``MatchResult`` into plain data:

* per agent: games played and won with the 95% Wilson interval, mean points
  per hand with a 95% interval (clustered by game: the hands of one game are
  not independent), mean final total;
* under ``--duplicate``: the win rate's interval clustered by deal, and how much
  narrower it is than the Wilson interval of as many independent games;
* with three or more agents: the head-to-head table (how often the row agent
  finished ahead of the column agent when they met) and Bradley-Terry ratings;
* with ``pcr`` (the point chip ratio): each agent's mean chips per game
  with a 95% interval (``rummy_env.core.chips``; a game without a winner pays 0).

``write_report(report, out_dir)`` writes ``report.json``, ``agents.csv``,
``report.md`` and ``win_rates.png`` (matplotlib, Agg backend).
"""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from rummy500.eval.arena import MatchResult
from rummy500.eval.ratings import pairwise, rate_match
from rummy500.eval.stats import (
    Estimate,
    clustered_win_rate,
    mean_interval,
    ratio_interval,
    win_rate,
)
from rummy_env.core import chips
from rummy_env.core.names import table_cell
from rummy_env.core.records import write_whole


def win_rate_by_deal(match: MatchResult, agent: int) -> tuple[Estimate, float]:
    """(win rate of ``agent`` with its interval counting each deal's games as one cluster,
    design effect): the interval duplicate deals earn
    (``rummy500.eval.stats.clustered_win_rate``)."""
    deals = np.unique(match.deal, return_inverse=True)[1]
    played = (match.lineups == agent).any(axis=1)
    won = np.where(played, (match.winner_agent == agent).astype(np.float64), 0.0)
    return clustered_win_rate(np.bincount(deals, won), np.bincount(deals, played * 1.0))


def build_report(
    match: MatchResult, bootstrap: int = 200, meta: dict | None = None, pcr: int | None = None
) -> dict:
    """All the numbers of a match as JSON-able data (chips per game when ``pcr`` is given)."""
    names = match.agent_names
    k = len(names)
    g = match.n_games
    winner = match.winner_agent
    seats_of = np.stack([(match.lineups == a).sum(axis=1) for a in range(k)], axis=1)  # [G, k]
    points = np.stack(
        [np.where(match.lineups == a, match.totals, 0).sum(axis=1) for a in range(k)], axis=1
    )  # [G, k]
    chips_of = None if pcr is None else agent_chips(match, pcr)  # [G, k]

    agents = []
    for a, name in enumerate(names):
        played = seats_of[:, a] > 0
        wins = int((winner[played] == a).sum())
        rate = win_rate(wins, int(played.sum()))
        pph = ratio_interval(points[played, a], (match.hands * seats_of[:, a])[played])
        row: dict[str, Any] = {
            "agent": name,
            "games": int(played.sum()),
            "wins": wins,
            "win_rate": rate.value,
            "win_lo": rate.lo,
            "win_hi": rate.hi,
            "points_per_hand": pph.value,
            "points_lo": pph.lo,
            "points_hi": pph.hi,
            "hands": pph.n,
            "mean_total": float((points[played, a] / seats_of[played, a]).mean())
            if played.any()
            else float("nan"),
            "decisions": int(match.decisions[a]) if match.decisions.size else 0,
            "ms_per_decision": _per_decision_ms(match, a),
            # The win rate of an agent no better than the others: its share of the seats.
            "even_rate": float((seats_of[played, a] / match.lineups.shape[1]).mean())
            if played.any()
            else float("nan"),
        }
        if match.agent_search and match.agent_search[a] is not None:
            row["search"] = match.agent_search[a]
        if chips_of is not None:
            est = mean_interval(chips_of[played, a])
            row.update(chips_per_game=est.value, chips_lo=est.lo, chips_hi=est.hi)
        if match.duplicate:
            dup, deff = win_rate_by_deal(match, a)
            plain_half = rate.half_width
            row["duplicate"] = {
                "deals": int(np.unique(match.deal[played]).size),
                "win_lo": dup.lo,
                "win_hi": dup.hi,
                "half_width": dup.half_width,
                "plain_half_width": plain_half,
                "narrowing": 1.0 - dup.half_width / plain_half if plain_half > 0 else 0.0,
                "design_effect": deff,
                "equivalent_plain_games": rate.n / deff,
            }
        agents.append(row)

    report: dict[str, Any] = {
        "meta": {
            "agents": names,
            "rules": match.rules.to_dict(),
            "preset": match.rules.preset,
            "players": match.rules.players,
            "seed": match.seed,
            "duplicate": match.duplicate,
            "games": g,
            "deals": int(np.unique(match.deal).size),
            "lineups": int(np.unique(match.lineups, axis=0).shape[0]),
            "truncated": int(match.truncated.sum()),
            "mean_hands": float(match.hands.mean()) if g else float("nan"),
            "seconds": match.seconds,
            "pcr": pcr,
            **(meta or {}),
        },
        "agents": agents,
    }
    if k >= 3:
        score, met = pairwise(match)
        s, m = score.sum(axis=0), met.sum(axis=0)
        table = {}
        for a, na in enumerate(names):
            table[na] = {}
            for b, nb in enumerate(names):
                if a == b or m[a, b] == 0:
                    continue
                est = win_rate(float(s[a, b]), int(m[a, b]))
                table[na][nb] = {"rate": est.value, "lo": est.lo, "hi": est.hi, "games": est.n}
        report["head_to_head"] = table
        report["ratings"] = rate_match(match, bootstrap=bootstrap, seed=match.seed)
    return report


def agent_chips(match: MatchResult, pcr: int) -> np.ndarray:
    """float64 [G, k]: chips each agent won (+) or paid (-) in each game, over its seats."""
    seat_chips = chips(match.totals, match.winner, pcr)  # [G, P]
    return np.stack(
        [
            np.where(match.lineups == a, seat_chips, 0).sum(axis=1)
            for a in range(len(match.agent_names))
        ],
        axis=1,
    ).astype(np.float64)


def _per_decision_ms(match: MatchResult, agent: int) -> float:
    """Mean milliseconds the agent took per decision (nan when it was not timed)."""
    if match.agent_seconds.size == 0 or match.decisions[agent] == 0:
        return float("nan")
    return 1000.0 * float(match.agent_seconds[agent]) / int(match.decisions[agent])


# ----------------------------------------------------------------------------- writers
def pct(x: float) -> str:
    """A rate as a percentage with one decimal (``nan`` when unknown)."""
    return "nan" if x != x else f"{100 * x:.1f}%"


def num(x: float, digits: int = 1) -> str:
    """A number with ``digits`` decimals (``nan`` when unknown)."""
    return "nan" if x != x else f"{x:.{digits}f}"


def search_line(agent: str, search: dict) -> str:
    """One sentence on what a search agent's search did and how finely it judged."""
    return (
        f"{agent} searched {pct(search['searched_share'])} of its decisions and played "
        f"another action than its guide in {pct(search['override_share'])} of those; a "
        f"candidate's gain over the guide's choice, paired world by world, spread by "
        f"{num(search['gain_sd'])} points per world, so {search['worlds']} worlds tell a "
        f"mean gain from noise (two standard errors) from {num(search['resolves'])} points "
        f"up."
    )


def _duplicate_line(meta: dict) -> str:
    """How the deals were played: each in every seating, or (mixed tables) in those of one
    block of seat orders, the blocks in turn."""
    per_deal = meta["games"] // max(meta["deals"], 1)
    if per_deal == meta["lineups"]:
        return f", duplicate: {meta['deals']} deals x {meta['lineups']} seatings"
    return (
        f", duplicate: {meta['deals']} deals x {per_deal} seatings "
        f"({meta['lineups']} seatings in all, one order around each table per deal)"
    )


def markdown(report: dict) -> str:
    """The report as Markdown tables."""
    meta = report["meta"]
    lines = [
        f"## {' vs '.join(map(table_cell, meta['agents']))}: {meta['games']} games, "
        f"{meta['players']} players, preset {meta['preset']}",
        "",
        f"seed {meta['seed']}"
        + (f" (daily deals of {meta['daily']})" if meta.get("daily") else "")
        + (
            f" and agent seed {meta['agent_seed']}, both drawn unseen (sealed: --seed "
            f"{meta['seed']} --agent-seed {meta['agent_seed']} replays it)"
            if meta.get("sealed")
            else ""
        )
        + (_duplicate_line(meta) if meta["duplicate"] else "")
        + f", {meta['mean_hands']:.1f} hands per game, {meta['truncated']} truncated, "
        f"{meta['seconds']:.0f} s",
        "",
        "| agent | games | wins | win rate | 95% CI | points/hand | 95% CI | ms/decision |",
        "| --- | ---: | ---: | ---: | --- | ---: | --- | ---: |",
    ]
    for a in report["agents"]:
        ms = a.get("ms_per_decision", float("nan"))
        lines.append(
            f"| {table_cell(a['agent'])} | {a['games']} | {a['wins']} | {pct(a['win_rate'])} | "
            f"{pct(a['win_lo'])} - {pct(a['win_hi'])} | {num(a['points_per_hand'])} | "
            f"{num(a['points_lo'])} - {num(a['points_hi'])} | "
            + ("nan" if ms != ms else f"{ms:.2f}")
            + " |"
        )
    for a in report["agents"]:
        if "search" in a:
            lines += ["", search_line(a["agent"], a["search"])]
    if meta.get("pcr") is not None:
        lines += [
            "",
            f"Chips per game at PCR {meta['pcr']}: each seat pays the winner "
            "(winner's total - its total) x PCR (mean with a 95% interval).",
            "",
            "| agent | chips/game | 95% CI |",
            "| --- | ---: | --- |",
        ]
        for a in report["agents"]:
            lines.append(
                f"| {table_cell(a['agent'])} | {num(a['chips_per_game'])} | "
                f"{num(a['chips_lo'])} - {num(a['chips_hi'])} |"
            )
    if meta["duplicate"]:
        lines += [
            "",
            "Duplicate deals: the win-rate interval counting each deal's seatings "
            "together (Wilson with n / design effect), against the Wilson interval of as "
            "many independent games.",
            "",
            "| agent | deals | 95% CI by deal | half-width | plain half-width | "
            "narrower by | worth plain games |",
            "| --- | ---: | --- | ---: | ---: | ---: | ---: |",
        ]
        for a in report["agents"]:
            d = a["duplicate"]
            lines.append(
                f"| {table_cell(a['agent'])} | {d['deals']} | "
                f"{pct(d['win_lo'])} - {pct(d['win_hi'])} | "
                f"{pct(d['half_width'])} | {pct(d['plain_half_width'])} | "
                f"{pct(d['narrowing'])} | {d['equivalent_plain_games']:.0f} |"
            )
    if "head_to_head" in report:
        names = meta["agents"]
        lines += [
            "",
            "Head to head: how often the row agent finished ahead of the column "
            "agent (95% Wilson interval).",
            "",
            "| | " + " | ".join(map(table_cell, names)) + " |",
            "| --- |" + " --- |" * len(names),
        ]
        for na in names:
            cells = []
            for nb in names:
                c = report["head_to_head"][na].get(nb)
                cells.append(
                    "-" if c is None else f"{pct(c['rate'])} ({pct(c['lo'])} - {pct(c['hi'])})"
                )
            lines.append(f"| {table_cell(na)} | " + " | ".join(cells) + " |")
        lines += [
            "",
            "Bradley-Terry ratings (Elo scale, mean 1500; 95% bootstrap interval).",
            "",
            "| agent | rating | 95% CI |",
            "| --- | ---: | --- |",
        ]
        for name, r in sorted(report["ratings"].items(), key=lambda kv: -kv[1]["rating"]):
            lines.append(
                f"| {table_cell(name)} | {r['rating']:.0f} | {r['lo']:.0f} - {r['hi']:.0f} |"
            )
    return "\n".join(lines) + "\n"


CSV_FIELDS = (
    "agent",
    "games",
    "wins",
    "win_rate",
    "win_lo",
    "win_hi",
    "points_per_hand",
    "points_lo",
    "points_hi",
    "hands",
    "mean_total",
    "decisions",
    "ms_per_decision",
    "even_rate",
)


def csv_text(report: dict) -> str:
    """agents.csv: one row per agent (plus the duplicate and rating columns when present)."""
    extra = []
    chip_fields = ["chips_per_game", "chips_lo", "chips_hi"]
    if report["meta"].get("pcr") is not None:
        extra += chip_fields
    if report["meta"]["duplicate"]:
        extra += ["dup_win_lo", "dup_win_hi", "dup_narrowing"]
    if "ratings" in report:
        extra += ["rating", "rating_lo", "rating_hi"]
    f = io.StringIO(newline="")
    w = csv.writer(f)
    w.writerow(list(CSV_FIELDS) + extra)
    for a in report["agents"]:
        row = [a[k] for k in CSV_FIELDS]
        if report["meta"].get("pcr") is not None:
            row += [a[k] for k in chip_fields]
        if report["meta"]["duplicate"]:
            d = a["duplicate"]
            row += [d["win_lo"], d["win_hi"], d["narrowing"]]
        if "ratings" in report:
            r = report["ratings"][a["agent"]]
            row += [r["rating"], r["lo"], r["hi"]]
        w.writerow(row)
    return f.getvalue()


def plot_win_rates(report: dict) -> bytes:
    """win_rates.png: each agent's win rate with its 95% interval as error bars."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    agents = report["agents"]
    names = [a["agent"] for a in agents]
    rate = np.array([a["win_rate"] for a in agents])
    err = np.array(
        [
            [a["win_rate"] - a["win_lo"] for a in agents],
            [a["win_hi"] - a["win_rate"] for a in agents],
        ]
    )
    meta = report["meta"]
    fig, ax = plt.subplots(figsize=(1.6 + 1.2 * len(names), 3.6), dpi=120)
    ax.bar(names, rate, yerr=err, capsize=6, color="#4C72B0")
    even = [a.get("even_rate", float("nan")) for a in agents]
    for i, e in enumerate(even):  # what an agent no better than the rest would win
        ax.hlines(e, i - 0.45, i + 0.45, color="grey", lw=0.8, ls="--")
    ax.set_ylim(0, 1.08)
    ax.set_ylabel("games won (95% Wilson CI)")
    ax.set_title(
        f"{meta['games']} games, {meta['players']} players, {meta['preset']}"
        + (", duplicate" if meta["duplicate"] else "")
        + "; dashed: even share",
        fontsize=9,
    )
    for i, a in enumerate(agents):
        ax.text(i, a["win_hi"] + 0.015, f"{100 * rate[i]:.1f}%", ha="center", fontsize=8)
    fig.tight_layout()
    image = io.BytesIO()
    fig.savefig(image, format="png")
    plt.close(fig)
    return image.getvalue()


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (np.floating, float)):
        x = float(x)
        return x if math.isfinite(x) else None
    if isinstance(x, np.integer):
        return int(x)
    return x


def to_json(report: dict) -> str:
    """The report as indented JSON text (numpy numbers made plain, non-finite ones null)."""
    return json.dumps(_jsonable(report), indent=2) + "\n"


def write_report(report: dict, out_dir: str | Path) -> dict[str, Path]:
    """Write report.json, agents.csv, report.md and win_rates.png; their paths by kind.

    Each file is written whole or not at all (``write_whole``): a full disk raises OSError
    and leaves no file cut short. Without matplotlib the picture is left out (no ``png``
    key); the rest is written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    contents = {
        "json": ("report.json", to_json(report).encode()),
        "csv": ("agents.csv", csv_text(report).encode()),
        "md": ("report.md", markdown(report).encode()),
    }
    try:
        contents["png"] = ("win_rates.png", plot_win_rates(report))
    except ImportError:  # matplotlib is the optional [plots] extra
        pass
    return {kind: write_whole(out / name, data) for kind, (name, data) in contents.items()}
