"""The benchmark protocol: one agent rated against pinned references, in two tracks.

A fixed, versioned procedure, so that a number printed today can be reproduced
and compared after stronger agents ship. ``TRACKS`` holds one track per table size,
each a protocol of its own with its own version:

``rummy500-bench/2`` (``TWO_SEATS``, two players):

* standard rules, games to 500;
* duplicate deals (every deal played twice, seats swapped), sealed: the deal seed
  and the root of every agent's seed are drawn from the operating system's entropy
  when the run starts (``rummy500.eval.sealing``), so no agent can know the deals,
  and the card records both, so that anyone can replay the run game for game;
  ``full`` plays 400 games against each reference, ``quick`` 20 (a check, not a
  measurement: the expert's 20 games cost most of its one or two CPU-minutes);
* the references are ``random``, ``casual``, ``sharp``, ``champion@1`` and
  ``expert@1`` (versioned names: a later champion does not change them), with the
  ratings ``pinned`` measured for them on the ladder's Elo scale;
* the newcomer's rating is the one that best explains its results against the
  references at their pinned ratings (P(win) = 1 / (1 + 10^((R_ref - R) / 400)),
  a game scored as the ladder scores it: the higher final total wins, equal totals
  half each), with a 95% interval from resampling the deals of each match (and,
  for an agent that won or lost everything, the spread of ratings fitted to win
  chances drawn from each match's Jeffreys posterior, as the ladder does).

Version 1 dealt from published seeds (500001 full, 500002 quick), which an agent
could use to rebuild every hand; version 2 changes only that, so the ratings of both
stand on one scale, and a run of version 1 is replayed by giving its seed as both
seeds (``seeds=MatchSeeds(500001, 500001, False)``).

``rummy500-bench-4p/3`` (``FOUR_SEATS``, four players), the same procedure at a
table of four, its own version with its own scale:

* standard rules for four players (one deck, seven cards each), games to 500;
* the seating (``Track.tables``): the newcomer is measured against one reference at
  a time, in the company of two others, every pair of references in turn (one of
  them may be the reference measured against): 24 tables, the same whoever the
  newcomer is. Each deal is played four times, the newcomer in each seat, and the
  deals go round every order of the three around it
  (``rummy500.eval.arena.match_games``), so the luck of the cards, of the seat and
  of who discards to whom cancels;
* a game is one comparison, the newcomer's final total against the reference's (in
  all of its seats when the company holds it too, averaged), the higher ahead, equal
  totals half each (``rummy500.eval.ratings.pairwise``); the company is not compared.
  Since the company does not depend on the newcomer, a reference R meets J in R's own
  card at the very tables at which J meets R in J's, so the references' cards agree
  with one another and can share one set of pins. A reference's row gives how often
  the newcomer finished ahead of it;
* the references are ``random``, ``casual``, ``sharp`` and ``champion@1`` (the
  four-player checkpoint of release 1, which a later release does not change).
  ``expert@1`` is left out: its search at four seats makes a full card cost far more
  than an hour of CPU (docs/benchmark.md gives the measurement);
* the pins are what the references' own cards measure (``pins_from_cards``,
  measured by ``python scripts/pin_track.py --players 4 --seed 20261206 20261207
  20261208 20261209``): the ladder's fit (Bradley-Terry on the Elo scale, mean 1500)
  of every card's games against the other references, each card's agent the
  reference of its name;
* ``full`` plays 168 games at each table (42 deals; 4,032 games, 1,008 against
  each reference), ``quick`` 24.

Version 1 seated the newcomer in the place of each reference in turn at the
references' own table of four and compared it with all three, pinned by the
four-player ladder. A player does worse at a table that holds a copy of itself, and a
reference's own card held its copy at three tables of four, so Casual's and
``champion@1``'s cards rated them 48 and 58 points below their pins; in R's card R
met J beside a second R, in J's card beside a second J, so no choice of pins could
land every card (docs/benchmark.md). It is withdrawn. Version 2 was version 3 pinned
on the deals of the first two seeds only: one seed's pins move by about ten points,
as much as half a card's interval, so version 3 pins on four.

Any change to the rules, references, pins, game counts, seeds or scoring makes a
new protocol version of its track, so that the ratings of one version stay
comparable with one another.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass

import numpy as np

from rummy500.agents.base import Agent
from rummy500.eval.arena import MatchResult, match_games
from rummy500.eval.ratings import ELO_SCALE, bradley_terry, pairwise, to_elo
from rummy500.eval.report import win_rate_by_deal
from rummy500.eval.sealing import MatchSeeds, sealed_seed
from rummy500.eval.shards import Entrant, Workers, cut, entrants, merge_results, run_shards
from rummy500.eval.stats import clustered_win_rate
from rummy_env.core import Rules
from rummy_env.core.names import table_cell


@dataclass(frozen=True)
class Level:
    """How much a run of the protocol plays: ``games`` at each of the track's tables (at
    two seats a table is one reference)."""

    games: int


@dataclass(frozen=True)
class Track:
    """One track of the protocol (module docstring): its version, its rules, its levels
    (``full`` is the one to publish) and each reference's rating on the ladder's Elo
    scale, measured once by a published ladder command and fixed for the version."""

    protocol: str
    rules: Rules
    levels: dict[str, Level]
    pinned: dict[str, float]

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def tables(self) -> list[tuple[str, ...]]:
        """The references at the newcomer's table in each of its matches: first the one
        it is measured against, then the company in the other seats, every group of
        ``players - 2`` references, the same whoever the newcomer is (at two seats no
        company: one reference a match)."""
        return [
            (name, *company)
            for name in self.pinned
            for company in itertools.combinations(self.pinned, self.players - 2)
        ]


def table_name(table: tuple[str, ...]) -> str:
    """A table of ``Track.tables`` in words: its reference, then its company."""
    return table[0] + (f" (beside {' and '.join(table[1:])})" if len(table) > 1 else "")


TWO_SEATS = Track(
    protocol="rummy500-bench/2",
    rules=Rules(),
    levels={"full": Level(games=400), "quick": Level(games=20)},
    pinned={
        "random": 751.0,
        "casual": 1300.0,
        "sharp": 1631.0,
        "champion@1": 1862.0,
        "expert@1": 1956.0,
    },
)
"""Two players. Pinned by ``rummy500 ladder --no-defaults --agents random casual sharp
champion@1 expert@1 --games 100 --seed 20261205`` (mean 1500 over the five)."""

FOUR_SEATS = Track(
    protocol="rummy500-bench-4p/3",
    rules=Rules(players=4),
    levels={"full": Level(games=168), "quick": Level(games=24)},
    pinned={
        "random": 764.0,
        "casual": 1423.0,
        "sharp": 1860.0,
        "champion@1": 1953.0,
    },
)
"""Four players. Pinned by the references' own cards, ``python scripts/pin_track.py
--players 4 --seed 20261206 20261207 20261208 20261209`` (mean 1500 over the four)."""

TRACKS = {track.players: track for track in (TWO_SEATS, FOUR_SEATS)}
"""The tracks by table size."""

RESAMPLES = 1000
"""Resamples behind the rating's interval."""


def track_for(players: int) -> Track:
    """The track played at ``players`` seats; a one-line ``ValueError`` for any other count."""
    if players not in TRACKS:
        raise ValueError(
            f"the benchmark has no track for {players} players: "
            + " or ".join(f"{p} ({t.protocol})" for p, t in TRACKS.items())
        )
    return TRACKS[players]


def benchmark(
    agent: Agent,
    level: str = "full",
    batch_size: int = 512,
    progress: bool = True,
    spec: str | None = None,
    workers: Workers | None = None,
    seeds: MatchSeeds | None = None,
    track: Track = TWO_SEATS,
) -> dict:
    """The report card of ``agent`` under the protocol's ``track`` at ``level`` (see
    ``card_markdown``); ``agent`` plays the track's rules.

    The newcomer plays one match at each of the track's tables (``Track.tables``), and
    the matches are cut into shards (``rummy500.eval.shards``),
    all played together where ``workers`` says (default: in this process); each shard's
    copy of the agent is built from ``spec`` when given, else copied from ``agent``. An
    agent that fails (``AgentFailure``) or Ctrl-C ends the benchmark: the card then holds
    the references played to the end, no rating (the protocol rates whole runs only), and
    ``stopped`` saying why; with none played to the end the failure is raised. ``seeds``:
    the deal seed and the agents' root of a run to replay (default: both drawn unseen);
    the agents of match k are seeded from the root + 1000 (k + 1).
    """
    if level not in track.levels:
        raise ValueError(f"benchmark level {level!r}: choose from {', '.join(track.levels)}")
    plan = track.levels[level]
    seeds = seeds or MatchSeeds(sealed_seed(), sealed_seed(), sealed=True)
    start = time.perf_counter()
    (newcomer,) = entrants([agent], [spec])
    shards = []
    for k, table in enumerate(track.tables):
        lineups, deals = match_games(
            1 + len(table), track.players, plan.games, True, kinds=["newcomer", *table]
        )
        shards.append(
            cut(
                track.rules,
                [newcomer, *(Entrant(name, spec=name) for name in table)],
                lineups,
                deals,
                seeds.deal,
                seeds.agents + 1000 * (k + 1),
                batch_size=batch_size,
            )
        )
    parts: list = [[] for _ in track.tables]
    of_match = [k for k, match_shards in enumerate(shards) for _ in match_shards]
    played = run_shards(
        [s for match_shards in shards for s in match_shards],
        workers or Workers(),
        progress,
        desc="benchmark",
    )
    for k, result in zip(of_match, played):
        parts[k].append(result.match)
    stopped = next(
        (part.stopped for match_parts in parts for part in match_parts if part.stopped), None
    )
    matches: list[MatchResult] = []
    for table, match_parts, match_shards in zip(track.tables, parts, shards):
        if stopped and (len(match_parts) < len(match_shards) or match_parts[-1].stopped):
            if not matches:
                merge_results(match_parts, 0.0).raise_if_stopped("the benchmark")
            rows = reference_rows(track, matches)[0]
            return {
                **stopped_card(
                    track,
                    agent.name,
                    level,
                    rows,
                    sum(m.n_games for m in matches),
                    stopped,
                    table_name(table),
                ),
                **seeds.report_fields(),
            }
        matches.append(merge_results(match_parts, time.perf_counter() - start))
    rows, scores = reference_rows(track, matches)
    elo, lo, hi = rating_interval(scores, np.array(list(track.pinned.values())))
    decisions = sum(int(m.decisions[0]) for m in matches)
    agent_seconds = sum(float(m.agent_seconds[0]) for m in matches)
    card = {
        "protocol": track.protocol,
        "level": level,
        "agent": agent.name,
        "elo": elo,
        "elo_lo": lo,
        "elo_hi": hi,
        "games": sum(m.n_games for m in matches),
        "win_rate": {r["reference"]: r["win_rate"] for r in rows},
        "references": rows,
        "ms_per_decision": 1000.0 * agent_seconds / max(1, decisions),
        "seconds": time.perf_counter() - start,
        **seeds.report_fields(),
    }
    return {**card, "summary": summary_line(card), "stopped": None}


def reference_rows(
    track: Track, matches: list[MatchResult]
) -> tuple[list[dict], list[tuple[np.ndarray, np.ndarray]]]:
    """(a card's row for each reference met in ``matches``, the first matches of the
    track's tables; each match's ``(score [D, R], comparisons [D, R])`` by deal, one
    column per reference of the track). A row's win rate is the share of the games the
    newcomer won against the reference (at four seats: finished ahead of it), with its
    interval by deal."""
    names = list(track.pinned)
    scores, met = [], {name: [] for name in names}
    for table, match in zip(track.tables, matches):
        won, compared = deal_scores(match)
        # Against the table's reference, in all its seats when the company holds it too.
        won = won[:, [i for i, name in enumerate(table) if name == table[0]]].mean(axis=1)
        full_won, full_compared = (np.zeros((won.shape[0], len(names))) for _ in range(2))
        column = names.index(table[0])
        full_won[:, column], full_compared[:, column] = won, compared[:, 0]
        scores.append((full_won, full_compared))
        met[table[0]].append((match, won, compared[:, 0]))
    whole = {name: sum(t[0] == name for t in track.tables) for name in names}
    rows = []
    for name in names:
        if len(met[name]) < whole[name]:  # a run stopped before all its tables
            continue
        won = np.concatenate([w for _, w, _ in met[name]])
        compared = np.concatenate([n for _, _, n in met[name]])
        if track.players == 2:
            rate, _ = win_rate_by_deal(met[name][0][0], 0)
        else:
            rate, _ = clustered_win_rate(won, compared)
        rows.append(
            {
                "reference": name,
                "pinned": track.pinned[name],
                "games": sum(m.n_games for m, _, _ in met[name]),
                "win_rate": rate.value,
                "win_lo": rate.lo,
                "win_hi": rate.hi,
                "score": float(won.sum() / compared.sum()),
            }
        )
    return rows, scores


def deal_scores(match: MatchResult) -> tuple[np.ndarray, np.ndarray]:
    """(score [D, R], comparisons [D, R]) of agent 0, the newcomer, on each deal of a match
    against agents 1 ... R: one comparison a game with each, as the ladder takes a game
    apart (``pairwise``: the higher final total ahead scores 1, equal totals 0.5 each)."""
    score = pairwise(match)[0][:, 0, 1:]  # [G, R]
    deal = np.unique(match.deal, return_inverse=True)[1]
    won = np.stack([np.bincount(deal, column) for column in score.T], axis=1)
    return won, np.bincount(deal).astype(np.float64)[:, None] * np.ones_like(won)


def stopped_card(
    track: Track, agent: str, level: str, rows: list[dict], games: int, stopped: str, during: str
) -> dict:
    """The card of a run of ``track`` that stopped (why: ``stopped``) in the match against
    ``during``: the references of the ``games`` played to the end, no rating."""
    return {
        "protocol": track.protocol,
        "level": level,
        "agent": agent,
        "elo": None,
        "games": games,
        "references": rows,
        "win_rate": {r["reference"]: r["win_rate"] for r in rows},
        "stopped": stopped,
        "stopped_during": during,
        "summary": f"{agent}: {track.protocol} ({level}) stopped against {during}: no rating",
    }


def fit_rating(won: np.ndarray, games: np.ndarray, pinned: np.ndarray, prior: float = 0.5) -> float:
    """The rating R whose expected score against references rated ``pinned`` matches the
    scores ``won`` of ``games`` (``prior`` virtual half wins each way per reference keep a
    clean sweep finite, as the ladder's fit does).

    >>> round(fit_rating(np.array([50.0]), np.array([100.0]), np.array([1600.0])))
    1600
    >>> round(fit_rating(np.array([76.0]), np.array([100.0]), np.array([1500.0])), -1)
    1700.0
    """
    w, n = won + prior, games + 2 * prior
    low, high = float(pinned.min()) - 4000.0, float(pinned.max()) + 4000.0
    for _ in range(200):  # the expected score rises with R: bisection
        middle = (low + high) / 2
        expected = n / (1.0 + 10.0 ** ((pinned - middle) / ELO_SCALE))
        low, high = (middle, high) if expected.sum() < w.sum() else (low, middle)
    return (low + high) / 2


def rating_interval(
    scores: list[tuple[np.ndarray, np.ndarray]], pinned: np.ndarray, seed: int = 0
) -> tuple[float, float, float]:
    """(rating, lo, hi): the fit of the per-deal scores of each match (``(score [D, R],
    comparisons [D, R])``, one column per reference) and its 95% interval (module
    docstring): each match's deals are resampled apart."""
    won = sum(s.sum(axis=0) for s, _ in scores)
    games = sum(n.sum(axis=0) for _, n in scores)
    rating = fit_rating(won, games, pinned)
    rng = np.random.default_rng(seed)
    resampled = []
    for _ in range(RESAMPLES):
        picks = [rng.integers(0, s.shape[0], s.shape[0]) for s, _ in scores]
        resampled.append(
            fit_rating(
                sum(s[p].sum(axis=0) for (s, _), p in zip(scores, picks)),
                sum(n[p].sum(axis=0) for (_, n), p in zip(scores, picks)),
                pinned,
            )
        )
    lo, hi = np.percentile(resampled, [2.5, 97.5])
    if ((won == 0) | (won == games)).all():  # resampled sweeps are the same sweep
        chances = np.clip(
            rng.beta(won + 0.5, games - won + 0.5, (RESAMPLES, won.size)), 1e-9, 1 - 1e-9
        )
        drawn = [fit_rating(games * c, games, pinned, prior=0.0) for c in chances]
        lo, hi = min(lo, np.percentile(drawn, 2.5)), max(hi, np.percentile(drawn, 97.5))
    return rating, float(lo), float(hi)


def pins_from_cards(cards: list[dict]) -> dict[str, float]:
    """The pins the references' own cards measure: cards of the references (each the
    whole protocol, its rows' ``score`` and ``games``; one or more for each reference,
    on other deals), each card's agent taken as the same player as the reference of
    its name, and the ladder's fit (Bradley-Terry on the Elo scale, mean 1500) of all
    the cards' comparisons of an agent with the other references; those of an agent
    with its own copy say nothing of its rating.

    Fitted against these pins each reference's cards rate it where the cards together
    do; what remains between the two is what its cards' games say apart from the
    others', within their interval.

    >>> cards = [
    ...     {"agent": "a", "references": [{"reference": "a", "score": 0.5, "games": 100},
    ...                                   {"reference": "b", "score": 0.76, "games": 100}]},
    ...     {"agent": "b", "references": [{"reference": "a", "score": 0.24, "games": 100},
    ...                                   {"reference": "b", "score": 0.5, "games": 100}]},
    ... ]
    >>> {name: round(pin) for name, pin in pins_from_cards(cards).items()}
    {'a': 1600, 'b': 1400}
    """
    names = list(dict.fromkeys(card["agent"] for card in cards))
    known = {row["reference"] for card in cards for row in card["references"]}
    if known - set(names):
        raise ValueError(
            "pins come from cards of every reference met: cards of "
            f"{', '.join(names)} against {', '.join(sorted(known))}"
        )
    won, compared = card_comparisons(cards, names)
    others = ~np.eye(len(names), dtype=bool)  # a newcomer against its own copy: no evidence
    wins = np.where(others, won + (compared - won).T, 0.0)
    games = np.where(others, compared + compared.T, 0.0)
    return dict(zip(names, to_elo(bradley_terry(wins, games)).tolist()))


def card_comparisons(cards: list[dict], names: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(won [k, k], compared [k, k]): how often the newcomer of the cards of agent
    ``names[a]`` finished ahead of reference ``names[b]`` (a row's ``score`` times its
    ``games``) in how many comparisons, summed over the cards of each agent."""
    won, compared = np.zeros((len(names), len(names))), np.zeros((len(names), len(names)))
    for card in cards:
        a = names.index(card["agent"])
        for row in card["references"]:
            b = names.index(row["reference"])
            won[a, b] += row["score"] * row["games"]
            compared[a, b] += row["games"]
    return won, compared


def summary_line(card: dict) -> str:
    """One line fit to quote: protocol, games, rating with interval, win rate per reference."""
    rates = ", ".join(f"{name} {100 * rate:.1f}%" for name, rate in card["win_rate"].items())
    return (
        f"{card['agent']}: {card['protocol']} ({card['level']}, {card['games']:,} "
        f"duplicate games): rating {card['elo']:.0f} (95% CI {card['elo_lo']:.0f}-"
        f"{card['elo_hi']:.0f}); win rate vs {rates}"
    )


def card_markdown(card: dict) -> str:
    """The report card: a table of the matches against the references, then the summary."""
    if card["stopped"]:
        said = (
            f"Stopped ({card['stopped']}): no rating; the references played to the end "
            f"({card['games']:,} games):"
        )
    else:
        said = (
            f"Rating **{card['elo']:.0f}** (95% CI {card['elo_lo']:.0f} - "
            f"{card['elo_hi']:.0f}) on the ladder's scale; {card['games']:,} games, "
            f"{card['ms_per_decision']:.2f} ms a decision, {card['seconds']:.0f} s."
        )
    sealing = (
        "drawn unseen (sealed)"
        if card["sealed"]
        else "given, not sealed: a replay, or a run any agent could have known the deals of"
    )
    said += (
        f" Seed {card['seed']}, agent seed {card['agent_seed']}, {sealing}; "
        f"--seed {card['seed']} --agent-seed {card['agent_seed']} replays it."
    )
    lines = [
        f"## {table_cell(card['agent'])}: {card['protocol']} ({card['level']})",
        "",
        said,
        "",
        "| reference | pinned rating | games | win rate | 95% CI | score |",
        "| --- | ---: | ---: | ---: | --- | ---: |",
    ]
    for row in card["references"]:
        lines.append(
            f"| {row['reference']} | {row['pinned']:.0f} | {row['games']} | "
            f"{100 * row['win_rate']:.1f}% | {100 * row['win_lo']:.1f}% - "
            f"{100 * row['win_hi']:.1f}% | {row['score']:.3f} |"
        )
    return "\n".join(lines + ["", card["summary"], ""])
