"""The shipped champion: plays by name under its rules, refuses others in one line."""

from __future__ import annotations

import numpy as np
import pytest

from rummy500.agents.champion import champion_files
from rummy500.agents.registry import make_agent
from rummy_env.core import (
    Decision,
    Rules,
    init,
    legal_mask,
    player_view,
    sample_legal,
    step_inplace,
)

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(
    "name, rules",
    [
        ("standard_2p", {"players": 2}),
        ("standard_4p", {"players": 4}),
        ("web_2p", {"preset": "web", "players": 2}),
    ],
)
def test_a_champion_ships_as_a_plain_weights_file(name: str, rules: dict) -> None:
    import torch

    (path,) = [p for p in champion_files() if p.stem == name]
    assert path.stat().st_size < 8 * 2**20
    payload = torch.load(path, weights_only=True)  # plain data only, nothing unpickled
    assert Rules.from_dict(payload["rules"]) == Rules.from_dict(rules)
    assert "optimizer" not in payload["extra"] and "run_state" not in payload["extra"]


@pytest.mark.parametrize("players", [2, 4])
def test_the_champion_plays_legal_moves_by_name(players: int) -> None:
    rules = Rules.from_dict({"players": players})
    agent = make_agent("champion", rules, seed=1)
    state = init(rules, 5, 16)
    decision = Decision(rules, legal_mask(rules, state), player_view(rules, state))
    actions = agent.act(decision)
    assert decision.mask[np.arange(16), actions].all()


def test_the_champion_refuses_rules_it_was_not_trained_for() -> None:
    with pytest.raises(ValueError, match="champion: trained only for other rules.*players=2"):
        make_agent("champion", Rules.from_dict({"players": 3}))


def test_the_greedy_champion_plays_its_likeliest_legal_action() -> None:
    rules = Rules.from_dict({"players": 2})
    agent = make_agent("champion", rules, seed=1)
    state = init(rules, 7, 64)
    rng = np.random.default_rng(0)
    for _ in range(30):  # positions past the first draw: melds, lay-offs, discards
        mask = legal_mask(rules, state)
        decision = Decision(rules, mask, player_view(rules, state))
        probs = agent.probabilities(decision)
        assert np.allclose(probs.sum(axis=1), 1.0, atol=1e-5) and not probs[~mask].any()
        np.testing.assert_array_equal(agent.act(decision), probs.argmax(axis=1))
        step_inplace(rules, state, sample_legal(mask, rng), mask=mask)


def test_a_release_keeps_the_earlier_checkpoints_it_did_not_retrain() -> None:
    from rummy500.agents.champion import CHAMPIONS, champion_versions

    versions = champion_versions()
    assert versions and versions[0] == 1
    for version in versions:
        files = champion_files(version)
        releases = {p.stem: int(p.parent.name[1:]) for p in files}
        assert len(releases) == len(files)  # one checkpoint a rules config
        for stem, release in releases.items():
            assert release <= version
            newer = [
                v
                for v in versions
                if release < v <= version and (CHAMPIONS / f"v{v}" / f"{stem}.pt").exists()
            ]
            assert not newer, (stem, release, newer)
        assert set(releases) >= {p.stem for p in champion_files(versions[0])}
