"""Multi-table tournaments: the bracket, the report and the ``rummy500 tournament`` program."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rummy500.agents.random_agent import RandomAgent
from rummy500.eval.tournament import play_tournaments, round_sizes, table_sizes
from rummy500.eval.tournament_report import build_tournament_report
from rummy_env.core import Rules

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(
    "entrants, size, want",
    [
        (2, 4, [2]),
        (4, 4, [4]),
        (5, 4, [3, 2]),
        (9, 4, [3, 3, 3]),
        (11, 4, [4, 4, 3]),
        (8, 2, [2, 2, 2, 2]),
        (5, 2, [3, 2]),
        (3, 2, [3]),
    ],
)
def test_tables_are_few_and_even(entrants: int, size: int, want: list[int]) -> None:
    assert table_sizes(entrants, size) == want
    assert min(want) >= 2 and max(want) - min(want) <= 1


def test_rounds_end_at_one_final_table() -> None:
    assert round_sizes(11, 4) == [[4, 4, 3], [3]]
    assert round_sizes(16, 2) == [[2] * 8, [2] * 4, [2, 2], [2]]


def random_agents(rules: Rules) -> list[RandomAgent]:
    agents = [RandomAgent(seed=1), RandomAgent(seed=2)]
    agents[0].name, agents[1].name = "random#a", "random#b"
    return agents


def test_bracket_seats_everyone_once_and_advances_table_winners() -> None:
    entries = [0] * 6 + [1] * 5  # 11 entrants, two agents with several entries each
    rules = Rules(game_hands=1)
    result = play_tournaments(
        rules, random_agents, entries, table_size=4, tournaments=6, seed=4, pcr=2
    )
    plan = round_sizes(11, 4)
    assert result.rounds == len(plan) and result.games == 6 * sum(len(r) for r in plan)
    for t in range(6):
        alive = np.arange(11)
        for r, sizes in enumerate(plan):
            seated = result.seated[t, r]
            # Every entrant still in sits at exactly one table; nobody else sits.
            assert sorted(np.flatnonzero(seated >= 0).tolist()) == sorted(alive.tolist())
            assert np.bincount(seated[seated >= 0], minlength=len(sizes)).tolist() == sizes
            winners = result.table_winner[r][t]
            assert winners.size == len(sizes)  # one winner per table
            assert [seated[w] for w in winners] == list(range(len(sizes)))
            knocked = np.setdiff1d(alive, winners)
            assert (result.finish_round[t, knocked] == r + 1).all()
            alive = winners
        assert alive.tolist() == [result.winner[t]]  # the final table's winner
        assert result.finish_round[t, result.winner[t]] == len(plan)
    assert result.chips is not None and (result.chips.sum(axis=1) == 0).all()
    report = build_tournament_report(result, pcr=2)
    assert sum(a["wins"] for a in report["agents"]) == 6
    assert [a["entries"] for a in report["agents"]] == [6, 5]


def test_the_same_seed_draws_the_same_tournaments() -> None:
    rules = Rules(game_hands=1)
    runs = [play_tournaments(rules, random_agents, [0, 1, 0, 1, 0], 2, 3, seed=9) for _ in range(2)]
    np.testing.assert_array_equal(runs[0].seated, runs[1].seated)


def test_cli_writes_the_report_files(tmp_path: Path) -> None:
    out = tmp_path / "tour"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "rummy500.commands.tournament",
            "--agents",
            "random",
            "casual*3",
            "--table-size",
            "2",
            "--tournaments",
            "2",
            "--set",
            "game_hands=1",
            "--pcr",
            "1",
            "--no-progress",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "| casual | 3 |" in done.stdout
    report = json.loads((out / "tournament.json").read_text())
    assert report["meta"]["entrants"] == 4 and report["meta"]["rounds"] == 2
    assert "chips_per_tournament" in (out / "tournament.csv").read_text().splitlines()[0]
    assert (out / "tournament.md").read_text().startswith("## Tournaments")


@pytest.mark.parametrize(
    "args",
    [
        ["--agents", "random"],
        ["--agents", "random*0", "casual"],
        ["--agents", "random", "nobody"],
        ["--agents", "random", "casual", "--table-size", "1"],
        ["--agents", "random", "casual", "--tournaments", "0"],
        ["--agents", "random", "casual", "--set", "dig_swap=true"],
    ],
)
def test_cli_refuses_bad_arguments_in_one_line(args: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "rummy500.commands.tournament", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and done.stderr.strip().count("\n") <= 1
