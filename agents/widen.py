"""Compact observations widened to float32 tensors in torch, on the network's device.

The batched env can hand out ``CompactObservation`` (uint8 codes and a few float32
numbers, a quarter of the float32 observation's bytes). A trainer stores those in its
rollout and moves them to its device, then widens them there with ``widen``: the
result has the bits of ``observe``'s observation, since every step is a cast, a copy
or a float32 division of a tensor by a tensor (correctly rounded on every device).

>>> from rummy_env.core import Rules, init, observe
>>> rules = Rules()
>>> state = init(rules, seed=0, batch_size=2)
>>> compact = observe(rules, state, compact=True)
>>> bool((observation_tensor(rules, compact).numpy() == observe(rules, state)).all())
True
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import torch

from rummy_env.core import CompactObservation, Rules
from rummy_env.core.observation import widening


@lru_cache(maxsize=32)
def _constants(rules: Rules, device: torch.device) -> tuple:
    """The widening of ``rules`` as tensors on ``device``: ((start, stop, divisors), ...),
    the number runs, and (rules column, rule features)."""
    plan = widening(rules)
    fractions = tuple(
        (start, stop, torch.as_tensor(np.array(divisors), device=device))
        for start, stop, divisors in plan.fractions
    )
    features = torch.as_tensor(np.array(plan.rules), device=device)
    return fractions, plan.number_runs, plan.rules_at, features


def widen(rules: Rules, codes: torch.Tensor, numbers: torch.Tensor) -> torch.Tensor:
    """float32 [n, D] on ``codes``' device: the observations of uint8 ``codes`` [n, D] and
    float32 ``numbers`` [n, K] (a ``CompactObservation``'s, as tensors)."""
    fractions, number_runs, rules_at, features = _constants(rules, codes.device)
    obs = codes.to(torch.float32)
    for start, stop, divisors in fractions:
        obs[:, start:stop] /= divisors  # a tensor divisor: never a reciprocal multiply
    for at, first, size in number_runs:
        obs[:, at : at + size] = numbers[:, first : first + size]
    obs[:, rules_at : rules_at + features.numel()] = features
    return obs


def observation_tensor(
    rules: Rules, obs: np.ndarray | CompactObservation, device: torch.device | str = "cpu"
) -> torch.Tensor:
    """float32 [n, D] on ``device`` from float32 observations or compact ones (moved as
    uint8, widened there)."""
    device = torch.device(device)
    if isinstance(obs, CompactObservation):
        return widen(
            rules,
            torch.as_tensor(obs.codes, device=device),
            torch.as_tensor(obs.numbers, device=device),
        )
    if not obs.flags.writeable:  # a decision's, handed over read-only: copied, not shared
        return torch.tensor(obs, dtype=torch.float32, device=device)
    return torch.as_tensor(obs, dtype=torch.float32, device=device)
