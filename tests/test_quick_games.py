"""Quick games (``game_hands``) wherever a rules flag goes: command lines, arena, training."""

from __future__ import annotations

import argparse

import numpy as np
import pytest

from rummy500.agents.random_agent import RandomAgent
from rummy500.commands.rules_args import add_rules_arguments, rules_from_args
from rummy500.eval.arena import play_match
from rummy500.train.config import TrainConfig
from rummy_env.core import Rules


def test_set_game_hands_on_the_command_line() -> None:
    parser = argparse.ArgumentParser()
    add_rules_arguments(parser)
    args = parser.parse_args(["--preset", "tournament", "--set", "game_hands=3"])
    rules = rules_from_args(parser, args)
    assert rules.game_hands == 3 and rules.preset == "tournament"
    with pytest.raises(SystemExit):
        rules_from_args(parser, parser.parse_args(["--set", "game_hands=-1"]))


def test_duplicate_quick_games_line_up() -> None:
    """Each deal is played once per seating, and every game plays the same hands of it:
    three, or more only when the lead is tied after the third."""
    rules = Rules(players=2, game_hands=3, target=500)
    agents = [RandomAgent(seed=1), RandomAgent(seed=2)]
    agents[0].name, agents[1].name = "random#1", "random#2"
    match = play_match(rules, agents, 40, seed=7, duplicate=True, batch_size=16, progress=False)
    deals, counts = np.unique(match.deal, return_counts=True)
    assert (counts == 2).all() and deals.size == 20
    for d in deals:
        games = np.flatnonzero(match.deal == d)
        assert sorted(map(tuple, match.lineups[games].tolist())) == [(0, 1), (1, 0)]
    assert (match.hands >= 3).all()
    assert (match.winner[match.hands == 3] >= 0).all()
    assert (match.hands == 3).mean() > 0.9


def test_training_config_takes_quick_game_rules() -> None:
    config = TrainConfig(rules={"preset": "tournament", "players": 2, "game_hands": 3})
    assert config.game_rules.game_hands == 3
    with pytest.raises(ValueError, match="game_hands"):
        TrainConfig(rules={"preset": "standard", "game_hands": -1})
