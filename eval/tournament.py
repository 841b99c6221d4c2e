"""Multi-table tournaments: tables feed tables until one final table.

Each round, the entrants still in are shuffled from the tournament seed and dealt
to as few tables as possible of at most ``table_size`` seats, sizes differing by
at most one (``table_sizes``; with tables of two, an odd entrant makes one table
of three, never a table of one). Every table plays one game; its winner goes on
(a game stopped at ``max_hands`` without a winner sends on its highest total, a
tie there the seat drawn first). When the entrants fit one table, that table is
the final and its winner wins the tournament.

All tournaments run side by side: the tables of one round of every tournament are
played as one set of games per table size, cut into shards (``rummy500.eval.shards``,
numbered on through the rounds) that fresh agents play where ``workers`` says, so no
Python loop steps a game and every worker count plays the same games. An entrant is an
index into the agent list; an agent may hold several entries.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from rummy500.agents.base import Agent
from rummy500.eval.shards import Workers, entrants, play_sharded, shard_count
from rummy_env.core import Rules, chips


def table_sizes(entrants: int, table_size: int) -> list[int]:
    """Seats at each table of a round: as few tables as fit, sizes as even as possible.

    Nobody sits alone: where tables of two leave one entrant over, a table takes a
    third seat.

    >>> table_sizes(9, 4), table_sizes(4, 4), table_sizes(5, 4), table_sizes(5, 2)
    ([3, 3, 3], [4], [3, 2], [3, 2])
    """
    if entrants < 2 or table_size < 2:
        raise ValueError("a round needs at least two entrants and tables of two or more")
    tables = -(-entrants // table_size)
    if entrants // tables < 2:
        tables = entrants // 2
    base, extra = divmod(entrants, tables)
    return [base + 1] * extra + [base] * (tables - extra)


def round_sizes(entrants: int, table_size: int) -> list[list[int]]:
    """The table sizes of every round, the final table last."""
    rounds = []
    while True:
        sizes = table_sizes(entrants, table_size)
        rounds.append(sizes)
        if len(sizes) == 1:
            return rounds
        entrants = len(sizes)


@dataclass
class TournamentResult:
    """T tournaments of E entrants over R rounds, k agents."""

    agent_names: list[str]
    entries: np.ndarray  # int64 [E]     agent of each entrant
    table_size: int
    seed: int
    winner: np.ndarray  # int64 [T]     entrant who won each tournament
    finish_round: np.ndarray  # int64 [T, E]  round each entrant went out in (1-based);
    #                                          the winner's is the final round
    seated: np.ndarray  # int64 [T, R, E] table of each entrant in each round, -1 out
    table_winner: list[np.ndarray]  # per round: int64 [T, tables] entrant who won each table
    chips: np.ndarray | None  # int64 [T, E]  chips each entrant won over its games
    games: int = 0
    truncated: int = 0

    @property
    def n_tournaments(self) -> int:
        return int(self.winner.shape[0])

    @property
    def rounds(self) -> int:
        return int(self.seated.shape[1])


def play_tournaments(
    rules: Rules,
    make_agents: Callable[[Rules], Sequence[Agent]],
    entries: Sequence[int],
    table_size: int,
    tournaments: int,
    seed: int = 0,
    pcr: int | None = None,
    batch_size: int = 1024,
    on_games: Callable[[int], None] | None = None,
    specs: Sequence[str | None] | None = None,
    workers: Workers | None = None,
    agent_root: int | None = None,
) -> TournamentResult:
    """Play ``tournaments`` tournaments of the entrants ``entries`` (agent indices).

    ``rules`` give every flag but the seats, which each table's size sets;
    ``make_agents(rules)`` builds the agent list for a table of those rules (each shard
    builds its own from ``specs`` where given, else copies it, seeded from ``agent_root``,
    by default ``seed``); ``workers`` says where the shards are played. ``on_games(n)`` is
    told each time n games finished (a progress bar).
    """
    entries = np.asarray(entries, np.int64)
    n_entrants, n_t = entries.size, tournaments
    plan = round_sizes(n_entrants, table_size)
    rng = np.random.default_rng(seed)
    alive = np.tile(np.arange(n_entrants), (n_t, 1))  # [T, still in], entrant ids
    finish = np.full((n_t, n_entrants), len(plan), np.int64)
    seated = np.full((n_t, len(plan), n_entrants), -1, np.int64)
    won_chips = np.zeros((n_t, n_entrants), np.int64) if pcr is not None else None
    table_winners: list[np.ndarray] = []
    agents_of: dict[int, Sequence[Agent]] = {}
    games = truncated = first_deal = first_shard = 0
    for r, sizes in enumerate(plan):
        drawn = rng.permuted(alive, axis=1)  # each tournament's own shuffle
        bounds = np.concatenate([[0], np.cumsum(sizes)])
        seated[np.arange(n_t)[:, None], r, drawn] = np.repeat(np.arange(len(sizes)), sizes)
        winners = np.zeros((n_t, len(sizes)), np.int64)
        for size in sorted(set(sizes)):
            tables = [i for i, s in enumerate(sizes) if s == size]
            cols = np.concatenate([np.arange(bounds[i], bounds[i + 1]) for i in tables])
            seats = drawn[:, cols].reshape(n_t * len(tables), size)  # [T * tables, size]
            table_rules = rules.replace(players=size)
            if size not in agents_of:
                agents_of[size] = make_agents(table_rules)
            deals = first_deal + np.arange(seats.shape[0])
            first_deal += seats.shape[0]
            players = entrants(agents_of[size], specs)
            match = play_sharded(
                table_rules,
                players,
                entries[seats],
                deals,
                seed,
                seed if agent_root is None else agent_root,
                workers or Workers(),
                batch_size=batch_size,
                first_shard=first_shard,
            )
            first_shard += shard_count(deals.size)
            match.raise_if_stopped("the tournaments")
            games += match.n_games
            truncated += int(match.truncated.sum())
            best = np.where(match.winner >= 0, match.winner, match.totals.argmax(axis=1))
            winner_of_table = seats[np.arange(seats.shape[0]), best]
            winners[:, tables] = winner_of_table.reshape(n_t, len(tables))
            if won_chips is not None:
                t_of = np.repeat(np.arange(n_t), len(tables) * size)
                got = chips(match.totals, match.winner, pcr)
                np.add.at(won_chips, (t_of, seats.ravel()), got.ravel())
            if on_games is not None:
                on_games(match.n_games)
        out = np.ones((n_t, n_entrants), bool)
        out[np.repeat(np.arange(n_t), len(sizes)), winners.ravel()] = False
        knocked = out & (seated[:, r] >= 0)
        finish[knocked] = r + 1
        table_winners.append(winners)
        alive = winners
    return TournamentResult(
        agent_names=[a.name for a in next(iter(agents_of.values()))],
        entries=entries,
        table_size=table_size,
        seed=seed,
        winner=alive[:, 0],
        finish_round=finish,
        seated=seated,
        table_winner=table_winners,
        chips=won_chips,
        games=games,
        truncated=truncated,
    )
