"""The benchmark's four-player track: its protocol and pins, its refusal of other table
sizes, its fit on four-seat games, the same card at any worker count, and the two-seat
track left as it was."""

from __future__ import annotations

import dataclasses
import itertools
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import rummy500
from rummy500.agents.registry import make_agent
from rummy500.commands.train import closing_summary
from rummy500.eval.arena import MatchResult, match_games, play_match
from rummy500.eval.benchmark import (
    FOUR_SEATS,
    TRACKS,
    TWO_SEATS,
    Level,
    benchmark,
    deal_scores,
    fit_rating,
    pins_from_cards,
    rating_interval,
    reference_rows,
    track_for,
)
from rummy500.eval.ratings import ELO_SCALE, pairwise
from rummy500.eval.sealing import MatchSeeds
from rummy500.eval.shards import Workers
from rummy500.train.ppo import TrainResult
from rummy_env.core import Rules

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]

CHEAP = ("random", "casual", "sharp")
"""References whose games cost next to nothing, for runs of the machinery."""


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "rummy500.cli", "benchmark", *args],
        capture_output=True,
        text=True,
        timeout=600,
    )


def tiny(track, games: int, names: tuple[str, ...] = CHEAP):
    """``track`` cut to the cheap references ``names`` at a level of ``games`` games each."""
    return dataclasses.replace(
        track,
        pinned={name: track.pinned[name] for name in names},
        levels={"tiny": Level(games=games)},
    )


def card_of(track, workers: int, spec: str = "casual") -> dict:
    agent = make_agent(spec, track.rules, seed=1)
    agent.name = spec
    return benchmark(
        agent,
        "tiny",
        progress=False,
        spec=spec,
        workers=Workers(workers),
        seeds=MatchSeeds(31, 47, sealed=False),
        track=track,
    )


def test_each_table_size_has_its_own_pinned_track() -> None:
    assert TRACKS == {2: TWO_SEATS, 4: FOUR_SEATS}
    assert FOUR_SEATS.protocol == "rummy500-bench-4p/3"
    assert FOUR_SEATS.rules == Rules(players=4) and FOUR_SEATS.rules.target == 500
    assert list(FOUR_SEATS.pinned) == ["random", "casual", "sharp", "champion@1"]
    assert list(FOUR_SEATS.pinned.values()) == sorted(FOUR_SEATS.pinned.values())
    assert abs(np.mean(list(FOUR_SEATS.pinned.values())) - 1500) < 1  # the ladder's centre
    assert set(FOUR_SEATS.levels) == {"full", "quick"}
    # The reference measured against, then the company: every pair of references.
    assert len(FOUR_SEATS.tables) == 4 * 6
    assert FOUR_SEATS.tables[:6] == [
        ("random", "random", "casual"),
        ("random", "random", "sharp"),
        ("random", "random", "champion@1"),
        ("random", "casual", "sharp"),
        ("random", "casual", "champion@1"),
        ("random", "sharp", "champion@1"),
    ]
    assert TWO_SEATS.tables == [(name,) for name in TWO_SEATS.pinned]


def test_the_two_seat_track_is_as_published() -> None:
    assert TWO_SEATS.protocol == "rummy500-bench/2" and TWO_SEATS.rules == Rules()
    assert TWO_SEATS.pinned == {
        "random": 751.0,
        "casual": 1300.0,
        "sharp": 1631.0,
        "champion@1": 1862.0,
        "expert@1": 1956.0,
    }
    assert TWO_SEATS.levels["full"].games == 400 and TWO_SEATS.levels["quick"].games == 20
    assert track_for(2) is TWO_SEATS  # what a run that names no table size plays


def test_the_two_seat_track_plays_the_two_seat_duplicate_match() -> None:
    """Each reference's row is the plain duplicate match of the newcomer against it, on the
    card's deals and agent seeds, one comparison a game."""
    card = card_of(tiny(TWO_SEATS, 8), workers=1)
    assert card["protocol"] == "rummy500-bench/2" and card["games"] == 24
    for k, row in enumerate(card["references"]):
        name = row["reference"]
        agents = [make_agent("casual", TWO_SEATS.rules), make_agent(name, TWO_SEATS.rules)]
        match = play_match(
            TWO_SEATS.rules,
            agents,
            8,
            seed=31,
            duplicate=True,
            progress=False,
            kinds=["newcomer", name],
            specs=["casual", name],
            agent_root=47 + 1000 * (k + 1),
        )
        assert row["score"] == pairwise(match)[0][:, 0, 1].mean()


@pytest.mark.parametrize("players", ["3", "1", "0", "8", "four"])
def test_a_table_size_without_a_track_is_refused_in_one_line(players: str) -> None:
    done = cli("sharp", "--players", players, "--json")
    assert done.returncode == 2 and done.stdout == "", done
    (line,) = done.stderr.strip().splitlines()
    assert "rummy500 benchmark: error:" in line and "Traceback" not in done.stderr
    if players.isdigit() and int(players) > 0:
        assert f"no track for {players} players" in line and "rummy500-bench-4p/3" in line


def test_the_python_function_refuses_a_table_size_without_a_track() -> None:
    with pytest.raises(ValueError, match="no track for 3 players"):
        rummy500.benchmark("sharp", "quick", players=3)


def test_a_reference_meets_another_in_its_card_where_the_other_meets_it_in_its_own() -> None:
    """R's card compares R with J at the tables {R, J, company}; J's card compares J with
    R at the same tables, so the two cards measure one thing and can agree on pins."""
    names = list(FOUR_SEATS.pinned)
    for r, j in itertools.product(names, names):
        in_r = sorted(tuple(sorted((r, *t))) for t in FOUR_SEATS.tables if t[0] == j)
        in_j = sorted(tuple(sorted((j, *t))) for t in FOUR_SEATS.tables if t[0] == r)
        assert in_r == in_j


def test_four_seat_games_seat_the_newcomer_everywhere_in_every_order() -> None:
    lineups, deals = match_games(4, 4, 24, True, kinds=["newcomer", "a", "b", "c"])
    for deal in np.unique(deals):
        seats = lineups[deals == deal]
        assert sorted(np.argwhere(seats == 0)[:, 1]) == [0, 1, 2, 3]  # once in every seat
    # Over the six deals, every order of the three references after the newcomer.
    after = {tuple(np.roll(row, -int(np.argwhere(row == 0)[0, 0]))[1:]) for row in lineups}
    assert len(after) == 6


def synthetic_match(ratings: list[float], games: int, rng) -> MatchResult:
    """Four-seat duplicate games of four players rated ``ratings`` (the newcomer first):
    each player's final total is its rating plus Gumbel noise, so that any two finish in
    the order P(a ahead of b) = 1 / (1 + 10^((R_b - R_a) / 400)), the ladder's model."""
    lineups, deal = match_games(4, 4, games, True)
    rating = np.array(ratings)[lineups]
    noise = rng.gumbel(0.0, ELO_SCALE / np.log(10), lineups.shape)
    totals = np.round(100 * (rating + noise)).astype(np.int32)
    return MatchResult(
        agent_names=["newcomer", "a", "b", "c"],
        rules=FOUR_SEATS.rules,
        seed=0,
        duplicate=True,
        lineups=lineups,
        deal=deal,
        totals=totals,
        winner=np.argmax(totals, axis=1),
        truncated=np.zeros(deal.size, bool),
        hands=np.ones(deal.size, np.int64),
    )


@pytest.mark.parametrize("true", [1150.0, 1600.0, 1850.0])
def test_the_fit_recovers_a_known_rating_from_four_seat_games(true: float) -> None:
    rng = np.random.default_rng(int(true))
    pinned = FOUR_SEATS.pinned
    matches = [
        synthetic_match([true, *(pinned[name] for name in table)], 168, rng)
        for table in FOUR_SEATS.tables
    ]
    games = FOUR_SEATS.levels["full"].games
    for match in matches:  # four games a deal, one comparison a game with each reference
        won, compared = deal_scores(match)
        assert won.shape == compared.shape == (games // 4, 3) and (compared == 4).all()
    rows, scores = reference_rows(FOUR_SEATS, matches)
    assert [row["games"] for row in rows] == [6 * games] * 4  # at six tables each
    rating, lo, hi = rating_interval(scores, np.array(list(pinned.values())))
    assert lo <= true <= hi and abs(rating - true) < 40 and hi - lo < 120


def test_the_four_seat_card_is_the_same_at_one_worker_or_two() -> None:
    track = tiny(FOUR_SEATS, 8, names=("random", "casual"))
    one, two = card_of(track, workers=1), card_of(track, workers=2)
    assert one["protocol"] == "rummy500-bench-4p/3" and one["games"] == 2 * 12  # 2 tables
    for card in (one, two):
        card.pop("seconds"), card.pop("ms_per_decision")
    assert one == two
    assert one["elo_lo"] <= one["elo"] <= one["elo_hi"]


def test_the_four_player_card_prints_its_protocol_in_one_json_line() -> None:
    done = cli("random", "--players", "4", "--quick", "--json", "--no-progress", "--workers", "2")
    assert done.returncode == 0, done.stderr[-3000:]
    (line,) = done.stdout.strip().splitlines()
    card = json.loads(line)
    assert card["protocol"] == "rummy500-bench-4p/3" and card["level"] == "quick"
    assert card["elo_lo"] <= card["elo"] <= card["elo_hi"]
    assert list(card["win_rate"]) == list(FOUR_SEATS.pinned)
    assert card["games"] == len(FOUR_SEATS.tables) * FOUR_SEATS.levels["quick"].games
    assert card["sealed"] is True and card["summary"].startswith("random: rummy500-bench-4p/3")


@pytest.mark.parametrize(
    ("rules", "offered"),
    [
        (Rules(), "rummy500 benchmark ckpt:RUN/last.pt\n"),
        (Rules(players=4), "rummy500 benchmark ckpt:RUN/last.pt --players 4\n"),
        (Rules(players=3), None),
        (Rules(players=4, target=100), None),
    ],
)
def test_a_finished_run_is_offered_the_track_of_its_rules(rules: Rules, offered) -> None:
    result = TrainResult(Path("RUN"), 4096, 2, 1000.0, {}, planned_steps=4096)
    summary = closing_summary(result, rules) + "\n"
    if offered is None:
        assert "rummy500 benchmark" not in summary
    else:
        assert f"  {offered}" in summary


def reference_cards(true: dict[str, float], games: int, seed: int) -> list[dict]:
    """The four-seat cards of references rated ``true`` (each as the newcomer against
    every reference of the track, its copy included), from ``synthetic_match`` games."""
    rng = np.random.default_rng(seed)
    track = dataclasses.replace(FOUR_SEATS, pinned=true)
    cards = []
    for name, rating in true.items():
        matches = [
            synthetic_match([rating, *(true[other] for other in table)], games, rng)
            for table in track.tables
        ]
        cards.append({"agent": name, "references": reference_rows(track, matches)[0]})
    return cards


def test_pins_from_the_references_own_cards_recover_their_ratings_and_land_them() -> None:
    true = {"random": 1100.0, "casual": 1450.0, "sharp": 1750.0, "champion@1": 1900.0}
    cards = reference_cards(true, 168, seed=5)
    pins = pins_from_cards(cards)
    assert abs(np.mean(list(pins.values())) - 1500.0) < 1e-6
    for name, rating in true.items():  # the truth shifted to the pins' mean
        assert abs(pins[name] - (rating - 50.0)) < 40, (name, pins[name], rating)
    pinned = np.array(list(pins.values()))
    for card in cards:  # each card, fitted at the pins, lands on its agent's pin
        won = np.array([row["score"] * row["games"] for row in card["references"]])
        games = np.array([float(row["games"]) for row in card["references"]])
        assert abs(fit_rating(won, games, pinned) - pins[card["agent"]]) < 20


def test_pins_need_a_card_for_every_reference_met() -> None:
    cards = reference_cards({"a": 1500.0, "b": 1600.0, "c": 1700.0, "d": 1800.0}, 8, seed=1)
    with pytest.raises(ValueError, match="cards of every reference met"):
        pins_from_cards(cards[:3])


def test_the_pinning_script_prints_the_pins_of_the_cards_it_finds(tmp_path: Path) -> None:
    """A card already in OUT is read, not played again: here all four on each of two
    seeds, so the script only fits and prints (playing them is what the track's published
    pinning command does)."""
    true = dict(zip(FOUR_SEATS.pinned, [1100.0, 1500.0, 1700.0, 1900.0]))
    cards = reference_cards(true, 24, seed=2) + reference_cards(true, 24, seed=3)
    for k, card in enumerate(cards):
        card["games"] = sum(row["games"] for row in card["references"])
        folder = tmp_path / f"seed_{1 + k // 4}"
        folder.mkdir(exist_ok=True)
        (folder / f"card_{card['agent'].replace('@', '')}.json").write_text(json.dumps(card))
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "pin_track.py"), "--seed", "1", "2"]
        + ["--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    scores, pins = done.stdout.split("| reference | pin |")
    printed = {
        cells[1]: float(cells[2])
        for line in pins.splitlines()
        if len(cells := [c.strip() for c in line.split("|")]) > 3 and cells[1] in true
    }
    assert printed == {name: round(pin) for name, pin in pins_from_cards(cards).items()}
    assert printed != {name: round(pin) for name, pin in pins_from_cards(cards[:4]).items()}
    casual = next(line for line in scores.splitlines() if line.startswith("| casual | 2 |"))
    vs_sharp = next(r["score"] for r in cards[5]["references"] if r["reference"] == "sharp")
    assert f"| {100 * vs_sharp:.1f}% |" in casual
