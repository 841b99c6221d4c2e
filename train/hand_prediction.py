"""Predicting the other hands: an auxiliary target that makes each step teach the trunk more.

PPO's only lesson per decision is one advantage-weighted nudge to one action's
probability. A training run also knows the whole deal, which the player never sees,
so it can ask the policy's trunk at every decision a question with a right answer:
for each card, does another seat hold it? A good player keeps that picture from what
the others picked up, discarded and passed over; the policy must learn the same
picture to play well, and a dense target with 53 answers per decision gives its
trunk a gradient at every step, whatever the game's outcome. Auxiliary targets of
this kind are UNREAL's idea (Jaderberg et al., 2017); predicting hidden cards is the
one the Simplified Action Decoder adds for Hanabi (Hu and Foerster, 2020).

The predictor is a linear head on the trunk's features (``PolicyValue.features``),
trained with the policy (``hand_coef`` in the run's config) and kept in the run's
checkpoints for a resume, never in the saved policy: a player built from the
checkpoint is the same network as ever and sees only its seat's observation.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional

from rummy_env.core import N_CARD_IDS, Rules


def held_by_others(rules: Rules, hidden: torch.Tensor) -> torch.Tensor:
    """float [n, 53]: 1 where a seat other than the acting one holds the card id, from the
    rows of ``oracle_critic.hidden_cards`` (the acting seat's hand first, then the others')."""
    others = hidden[:, N_CARD_IDS : rules.players * N_CARD_IDS].view(
        -1, rules.players - 1, N_CARD_IDS
    )
    return (others.sum(dim=1) > 0).float()


class HandPredictor(nn.Module):
    """Logits [n, 53] of "another seat holds this card" from the trunk's features."""

    def __init__(self, trunk_out: int) -> None:
        super().__init__()
        self.head = nn.Linear(trunk_out, N_CARD_IDS)

    def loss(self, rules: Rules, features: torch.Tensor, hidden: torch.Tensor) -> torch.Tensor:
        """Mean binary cross-entropy of the prediction from ``features`` against the deal
        ``hidden`` (float32 whatever the network's format)."""
        logits = self.head(features).float()
        return functional.binary_cross_entropy_with_logits(logits, held_by_others(rules, hidden))
