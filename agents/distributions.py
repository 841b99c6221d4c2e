"""The masked categorical distribution over the flat action space, worked out on the
legal actions only.

A decision has a handful of legal actions (seven on average, a few dozen at most)
among the 955 of the flat space. ``LegalActions`` packs each row's legal action ids
into a short block [n, K] (K: the most legal actions of any row, padding slots
marked), and ``MaskedCategorical`` gathers the logits there and normalizes over K
columns, not 955: over all 955 columns a PPO minibatch's categorical (log-prob, entropy
and their gradients) had cost more than the network's own forward and backward passes.

Padding slots get the dtype's most negative logit, so they are never sampled and carry
no probability; the entropy sums over legal actions only, so a state with one legal
action has entropy exactly 0. Normalization goes through torch's ``softmax`` and
``log_softmax`` kernels, never ``exp`` or ``logsumexp`` of masked logits: on CPU those
take a slow path for inputs far below zero.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import torch


class LegalActions(NamedTuple):
    """Each row's legal action ids, packed to the left: ``index`` [n, K] (long; padding
    slots hold 0) and ``valid`` [n, K] (bool, False at padding)."""

    index: torch.Tensor
    valid: torch.Tensor

    @classmethod
    def of(cls, mask: torch.Tensor) -> LegalActions:
        """The legal actions of a mask [n, A] (bool, or 0/1); a row with no legal action is a
        ``ValueError``."""
        mask = mask if mask.dtype == torch.bool else mask.bool()
        rows, cols = mask.nonzero(as_tuple=True)
        counts = torch.bincount(rows, minlength=mask.shape[0])  # a bool sum is 4x slower
        if mask.shape[0] and int(counts.min()) == 0:
            raise ValueError("MaskedCategorical: a row of the mask has no legal action")
        first_of_row = torch.cumsum(counts, 0) - counts
        slot = torch.arange(rows.numel(), device=mask.device) - first_of_row[rows]
        width = int(counts.max()) if mask.shape[0] else 1
        index = torch.zeros(mask.shape[0], width, dtype=torch.long, device=mask.device)
        index[rows, slot] = cols
        valid = torch.arange(width, device=mask.device) < counts.unsqueeze(-1)
        return cls(index, valid)

    def rows(self, rows: torch.Tensor) -> LegalActions:
        """The legal actions of a subset of rows (a minibatch), trimmed to its own width."""
        valid = self.valid.index_select(0, rows)
        width = int(valid.sum(dim=-1).max()) if valid.shape[0] else 1
        return LegalActions(self.index.index_select(0, rows)[:, :width], valid[:, :width])


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` [n, A] with the illegal actions (``mask`` False) at the dtype's minimum;
    a row with no legal action is a ``ValueError``. Their argmax is the greedy action and
    their softmax the probabilities, with no distribution object to build (one decision
    at a time, where packing the legal actions would not pay)."""
    if not bool(mask.view(torch.uint8).amax(dim=-1).all()):  # 30x faster than bool any()
        raise ValueError("MaskedCategorical: a row of the mask has no legal action")
    return logits.masked_fill(~mask, torch.finfo(logits.dtype).min)


def greedy_actions(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """int64 [n]: each row's legal action with the highest logit (the first of equal ones),
    as the argmax of ``masked_logits`` gives it, read off on the host: a greedy player's
    whole choice, without the masked copy and the argmax in torch."""
    if not mask.any(axis=1).all():
        raise ValueError("MaskedCategorical: a row of the mask has no legal action")
    return np.where(mask, logits, -np.inf).argmax(axis=1).astype(np.int64)


class MaskedCategorical:
    """Categorical distribution over the actions where ``mask`` [n, A] is True (or over
    ``legal``, packed once for many minibatches), with ``log_prob``, ``entropy``,
    ``sample``, ``mode`` and ``probs`` as in ``torch.distributions``; computed in float32
    (bfloat16 logits are cast after the legal ones are gathered)."""

    def __init__(
        self,
        logits: torch.Tensor,
        mask: torch.Tensor | None = None,
        legal: LegalActions | None = None,
    ) -> None:
        if legal is None:
            if mask is None:
                raise ValueError("MaskedCategorical: give a mask or its LegalActions")
            legal = LegalActions.of(mask)
        self.legal, self.n_actions = legal, logits.shape[-1]
        packed = logits.gather(-1, legal.index).float()  # float32 whatever the network's format
        packed = packed.masked_fill(~legal.valid, torch.finfo(packed.dtype).min)
        self.legal_log_probs = torch.log_softmax(packed, dim=-1)
        """[n, K]: log-probability of each legal action (padding far below every one)."""
        self.legal_probs = torch.softmax(packed, dim=-1)
        """[n, K]: probability of each legal action (0 at padding)."""

    @property
    def probs(self) -> torch.Tensor:
        """[n, A]: the probability of every action of the flat space (0 where illegal)."""
        full = self.legal_probs.new_zeros(self.legal_probs.shape[0], self.n_actions)
        return full.scatter_add(-1, self.legal.index, self.legal_probs)

    def log_prob(self, action: torch.Tensor) -> torch.Tensor:
        """Log-probability of each row's ``action`` (flat ids); the dtype's minimum for an
        action that is not legal in its row."""
        hit = (self.legal.index == action.long().unsqueeze(-1)) & self.legal.valid
        slot = hit.to(torch.uint8).argmax(dim=-1, keepdim=True)
        log_prob = self.legal_log_probs.gather(-1, slot).squeeze(-1)
        return log_prob.masked_fill(~hit.any(dim=-1), torch.finfo(log_prob.dtype).min)

    def mode(self) -> torch.Tensor:
        """The likeliest legal action of each row (the lowest id among ties)."""
        return self._action_at(self.legal_probs.argmax(dim=-1))

    def sample(
        self, sample_shape: tuple[int, ...] = (), generator: torch.Generator | None = None
    ) -> torch.Tensor:
        """Gumbel-max sampling over the legal actions (one pass over [n, K], cheaper than
        ``multinomial``); padding sits at the dtype's minimum, so it never wins."""
        shape = torch.Size(sample_shape) + self.legal_log_probs.shape
        uniform = torch.rand(shape, device=self.legal_log_probs.device, generator=generator).clamp_(
            min=1e-20
        )
        return self._action_at(
            (self.legal_log_probs - torch.log(-torch.log(uniform))).argmax(dim=-1)
        )

    def entropy(self) -> torch.Tensor:
        """Padding adds 0 * (a finite, very negative log-probability) = 0."""
        return -(self.legal_probs * self.legal_log_probs).sum(dim=-1)

    def _action_at(self, slot: torch.Tensor) -> torch.Tensor:
        """Flat action ids of packed ``slot`` [..., n] (leading sample dimensions allowed)."""
        index = self.legal.index.expand(*slot.shape, self.legal.index.shape[-1])
        return index.gather(-1, slot.unsqueeze(-1)).squeeze(-1)
