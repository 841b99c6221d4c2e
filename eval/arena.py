"""The arena: whole games to the target, in batches, straight through the core.

``seating_plan(k, P)`` gives the lineups (which agent sits in which seat) that
make a match fair: every agent sits in every seat equally often, follows every
other equally often (a seat takes the discards of the seat before it, so at a
table of three or more kinds of player the order around it changes the result),
and with more agents than seats every group of P agents meets. ``play_match``
deals the games (``--duplicate``: every deal once per lineup of one block, each
block every table in all its seat rotations, so the luck of the cards cancels;
otherwise one fresh deal per game, lineups in turn) and ``play_games`` plays
them through the engine's driver (``Games``): a batch of live games steps together
(the mask -> each agent acts on the rows where its seats must move -> the step),
finished games are replaced by waiting ones so the batch stays full.

Agents see only ``player_view`` of the seat to play and the legal mask (an
agent that wants the flat observation encodes the view itself); an agent whose
``sees_hidden`` is True (the ``oracle``, a research bound) also gets the true
games in ``Decision.hidden``.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from rummy500.agents.base import Agent, AgentFailure
from rummy_env.core import (
    BatchRecorder,
    Decision,
    Games,
    Rules,
)

INTERRUPTED = "interrupted (Ctrl-C)"
"""``MatchResult.stopped`` of a match that Ctrl-C (``KeyboardInterrupt``) ended."""
if TYPE_CHECKING:
    from rummy500.eval.shards import Workers

MAX_ORDERS = 24
"""Most seat orders a table is played in: all of them up to five seats (24 orders of five
agents); beyond (720 orders of six agents), this many picked to keep who follows whom as
even as they can."""


def seating_blocks(
    n_agents: int, players: int, kinds: Sequence[object] | None = None
) -> list[np.ndarray]:
    """int64 [L_j, P] lineups (agent index at each seat) of each block of a fair plan.

    The tables: with k <= P agents one table, seat s -> agent s % k, and its k shifts;
    with k > P every group of P agents. A table of at most two kinds of player is
    played in its P rotations (every agent in every seat). One of three or more kinds is
    played in every order around it, each order in its rotations: the orders are spread
    over the blocks, so that each block seats every agent in every seat equally often and
    the whole plan also has each agent follow each other equally often (nearly, beyond
    ``MAX_ORDERS`` orders). ``kinds[i]``: what agent i plays like (its spec; default:
    every agent its own); orders that differ only by agents of one kind changing places
    are played once.
    """
    if n_agents < 1 or players < 2:
        raise ValueError("seating_plan: need at least one agent and two seats")
    kinds = tuple(range(n_agents)) if kinds is None else tuple(kinds)
    if len(kinds) != n_agents:
        raise ValueError("seating_plan: one kind per agent")
    return list(_fair_blocks(n_agents, players, kinds))


@functools.lru_cache(maxsize=32)
def _fair_blocks(n_agents: int, players: int, kinds: tuple) -> tuple[np.ndarray, ...]:
    """``seating_blocks``, worked out once per table (costly at eight seats of eight kinds,
    and asked for by the count, the report and the match)."""
    kinds = list(kinds)
    if n_agents <= players:
        bases = [tuple((s + i) % n_agents for s in range(players)) for i in range(n_agents)]
    else:
        bases = list(itertools.combinations(range(n_agents), players))
    tables, seen = [], set()
    for base in bases:
        if len({kinds[a] for a in base}) >= 3:  # played in every order: one table per set
            if tuple(sorted(base)) in seen:
                continue
            seen.add(tuple(sorted(base)))
        tables.append(_seat_orders(base, kinds))
    n_blocks = math.lcm(*(len(orders) for orders in tables))
    blocks = []
    for j in range(n_blocks):
        lineups: list[tuple[int, ...]] = []
        for orders in tables:
            for lineup in orders[j % len(orders)]:
                if lineup not in lineups:
                    lineups.append(lineup)
        block = np.array(lineups, np.int64)
        block.setflags(write=False)
        blocks.append(block)
    return tuple(blocks)


def seating_plan(n_agents: int, players: int, kinds: Sequence[object] | None = None) -> np.ndarray:
    """int64 [L, P]: every lineup of a fair plan, block after block (``seating_blocks``)."""
    return np.concatenate(seating_blocks(n_agents, players, kinds))


def _seat_orders(base: tuple[int, ...], kinds: list[object]) -> list[list[tuple[int, ...]]]:
    """The orders a table ``base`` is played in, each as the list of its distinct rotations:
    the base's own rotations for at most two kinds, else every order of its agents (one
    per arrangement of their kinds)."""
    p = len(base)

    def rotations(order: tuple[int, ...]) -> list[tuple[int, ...]]:
        out: list[tuple[int, ...]] = []
        for r in range(p):
            lineup = tuple(order[(s - r) % p] for s in range(p))
            if lineup not in out:
                out.append(lineup)
        return out

    if len({kinds[a] for a in base}) <= 2:
        return [rotations(base)]
    orders, seen = [], set()
    for order in itertools.permutations(base):
        if tuple(kinds[a] for a in order) in seen:
            continue
        turned = [
            lineup for lineup in rotations(order) if tuple(kinds[a] for a in lineup) not in seen
        ]
        seen.update(tuple(kinds[a] for a in lineup) for lineup in turned)
        orders.append(turned)
    # In an order set by the kinds alone: listing the agents otherwise plays the same games.
    orders.sort(key=lambda turned: min(tuple(str(kinds[a]) for a in lineup) for lineup in turned))
    if len(orders) > MAX_ORDERS:
        orders = _most_balanced(orders, max(base) + 1)
    return orders


def _most_balanced(orders: list[list[tuple[int, ...]]], n: int) -> list[list[tuple[int, ...]]]:
    """``MAX_ORDERS`` of ``orders``, picked one by one to keep the counts of who follows
    whom (over every rotation) as even as they can be."""
    follows = np.zeros((len(orders), n * n))
    for i, turned in enumerate(orders):
        order = turned[0]
        for s in range(len(order)):
            follows[i, order[s] * n + order[(s + 1) % len(order)]] += len(turned)
    total, picked = np.zeros(n * n), []
    for _ in range(MAX_ORDERS):
        cost = ((total + follows) ** 2).sum(axis=1)
        cost[picked] = np.inf
        best = int(np.argmin(cost))
        picked.append(best)
        total += follows[best]
    return [orders[i] for i in sorted(picked)]


@dataclass
class MatchResult:
    """Every game of a match: who sat where, how it ended. G games, P seats."""

    agent_names: list[str]
    rules: Rules
    seed: int
    duplicate: bool
    lineups: np.ndarray  # int64 [G, P]  agent index at each seat
    deal: np.ndarray  # int64 [G]     deal (game id given to ``init``)
    totals: np.ndarray  # int32 [G, P]  final totals per seat
    winner: np.ndarray  # int64 [G]     winning seat, -1 (truncated)
    truncated: np.ndarray  # bool [G]      stopped at ``max_hands``
    hands: np.ndarray  # int64 [G]     hands played
    decisions: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    """int64 [k]: decisions each agent made."""
    seconds: float = 0.0
    agent_seconds: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float64))
    """float64 [k]: seconds each agent spent deciding (its ``act`` calls)."""
    agent_search: list = field(default_factory=list)
    """[k]: each search agent's ``search_summary()`` after the match (over the decisions of
    its life, which the programs' agents spend in one match), None for the others."""
    stopped: str | None = None
    """Why the match ended early (an agent failed: ``AgentFailure``'s line; ``INTERRUPTED``),
    None when every game was played; the arrays then hold the games finished before."""
    interruption: KeyboardInterrupt | None = field(default=None, repr=False, compare=False)
    """The interrupt that ended the match (``INTERRUPTED``), as raised: a caller's own
    subclass, such as the signal that stopped it, passes through ``raise_if_stopped``."""

    @property
    def n_games(self) -> int:
        return int(self.deal.shape[0])

    def raise_if_stopped(self, what: str) -> None:
        """Pass an agent's failure on (``AgentFailure``; Ctrl-C as ``KeyboardInterrupt``) to a
        caller that cannot use part of a match: ``what`` names what stopped, e.g. "the
        ladder"."""
        if self.stopped == INTERRUPTED:
            raise self.interruption or KeyboardInterrupt()
        if self.stopped:
            raise AgentFailure(f"{self.stopped}; {what} stopped")

    @property
    def winner_agent(self) -> np.ndarray:
        """int64 [G]: agent index of the winner, -1 if nobody won."""
        seat = np.maximum(self.winner, 0)
        return np.where(self.winner >= 0, self.lineups[np.arange(self.n_games), seat], -1)


def distinct_names(agents: Sequence[Agent], kinds: Sequence[object]) -> None:
    """Name apart agents that would share a name in a report: every copy of a kind seated
    twice (``sharp sharp``: ``sharp#1``, ``sharp#2``), and any later agent whose name an
    earlier one took (``name#2``...). ``kinds[i]``: what agent i is (its spec)."""
    seen: dict[str, int] = {}
    for agent, kind in zip(agents, kinds):
        base = getattr(agent, "name", None) or type(agent).__name__
        seen[base] = seen.get(base, 0) + 1
        repeated = sum(k == kind for k in kinds) > 1
        agent.name = f"{base}#{seen[base]}" if seen[base] > 1 or repeated else base


def match_games(
    n_agents: int,
    players: int,
    games: int,
    duplicate: bool,
    first_deal: int = 0,
    kinds: Sequence[object] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(lineups [G, P], deal ids [G]) for a fair match of at least ``games`` games.

    The count is rounded up to whole cycles of the seating plan so every lineup
    plays equally often. Duplicate: each deal is played once by every lineup of one
    block (``seating_blocks``), the blocks in turn.
    """
    blocks = seating_blocks(n_agents, players, kinds)
    per_cycle = sum(len(block) for block in blocks)
    cycles = max(1, -(-games // per_cycle))
    lineups = np.tile(np.concatenate(blocks), (cycles, 1))
    if duplicate:
        sizes = np.tile([len(block) for block in blocks], cycles)
        deals = np.repeat(np.arange(sizes.size) + first_deal, sizes)
    else:
        deals = np.arange(cycles * per_cycle) + first_deal
    return lineups, deals


def play_match(
    rules: Rules,
    agents: Sequence[Agent],
    games: int,
    seed: int = 0,
    duplicate: bool = False,
    batch_size: int = 1024,
    progress: bool = True,
    recorder: BatchRecorder | None = None,
    kinds: Sequence[object] | None = None,
    specs: Sequence[str | None] | None = None,
    workers: Workers | None = None,
    agent_root: int | None = None,
) -> MatchResult:
    """A fair match of about ``games`` games (see ``match_games``) between ``agents``;
    ``kinds``: what each agent plays like (its spec), for ``seating_blocks``.

    The match is played in shards (``rummy500.eval.shards``), each by fresh agents: built
    from ``specs[i]`` where given (seeded from ``agent_root``, by default the deal seed),
    else copies of ``agents[i]``; ``workers`` says where (default: in this process). The
    result is the same wherever the shards are played."""
    from rummy500.eval.shards import Workers, entrants, play_sharded

    lineups, deals = match_games(len(agents), rules.players, games, duplicate, kinds=kinds)
    result = play_sharded(
        rules,
        entrants(agents, specs),
        lineups,
        deals,
        seed,
        seed if agent_root is None else agent_root,
        workers or Workers(),
        batch_size=batch_size,
        progress=progress,
        recorder=recorder,
    )
    result.duplicate = duplicate
    return result


def play_games(
    rules: Rules,
    agents: Sequence[Agent],
    lineups: np.ndarray,
    deals: np.ndarray,
    seed: int,
    batch_size: int = 1024,
    progress: bool = True,
    recorder: BatchRecorder | None = None,
) -> MatchResult:
    """Play game ``g`` = deal ``deals[g]`` with agent ``lineups[g, s]`` in seat s, to the end.

    ``recorder`` (optional) collects every game as a replayable record. An agent that fails
    (``AgentFailure``) or Ctrl-C ends the match: the result holds the games finished until
    then and says why in ``stopped``."""
    import time

    from tqdm import tqdm

    lineups = np.asarray(lineups, np.int64)
    deals = np.asarray(deals, np.int64)
    n_games, p = lineups.shape
    if p != rules.players:
        raise ValueError(f"lineups have {p} seats but the rules seat {rules.players}")
    if lineups.min() < 0 or lineups.max() >= len(agents):
        raise ValueError("lineups name an agent index outside the agent list")
    totals = np.zeros((n_games, p), np.int32)
    winner = np.full(n_games, -1, np.int64)
    truncated = np.zeros(n_games, bool)
    hands = np.zeros(n_games, np.int64)
    decisions = np.zeros(len(agents), np.int64)
    agent_seconds = np.zeros(len(agents), np.float64)
    start_time = time.perf_counter()

    games = Games(rules, batch_size, seed, deals)

    def record_start(started: np.ndarray) -> None:
        for g in started.tolist():
            recorder.start(g, deals[g], [agents[k].name for k in lineups[g]])

    if recorder is not None:
        record_start(games.slot_game)
    bar = tqdm(total=n_games, disable=not progress, unit="game", desc="arena", leave=False)
    finished = np.zeros(n_games, bool)
    stopped, interruption = None, None
    try:
        while games.slot_game.size:
            state, slot_game = games.state, games.slot_game
            live = ~state.game_over
            if live.any():
                mask = games.mask()
                actions = np.zeros(slot_game.size, np.int64)
                agent_of_row = lineups[np.maximum(slot_game, 0), state.current_player]
                for k, agent in enumerate(agents):
                    rows = np.flatnonzero(live & (agent_of_row == k))
                    if rows.size == 0:
                        continue
                    view = games.view(state.current_player[rows], rows)
                    hidden = state.select(rows) if getattr(agent, "sees_hidden", False) else None
                    asked = time.perf_counter()
                    chosen = agent.act(
                        Decision(rules=rules, mask=mask[rows], view=view, hidden=hidden)
                    )
                    agent_seconds[k] += time.perf_counter() - asked
                    actions[rows] = np.asarray(chosen, np.int64).reshape(-1)
                    decisions[k] += rows.size
                if recorder is not None:
                    recorder.actions(slot_game[live], actions[live])
                games.step(actions)

            done = games.finished()
            if done.size:
                g = slot_game[done]
                if recorder is not None:
                    recorder.finish(state, done, g)
                totals[g] = state.totals[done]
                winner[g] = state.winner[done]
                truncated[g] = state.truncated[done]
                hands[g] = state.hand_number[done].astype(np.int64) + 1
                finished[g] = True
                bar.update(done.size)
                new_games = games.replace(done)
                if recorder is not None:
                    record_start(new_games)
            games.compact()
    except AgentFailure as failure:
        stopped = str(failure)
    except KeyboardInterrupt as interrupt:
        stopped, interruption = INTERRUPTED, interrupt
    bar.close()
    kept = finished if stopped else slice(None)
    return MatchResult(
        agent_names=[a.name for a in agents],
        rules=rules,
        seed=seed,
        duplicate=False,
        lineups=lineups[kept],
        deal=deals[kept],
        totals=totals[kept],
        winner=winner[kept],
        truncated=truncated[kept],
        hands=hands[kept],
        decisions=decisions,
        seconds=time.perf_counter() - start_time,
        stopped=stopped,
        interruption=interruption,
        agent_seconds=agent_seconds,
        agent_search=[a.search_summary() if hasattr(a, "search_summary") else None for a in agents],
    )
