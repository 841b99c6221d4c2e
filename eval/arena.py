"""The arena: whole games to the target, in batches, straight through the core.

``seating_plan(k, P)`` gives the lineups (which agent sits in which seat) that
make a match fair: every agent sits in every seat equally often, and with more
agents than seats every group of P agents meets. ``play_match`` deals the games
(``--duplicate``: every deal once per lineup, so the luck of the cards cancels;
otherwise one fresh deal per game, lineups in turn) and ``play_games`` plays
them: a batch of live games steps together (``legal_mask`` -> each agent acts on
the rows where its seats must move -> ``step_inplace``), finished games are
replaced by waiting ones so the batch stays full.

Agents see only ``player_view`` of the seat to play and the legal mask (an
agent that wants the flat observation encodes the view itself).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from agents.base import Agent
from rummy_env.core import (
    BatchRecorder,
    Decision,
    GameStream,
    Rules,
    legal_mask,
    player_view,
    step_inplace,
)


def seating_plan(n_agents: int, players: int) -> np.ndarray:
    """int64 [L, P]: agent index at each seat of each lineup.

    * k <= P agents: the k shifts of the lineup ``seat s -> agent s % k``, each in
      all P rotations of the seats (duplicates dropped). Every agent holds every
      seat equally often.
    * k > P agents: every group of P agents, each in all P rotations.
    """
    if n_agents < 1 or players < 2:
        raise ValueError("seating_plan: need at least one agent and two seats")
    lineups: list[tuple[int, ...]] = []
    if n_agents <= players:
        bases = [tuple((s + i) % n_agents for s in range(players)) for i in range(n_agents)]
    else:
        bases = list(itertools.combinations(range(n_agents), players))
    for base in bases:
        for r in range(players):
            lineup = tuple(base[(s - r) % players] for s in range(players))
            if lineup not in lineups:
                lineups.append(lineup)
    return np.array(lineups, np.int64)


@dataclass
class MatchResult:
    """Every game of a match: who sat where, how it ended. G games, P seats."""

    agent_names: list[str]
    rules: Rules
    seed: int
    duplicate: bool
    lineups: np.ndarray     # int64 [G, P]  agent index at each seat
    deal: np.ndarray        # int64 [G]     deal (game id given to ``init``)
    totals: np.ndarray      # int32 [G, P]  final totals per seat
    winner: np.ndarray      # int64 [G]     winning seat, -1 (truncated)
    truncated: np.ndarray   # bool [G]      stopped at ``max_hands``
    hands: np.ndarray       # int64 [G]     hands played
    decisions: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    """int64 [k]: decisions each agent made."""
    seconds: float = 0.0
    agent_seconds: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float64))
    """float64 [k]: seconds each agent spent deciding (its ``act`` calls)."""
    agent_search: list = field(default_factory=list)
    """[k]: each search agent's ``search_summary()`` after the match (over the decisions of
    its life, which the programs' agents spend in one match), None for the others."""

    @property
    def n_games(self) -> int:
        return int(self.deal.shape[0])

    @property
    def winner_agent(self) -> np.ndarray:
        """int64 [G]: agent index of the winner, -1 if nobody won."""
        seat = np.maximum(self.winner, 0)
        return np.where(self.winner >= 0, self.lineups[np.arange(self.n_games), seat], -1)


def match_games(n_agents: int, players: int, games: int, duplicate: bool,
                first_deal: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(lineups [G, P], deal ids [G]) for a fair match of at least ``games`` games.

    The count is rounded up to whole cycles of the seating plan so every lineup
    plays equally often. Duplicate: deal d is played once per lineup.
    """
    plan = seating_plan(n_agents, players)
    n_lineups = plan.shape[0]
    cycles = max(1, -(-games // n_lineups))
    if duplicate:
        deals = np.repeat(np.arange(cycles) + first_deal, n_lineups)
        lineups = np.tile(plan, (cycles, 1))
    else:
        deals = np.arange(cycles * n_lineups) + first_deal
        lineups = np.tile(plan, (cycles, 1))
    return lineups, deals


def play_match(rules: Rules, agents: Sequence[Agent], games: int, seed: int = 0,
               duplicate: bool = False, batch_size: int = 1024, progress: bool = True,
               recorder: BatchRecorder | None = None) -> MatchResult:
    """A fair match of about ``games`` games (see ``match_games``) between ``agents``."""
    lineups, deals = match_games(len(agents), rules.players, games, duplicate)
    result = play_games(rules, agents, lineups, deals, seed, batch_size=batch_size,
                        progress=progress, recorder=recorder)
    result.duplicate = duplicate
    return result


def play_games(rules: Rules, agents: Sequence[Agent], lineups: np.ndarray, deals: np.ndarray,
               seed: int, batch_size: int = 1024, progress: bool = True,
               recorder: BatchRecorder | None = None) -> MatchResult:
    """Play game ``g`` = deal ``deals[g]`` with agent ``lineups[g, s]`` in seat s, to the end.

    ``recorder`` (optional) collects every game as a replayable record."""
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

    stream = GameStream(rules, seed, batch_size, deals)

    def record_start(games: np.ndarray) -> None:
        for g in games.tolist():
            recorder.start(g, deals[g], [agents[k].name for k in lineups[g]])

    if recorder is not None:
        record_start(stream.slot_game)
    bar = tqdm(total=n_games, disable=not progress, unit="game", desc="arena", leave=False)
    while stream.slot_game.size:
        state, slot_game = stream.state, stream.slot_game
        live = ~state.game_over
        if live.any():
            mask = legal_mask(rules, state)
            actions = np.zeros(slot_game.size, np.int64)
            agent_of_row = lineups[np.maximum(slot_game, 0), state.current_player]
            for k, agent in enumerate(agents):
                rows = np.flatnonzero(live & (agent_of_row == k))
                if rows.size == 0:
                    continue
                seats = state.current_player[rows]
                view = player_view(rules, state, seats, rows)
                asked = time.perf_counter()
                chosen = agent.act(Decision(rules=rules, mask=mask[rows], view=view))
                agent_seconds[k] += time.perf_counter() - asked
                actions[rows] = np.asarray(chosen, np.int64).reshape(-1)
                decisions[k] += rows.size
            if recorder is not None:
                recorder.actions(slot_game[live], actions[live])
            step_inplace(rules, state, actions, mask=mask)

        done = stream.finished()
        if done.size:
            g = slot_game[done]
            if recorder is not None:
                recorder.finish(state, done, g)
            totals[g] = state.totals[done]
            winner[g] = state.winner[done]
            truncated[g] = state.truncated[done]
            hands[g] = state.hand_number[done].astype(np.int64) + 1
            bar.update(done.size)
            new_games = stream.replace(done)
            if recorder is not None:
                record_start(new_games)
        stream.compact()
    bar.close()
    return MatchResult(
        agent_names=[a.name for a in agents], rules=rules, seed=seed, duplicate=False,
        lineups=lineups, deal=deals, totals=totals, winner=winner, truncated=truncated,
        hands=hands, decisions=decisions, seconds=time.perf_counter() - start_time,
        agent_seconds=agent_seconds,
        agent_search=[a.search_summary() if hasattr(a, "search_summary") else None
                      for a in agents],
    )
