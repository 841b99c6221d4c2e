"""An oracle critic: a value network that sees the whole game, for training only.

The policy plays from its seat's observation alone; its value estimate only
shapes the advantages PPO learns from. Letting that estimate see what no
player may (every hand and the stock) makes the advantages less noisy without
giving the policy anything it will not have at play time: the critic is a
separate network, kept in the run's checkpoints for a resume, while the policy
saved as ``state_dict`` is the same network as ever and plays through the agent
protocol. This is the training-time half of the "perfect-information training,
imperfect-information execution" idea used for card games such as DouDizhu.

``hidden_cards`` lays out what the critic adds to the seat's observation, from
the acting seat's point of view: every seat's hand (the acting seat first, the
others in playing order), the stock's cards and the stock's top card, each as
counts per card id.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from rummy_env.core import N_CARD_IDS, Rules, State


def hidden_size(rules: Rules) -> int:
    """Length of ``hidden_cards``'s rows: P hands, the stock and its top card."""
    return (rules.players + 2) * N_CARD_IDS


def hidden_cards(rules: Rules, state: State, seats: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """uint8 [n, hidden_size]: the whole deal as seat ``seats[i]`` of game ``rows[i]`` would
    see it if nothing were hidden (the module docstring gives the layout)."""
    p, n = rules.players, rows.size
    order = (seats[:, None] + np.arange(p)) % p
    hands = state.hand[rows[:, None], order].reshape(n, p * N_CARD_IDS)
    size = state.stock_size[rows].astype(np.int64)
    cards = state.stock[rows].astype(np.int64)
    in_stock = np.arange(cards.shape[1]) < size[:, None]
    owner = np.repeat(np.arange(n), in_stock.sum(axis=1))
    stock = np.bincount(owner * N_CARD_IDS + cards[in_stock], minlength=n * N_CARD_IDS).reshape(
        n, N_CARD_IDS
    )
    top = np.zeros((n, N_CARD_IDS), np.uint8)
    has = np.flatnonzero(size > 0)
    top[has, cards[has, size[has] - 1]] = 1
    return np.concatenate([hands.astype(np.uint8), stock.astype(np.uint8), top], axis=1)


class OracleCritic(nn.Module):
    """Value of a decision from the seat's observation and ``hidden_cards``: a tanh MLP."""

    def __init__(self, obs_dim: int, hidden_dim: int, hidden: tuple[int, ...] = (256, 128)):
        super().__init__()
        layers: list[nn.Module] = []
        width = obs_dim + hidden_dim
        for h in hidden:
            layers += [nn.Linear(width, h), nn.Tanh()]
            width = h
        layers.append(nn.Linear(width, 1))
        self.net = nn.Sequential(*layers)

    def forward(self, obs: torch.Tensor, hidden_cards: torch.Tensor) -> torch.Tensor:
        """float [n]: the value of each decision."""
        return self.net(torch.cat([obs, hidden_cards.to(obs.dtype)], dim=-1)).squeeze(-1)
