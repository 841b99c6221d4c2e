"""The opponent league: who sits across the table from the learner.

Members are the heuristics (``random``, ``casual``, ``sharp``) and frozen past
snapshots of the learner. Each new game draws its opponent by this rule:

* with probability ``self_play``, pure self-play: every seat is the current
  learner (and every seat's decisions are trained on);
* otherwise one league member plays every other seat, drawn with weight
  ``(1 - w + 0.05) ** 2``, where ``w`` is the learner's recent win rate against
  that member (an exponential moving average, starting at 0.5): members the
  learner still loses to are drawn most (prioritized fictitious self-play).
  With ``mixed`` tables (three or more players) each other seat draws its own
  member by the same weights, so the learner meets tables of different players,
  as an evaluation or a ladder seats them.

A finished game counts as a win or a loss against every member at its table.

The RLlib backend seats the same league in fixed blocks of rows (``fixed_tables``):
each env runner's games keep their member, a share ``self_play`` of them held by
a frozen copy of the learner, the rest split evenly among the members.

Who plays each seat of each training game, and the chains of the learner's decisions.

In each of B games the learner holds one seat (every seat under pure
self-play) and one league member plays the others. A seat's decisions form a
chain: the rewards the game pays that seat after a decision are credited to
it, and each decision links to that seat's next one (``next_step``), so that
advantages follow each seat's own turns (``rummy500.train.advantages.turn_based_gae``).
Chains do not cross rollouts: a decision still pending at the end of one is
bootstrapped from its seat's current observation.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rummy500.agents.base import Agent

SELF = -1
"""Controller id of the current learner (in the RLlib backend: its frozen copy)."""


def fixed_tables(self_play: float, members: int, num_envs: int) -> np.ndarray:
    """int [num_envs]: SELF or the member index holding each game, in blocks of rows: a
    share ``self_play`` of the games to SELF, the rest split evenly among ``members``
    (largest remainders), each side with a positive share getting at least one game; a
    ValueError when there are too few games or no side has a share."""
    shares = {SELF: self_play, **dict.fromkeys(range(members), (1.0 - self_play) / max(1, members))}
    sides = {side: share for side, share in shares.items() if share > 0}
    if not sides:
        raise ValueError("opponents: name at least one, or set self_play above 0")
    if num_envs < len(sides):
        raise ValueError(
            f"num_envs={num_envs} is fewer than the {len(sides)} sides of the "
            "league (the learner's copy and each opponent); each needs a game"
        )
    exact = {side: share / sum(sides.values()) * num_envs for side, share in sides.items()}
    sizes = {side: max(1, int(value)) for side, value in exact.items()}
    by_remainder = sorted(sides, key=lambda side: exact[side] - sizes[side], reverse=True)
    for k in range(num_envs - sum(sizes.values())):
        sizes[by_remainder[k % len(by_remainder)]] += 1
    while sum(sizes.values()) > num_envs:  # the minimum of one game overdrew
        sizes[max(sizes, key=sizes.__getitem__)] -= 1
    return np.repeat(np.array(list(sizes), np.int64), list(sizes.values()))


def around_learner(
    seats: np.ndarray, self_play: np.ndarray, learner_seat: np.ndarray
) -> np.ndarray:
    """int [n, P]: the members ``seats`` with SELF in each game's ``learner_seat`` and in
    every seat of the self-play games (``self_play`` bool [n])."""
    learner = np.arange(seats.shape[1]) == learner_seat[:, None]
    return np.where(learner | self_play[:, None], SELF, seats)


@dataclass
class League:
    self_play: float = 0.5
    ema: float = 0.05
    max_snapshots: int = 5
    names: list[str] = field(default_factory=list)
    agents: list[Agent] = field(default_factory=list)
    win_rate: list[float] = field(default_factory=list)
    snapshot: list[bool] = field(default_factory=list)

    def add(self, name: str, agent: Agent, is_snapshot: bool = False) -> None:
        """Add a member; the oldest snapshot leaves when there are too many."""
        if is_snapshot and sum(self.snapshot) >= self.max_snapshots:
            oldest = self.snapshot.index(True)
            for values in (self.names, self.agents, self.win_rate, self.snapshot):
                del values[oldest]
        self.names.append(name)
        self.agents.append(agent)
        self.win_rate.append(0.5)
        self.snapshot.append(is_snapshot)

    def weights(self) -> np.ndarray:
        """Draw probabilities of the members when the learner does not play itself."""
        w = (1.0 - np.asarray(self.win_rate) + 0.05) ** 2
        return w / w.sum()

    def draw(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """int [n]: SELF or a member index for each of n new games."""
        if not self.agents:
            return np.full(n, SELF)
        members = rng.choice(len(self.agents), size=n, p=self.weights())
        return np.where(rng.random(n) < self.self_play, SELF, members)

    def draw_tables(
        self, n: int, players: int, rng: np.random.Generator, mixed: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        """(tables int [n, P], learner seats int [n]) of n new games: SELF in every seat
        of a self-play game, else SELF in the learner's seat and members in the others,
        one member in all of them or (``mixed``) one drawn for each seat."""
        game = self.draw(n, rng)
        learner_seat = rng.integers(players, size=n)
        if mixed and self.agents:
            seats = rng.choice(len(self.agents), size=(n, players), p=self.weights())
        else:
            seats = np.repeat(game[:, None], players, axis=1)
        return around_learner(seats, game == SELF, learner_seat), learner_seat

    def record(self, tables: np.ndarray, learner_won: np.ndarray) -> None:
        """Update win rates from finished games: ``tables`` [n, P] their seats (SELF or a
        member), ``learner_won`` [n]; each member at a table counts the game once."""
        for table, won in zip(tables.tolist(), learner_won.tolist()):
            for j in sorted(set(table) - {SELF}):
                self.win_rate[j] += self.ema * (float(won) - self.win_rate[j])

    def stats(self) -> dict[str, float]:
        return {name: rate for name, rate in zip(self.names, self.win_rate)}


class SeatControl:
    """Per-game seating (who holds each seat, the learner's seat) and each seat's pending
    decision."""

    def __init__(
        self,
        league: League,
        num_envs: int,
        players: int,
        rng: np.random.Generator,
        mixed: bool = False,
    ) -> None:
        self.league, self.players, self.rng, self.mixed = league, players, rng, mixed
        self.member, self.learner_seat = league.draw_tables(num_envs, players, rng, mixed)
        """int [B, P]: SELF or the league member holding each seat; int [B]: the
        learner's seat (every seat is SELF under pure self-play)."""
        self.pending = np.full((num_envs, players), -1, np.int64)  # step of each seat's chain
        self.episode_return = np.zeros((num_envs, players), np.float32)

    def controllers(self, seat: np.ndarray) -> np.ndarray:
        """int [B]: SELF or the league member to act in each game (``seat`` to play)."""
        return self.member[np.arange(seat.size), seat]

    def learner_seats(self) -> np.ndarray:
        """bool [B, P]: seats whose decisions are trained on."""
        return self.member == SELF

    def new_rollout(self) -> None:
        """Forget the pending decisions: the previous rollout bootstrapped them."""
        self.pending[:] = -1

    def decide(self, t: int, rows: np.ndarray, seats: np.ndarray, next_step: np.ndarray) -> None:
        """The learner decided at step ``t`` in games ``rows`` (for ``seats``): link each
        seat's previous decision to this one in ``next_step`` [T, B]."""
        previous = self.pending[rows, seats]
        linked = previous >= 0
        next_step[previous[linked], rows[linked]] = t
        self.pending[rows, seats] = t

    def credit(self, rewards: np.ndarray, step_rewards: np.ndarray) -> None:
        """Add each learner seat's ``rewards`` [B, P] to its pending decision's entry of
        ``step_rewards`` [T, B]."""
        learner = self.learner_seats()
        g, s = np.nonzero(learner & (self.pending >= 0))
        step_rewards[self.pending[g, s], g] += rewards[g, s]
        self.episode_return += rewards * learner

    def finish(self, games: np.ndarray, winner: np.ndarray, dones: np.ndarray) -> np.ndarray:
        """Games ``games`` ended (``winner`` seats): close their chains in ``dones`` [T, B],
        tell the league, reseat them. Returns the learner seats' episode returns."""
        learner = self.learner_seats()[games]
        closing = learner & (self.pending[games] >= 0)
        fg, fs = np.nonzero(closing)
        dones[self.pending[games[fg], fs], games[fg]] = True
        returns = self.episode_return[games][learner]
        self.league.record(self.member[games], winner == self.learner_seat[games])
        self.pending[games] = -1
        self.episode_return[games] = 0.0
        self.member[games], self.learner_seat[games] = self.league.draw_tables(
            games.size, self.players, self.rng, self.mixed
        )
        return returns

    def seat_members(self, member: np.ndarray) -> None:
        """Put back each game's one league member ``member`` [B] (SELF: self-play), as
        checkpoints held it before tables were seated seat by seat, around the learner
        seats already set."""
        self.member[:] = around_learner(
            np.repeat(member[:, None], self.players, axis=1), member == SELF, self.learner_seat
        )

    def open_chains(self) -> tuple[np.ndarray, np.ndarray]:
        """(games, seats) whose chain is still pending (to bootstrap)."""
        return np.nonzero(self.pending >= 0)
