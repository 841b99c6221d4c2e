"""Torch's threads for the length of a match.

An arena's batches are a few hundred rows, and the expert's play-outs a few
dozen: there torch's default of one thread per core gains little and, beside
any other job on the machine, its threads wait on each other far longer than
they compute (the expert ran three times slower with two threads than with one
beside a second busy process). The match programs therefore run the agents'
networks on one thread unless told otherwise, and give torch back its setting
when they end.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

MATCH_THREADS = 1
"""The threads the match programs and functions give the agents' networks by default."""


@contextmanager
def torch_threads(threads: int | None) -> Iterator[None]:
    """Give torch ``threads`` intra-op threads inside the block, then restore its setting
    (``None``: nothing changes). Torch is imported here even when the agents seated so far
    need none: a reference built inside the block (the benchmark's) may."""
    if threads is None:
        yield
        return
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)
