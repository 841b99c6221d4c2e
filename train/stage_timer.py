"""Where an update's wall time goes: the learner's forward passes, the league's opponents,
the environment, the PPO update and evaluation (logged as ``time/<stage>_share``).

>>> clock = StageTimer()
>>> with clock("update"):
...     pass
>>> sorted(clock.shares())
['update']
>>> clock.reset(); clock.shares()
{}
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager


class StageTimer:
    """Seconds spent in each named stage since the last ``reset``."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)

    @contextmanager
    def __call__(self, stage: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[stage] += time.perf_counter() - start

    def shares(self) -> dict[str, float]:
        """Each stage's part of the time measured (the parts sum to 1)."""
        total = sum(self.seconds.values())
        return {k: v / total for k, v in self.seconds.items()} if total > 0 else {}

    def reset(self) -> None:
        self.seconds.clear()
