"""Stopping a run cleanly on Ctrl-C (SIGINT) or SIGTERM.

Inside ``StopOnSignal`` the first signal only sets ``signal_number``: the
trainer finishes the update under way, saves ``last.pt`` and stops, and the
program exits with 128 + the signal's number (130 for SIGINT, 143 for
SIGTERM). A second signal stops at once (``KeyboardInterrupt``), losing the
update under way but not the checkpoints already written, which are replaced
atomically. The previous handlers come back on leaving.
"""

from __future__ import annotations

import signal
import sys
from types import FrameType

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
"""Signals that stop the programs (a training run after the update under way)."""


class StopOnSignal:
    """Context manager: records the first stop signal; a second one interrupts at once."""

    def __init__(self) -> None:
        self.signal_number: int | None = None
        self._previous: dict[int, object] = {}

    @property
    def requested(self) -> bool:
        """Whether a stop signal came."""
        return self.signal_number is not None

    def _handle(self, number: int, frame: FrameType | None) -> None:
        if self.signal_number is not None:
            raise KeyboardInterrupt
        self.signal_number = number
        print(
            f"\n{signal.Signals(number).name}: stopping after this update and saving "
            "last.pt (send it again to stop at once)",
            file=sys.stderr,
            flush=True,
        )

    def __enter__(self) -> StopOnSignal:
        for number in STOP_SIGNALS:
            self._previous[number] = signal.signal(number, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for number, handler in self._previous.items():
            signal.signal(number, handler)
