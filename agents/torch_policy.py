"""Torch policy-value networks over the documented observation, and their agent.

Two architectures share one interface (``get_value``, ``get_action_and_value``,
as in CleanRL), both with a masked categorical over the flat action space:

* ``mlp``: the whole observation through a tanh MLP trunk (the default).
* ``cards``: card-aware. The same trunk over the observation and, beside it,
  run and set filters that every suit and rank share, read over the per-card
  blocks (hand, pile, table, known cards, ...) laid out as a suit x rank grid;
  the actions that name a card are also scored from that card's filters.

``TorchAgent`` plays any such network through the batched agent protocol.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from rummy_env.core import (
    LAYOFF_DIRECTIONS,
    N_CARD_IDS,
    N_NATURAL,
    N_RANKS,
    N_SUITS,
    Rules,
    action_layout,
    encode,
    obs_layout,
)
from rummy_env.core.patterns import PATTERN_CONTAINS

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
        self.trunk_out = trunk_out
        """Width of ``features``: what the heads (and a training run's auxiliary heads) read."""
        self.actor = _layer(trunk_out, n_actions, gain=0.01)
        self.critic = _layer(trunk_out, 1, gain=1.0)

    def features(self, obs: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    def heads(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """([n, A] policy logits, [n] float32 values, [n, trunk_out] the trunk's features)
        of [n, D] observations."""
        features = self.features(obs)
        return self.actor(features), self.critic(features).squeeze(-1).float(), features

    def logits_and_value(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """([n, A] policy logits, [n] float32 values) of [n, D] observations."""
        logits, value, _ = self.heads(obs)
        return logits, value

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
        logits, value = self.logits_and_value(obs)
        dist = MaskedCategorical(logits, mask, legal)  # float32 even under autocast
        if action is None:
            action = dist.mode() if greedy else dist.sample()
        return action, dist.log_prob(action), dist.entropy(), value


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


class CardGridPolicy(_PolicyValue):
    """The MLP over the observation, widened by card filters that every suit and rank share,
    and a head that scores the card actions from each card's filters.

    A card's values in every per-card block (``CARD_BLOCKS``) are its F features, so the
    natural cards make an [F, 4, 13] grid. A run filter reads each card with the two ranks
    either side of it in its suit (the king next to the ace: Q-K-A and wrapped runs), and a
    set filter the sum of the four suits at its rank, the same for every suit. One set of
    weights reads every suit and rank, so what a 5-6-7 of hearts teaches holds for a
    9-10-J of clubs. The trunk takes the whole observation and the filters' ``channels``
    for each card in its place: it can learn whatever the MLP learns, and starts with the
    runs and sets the MLP must find card by card. The actions that name one natural card
    (``discard C``, ``layoff C set|up|down``, ``swap C``) add to the actor's logit a score
    of that card's filters, again one set of weights for every card, as a player judges a
    discard by what the card does in the hand wherever it sits.

    With ``meld_take_scores`` the other actions that move cards are scored by their cards
    too: ``meld P`` adds the sum of a meld score over P's cards, and ``take d`` the sum of
    a take score over the pile's cards down to depth d plus a score of the card at depth d
    (the one the taker must meld). Each of the 637 meld patterns and 52 depths then learns
    from what every other one teaches, where the actor's own logit for it learns alone.
    The pile is read from the observation's ``pile_depth``: with two decks a card's
    topmost copy, and a joker in the pile adds no score (it has no filters).

    With ``context_scores`` each of those card scores also weighs the card's filters by
    weights the trunk reads off the whole position, so the same card can score high early
    in a hand and low late, or high while the other seat collects its rank. The weights
    start at zero: a fresh network plays as one without them.
    """

    def __init__(
        self,
        rules: Rules,
        n_actions: int,
        channels: int = 16,
        hidden: tuple[int, ...] = (256, 128),
        meld_take_scores: bool = False,
        context_scores: bool = False,
    ):
        if not isinstance(channels, int) or channels < 1:
            raise ValueError(f"channels={channels!r}: give a number of filters >= 1")
        if not hidden or not all(isinstance(h, int) and h >= 1 for h in hidden):
            raise ValueError(f"hidden={list(hidden)}: give one or more layer widths >= 1")
        if not isinstance(meld_take_scores, bool):
            raise ValueError(f"meld_take_scores={meld_take_scores!r}: give true or false")
        if not isinstance(context_scores, bool):
            raise ValueError(f"context_scores={context_scores!r}: give true or false")
        super().__init__(hidden[-1], n_actions)
        layout = obs_layout(rules)
        blocks = [layout.slices[name] for name in CARD_BLOCKS]
        card_index = torch.cat([torch.arange(s.start, s.stop) for s in blocks])
        card_index = card_index.view(-1, N_CARD_IDS)  # [F, 53]: a card's values in column c
        grid_index = card_index[:, :N_NATURAL].reshape(-1, N_SUITS, N_RANKS)
        self.register_buffer("grid_index", grid_index, persistent=False)
        self.register_buffer("card_action_ids", card_actions(rules), persistent=False)
        features = grid_index.shape[0]
        self.run_filter = nn.Conv2d(
            features, channels, (1, 5), padding=(0, 2), padding_mode="circular"
        )
        self.set_filter = nn.Conv1d(features, channels, 1)
        self.card_actor = nn.Conv2d(channels, self.card_action_ids.shape[0], 1)
        self.meld_take_actor = nn.Conv2d(channels, 3, 1) if meld_take_scores else None
        """Each card's meld score, take score and score as the bottom card of a take."""
        if meld_take_scores:
            actions = action_layout(rules)
            contains = torch.tensor(PATTERN_CONTAINS[:N_NATURAL], dtype=torch.float32)
            self.register_buffer("pattern_cards", contains, persistent=False)
            self.pile_depth = layout.slices["pile_depth"].start
            self.max_take, self.meld_id, self.take_id = rules.deck_cards, actions.MELD, actions.TAKE
        kinds = self.card_action_ids.shape[0] + (3 if meld_take_scores else 0)
        self.context = nn.Linear(hidden[-1], kinds * channels) if context_scores else None
        """Per position, a weight of each filter in each kind of card score."""
        if self.context is not None:
            nn.init.zeros_(self.context.weight)
            nn.init.zeros_(self.context.bias)
        for card_filter, gain in (
            (self.run_filter, np.sqrt(2)),
            (self.set_filter, np.sqrt(2)),
            (self.card_actor, 0.01),
            (self.meld_take_actor, 0.01),
        ):
            if card_filter is None:
                continue
            nn.init.orthogonal_(card_filter.weight, gain)
            nn.init.zeros_(card_filter.bias)
        layers: list[nn.Module] = []
        width = layout.size + channels * N_NATURAL
        for h in hidden:
            layers += [_layer(width, h), nn.Tanh()]
            width = h
        self.trunk = nn.Sequential(*layers)

    def card_filters(self, obs: torch.Tensor) -> torch.Tensor:
        """[n, channels, 4, 13]: the run and set filters' reading of each natural card."""
        grid = obs[:, self.grid_index]  # [n, F, 4, 13]
        sets = self.set_filter(grid.sum(dim=2)).unsqueeze(2)  # [n, channels, 1, 13]
        return torch.relu(self.run_filter(grid) + sets)

    def features(self, obs: torch.Tensor) -> torch.Tensor:
        return self.trunk(torch.cat([obs, self.card_filters(obs).flatten(1)], dim=1))

    def heads(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        cards = self.card_filters(obs)
        features = self.trunk(torch.cat([obs, cards.flatten(1)], dim=1))
        logits = self.actor(features)
        scores = self.card_actor(cards)  # [n, kinds, 4, 13]
        if self.meld_take_actor is not None:
            scores = torch.cat([scores, self.meld_take_actor(cards)], dim=1)
        if self.context is not None:
            weights = self.context(features).view(len(obs), -1, cards.shape[1])
            scores = scores + torch.einsum("nkc,ncsr->nksr", weights.to(cards.dtype), cards)
        kinds = self.card_action_ids.shape[0]
        card_scores = scores[:, :kinds].flatten(1).to(logits.dtype)  # [n, kinds * 52]
        logits = logits.index_add(1, self.card_action_ids.flatten(), card_scores)
        if self.meld_take_actor is not None:
            logits = self._add_meld_take_scores(logits, obs, scores[:, kinds:])
        return logits, self.critic(features).squeeze(-1).float(), features

    def _add_meld_take_scores(
        self, logits: torch.Tensor, obs: torch.Tensor, card_scores: torch.Tensor
    ) -> torch.Tensor:
        """``logits`` with each meld scored by its cards and each take by the cards taken,
        from ``card_scores``, [n, 3, 4, 13]: each card's meld, take and bottom score."""
        meld, take, bottom = card_scores.flatten(2).to(logits.dtype).unbind(1)
        melds = meld @ self.pattern_cards.to(logits.dtype)  # [n, 637]
        # a natural card's depth in the pile (0: not in it); take d takes depths 1..d
        at = obs[:, self.pile_depth : self.pile_depth + N_NATURAL] * self.max_take
        depth = at.round().long().clamp(0, self.max_take)
        by_depth = logits.new_zeros(len(obs), self.max_take + 1)
        takes = by_depth.scatter_add(1, depth, take)[:, 1:].cumsum(1)
        takes = takes + by_depth.scatter_add(1, depth, bottom)[:, 1:]
        logits = logits.clone()
        logits[:, self.meld_id : self.meld_id + melds.shape[1]] += melds
        logits[:, self.take_id : self.take_id + self.max_take] += takes
        return logits


def card_actions(rules: Rules) -> torch.Tensor:
    """int64 [5, 52]: the action id of ``discard C``, ``layoff C set``, ``layoff C up``,
    ``layoff C down`` and ``swap C`` for each natural card C, a row per kind."""
    actions = action_layout(rules)
    cards = torch.arange(N_NATURAL)
    layoffs = [actions.LAYOFF + 3 * cards + d for d in range(len(LAYOFF_DIRECTIONS))]
    return torch.stack([actions.DISCARD + cards, *layoffs, actions.SWAP + cards])


ARCHITECTURES = ("mlp", "cards")


def build_policy(arch: str, rules: Rules, obs_dim: int, n_actions: int, **kwargs) -> _PolicyValue:
    """A fresh network of architecture ``arch`` (``mlp`` or ``cards``)."""
    if arch == "mlp":
        return MLPPolicy(obs_dim, n_actions, **kwargs)
    if arch == "cards":
        return CardGridPolicy(rules, n_actions, **kwargs)
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
        return self.policy.logits_and_value(obs_t)[0]

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
