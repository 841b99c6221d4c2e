"""The oracle: the expert's search in worlds dealt from the true games.

It is a research bound that sees hidden cards, so these tests check the
opposite of the expert's no-peeking test (its worlds are the true games, its
choices follow the hidden cards), that the arena hands the true games to it
and to nobody else, and that every program outside the arena refuses it in
one line. Tiny budgets, few games: never strength.
"""

from __future__ import annotations

import numpy as np
import pytest

from rummy500.agents.random_agent import RandomAgent
from rummy500.agents.registry import NO_ORACLE, make_agent
from rummy500.eval.arena import play_match
from rummy500.eval.oracle import OracleAgent, check_arena_spec, make_arena_agent, make_oracle
from rummy500.train.config import load_config
from rummy_env.core import Decision, Rules, legal_mask, player_view
from tests.test_agents import redeal_hidden
from tests.test_expert import positions, run_cli

pytestmark = pytest.mark.slow

TINY = "guide=sharp,worlds=3,candidates=3,horizon=12"


def decision_of(rules: Rules, state) -> Decision:
    """A decision for every game of ``state``, the true games handed over as the arena does."""
    return Decision(rules, legal_mask(rules, state), player_view(rules, state), hidden=state)


@pytest.mark.parametrize("sees", ["hands", "all"])
def test_worlds_are_the_true_games(sees):
    rules = Rules()
    state = positions(rules, 40, seed=5)
    oracle = make_oracle(f"sees={sees},{TINY}", rules, seed=1)
    rows = np.arange(0, 40, 3)
    decision = decision_of(rules, state)
    worlds = oracle.deal_worlds(decision, rows, player_view(rules, state.select(rows)))
    truth = state.select(np.repeat(rows, 3))
    np.testing.assert_array_equal(worlds.hand, truth.hand)
    np.testing.assert_array_equal(worlds.pile, truth.pile)
    np.testing.assert_array_equal(worlds.stock_size, truth.stock_size)
    np.testing.assert_array_equal(np.sort(worlds.stock, axis=1), np.sort(truth.stock, axis=1))
    reordered = (worlds.stock != truth.stock).any(axis=1)
    if sees == "all":
        assert not reordered.any()
    else:
        # a few-card stock may come out in its old order by chance; a long one may not
        assert reordered[truth.stock_size > 8].all() and reordered.mean() > 0.5


def test_a_share_shows_that_much_of_the_other_hands():
    rules = Rules()
    state = positions(rules, 60, seed=6)
    rows = np.arange(60)
    view = player_view(rules, state)
    truth = state.select(np.repeat(rows, 3))
    other = 1 - truth.current_player.astype(np.int64)
    true_hand = truth.hand[np.arange(truth.batch_size), other].astype(np.int64)
    overlap = {}
    for share in (0.1, 0.9):
        worlds = make_oracle(f"sees={share},{TINY}", rules, seed=2).deal_worlds(
            decision_of(rules, state), rows, view
        )
        for w in range(worlds.batch_size):  # every world agrees with what the seat sees
            np.testing.assert_array_equal(
                worlds.hand[w, truth.current_player[w]], truth.hand[w, truth.current_player[w]]
            )
        np.testing.assert_array_equal(worlds.known, truth.known)  # public knowledge kept
        dealt = worlds.hand[np.arange(worlds.batch_size), other].astype(np.int64)
        overlap[share] = np.minimum(dealt, true_hand).sum() / true_hand.sum()
    assert overlap[0.9] > overlap[0.1] + 0.2


def test_its_choices_follow_the_hidden_cards():
    rules = Rules.preset_named("web")
    state = positions(rules, 96, seed=8)
    first = make_oracle(f"sees=all,{TINY}", rules, seed=4).act(decision_of(rules, state))
    moved = redeal_hidden(rules, state, np.random.default_rng(2))
    second = make_oracle(f"sees=all,{TINY}", rules, seed=4).act(decision_of(rules, moved))
    assert (first != second).any()


GIVEN: dict[bool, list[bool]] = {True: [], False: []}
"""Whether each decision of a ``SeenHidden`` came with the true games, by whether it asked:
kept outside the agent, since a match plays copies of an agent object (one per shard)."""


class SeenHidden(RandomAgent):
    """A random player that notes whether each decision came with the true games, and
    whether those are the games its view was cut from."""

    def __init__(self, sees_hidden: bool, seed: int):
        super().__init__(seed)
        self.sees_hidden = sees_hidden

    def act(self, decision: Decision) -> np.ndarray:
        GIVEN[self.sees_hidden].append(decision.hidden is not None)
        if decision.hidden is not None:
            seats = decision.hidden.current_player
            view = player_view(decision.rules, decision.hidden, seats)
            np.testing.assert_array_equal(view.hand, decision.view.hand)
            np.testing.assert_array_equal(view.pile, decision.view.pile)
        return super().act(decision)


def test_the_arena_hands_the_true_games_only_to_agents_that_ask():
    rules = Rules.preset_named("web")
    asks, trusting = SeenHidden(True, 1), SeenHidden(False, 2)
    trusting.name = "random#2"
    GIVEN[True].clear(), GIVEN[False].clear()
    play_match(rules, [asks, trusting], games=4, progress=False)  # in this process
    assert GIVEN[True] and all(GIVEN[True])
    assert GIVEN[False] and not any(GIVEN[False])


def test_it_names_its_budget():
    rules = Rules()
    assert make_arena_agent("oracle:sees=0.5", rules).name == "oracle:sees=0.5"
    assert make_arena_agent("oracle:sees=.50", rules).name == "oracle:sees=0.5"
    assert make_arena_agent("oracle", rules).name == "oracle"
    oracle = make_arena_agent("oracle:sees=all, worlds=16", rules)
    assert isinstance(oracle, OracleAgent)
    assert (oracle.sees, oracle.budget.worlds) == ("all", 16)
    assert oracle.name == "oracle:sees=all,worlds=16"


@pytest.mark.parametrize(
    "spec, reason",
    [
        ("oracle:sees=stock", "sees must be one of hands, all or a share"),
        ("oracle:sees=1.5", "sees must be one of hands, all or a share"),
        ("oracle:worlds=0", "oracle: worlds=0 is outside"),
        ("oracle:peek=1", r"oracle: bad option .*options are sees=hands\|all\|SHARE, worlds=N"),
        ("oracle:sees=nan", "sees must be one of hands, all or a share"),
    ],
)
def test_bad_options_say_why_in_one_line(spec, reason):
    with pytest.raises(ValueError, match=reason) as e:
        make_arena_agent(spec, Rules())
    assert "\n" not in str(e.value)


def test_a_guide_that_cannot_play_is_told_of_the_oracle():
    with pytest.raises(ValueError, match="^oracle: guide=champion: "):
        make_arena_agent("oracle:guide=champion", Rules(players=3))


@pytest.mark.parametrize(
    "spec, ok",
    [
        ("oracle", True),
        ("oracle:sees=0.9,worlds=16", True),
        ("sharp", True),
        ("expert:worlds=4", True),
        ("ckpt:not_there.pt", False),
        ("oracle:sees=2", False),
        ("grandmaster", False),
    ],
)
def test_the_arena_programs_check_their_agents_before_any_work(spec, ok):
    if ok:
        check_arena_spec(spec)
        return
    with pytest.raises(ValueError) as e:
        check_arena_spec(spec)
    assert "\n" not in str(e.value)
    if spec == "grandmaster":  # the arena's programs name the oracle among the known forms
        assert "oracle[:OPTIONS]" in str(e.value)


def test_programs_outside_the_arena_refuse_it():
    with pytest.raises(ValueError, match="only rummy500 eval and rummy500 ladder"):
        make_agent("oracle", Rules())
    with pytest.raises(ValueError, match="only rummy500 eval and rummy500 ladder"):
        load_config(None, ["opponents=[sharp, oracle]"])
    rules = Rules()
    state = positions(rules, 32, seed=1)
    unseen = Decision(rules, legal_mask(rules, state), player_view(rules, state))
    with pytest.raises(ValueError, match="no hidden cards given"):
        make_oracle(TINY, rules).act(unseen)


def test_eval_plays_it_and_play_refuses_it():
    done = run_cli(
        "eval",
        "--agents",
        f"oracle:{TINY}",
        "sharp",
        "--games",
        "2",
        "--set",
        "target=100",
        "--no-progress",
    )
    assert done.returncode == 0, done.stderr
    assert "oracle:" in done.stdout and "searched" in done.stdout
    refused = run_cli("play", "--opponents", "oracle")
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert NO_ORACLE in refused.stderr
