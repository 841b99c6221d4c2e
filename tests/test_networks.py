"""The networks behind ``arch``: the shipped MLP champions read as they were trained,
and the card network (``arch: cards``): what its filters see of the observation, that
they read every suit and rank alike, and a real training run with it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from rummy500.agents.checkpoint import load_policy
from rummy500.agents.torch_policy import (
    CARD_BLOCKS,
    CardGridPolicy,
    TorchAgent,
    build_policy,
    card_actions,
)
from rummy500.train.config import load_config
from rummy500.train.config_checks import ConfigError
from rummy_env.core import (
    N_CARD_IDS,
    N_RANKS,
    Decision,
    Rules,
    action_layout,
    card_text,
    init,
    legal_mask,
    obs_layout,
    observe,
    parse_card,
    player_view,
    sample_legal,
    step,
)
from rummy_env.core.patterns import PATTERN_CONTAINS

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


def card_network(rules: Rules, seed: int = 0, **kwargs) -> CardGridPolicy:
    torch.manual_seed(seed)
    size = obs_layout(rules).size
    policy = build_policy("cards", rules, size, action_layout(rules).size, **kwargs)
    assert isinstance(policy, CardGridPolicy)
    return policy


def per_card_columns(rules: Rules, permute) -> np.ndarray:
    """An index over the observation that moves every per-card block's column c to
    ``permute(c)`` (natural cards; the joker's column stays) and leaves the rest."""
    layout = obs_layout(rules)
    index = np.arange(layout.size)
    for name in CARD_BLOCKS:
        block = layout.slices[name]
        for row in range(block.start, block.stop, N_CARD_IDS):
            for card in range(N_CARD_IDS - 1):
                index[row + permute(card)] = row + card
    return index


@pytest.mark.parametrize("release", ["v1", "v2"])
def test_a_shipped_mlp_champion_computes_its_tanh_layers_unchanged(release: str) -> None:
    """The champions are MLPs: their logits and values are the tanh layers of the weights
    they ship, computed here by hand."""
    rules = Rules()
    policy, payload = load_policy(ROOT / "agents" / "champions" / release / "standard_2p.pt")
    assert payload["arch"] == "mlp"
    weights = payload["state_dict"]
    obs = torch.from_numpy(observe(rules, init(rules, seed=9, batch_size=5)))
    hidden = obs
    for i in range(0, len(payload["arch_kwargs"]["hidden"]) * 2, 2):
        hidden = torch.tanh(hidden @ weights[f"trunk.{i}.weight"].T + weights[f"trunk.{i}.bias"])
    logits = hidden @ weights["actor.weight"].T + weights["actor.bias"]
    value = (hidden @ weights["critic.weight"].T + weights["critic.bias"]).squeeze(-1)
    with torch.no_grad():
        assert torch.allclose(policy.actor(policy.features(obs)), logits, atol=1e-5)
        assert torch.allclose(policy.get_value(obs), value, atol=1e-5)


def test_each_card_is_read_at_its_suit_and_rank() -> None:
    rules = Rules()
    policy = card_network(rules)
    obs = torch.zeros(1, obs_layout(rules).size)
    hand = obs_layout(rules).slices["hand"]
    obs[0, hand.start + parse_card("TH")] = 2.0
    grid = obs[:, policy.grid_index]  # [1, F, 4, 13]
    assert grid.sum() == 2.0
    assert grid[0, CARD_BLOCKS.index("hand"), 2, 9] == 2.0  # hearts are suit 2, ten rank 9


@pytest.mark.parametrize(
    "permute",
    [
        pytest.param(lambda c: (c // N_RANKS + 1) % 4 * N_RANKS + c % N_RANKS, id="suits rotated"),
        pytest.param(lambda c: c // N_RANKS * N_RANKS + (c + 3) % N_RANKS, id="ranks shifted"),
    ],
)
def test_the_filters_read_every_suit_and_rank_alike(permute) -> None:
    """A deal with its suits relabelled, or every rank moved up three (round the ace),
    gives the same filter readings, moved with the cards."""
    rules = Rules()
    policy = card_network(rules)
    obs = torch.from_numpy(observe(rules, init(rules, seed=5, batch_size=6)))
    moved = obs[:, per_card_columns(rules, permute)]
    readings = policy.card_filters(obs).flatten(2)  # [n, channels, 52]
    moved_readings = policy.card_filters(moved).flatten(2)
    cards = np.arange(N_CARD_IDS - 1)
    targets = [permute(c) for c in cards]
    assert readings.abs().sum() > 0
    assert torch.allclose(moved_readings[:, :, targets], readings[:, :, cards], atol=1e-5)


def test_a_run_reads_differently_from_the_same_cards_scattered() -> None:
    """Two hands of the same ranks count, one a run in one suit and one spread over
    suits: the filters tell them apart (an MLP's first layer sees only the cards)."""
    rules = Rules()
    policy = card_network(rules)
    hand = obs_layout(rules).slices["hand"]

    def reading(cards: list[str]) -> torch.Tensor:
        obs = torch.zeros(1, obs_layout(rules).size)
        for card in cards:
            obs[0, hand.start + parse_card(card)] = 1.0
        return policy.card_filters(obs)[0, :, 2, 5]  # what the 6 of hearts' place reads

    run, scattered = reading(["5H", "6H", "7H"]), reading(["5C", "6H", "7S"])
    assert not torch.allclose(run, scattered)


@pytest.mark.parametrize(
    "arch_kwargs, words",
    [
        ("{channels: 0}", "channels=0"),
        ("{hidden: []}", "hidden=[]"),
        ("{embed: 64}", "embed"),
        ("{meld_take_scores: 2}", "meld_take_scores=2"),
        ("{context_scores: yes please}", "context_scores='yes please'"),
    ],
)
def test_bad_card_network_settings_are_refused_in_one_line(arch_kwargs: str, words: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(words)) as refused:
        load_config(None, ["arch=cards", f"arch_kwargs={arch_kwargs}"])
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize("scores", [{}, {"meld_take_scores": True, "context_scores": True}])
@pytest.mark.parametrize(
    "table", [{"players": 2}, {"players": 4}, {"players": 4, "decks": 2, "jokers": 2}]
)
def test_the_network_plays_legal_moves_at_any_table(table: dict, scores: dict) -> None:
    rules = Rules.from_dict(table)
    policy = card_network(rules, **scores)
    state = init(rules, seed=2, batch_size=8)
    rng = np.random.default_rng(0)
    for _ in range(3):  # the deal, then positions with a pile to take from
        decision = Decision(rules, legal_mask(rules, state), player_view(rules, state))
        actions = TorchAgent(policy, rules).act(decision)
        assert decision.mask[np.arange(8), actions].all()
        for _ in range(40):
            state = step(rules, state, sample_legal(legal_mask(rules, state), rng))


SHORT_RUN_RULES = {"target": 60}


def train_a_few_rollouts(tmp_path: Path, recipe: str, *knobs: str) -> Path:
    """The run folder of ``rummy500 train --config RECIPE`` for 2,048 agent-steps in
    rollouts of 1,024, a game to 60 points, no evaluation."""
    cmd = [
        *(sys.executable, "-m", "rummy500.cli", "train", "--config", recipe, *knobs),
        *("total_steps=2048", "num_envs=32", "num_steps=32", "eval_every=0"),
        *("eval_opponents=[]", "rules.target=60", f"run_dir={tmp_path}", "progress=false"),
        "torch_threads=1",
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    (run,) = list(tmp_path.iterdir())
    return run


def plays_legal_moves(policy: CardGridPolicy, rules: Rules) -> bool:
    state = init(rules, seed=3, batch_size=4)
    decision = Decision(rules, legal_mask(rules, state), player_view(rules, state))
    return bool(decision.mask[np.arange(4), TorchAgent(policy, rules).act(decision)].all())


def test_train_cli_trains_the_card_network_and_its_checkpoint_plays(tmp_path: Path) -> None:
    run = train_a_few_rollouts(
        tmp_path,
        "quickstart",
        "arch=cards",
        "arch_kwargs={channels: 4, hidden: [32]}",
        "checkpoint_every=1",
        "snapshot_every=1",
    )
    rules = Rules.from_dict(SHORT_RUN_RULES)
    policy, payload = load_policy(run / "last.pt", rules)
    assert payload["arch"] == "cards" and payload["global_step"] == 2048
    assert isinstance(policy, CardGridPolicy) and policy.run_filter.out_channels == 4
    first, _ = load_policy(run / "step_000000001024.pt", rules)
    assert not torch.equal(policy.run_filter.weight, first.run_filter.weight)  # they learn
    assert plays_legal_moves(policy, rules)


def test_the_quickstart_cards_recipe_trains_its_context_scores(tmp_path: Path) -> None:
    """The shipped recipe's own network (meld, take and context scores, the oracle critic)
    trains for a few rollouts: the context weights move off zero and the saved policy,
    without the critic, plays legal moves."""
    run = train_a_few_rollouts(tmp_path, "quickstart_cards")
    rules = Rules.from_dict(SHORT_RUN_RULES)
    policy, payload = load_policy(run / "last.pt", rules)
    assert payload["arch_kwargs"]["context_scores"] and payload["extra"]["critic"] is not None
    assert isinstance(policy, CardGridPolicy) and policy.context.weight.abs().sum() > 0
    assert plays_legal_moves(policy, rules)


def test_the_card_actions_are_scored_from_their_cards_filters() -> None:
    """With the actor's own logits at zero, only the actions that name a natural card
    score, and a deal with its suits relabelled moves those scores with the cards."""
    rules = Rules()
    policy = card_network(rules)
    with torch.no_grad():
        policy.actor.weight.zero_()
        policy.actor.bias.zero_()
        policy.card_actor.weight.normal_()
    obs = torch.from_numpy(observe(rules, init(rules, seed=4, batch_size=6)))
    actions = action_layout(rules)
    named = torch.zeros(actions.size, dtype=torch.bool)
    for kind in ("discard", "layoff {} set", "layoff {} up", "layoff {} down", "swap"):
        for card in ("5H", "KC"):
            text = f"{kind} {card}" if "{}" not in kind else kind.format(card)
            named[actions.parse(text)] = True
    logits, _ = policy.logits_and_value(obs)
    scored = torch.zeros(actions.size, dtype=torch.bool)
    scored[card_actions(rules).flatten()] = True
    assert (logits[:, ~scored] == 0).all()
    assert (logits[:, named] != 0).all()

    def rotate(c: int) -> int:
        return (c // N_RANKS + 1) % 4 * N_RANKS + c % N_RANKS

    moved, _ = policy.logits_and_value(obs[:, per_card_columns(rules, rotate)])
    for card in ("5H", "KC"):
        assert torch.allclose(
            moved[:, actions.parse(f"discard {card_text(rotate(parse_card(card)))}")],
            logits[:, actions.parse(f"discard {card}")],
            atol=1e-5,
        )


def test_melds_and_takes_are_scored_from_the_cards_they_move() -> None:
    """With ``meld_take_scores`` and every other logit at zero, ``meld P`` scores the sum
    of its cards' meld scores, and ``take d`` the take scores of the pile's cards down to
    depth d plus the bottom score of the card at depth d."""
    rules = Rules()
    policy = card_network(rules, meld_take_scores=True)
    state = init(rules, seed=6, batch_size=4)
    rng = np.random.default_rng(0)
    for _ in range(40):  # discards build up a pile
        state = step(rules, state, sample_legal(legal_mask(rules, state), rng))
    obs = torch.from_numpy(observe(rules, state))
    with torch.no_grad():
        for layer in (policy.actor, policy.card_actor):
            layer.weight.zero_()
            layer.bias.zero_()
        policy.meld_take_actor.weight.normal_()
        logits, _ = policy.logits_and_value(obs)
        meld, take, bottom = policy.meld_take_actor(policy.card_filters(obs)).flatten(2).unbind(1)
    actions = action_layout(rules)
    depths = observe_depths(rules, obs)
    assert (depths > 0).sum(dim=1).min() >= 2 and (depths > 0).sum(dim=1).max() >= 5
    for g in range(len(obs)):
        for pattern in (0, 70, 300):
            cards = np.flatnonzero(PATTERN_CONTAINS[:52, pattern])
            expected = meld[g, cards].sum()
            assert torch.isclose(logits[g, actions.MELD + pattern], expected, atol=1e-5)
        for depth in range(1, int(depths[g].max()) + 1):
            taken = (depths[g] >= 1) & (depths[g] <= depth)
            expected = take[g, taken].sum() + bottom[g, depths[g] == depth].sum()
            assert torch.isclose(logits[g, actions.TAKE + depth - 1], expected, atol=1e-5)


def test_context_scores_weigh_each_cards_filters_by_the_position() -> None:
    """With ``context_scores`` a card's score of each kind adds its filters weighted by
    what the trunk reads of the whole position: zero at the start, so a fresh network
    plays as one without them, and then exactly that product."""
    rules = Rules()
    policy = card_network(rules, meld_take_scores=True, context_scores=True)
    obs = torch.from_numpy(observe(rules, init(rules, seed=7, batch_size=5)))
    with torch.no_grad():
        fresh, _ = policy.logits_and_value(obs)
        context, policy.context = policy.context, None
        without, _ = policy.logits_and_value(obs)
        policy.context = context
        assert torch.equal(fresh, without)
        for layer in (policy.actor, policy.card_actor, policy.meld_take_actor):
            layer.weight.zero_()
            layer.bias.zero_()
        policy.context.weight.normal_()
        logits, _ = policy.logits_and_value(obs)
        cards = policy.card_filters(obs)  # [n, channels, 4, 13]
        weights = policy.context(policy.features(obs)).view(len(obs), -1, cards.shape[1])
    actions = action_layout(rules)
    for g in range(len(obs)):
        for card in ("5H", "KC", "AS"):
            suit, rank = divmod(parse_card(card), N_RANKS)
            expected = weights[g, 0] @ cards[g, :, suit, rank]  # kind 0: discard
            assert torch.isclose(logits[g, actions.parse(f"discard {card}")], expected, atol=1e-5)
    assert not torch.allclose(weights[0], weights[1])  # each position weighs them its own way


def observe_depths(rules: Rules, obs: torch.Tensor) -> torch.Tensor:
    """int [n, 52]: each natural card's depth in the pile (0: not in it), from the view."""
    depth = obs_layout(rules).slices["pile_depth"]
    return (obs[:, depth.start : depth.start + 52] * rules.deck_cards).round().long()
