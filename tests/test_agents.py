"""The heuristic agents: protocol, key decisions in hand-made positions, no peeking.

Positions are built with ``rummy_env.core.position.from_position`` from the scenario
format of ``conformance/README.md`` and, where a decision comes later in the
turn, played forward through the core with canonical action texts.
"""

from __future__ import annotations

import numpy as np
import pytest

from rummy500.agents.base import Agent
from rummy500.agents.casual import protected_cards
from rummy500.agents.registry import BUILTIN, make_agent
from rummy500.eval.agent_speed import midgame_states
from rummy_env.core import (
    N_NATURAL,
    Decision,
    Rules,
    State,
    action_layout,
    from_position,
    legal_mask,
    parse_card,
    player_view,
    step_inplace,
)

pytestmark = pytest.mark.slow

AGENTS = ("random", "casual", "sharp")


def decide(
    position: dict,
    agent: str,
    actions: tuple[str, ...] = (),
    known: dict[int, list[str]] | None = None,
) -> str:
    """The text of ``agent``'s action after ``actions`` from ``position``."""
    rules, state = from_position(position)
    action_ids = action_layout(rules)
    for text in actions:
        step_inplace(rules, state, np.array([action_ids.parse(text)]), auto_deal=False)
    for seat, cards in (known or {}).items():  # cards a seat took from the pile earlier
        for c in cards:
            state.known[0, seat, parse_card(c)] += 1
    mask = legal_mask(rules, state)
    chosen = make_agent(agent, rules, 0).act(Decision(rules, mask, player_view(rules, state)))
    assert mask[0, chosen[0]], action_ids.text(chosen[0])
    return action_ids.text(chosen[0])


def act_on(rules: Rules, state: State, agent: Agent) -> np.ndarray:
    mask = legal_mask(rules, state)
    return agent.act(Decision(rules, mask, player_view(rules, state)))


# ----------------------------------------------------------------------------- protocol
@pytest.mark.parametrize("preset", ["standard", "web"])
@pytest.mark.parametrize("players", [2, 3, 5])
def test_agents_return_legal_actions(preset, players):
    rules = Rules.preset_named(preset, players=players)
    state = midgame_states(rules, 192, seed=players, players=("random", "casual"))
    mask = legal_mask(rules, state)
    decision = Decision(rules, mask, player_view(rules, state))
    for name in AGENTS:
        agent = make_agent(name, rules, seed=1)
        assert isinstance(agent, Agent)
        actions = agent.act(decision)
        assert actions.shape == (state.batch_size,)
        assert np.issubdtype(actions.dtype, np.integer)
        assert mask[np.arange(state.batch_size), actions].all(), name


def test_registry():
    rules = Rules()
    assert {make_agent(n, rules).name for n in AGENTS} == set(AGENTS)
    assert set(AGENTS) <= set(BUILTIN)
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("grandmaster", rules)
    with pytest.raises((ValueError, NotImplementedError), match="ckpt:runs/x.pt"):
        make_agent("ckpt:runs/x.pt", rules)


def test_unfamiliar_action_kinds_fall_back_to_legal_ones():
    """A mask offering only kinds the heuristics do not know (call/pass) still gets an answer."""
    rules = Rules()
    state = midgame_states(rules, 16, seed=3)
    action_ids = action_layout(rules)
    mask = np.zeros((16, action_ids.size), bool)
    mask[:, [action_ids.CALL, action_ids.PASS]] = True
    decision = Decision(rules, mask, player_view(rules, state))
    for name in AGENTS:
        actions = make_agent(name, rules, 0).act(decision)
        assert set(actions.tolist()) <= {action_ids.CALL, action_ids.PASS}


# ----------------------------------------------------------------------------- positions
STOCK = ["5C", "2D", "3D", "5D", "6D", "8D", "TD", "JD", "QD"]

DIG_WORTH_IT = {
    # take 4 reaches 9C: 9C 9H 9S (27) and 4S 5S 6S 7S (22) for one loose 2C.
    "rules": {"preset": "standard"},
    "hands": [
        ["9H", "9S", "4S", "7S", "KC", "QH", "2H"],
        ["AC", "2C", "3C", "4C", "5C", "6C", "7C"],
    ],
    "stock": ["2D", "3D", "4D", "5D", "6D", "7D", "8D", "TD", "JD", "QD"],
    "discard": ["TC", "9C", "5S", "6S", "3H"],
    "to_play": 0,
}

DIG_NOT_WORTH_IT = {
    # take 7 reaches 2C for 2C 2H 2S (6 points) but brings KD QS JS KC AH 6H (61),
    # while the opponent, down to three cards, may go out soon.
    "rules": {"preset": "standard"},
    "hands": [["2H", "2S", "4S", "7S", "9C", "8H", "3D"], ["AD", "4C", "5C"]],
    "stock": ["5D", "6D", "7D", "8D", "TD", "JD", "QD", "9D"],
    "discard": ["TC", "2C", "KD", "QS", "JS", "KC", "AH", "6H"],
    "to_play": 0,
}


def test_sharp_takes_a_dig_worth_taking():
    assert decide(DIG_WORTH_IT, "sharp") == "take 4"


def test_sharp_refuses_a_dig_that_costs_more_than_it_melds():
    assert decide(DIG_NOT_WORTH_IT, "sharp") == "draw"


def test_casual_never_digs():
    assert decide(DIG_WORTH_IT, "casual") == "draw"
    assert decide(DIG_NOT_WORTH_IT, "casual") == "draw"


FEED_THE_SET = {
    # After drawing 5C seat 0 holds 7H 2C 4D 6S 5C: 7H is its highest loose card.
    "rules": {"preset": "standard"},
    "hands": [["7H", "2C", "4D", "6S"], ["7C", "7D", "KC", "KS"]],
    "stock": STOCK,
    "discard": ["TC", "9C"],
    "to_play": 0,
}


def test_sharp_does_not_discard_into_known_cards_of_the_next_player():
    assert decide(FEED_THE_SET, "sharp", ("draw",)) == "discard 7H"
    # Seat 1 is known to hold 7C 7D (taken from the pile): 7H would complete their set.
    assert decide(FEED_THE_SET, "sharp", ("draw",), known={1: ["7C", "7D"]}) != "discard 7H"
    # Casual does not track what others hold.
    assert decide(FEED_THE_SET, "casual", ("draw",), known={1: ["7C", "7D"]}) == "discard 7H"


FEED_THE_RUN = {
    # Seat 0 may not lay off yet (it has not melded), seat 1 may: QH fits 9H TH JH.
    "rules": {"preset": "standard", "layoff_requires_meld": True},
    "hands": [["QH", "2C", "4D", "6S"], ["7C", "7D", "KC", "KS"]],
    "stock": STOCK,
    "discard": ["TC", "9C"],
    "melds": [{"cards": ["9H", "TH", "JH"], "by": [1, 1, 1]}],
    "to_play": 0,
}


def test_sharp_does_not_discard_a_card_that_fits_the_table():
    assert decide(FEED_THE_RUN, "sharp", ("draw",)) != "discard QH"
    assert decide({**FEED_THE_RUN, "melds": []}, "sharp", ("draw",)) == "discard QH"
    assert decide(FEED_THE_RUN, "casual", ("draw",)) == "discard QH"


def test_casual_lays_down_the_longest_meld_first():
    position = {
        "rules": {"preset": "standard"},
        "hands": [["2H", "3H", "4H", "5H", "KC", "KD", "KS", "9C"], ["7C", "7D"]],
        "stock": STOCK,
        "discard": ["TC", "9D"],
        "to_play": 0,
    }
    assert decide(position, "casual", ("draw",)) == "meld 2H 3H 4H 5H"
    # Equal length: the meld worth more.
    position["hands"][0].remove("5H")
    assert decide(position, "casual", ("draw",)) == "meld KC KD KS"
    # Then it lays off what fits, then discards.
    assert decide(position, "casual", ("draw", "meld KC KD KS", "meld 2H 3H 4H")) == "discard 9C"


def test_casual_takes_the_top_card_only_to_meld_it():
    base = {
        "rules": {"preset": "standard"},
        "hands": [["8C", "8H", "2H", "5S"], ["7C", "7D"]],
        "stock": STOCK,
        "to_play": 0,
    }
    assert decide({**base, "discard": ["TC", "9D", "8S"]}, "casual") == "take 1"
    assert decide({**base, "discard": ["TC", "9D", "KH"]}, "casual") == "draw"
    run_on_table = {
        **base,
        "discard": ["TC", "9D", "KH"],
        "melds": [{"cards": ["TH", "JH", "QH"], "by": [1, 1, 1]}],
    }
    assert decide(run_on_table, "casual") == "take 1"


def test_casual_keeps_pairs_and_run_fragments():
    rules = Rules()
    hand = np.zeros((1, 53), np.int8)
    for c in ("KS", "KH", "9C", "TC", "2D", "AS", "5H"):
        hand[0, parse_card(c)] = 1
    kept = {
        c
        for c in ("KS", "KH", "9C", "TC", "2D", "AS", "5H")
        if protected_cards(hand, rules)[0, parse_card(c)]
    }
    assert kept == {"KS", "KH", "9C", "TC", "AS"}  # K-A of spades is a fragment (Q-K-A)
    web = Rules.preset_named("web")  # ace low only: K-A is no fragment
    assert not protected_cards(hand, web)[0, parse_card("AS")]


# ----------------------------------------------------------------------------- no peeking
def redeal_hidden(rules: Rules, state: State, rng: np.random.Generator) -> State:
    """The same positions with the hidden cards shuffled among their hiding places.

    Hidden = the stock and the cards of other seats not known to be there. Sizes
    and every known card stay put, so the acting seat sees exactly the same.
    """
    out = state.copy()
    for g in range(state.batch_size):
        me = int(state.current_player[g])
        others = [s for s in range(rules.players) if s != me]
        unknown = {s: state.hand[g, s].astype(np.int64) - state.known[g, s] for s in others}
        pool = list(state.stock[g, : state.stock_size[g]])
        for s in others:
            pool += list(np.repeat(np.arange(state.hand.shape[2]), unknown[s]))
        pool = rng.permutation(np.array(pool, np.int64))
        n_stock = int(state.stock_size[g])
        out.stock[g, :n_stock] = pool[:n_stock]
        at = n_stock
        for s in others:
            k = int(unknown[s].sum())
            hand = state.known[g, s].astype(np.int64).copy()
            np.add.at(hand, pool[at : at + k], 1)
            out.hand[g, s] = hand
            at += k
    return out


@pytest.mark.parametrize("players", [2, 3])
def test_agents_do_not_peek_at_hidden_cards(players):
    rules = Rules.preset_named("standard", players=players)
    state = midgame_states(rules, 128, seed=11, players=("random", "casual"))
    other = redeal_hidden(rules, state, np.random.default_rng(5))
    assert not np.array_equal(other.hand, state.hand) or not np.array_equal(
        other.stock, state.stock
    )
    for name in AGENTS:
        a = act_on(rules, state, make_agent(name, rules, seed=4))
        b = act_on(rules, other, make_agent(name, rules, seed=4))
        assert np.array_equal(a, b), name


def test_views_of_redealt_positions_match():
    rules = Rules()
    state = midgame_states(rules, 32, seed=2, players=("random", "casual"))
    other = redeal_hidden(rules, state, np.random.default_rng(0))
    va, vb = player_view(rules, state), player_view(rules, other)
    for field in ("hand", "hand_sizes", "known", "pile", "stock_size", "meld_by"):
        assert np.array_equal(getattr(va, field), getattr(vb, field)), field
    assert va.hand[:, N_NATURAL:].sum() == 0


def test_sharp_group_max_and_card_counts_agree_with_the_slow_numpy_forms():
    """Sharp's per-group maximum and per-row card counts give what ``np.maximum.at`` and
    ``np.add.at`` give, empty groups and padding ids included."""
    from rummy500.agents.cardsense import row_counts
    from rummy500.agents.sharp_plan import group_max

    rng = np.random.default_rng(5)
    for n in (1, 7, 40):
        group = rng.integers(0, n, size=3 * n)
        value = rng.normal(size=group.size).astype(np.float32)
        slow = np.full(n, -np.inf, np.float32)
        np.maximum.at(slow, group, value)
        assert np.array_equal(group_max(group, value, n), slow)
        cards = rng.integers(0, 60, size=group.size)
        slow_counts = np.zeros((n, 61), np.int64)
        np.add.at(slow_counts, (group, cards), 1)
        assert np.array_equal(row_counts(group, cards, n), slow_counts[:, :53])
    assert np.all(group_max(np.zeros(0, np.int64), np.zeros(0, np.float32), 3) == -np.inf)
