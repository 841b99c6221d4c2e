"""Seat control in training: who acts, how decisions chain, where rewards go."""

from __future__ import annotations

import numpy as np
import pytest

from rummy500.train.league import SELF, League, SeatControl


class _Member:
    name = "member"


def _seating(
    self_play: float, members: int = 1, players: int = 2, num_envs: int = 2, mixed: bool = False
) -> SeatControl:
    league = League(self_play=self_play)
    for _ in range(members):
        league.add("member", _Member())
    return SeatControl(
        league, num_envs=num_envs, players=players, rng=np.random.default_rng(0), mixed=mixed
    )


def test_learner_acts_only_in_its_seat_against_a_member() -> None:
    seating = _seating(self_play=0.0)
    seating.learner_seat[:] = [0, 1]
    seating.seat_members(np.array([0, 0]))
    assert seating.member.tolist() == [[SELF, 0], [0, SELF]]
    assert seating.controllers(np.array([0, 0])).tolist() == [SELF, 0]
    assert seating.learner_seats().tolist() == [[True, False], [False, True]]


@pytest.mark.parametrize("mixed", [False, True], ids=["one member a table", "mixed tables"])
def test_four_player_tables_seat_the_learner_once_and_members_as_asked(mixed: bool) -> None:
    seating = _seating(self_play=0.25, members=3, players=4, num_envs=4000, mixed=mixed)
    tables, learner = seating.member, seating.learner_seat
    self_play = (tables == SELF).all(axis=1)
    assert 0.2 < self_play.mean() < 0.3
    others = tables[~self_play]
    assert (others[np.arange(others.shape[0]), learner[~self_play]] == SELF).all()
    assert ((others == SELF).sum(axis=1) == 1).all()
    members_a_table = [len(set(t) - {SELF}) for t in others.tolist()]
    if mixed:  # three seats drawn from three members: two or three kinds at most tables
        assert np.mean(np.array(members_a_table) > 1) > 0.7
    else:
        assert set(members_a_table) == {1}
    # Who acts follows the table: the learner in its seat, each seat's member elsewhere.
    seat = np.arange(4000) % 4
    assert (seating.controllers(seat) == tables[np.arange(4000), seat]).all()


def test_a_finished_mixed_table_counts_once_for_each_member_at_it() -> None:
    seating = _seating(self_play=0.0, members=2, players=4, num_envs=1, mixed=True)
    seating.member[:] = [[SELF, 0, 0, 1]]
    seating.learner_seat[:] = 0
    seating.finish(np.array([0]), np.array([0]), np.zeros((1, 1), bool))  # the learner won
    assert seating.league.win_rate == [0.5 + 0.05 * 0.5] * 2


def test_decisions_chain_per_seat_and_rewards_reach_the_pending_one() -> None:
    seating = _seating(self_play=1.0)  # every seat is the learner
    t_len = 4
    next_step = np.full((t_len, 2), -1, np.int64)
    rewards = np.zeros((t_len, 2), np.float32)
    dones = np.zeros((t_len, 2), bool)
    # Game 0: seat 0 decides at t=0 and t=2, seat 1 at t=1.
    seating.decide(0, np.array([0]), np.array([0]), next_step)
    seating.decide(1, np.array([0]), np.array([1]), next_step)
    seating.credit(np.array([[0.0, 0.5], [0.0, 0.0]], np.float32), rewards)
    seating.decide(2, np.array([0]), np.array([0]), next_step)
    assert next_step[:, 0].tolist() == [2, -1, -1, -1]  # seat 0's chain: 0 -> 2
    assert rewards[:, 0].tolist() == [0.0, 0.5, 0.0, 0.0]  # seat 1's reward to its t=1
    # The game ends: seat 0 wins +1, seat 1 pays -1; both chains close there.
    seating.credit(np.array([[1.0, -1.0], [0.0, 0.0]], np.float32), rewards)
    returns = seating.finish(np.array([0]), np.array([0]), dones)
    assert rewards[:, 0].tolist() == [0.0, -0.5, 1.0, 0.0]
    assert dones[:, 0].tolist() == [False, True, True, False]
    assert sorted(returns.tolist()) == [-0.5, 1.0]
    assert (seating.pending[0] == -1).all()
    g, _ = seating.open_chains()
    assert g.size == 0


def test_finished_games_are_reseated_and_reported_to_the_league() -> None:
    seating = _seating(self_play=0.0)
    seating.learner_seat[:] = [0, 0]
    seating.seat_members(np.array([0, 0]))
    dones = np.zeros((1, 2), bool)
    seating.decide(0, np.array([1]), np.array([0]), np.full((1, 2), -1))
    seating.finish(np.array([1]), np.array([0]), dones)  # the learner won game 1
    assert seating.league.win_rate[0] > 0.5
    assert dones[0].tolist() == [False, True]
