"""The arena, the statistics against known values, the ratings, and the eval CLI end to end."""

from __future__ import annotations

import csv
import datetime as dt
import itertools
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rummy500.agents.registry import make_agent
from rummy500.commands.eval import main
from rummy500.eval.agent_speed import agent_speed
from rummy500.eval.arena import MatchResult, match_games, play_games, play_match, seating_plan
from rummy500.eval.ratings import bradley_terry, rate_match, to_elo
from rummy500.eval.report import build_report, markdown
from rummy500.eval.stats import (
    clustered_win_rate,
    mean_interval,
    ratio_interval,
    t_quantile,
    wilson,
)
from rummy_env.core import Rules, daily_seed

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


# ----------------------------------------------------------------------------- statistics
@pytest.mark.parametrize(
    "k, n, lo, hi",
    [
        (8, 10, 0.4902, 0.9433),
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
        (50, 100, 0.4038, 0.5962),
        (1, 20, 0.0089, 0.2361),
        (600, 1000, 0.5693, 0.6299),
    ],
)
def test_wilson_known_values(k, n, lo, hi):
    got = wilson(k, n)
    assert got == pytest.approx((lo, hi), abs=1e-4)


def test_wilson_no_games():
    assert wilson(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize(
    "dof, exact", [(3, 3.18245), (4, 2.77645), (10, 2.22814), (30, 2.04227), (1000, 1.96234)]
)
def test_t_quantile(dof, exact):
    assert t_quantile(dof) == pytest.approx(exact, rel=2e-3)


def test_mean_interval_known_values():
    est = mean_interval([1, 2, 3, 4, 5])
    # mean 3, sd sqrt(2.5), t(4) = 2.776445: half width 1.963243
    assert est.value == 3.0
    assert (est.lo, est.hi) == pytest.approx((3 - 1.963243, 3 + 1.963243), rel=2e-3)
    assert est.n == 5


def test_ratio_interval_with_one_unit_per_cluster_is_the_mean_interval():
    rng = np.random.default_rng(0)
    x = rng.normal(50, 20, 400)
    a = ratio_interval(x, np.ones_like(x))
    b = mean_interval(x)
    assert (a.value, a.lo, a.hi) == pytest.approx((b.value, b.lo, b.hi))


def test_ratio_interval_counts_clusters_not_units():
    # Ten games of 5 hands each: identical hands within a game carry one game's evidence.
    per_game = np.arange(10.0)
    a = ratio_interval(per_game * 5, np.full(10, 5))
    b = mean_interval(per_game)
    assert a.value == pytest.approx(b.value)
    assert a.hi - a.lo == pytest.approx(b.hi - b.lo)
    assert a.n == 50


def test_clustered_win_rate_narrows_when_deals_split():
    # Every deal split 1-1 between the seatings: far less spread than independent games.
    est, deff = clustered_win_rate(np.ones(100), np.full(100, 2))
    lo, hi = wilson(100, 200)
    assert est.value == 0.5 and deff < 1
    assert est.hi - est.lo < hi - lo
    # Every deal won twice or lost twice: wider than independent games.
    wins = np.repeat([0.0, 2.0], 50)
    est, deff = clustered_win_rate(wins, np.full(100, 2))
    assert deff == pytest.approx(2 * 100 / 99)
    assert est.hi - est.lo > hi - lo


def test_bradley_terry_recovers_odds():
    s = bradley_terry(np.array([[0, 75.0], [25, 0]]), np.array([[0, 100.0], [100, 0]]), prior=0)
    assert s[0] / s[1] == pytest.approx(3.0, rel=1e-6)
    elo = to_elo(s)
    assert elo.mean() == pytest.approx(1500)
    assert elo[0] - elo[1] == pytest.approx(400 * np.log10(3), rel=1e-6)


def test_bradley_terry_stays_finite_on_a_clean_sweep():
    s = bradley_terry(np.array([[0, 10.0], [0, 0]]), np.array([[0, 10.0], [10, 0]]))
    assert np.isfinite(s).all() and s[0] > s[1]


def sweep_match(games: int, first_wins: int, duplicate: bool) -> MatchResult:
    """Two agents, ``games`` games (two per deal), agent 0 winning the first ``first_wins``."""
    lineups = np.tile([[0, 1], [1, 0]], (games // 2, 1))
    won = np.arange(games) < first_wins  # whether agent 0 won game g
    seat_of_0 = np.where(lineups[:, 0] == 0, 0, 1)
    winner = np.where(won, seat_of_0, 1 - seat_of_0)
    totals = np.full((games, 2), 300, np.int32)
    totals[np.arange(games), winner] = 500
    return MatchResult(
        ["a", "b"],
        Rules(),
        0,
        duplicate,
        lineups,
        np.arange(games) // 2,
        totals,
        winner,
        np.zeros(games, bool),
        np.ones(games, np.int64),
    )


@pytest.mark.parametrize("duplicate", [True, False])
def test_a_clean_sweep_of_few_games_is_not_rated_exactly(duplicate):
    """Every resampled deal of a sweep is the same sweep; the interval must still show doubt."""
    ratings = rate_match(sweep_match(8, 8, duplicate), bootstrap=200)
    winner, loser = ratings["a"], ratings["b"]
    assert winner["rating"] > loser["rating"]
    # open on both sides, widest on the sweep's far side, where the data sets no bound
    assert winner["lo"] < winner["rating"] - 50 and winner["hi"] > winner["rating"] + 200
    assert loser["hi"] > loser["rating"] + 50 and loser["lo"] < loser["rating"] - 200


def test_one_deal_split_evenly_is_not_rated_exactly():
    """One duplicate deal is one cluster: every resample is the same deal."""
    for r in rate_match(sweep_match(2, 1, True), bootstrap=50).values():
        assert r["hi"] - r["lo"] > 100 and r["lo"] < r["rating"] < r["hi"]


def test_rating_intervals_narrow_as_games_grow():
    few = rate_match(sweep_match(20, 14, False), bootstrap=200)["a"]
    many = rate_match(sweep_match(2000, 1400, False), bootstrap=200)["a"]
    assert many["hi"] - many["lo"] < (few["hi"] - few["lo"]) / 4
    assert many["lo"] < many["rating"] < many["hi"]


# ----------------------------------------------------------------------------- seating
@pytest.mark.parametrize(
    "k, players", [(1, 2), (2, 2), (2, 3), (3, 2), (3, 3), (3, 5), (4, 3), (2, 8)]
)
def test_seating_plan_is_fair(k, players):
    plan = seating_plan(k, players)
    assert plan.shape[1] == players
    assert len({tuple(r) for r in plan}) == plan.shape[0]
    # Every agent holds every seat equally often.
    counts = np.stack([(plan == a).sum(axis=0) for a in range(k)])
    assert (counts == counts[0, 0]).all()
    # Every pair of agents shares a table equally often.
    if k >= 2:
        meet = [
            ((plan == a).any(axis=1) & (plan == b).any(axis=1)).sum()
            for a, b in itertools.combinations(range(k), 2)
        ]
        assert len(set(meet)) == 1 and meet[0] > 0
        # ... and each sits right after each other equally often (it takes their discards).
        follows = np.zeros((k, k), int)
        np.add.at(follows, (plan, np.roll(plan, -1, axis=1)), 1)
        assert len(set(follows[~np.eye(k, dtype=bool)].tolist())) == 1


@pytest.mark.parametrize("k, players", [(3, 3), (4, 4), (5, 4), (3, 4)])
def test_duplicate_deals_seat_everyone_everywhere_and_orders_come_in_turn(k, players):
    """Each deal of a mixed table is played in every rotation of one seat order, and the
    orders take turns deal by deal until each agent has followed each other equally."""
    lineups, deals = match_games(k, players, games=1, duplicate=True)
    assert len(np.unique(deals)) > 1  # more than one order: more than one block
    for d in np.unique(deals):
        block = lineups[deals == d]
        counts = np.stack([(block == a).sum(axis=0) for a in range(k)])
        assert (counts == counts[:, :1]).all()  # every agent equally in every seat
    follows = np.zeros((k, k), int)
    np.add.at(follows, (lineups, np.roll(lineups, -1, axis=1)), 1)
    assert len(set(follows[~np.eye(k, dtype=bool)].tolist())) == 1


def test_the_order_agents_are_listed_in_plays_the_same_games():
    """Listing ``champion sharp casual random`` in another order deals the same deals to
    the same seatings of the same players (the seat order used to follow the list, and
    the champion won 53% or 89% of the same games by where it was listed)."""
    specs = ["champion", "sharp", "casual", "random", "expert"]
    for k, players in [(4, 4), (5, 4), (4, 3)]:
        played = []
        for order in [(0, 1, 2, 3, 4), (4, 3, 2, 1, 0), (2, 0, 4, 3, 1)]:
            listed = [specs[i] for i in order if i < k]
            lineups, deals = match_games(k, players, 48, duplicate=True, kinds=listed)
            played.append(
                sorted(
                    (int(d), tuple(listed[a] for a in lineup)) for lineup, d in zip(lineups, deals)
                )
            )
        assert played[0] == played[1] == played[2]


def test_a_mixed_table_report_says_how_each_deal_was_seated():
    rules = Rules.from_dict({"players": 3, "target": 50})
    agents = [make_agent(spec, rules, i) for i, spec in enumerate(["casual", "sharp", "random"])]
    match = play_match(rules, agents, 12, seed=4, duplicate=True, progress=False)
    assert match.n_games == 12 and len(np.unique(match.deal)) == 4
    text = markdown(build_report(match, bootstrap=10))
    assert "duplicate: 4 deals x 3 seatings (6 seatings in all" in text


def test_copies_of_one_agent_do_not_multiply_the_seatings():
    """``champion sharp sharp sharp``: the four places of the champion, as before."""
    plan = seating_plan(4, 4, kinds=["champion", "sharp", "sharp", "sharp"])
    assert sorted(map(tuple, plan.tolist())) == sorted(
        [(0, 1, 2, 3), (3, 0, 1, 2), (2, 3, 0, 1), (1, 2, 3, 0)]
    )
    assert len(seating_plan(4, 4, kinds=["champion", "sharp", "casual", "casual"])) == 12
    assert len(seating_plan(4, 4)) == 24


def test_duplicate_match_plays_every_deal_in_every_seating():
    lineups, deals = match_games(2, 2, games=9, duplicate=True)
    assert len(deals) == 10  # rounded up to whole rotations
    for d in np.unique(deals):
        assert sorted(map(tuple, lineups[deals == d])) == [(0, 1), (1, 0)]
    lineups, deals = match_games(2, 2, games=10, duplicate=False)
    assert len(np.unique(deals)) == 10


# ----------------------------------------------------------------------------- arena
def test_arena_plays_games_to_the_end_reproducibly():
    rules = Rules()
    results = []
    for _ in range(2):
        agents = [make_agent("casual", rules, 1), make_agent("random", rules, 2)]
        results.append(
            play_match(rules, agents, 8, seed=3, duplicate=True, batch_size=3, progress=False)
        )
    a, b = results
    assert np.array_equal(a.totals, b.totals) and np.array_equal(a.winner, b.winner)
    assert a.n_games == 8 and (a.hands >= 1).all()
    won = a.winner >= 0
    assert (a.totals[won, a.winner[won]] >= rules.target).all()
    assert a.decisions.sum() > 0


def test_arena_game_equals_the_same_deal_played_alone():
    """A game's outcome depends on its deal and seating, not on its batch neighbours."""
    rules = Rules.preset_named("web", target=150)
    agents = [make_agent("casual", rules, 0), make_agent("casual", rules, 0)]
    lineups = np.array([[0, 1]] * 4)
    together = play_games(rules, agents, lineups, np.arange(4), seed=9, progress=False)
    alone = play_games(rules, agents, lineups[2:3], np.array([2]), seed=9, progress=False)
    assert np.array_equal(together.totals[2], alone.totals[0])


def test_agent_speed_reports_rates():
    out = agent_speed(Rules(), batch_size=64, seconds=0.01, agents=("random", "casual"))
    assert set(out) == {"random", "casual"}
    assert all(v["decisions_per_s"] > 0 for v in out.values())


def test_bench_positions_come_from_games_with_call_windows():
    """Self-play that reaches rummy-call windows keeps going (the callers act there too)."""
    from rummy500.eval.agent_speed import midgame_states
    from rummy_env.core import PHASE_DRAW, PHASE_PLAY

    rules = Rules.from_dict({"rummy_call": True})
    pool = midgame_states(rules, 128, seed=3)
    assert pool.batch_size == 128
    assert np.isin(pool.phase, [PHASE_DRAW, PHASE_PLAY]).all()


# ----------------------------------------------------------------------------- CLI
def test_cli_end_to_end(tmp_path, capsys):
    out = tmp_path / "report"
    code = main(
        [
            "eval",
            "--agents",
            "casual",
            "random",
            "sharp",
            "--games",
            "6",
            "--players",
            "2",
            "--preset",
            "web",
            "--seed",
            "4",
            "--duplicate",
            "--set",
            "target=150",
            "--out",
            str(out),
            "--no-progress",
            "--bootstrap",
            "20",
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "| agent |" in printed and "Head to head" in printed and "Bradley-Terry" in printed
    report = json.loads((out / "report.json").read_text())
    assert report["meta"]["games"] == 6 and report["meta"]["duplicate"]
    assert report["meta"]["rules"]["target"] == 150
    assert [a["agent"] for a in report["agents"]] == ["casual", "random", "sharp"]
    for a in report["agents"]:
        assert a["games"] == 4 and 0 <= a["win_lo"] <= a["win_rate"] <= a["win_hi"] <= 1
        assert "duplicate" in a
    assert set(report["ratings"]) == {"casual", "random", "sharp"}
    rows = list(csv.DictReader(open(out / "agents.csv")))
    assert [r["agent"] for r in rows] == ["casual", "random", "sharp"]
    assert (out / "report.md").read_text().startswith("## casual vs random vs sharp")
    assert (out / "win_rates.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_two_agents_three_players(tmp_path, capsys):
    code = main(
        [
            "--agents",
            "casual",
            "random",
            "--games",
            "6",
            "--players",
            "3",
            "--seed",
            "2",
            "--no-progress",
            "--set",
            "target=100",
        ]
    )
    assert code == 0
    assert "Head to head" not in capsys.readouterr().out


def test_cli_rejects_unknown_agents_and_checkpoints(capsys):
    assert main(["--agents", "casual", "nobody", "--games", "2", "--no-progress"]) == 2
    assert main(["--agents", "casual", "ckpt:missing.pt", "--games", "2", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "unknown agent" in err and "ckpt:missing.pt" in err


def test_cli_plays_a_checkpoint(tmp_path, capsys):
    torch = pytest.importorskip("torch")
    from rummy500.agents.torch_policy import build_policy
    from rummy500.train.run_folder import save_checkpoint
    from rummy_env.core import action_layout, observation_size

    rules = Rules.preset_named("standard", target=100)
    torch.manual_seed(0)
    policy = build_policy(
        "mlp", rules, observation_size(rules), action_layout(rules).size, hidden=(16,)
    )
    path = save_checkpoint(
        tmp_path / "tiny.pt",
        policy,
        arch="mlp",
        arch_kwargs={"hidden": (16,)},
        rules=rules,
        config={},
        global_step=0,
    )
    assert (
        main(
            [
                "--agents",
                f"ckpt:{path}",
                "random",
                "--games",
                "2",
                "--set",
                "target=100",
                "--no-progress",
            ]
        )
        == 0
    )
    assert f"ckpt:{path}" in capsys.readouterr().out
    # A checkpoint trained for other rules is refused with the reason.
    assert main(["--agents", f"ckpt:{path}", "random", "--games", "2", "--no-progress"]) == 2
    assert "other rules" in capsys.readouterr().err


def test_daily_seed_is_the_utc_date():
    assert daily_seed(dt.date(2024, 3, 9)) == (20240309, "2024-03-09")
    seed, day = daily_seed()
    assert day == dt.datetime.now(dt.timezone.utc).date().isoformat()


def test_module_help_runs():
    done = subprocess.run(
        [sys.executable, "-m", "rummy500.commands.eval", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0 and "--duplicate" in done.stdout


def test_eval_gives_the_networks_the_threads_asked_for(capsys):
    """``--torch-threads`` (default 1) sets the threads torch runs the champion with."""
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        assert main(["--agents", "champion", "random", "--games", "2", "--no-progress"]) == 0
        assert torch.get_num_threads() == 1
        assert (
            main(
                [
                    "--agents",
                    "champion",
                    "random",
                    "--games",
                    "2",
                    "--no-progress",
                    "--torch-threads",
                    "2",
                ]
            )
            == 0
        )
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
    assert "champion" in capsys.readouterr().out


def test_the_match_functions_run_the_networks_on_one_thread_and_give_torch_back():
    """``rummy500.evaluate`` (and ``ladder``, ``benchmark``) play with ``torch_threads``
    threads (default 1, as the programs do) and restore torch's setting after."""
    import rummy500

    torch = pytest.importorskip("torch")

    class SeesThreads:
        name = "sees-threads"

        def __init__(self) -> None:
            self.seen: set[int] = set()

        def act(self, decision):
            self.seen.add(torch.get_num_threads())
            return decision.mask.argmax(axis=1)

    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        for threads, during in ((1, {1}), (None, {2}), (2, {2})):
            agent = SeesThreads()
            rummy500.evaluate([agent, "random"], games=2, torch_threads=threads)
            assert agent.seen == during and torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
