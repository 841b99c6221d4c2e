"""The number format of the trainer's network passes: ``float32``, ``bfloat16`` matrix
products through torch's autocast, or ``auto``.

With ``bfloat16`` the linear layers run in bfloat16 while the weights, the optimizer,
the masked categorical and the losses stay float32 (the networks hand float32 logits
and values to them). On a CPU with AVX-512 BF16 or AMX this speeds up the MLP's
forward and backward passes; on one without, bfloat16 is emulated and slower.
``auto`` takes bfloat16 only where the device does it natively.
"""

from __future__ import annotations

import contextlib

import torch

PRECISIONS = ("float32", "bfloat16", "auto")
"""Allowed values of ``TrainConfig.precision``."""


def native_bfloat16(device: torch.device) -> bool:
    """Whether ``device`` computes bfloat16 products in hardware (AVX-512 BF16 or AMX on a
    CPU; a GPU that torch says supports bfloat16)."""
    if device.type == "cuda":
        return torch.cuda.is_bf16_supported()
    probes = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")
    return any(getattr(torch.cpu, probe, lambda: False)() for probe in probes)


def resolved_precision(name: str, device: torch.device) -> str:
    """``float32`` or ``bfloat16``: ``name`` itself, or what ``auto`` picks on ``device``."""
    if name not in PRECISIONS:
        raise ValueError(f"unknown precision {name!r}; choose from {PRECISIONS}")
    if name == "auto":
        return "bfloat16" if native_bfloat16(device) else "float32"
    return name


def network_precision(name: str, device: torch.device) -> contextlib.AbstractContextManager:
    """A fresh context for one network pass in the resolved format ``name``."""
    if name == "float32":
        return contextlib.nullcontext()
    if name == "bfloat16":
        return torch.autocast(device.type, dtype=torch.bfloat16)
    raise ValueError(f"precision {name!r} is not resolved; pass resolved_precision's answer")
