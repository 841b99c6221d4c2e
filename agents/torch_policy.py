"""Torch policy-value networks over the documented observation, and their agent.

Two architectures share one interface (``get_value``, ``get_action_and_value``,
as in CleanRL), both with a masked categorical over the flat action space:

* ``mlp``: the whole observation through a tanh MLP trunk (the default).
* ``cards``: card-aware. The observation's per-card blocks (hand, pile,
  table, known cards, ...) become one feature row per card; each card gets a
  learned identity embedding plus a projection of its features, a
  self-attention layer lets cards see each other (runs, sets, what the pile
  offers), and the pooled cards join the global features in an MLP.

``TorchAgent`` plays any such network through the batched agent protocol.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from rummy_env.core import N_CARD_IDS, Rules, encode, obs_layout

from .base import Decision
from .distributions import LegalActions, MaskedCategorical, greedy_actions, masked_logits
from .widen import observation_tensor

CARD_BLOCKS = (
    "hand",
    "known",
    "unseen",
    "pile",
    "pile_depth",
    "pile_top",
    "table_set",
    "table_run",
    "table_by",
    "table_joker",
    "table_meld",
    "owed",
    "no_discard",
)
"""Observation blocks made of one or more rows of 53 per-card values."""


def _layer(n_in: int, n_out: int, gain: float = np.sqrt(2)) -> nn.Linear:
    layer = nn.Linear(n_in, n_out)
    nn.init.orthogonal_(layer.weight, gain)
    nn.init.zeros_(layer.bias)
    return layer


class _PolicyValue(nn.Module):
    """Heads and the CleanRL-style interface shared by both architectures."""

    def __init__(self, trunk_out: int, n_actions: int) -> None:
        super().__init__()
        self.actor = _layer(trunk_out, n_actions, gain=0.01)
        self.critic = _layer(trunk_out, 1, gain=1.0)

    def features(self, obs: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    def get_value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(self.features(obs)).squeeze(-1).float()

    def get_action_and_value(
        self,
        obs: torch.Tensor,
        mask: torch.Tensor | None,
        action: torch.Tensor | None = None,
        greedy: bool = False,
        legal: LegalActions | None = None,
    ):
        """(action, log-prob, entropy, value) for [n, D] observations and [n, A] masks (or
        their ``LegalActions``, packed once for many minibatches)."""
        hidden = self.features(obs)
        dist = MaskedCategorical(self.actor(hidden), mask, legal)  # float32 even under autocast
        if action is None:
            action = dist.mode() if greedy else dist.sample()
        return (
            action,
            dist.log_prob(action),
            dist.entropy(),
            self.critic(hidden).squeeze(-1).float(),
        )


class MLPPolicy(_PolicyValue):
    """Observation -> tanh MLP trunk -> policy logits and value."""

    def __init__(self, obs_dim: int, n_actions: int, hidden: tuple[int, ...] = (256, 128)):
        if not hidden or not all(isinstance(h, int) and h >= 1 for h in hidden):
            raise ValueError(f"hidden={list(hidden)}: give one or more layer widths >= 1")
        super().__init__(hidden[-1], n_actions)
        layers: list[nn.Module] = []
        width = obs_dim
        for h in hidden:
            layers += [_layer(width, h), nn.Tanh()]
            width = h
        self.trunk = nn.Sequential(*layers)

    def features(self, obs: torch.Tensor) -> torch.Tensor:
        return self.trunk(obs)


class CardAttentionPolicy(_PolicyValue):
    """Per-card rows embedded and mixed by self-attention, plus the global features."""

    def __init__(
        self, rules: Rules, n_actions: int, embed: int = 64, heads: int = 4, hidden: int = 256
    ):
        super().__init__(hidden, n_actions)
        layout = obs_layout(rules)
        card_idx, global_idx = [], []
        for name, s in layout.slices.items():
            (card_idx if name in CARD_BLOCKS else global_idx).append(torch.arange(s.start, s.stop))
        card_idx_t = torch.cat(card_idx)
        self.card_features = card_idx_t.numel() // N_CARD_IDS
        # Gather each card's value from every per-card block: [F, 53] -> index [53, F].
        self.register_buffer(
            "card_index", card_idx_t.view(self.card_features, N_CARD_IDS).T, persistent=False
        )
        self.register_buffer("global_index", torch.cat(global_idx), persistent=False)
        self.card_identity = nn.Parameter(torch.randn(N_CARD_IDS, embed) * 0.1)
        self.card_proj = _layer(self.card_features, embed)
        self.attention = nn.MultiheadAttention(embed, heads, batch_first=True)
        self.norm = nn.LayerNorm(embed)
        self.global_proj = _layer(self.global_index.numel(), hidden)
        self.mix = nn.Sequential(
            _layer(2 * embed + hidden, hidden), nn.Tanh(), _layer(hidden, hidden), nn.Tanh()
        )

    def features(self, obs: torch.Tensor) -> torch.Tensor:
        cards = obs[:, self.card_index]  # [n, 53, F]
        x = torch.tanh(self.card_proj(cards)) + self.card_identity
        attended, _ = self.attention(x, x, x, need_weights=False)
        x = self.norm(x + attended)
        pooled = torch.cat([x.mean(dim=1), x.amax(dim=1)], dim=-1)
        glob = torch.tanh(self.global_proj(obs[:, self.global_index]))
        return self.mix(torch.cat([pooled, glob], dim=-1))


ARCHITECTURES = ("mlp", "cards")


def build_policy(arch: str, rules: Rules, obs_dim: int, n_actions: int, **kwargs) -> _PolicyValue:
    """A fresh network of architecture ``arch`` (``mlp`` or ``cards``)."""
    if arch == "mlp":
        return MLPPolicy(obs_dim, n_actions, **kwargs)
    if arch == "cards":
        return CardAttentionPolicy(rules, n_actions, **kwargs)
    raise ValueError(f"unknown architecture {arch!r}; choose from {ARCHITECTURES}")


class TorchAgent:
    """A network playing through the agent protocol (sampled or greedy actions)."""

    def __init__(
        self,
        policy: _PolicyValue,
        rules: Rules,
        name: str = "torch",
        greedy: bool = False,
        device: str | torch.device = "cpu",
        seed: int = 0,
    ) -> None:
        self.policy, self.rules, self.name, self.greedy = policy, rules, name, greedy
        self.device = torch.device(device)
        self.generator = torch.Generator(device=self.device).manual_seed(seed)

    def __getstate__(self) -> dict:
        """Picklable (a worker process plays a copy): the generator travels as its state."""
        return {**self.__dict__, "generator": self.generator.get_state()}

    def __setstate__(self, state: dict) -> None:
        generator = torch.Generator(device=state["device"])
        generator.set_state(state.pop("generator"))
        self.__dict__.update(state, generator=generator)

    def _raw_logits(self, decision: Decision) -> torch.Tensor:
        """float32 [n, A]: the policy's logits of every action, legal or not."""
        obs = decision.observation
        if obs is None:
            obs = encode(self.rules, decision.view)
        obs_t = observation_tensor(self.rules, obs, self.device)
        return self.policy.actor(self.policy.features(obs_t))

    def _logits(self, decision: Decision) -> torch.Tensor:
        """float32 [n, A]: the policy's logits, illegal actions at the dtype's minimum (no
        distribution object: play needs only softmax or a sample)."""
        mask_t = torch.tensor(decision.mask, dtype=torch.bool, device=self.device)  # (a copy:
        # the mask handed over is read-only)
        return masked_logits(self._raw_logits(decision), mask_t)

    @torch.no_grad()
    def probabilities(self, decision: Decision) -> np.ndarray:
        """float32 [n, A]: the policy's probability of each action (0 where illegal)."""
        return torch.softmax(self._logits(decision), dim=-1).cpu().numpy()

    @torch.no_grad()
    def act(self, decision: Decision) -> np.ndarray:
        if self.greedy:  # the likeliest legal action, read off the logits on the host
            return greedy_actions(self._raw_logits(decision).cpu().numpy(), decision.mask)
        # over the legal actions only: multinomial over all 955 costs far more
        legal = torch.tensor(decision.mask, dtype=torch.bool, device=self.device)
        action = MaskedCategorical(self._logits(decision), legal).sample(generator=self.generator)
        return action.cpu().numpy().astype(np.int64)
