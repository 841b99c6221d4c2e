"""Who plays each seat of each training game, and the chains of the learner's decisions.

In each of B games the learner holds one seat (every seat under pure
self-play) and one league member plays the others. A seat's decisions form a
chain: the rewards the game pays that seat after a decision are credited to
it, and each decision links to that seat's next one (``next_step``), so that
advantages follow each seat's own turns (``rummy500.train.advantages.turn_based_gae``).
Chains do not cross rollouts: a decision still pending at the end of one is
bootstrapped from its seat's current observation.
"""

from __future__ import annotations

import numpy as np

from .league import SELF, League, around_learner


class SeatControl:
    """Per-game seating (who holds each seat, the learner's seat) and each seat's pending
    decision."""

    def __init__(self, league: League, num_envs: int, players: int,
                 rng: np.random.Generator, mixed: bool = False) -> None:
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

    def finish(self, games: np.ndarray, winner: np.ndarray,
               dones: np.ndarray) -> np.ndarray:
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
            games.size, self.players, self.rng, self.mixed)
        return returns

    def seat_members(self, member: np.ndarray) -> None:
        """Put back each game's one league member ``member`` [B] (SELF: self-play), as
        checkpoints held it before tables were seated seat by seat, around the learner
        seats already set."""
        self.member[:] = around_learner(np.repeat(member[:, None], self.players, axis=1),
                                        member == SELF, self.learner_seat)

    def open_chains(self) -> tuple[np.ndarray, np.ndarray]:
        """(games, seats) whose chain is still pending (to bootstrap)."""
        return np.nonzero(self.pending >= 0)
