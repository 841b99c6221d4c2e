"""The expert search player, the world sampler it stands on, and the rating ladder.

Tiny budgets and few games: these check the contract (legal choices, no
peeking, consistent worlds, the ladder's files and errors), never strength.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import numpy as np
import pytest

from rummy500.agents.expert import ExpertAgent, ExpertBudget
from rummy500.agents.registry import make_agent
from rummy500.train.config import TrainConfig
from rummy_env.core import (
    N_CARD_IDS,
    PHASE_DRAW,
    PHASE_PLAY,
    Decision,
    Rules,
    State,
    init,
    legal_mask,
    player_view,
    sample_legal,
    step_inplace,
)
from rummy_env.core.worlds import sample_worlds
from tests.test_agents import redeal_hidden

pytestmark = pytest.mark.slow

TINY = "expert:worlds=2,candidates=2,horizon=6"


def positions(rules: Rules, n: int, seed: int, last_step: int = 120) -> State:
    """n positions at draw or play decisions, each game of random play stopped at a random step."""
    rng = np.random.default_rng(seed)
    state = init(rules, seed, n)
    stop = rng.integers(4, last_step, n)
    snap = state.copy()
    for t in range(last_step):
        at = np.flatnonzero((stop <= t) & np.isin(state.phase, (PHASE_DRAW, PHASE_PLAY)))
        snap.assign(at, state.select(at))
        stop[at] = last_step + 1
        step_inplace(rules, state, sample_legal(legal_mask(rules, state), rng))
    return snap


def decide(rules: Rules, state: State, agent) -> np.ndarray:
    return agent.act(Decision(rules, legal_mask(rules, state), player_view(rules, state)))


# ----------------------------------------------------------------------------- the spec
def test_spec_sets_the_budget():
    rules = Rules()
    assert make_agent("expert", rules).budget == ExpertBudget()
    agent = make_agent("expert:worlds=16, horizon=30", rules)
    assert (agent.budget.worlds, agent.budget.horizon) == (16, 30)
    assert agent.name == "expert:worlds=16,horizon=30"
    assert make_agent("expert:trust=0.5", rules).budget.trust == 0.5


@pytest.mark.parametrize(
    "spec, reason",
    [
        ("expert:worlds=0", "outside"),
        ("expert:worlds=many", "integer"),
        (
            "expert:depth=3",
            r"bad option .* guide=auto\|champion\|sharp\|ckpt:PATH, rivals=guide\|mixed",
        ),
        ("expert:worlds", "bad option"),
        ("expert:trust=x", "number"),
        ("expert:guide=oracle", "one of auto, champion, sharp, ckpt:PATH"),
        ("expert:guide=guide", "one of auto, champion, sharp, ckpt:PATH"),
        ("expert:guide=ckpt:", "needs a path"),
        ("expert:guide=ckpt:no/such/file.pt", "guide=ckpt:no/such/file.pt: no such file"),
        ("expert:sure=2", "outside"),
        ("expert:rivals=crowd", "one of guide, mixed"),
    ],
)
def test_bad_specs_say_why_in_one_line(spec, reason):
    with pytest.raises(ValueError, match=reason) as e:
        make_agent(spec, Rules())
    assert "\n" not in str(e.value)


def test_the_guide_is_the_champion_where_one_ships_else_sharp():
    from rummy500.agents.expert import PolicyGuide, SharpGuide

    assert isinstance(make_agent("expert", Rules()).guide, PolicyGuide)
    assert isinstance(make_agent("expert:guide=sharp", Rules()).guide, SharpGuide)
    assert isinstance(make_agent("expert", Rules.preset_named("web")).guide, PolicyGuide)
    three = Rules.from_dict({"players": 3})
    assert isinstance(make_agent("expert", three).guide, SharpGuide)
    with pytest.raises(ValueError, match="guide=champion: champion: trained only for") as e:
        make_agent("expert:guide=champion", three)
    assert "\n" not in str(e.value)


def test_a_checkpoint_of_ones_own_can_guide_the_search(tmp_path):
    """``guide=ckpt:PATH``: the checkpoint's greedy policy proposes and plays out."""
    import shutil

    from rummy500.agents.champion import champion_checkpoint
    from rummy500.agents.expert import PolicyGuide

    rules = Rules()
    path = tmp_path / "mine.pt"
    shutil.copy(champion_checkpoint(rules)[0], path)
    expert = make_agent(f"expert:worlds=4,guide=ckpt:{path}", rules)
    assert isinstance(expert.guide, PolicyGuide)
    assert expert.guide.policy.name == f"ckpt:{path}"
    assert expert.name == f"expert:worlds=4,guide=ckpt:{path}"
    state = init(rules, 3, game_ids=[0, 1])
    decision = Decision(
        rules,
        legal_mask(rules, state),
        player_view(rules, state, state.current_player, np.arange(2)),
    )
    assert np.array_equal(
        expert.guide.propose(decision)[:, 0], make_agent("champion", rules).act(decision)
    )


def test_the_champion_guide_searches_only_its_doubtful_choices():
    rules = Rules()
    state = positions(rules, 64, seed=21)
    decision = Decision(rules, legal_mask(rules, state), player_view(rules, state))
    guide = make_agent("expert:sure=0.8", rules).guide
    proposed = guide.propose(decision)
    probs = guide.policy.probabilities(decision)
    assert np.array_equal(proposed[:, 0], guide.policy.act(decision))
    sure = probs.max(axis=1) >= 0.8
    assert sure.any() and (~sure).any()
    assert (proposed[sure, 1:] == -1).all()
    second = np.sort(probs, axis=1)[:, -2]
    doubtful = ~sure & (second >= guide.MIN_PROBABILITY)
    assert decision.mask[np.flatnonzero(doubtful), proposed[doubtful, 1]].all()


def test_training_accepts_the_expert_as_an_opponent():
    cfg = TrainConfig(opponents=["sharp", "expert:worlds=2"], eval_opponents=["expert:worlds=2"])
    assert cfg.eval_opponents == ["expert:worlds=2"]
    with pytest.raises(ValueError, match="expert"):
        TrainConfig(eval_opponents=["expert:worlds=-1"])


# ----------------------------------------------------------------------------- legality
@pytest.mark.parametrize(
    "preset, players",
    [
        ("standard", 2),
        ("standard", 4),
        ("web", 2),
        ("web", 3),
        ("jokers", 2),
        ("jokers", 4),
    ],
)
def test_every_choice_is_legal(preset, players):
    rules = Rules.from_dict({"preset": preset, "players": players})
    state = positions(rules, 48, seed=players)
    agent = make_agent(TINY, rules, seed=3)
    rng = np.random.default_rng(0)
    for _ in range(12):  # the batch plays on, so later decisions and call windows come too
        mask = legal_mask(rules, state)
        live = np.flatnonzero(mask.any(axis=1))
        actions = np.zeros(state.batch_size, np.int64)
        chosen = agent.act(Decision(rules, mask[live], player_view(rules, state, rows=live)))
        assert mask[live, chosen].all()
        actions[live] = chosen
        step_inplace(rules, state, actions)
        rng.random()


# ----------------------------------------------------------------------------- no peeking
@pytest.mark.parametrize(
    "preset, players, spec",
    [
        ("standard", 2, TINY),
        ("standard", 3, TINY),
        ("jokers", 3, TINY),
        ("standard", 2, TINY + ",rivals=guide"),
    ],
)
def test_expert_does_not_peek_at_hidden_cards(preset, players, spec):
    rules = Rules.from_dict({"preset": preset, "players": players})
    state = positions(rules, 32, seed=11)
    other = redeal_hidden(rules, state, np.random.default_rng(5))
    assert not np.array_equal(other.hand, state.hand) or not np.array_equal(
        other.stock, state.stock
    )
    a = decide(rules, state, make_agent(spec, rules, seed=4))
    b = decide(rules, other, make_agent(spec, rules, seed=4))
    assert np.array_equal(a, b)


def test_mixed_rivals_play_sharp_in_every_other_world():
    """With ``rivals=mixed`` (the default) the searched choices differ from the guide-only
    search's on the same positions and random stream (Sharp's play-outs are other
    play-outs), and every choice is still legal."""
    rules = Rules()
    state = positions(rules, 48, seed=13)
    mask = legal_mask(rules, state)
    plain = decide(
        rules, state, make_agent("expert:worlds=4,horizon=30,rivals=guide", rules, seed=4)
    )
    assert ExpertBudget().rivals == "mixed"
    mixed_agent = make_agent("expert:worlds=4,horizon=30", rules, seed=4)
    assert mixed_agent.rival is not None
    mixed = decide(rules, state, mixed_agent)
    assert mask[np.arange(state.batch_size), mixed].all()
    assert not np.array_equal(plain, mixed)


# ----------------------------------------------------------------------------- worlds
@pytest.mark.parametrize(
    "preset, players",
    [
        ("standard", 2),
        ("standard", 3),
        ("standard", 4),
        ("web", 5),
        ("standard", 6),
        ("jokers", 2),
        ("jokers", 5),
    ],
)
def test_sampled_worlds_agree_with_the_view(preset, players):
    rules = Rules.from_dict({"preset": preset, "players": players})
    state = positions(rules, 24, seed=players + 7)
    view = player_view(rules, state)
    w = 3
    worlds = sample_worlds(rules, view, w, np.random.default_rng(1))
    assert worlds.batch_size == 24 * w
    again = player_view(rules, worlds, np.repeat(view.seat, w))
    for f in dataclasses.fields(view):  # everything the seat sees, exactly as seen
        assert np.array_equal(
            np.repeat(getattr(view, f.name), w, axis=0), getattr(again, f.name)
        ), f.name
    # Every card of the deck in exactly one place.
    place = worlds.hand.sum(axis=1).astype(np.int64)
    b = np.arange(worlds.batch_size)
    for cards, size in ((worlds.stock, worlds.stock_size), (worlds.pile, worlds.pile_size)):
        r, j = np.nonzero(np.arange(cards.shape[1])[None, :] < size[:, None])
        np.add.at(place, (r, cards[r, j]), 1)
    on_table = np.zeros_like(place)
    r, m, slot = np.nonzero(worlds.meld_by >= 0)
    key = worlds.meld_key[r, m].astype(np.int64)
    card = np.where(worlds.meld_kind[r, m] == 1, slot * 13 + key, key * 13 + slot)
    np.add.at(on_table, (r, np.where(worlds.meld_joker[r, m, slot], 52, card)), 1)
    expected = np.full(N_CARD_IDS, rules.n_decks)
    expected[52] = rules.n_jokers
    assert (place + on_table == expected[None, :]).all()
    assert (worlds.hand.sum(axis=2) == worlds.hand_size).all()
    assert (worlds.hand >= worlds.known).all()
    # Legal in the world exactly when legal in the real game, and the hidden cards vary.
    assert np.array_equal(legal_mask(rules, worlds), np.repeat(legal_mask(rules, state), w, 0))
    assert not np.array_equal(worlds.stock[b % w == 0], worlds.stock[b % w == 1])


def test_an_expert_plays_whole_games():
    rules = Rules()
    from rummy500.eval.arena import play_match

    match = play_match(
        rules,
        [
            ExpertAgent(rules, 0, ExpertBudget.parse("worlds=2,horizon=4")),
            make_agent("casual", rules, 1),
        ],
        games=2,
        progress=False,
    )
    assert match.n_games == 2 and (match.winner >= -1).all()


def test_the_report_says_what_the_search_did():
    """The arena's report counts the expert's searched and overridden decisions and turns
    the paired spread of its gains into the smallest gain its worlds resolve."""
    from rummy500.eval.arena import play_match
    from rummy500.eval.report import build_report, markdown

    rules = Rules.from_dict({"preset": "web", "target": 150})
    expert = ExpertAgent(rules, 0, ExpertBudget.parse("guide=sharp,worlds=4,horizon=20"))
    match = play_match(rules, [expert, make_agent("sharp", rules, 1)], games=2, progress=False)
    report = build_report(match)
    search = report["agents"][0]["search"]
    assert "search" not in report["agents"][1]
    assert search["decisions"] == match.decisions[0]
    assert 0 < search["searched_share"] < 1 and 0 <= search["override_share"] <= 1
    assert search["gain_sd"] > 0
    assert search["resolves"] == pytest.approx(2 * search["gain_sd"] / np.sqrt(4))
    assert "searched" in markdown(report) and "4 worlds" in markdown(report)


# ----------------------------------------------------------------------------- the ladder
def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "rummy500.cli", *args], capture_output=True, text=True, timeout=300
    )


def test_ladder_through_the_command_line(tmp_path):
    out = tmp_path / "ladder"
    done = run_cli(
        "ladder",
        "--agents",
        "random",
        "casual",
        TINY,
        "--no-defaults",
        "--games",
        "2",
        "--seed",
        "3",
        "--set",
        "target=100",
        "--out",
        str(out),
    )
    assert done.returncode == 0, done.stderr
    assert "Bradley-Terry" in done.stdout
    data = json.loads((out / "ladder.json").read_text())
    assert set(data["ratings"]) == {"random", "casual", TINY}
    assert (out / "ladder.csv").is_file() and (out / "ladder.md").is_file()


@pytest.mark.parametrize(
    "args",
    [
        ("--games", "0"),
        ("--agents", "nobody"),
        ("--agents", "expert:worlds=0"),
        ("--players", "9"),
    ],
)
def test_ladder_refuses_bad_arguments_in_one_line(args):
    done = run_cli("ladder", *args)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()[-1:]) == 1 and "error" in done.stderr
