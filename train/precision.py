"""The number format of the trainer's network passes: ``float32``, or ``bfloat16`` matrix
products through torch's autocast.

With ``bfloat16`` the linear layers run in bfloat16 while the weights, the optimizer,
the masked categorical and the losses stay float32 (the networks hand float32 logits
and values to them). On a CPU with AVX-512 BF16 or AMX this makes the MLP's forward
and backward passes about three times faster; on one without, bfloat16 is emulated and
slower, so ``float32`` stays the default.
"""

from __future__ import annotations

import contextlib

import torch

PRECISIONS = ("float32", "bfloat16")
"""Allowed values of ``TrainConfig.precision``."""


def network_precision(name: str, device: torch.device) -> contextlib.AbstractContextManager:
    """A fresh context for one network pass in the format ``name`` (``PRECISIONS``)."""
    if name == "float32":
        return contextlib.nullcontext()
    if name == "bfloat16":
        return torch.autocast(device.type, dtype=torch.bfloat16)
    raise ValueError(f"unknown precision {name!r}; choose from {PRECISIONS}")
