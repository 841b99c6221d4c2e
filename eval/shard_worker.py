"""A worker process that plays a match's shards (``rummy500.eval.shards``).

``Worker.start`` runs ``python -m rummy500.eval.shard_worker`` in a fresh
interpreter (no fork: torch's threads do not survive one) and in a session of
its own, so Ctrl-C at the terminal reaches the program alone, which then stops
its workers in order. The two talk over a pair of pipes of their own, pickled
objects each way, so whatever an agent prints cannot garble them: the parent
sends a ``Shard`` (or ``None``: stop) and the worker answers
``("played", ShardResult)`` or ``("raised", exception)`` for a fault of the
program. A fresh interpreter imports the agents' modules by name, never the
caller's main script, so a script without ``if __name__ == "__main__"`` is safe
(an agent whose class lives in that script is played in the caller's process).

The worker ends when told, when its pipe closes, on SIGTERM (the shard under
way closes its agents' processes first) and, on Linux, when its parent dies.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any


@dataclass
class Worker:
    """One worker process, seen from the program: ``send`` a shard, read ``results``."""

    process: subprocess.Popen
    shards: Connection
    results: Connection

    @classmethod
    def start(cls, threads: int | None) -> Worker:
        """A worker whose agents' networks run on ``threads`` torch threads."""
        from_parent, to_worker = os.pipe()
        from_worker, to_parent = os.pipe()
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "rummy500.eval.shard_worker",
                str(from_parent),
                str(to_parent),
                str(threads or 0),
                str(os.getpid()),
            ],
            pass_fds=(from_parent, to_parent),
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            env=cls.environment(),
        )
        os.close(from_parent)
        os.close(to_parent)
        return cls(
            process, Connection(to_worker, readable=False), Connection(from_worker, writable=False)
        )

    @staticmethod
    def environment() -> dict[str, str]:
        """The program's environment, its import path included (a script or notebook may
        have added folders that the agents' modules come from)."""
        path = [entry or os.getcwd() for entry in sys.path if isinstance(entry, str)]
        return {**os.environ, "PYTHONPATH": os.pathsep.join(path)}

    def send(self, shard: Any) -> None:
        self.shards.send(shard)

    def death(self) -> str:
        """The one line for a worker that ended while it played a shard."""
        try:
            code = self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
        how = (
            f"signal {signal.Signals(-code).name}"
            if code is not None and code < 0
            else f"exit code {code}"
        )
        return f"a worker process died ({how})"

    def ask_to_stop(self) -> None:
        """Tell the worker to end after the shard it plays (it reads no more)."""
        try:
            self.shards.send(None)
        except (OSError, ValueError):
            pass

    def stop(self, deadline: float) -> None:
        """End the worker: at once if it is still playing (SIGTERM: its agents close), killed
        if it is still there at ``deadline`` (``time.monotonic``)."""
        try:
            self.process.wait(timeout=0.2)
        except subprocess.TimeoutExpired:
            self.process.terminate()
            try:
                self.process.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.shards.close()
        self.results.close()


def _on_terminate(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)


def _die_with_parent() -> None:
    """Linux: have the kernel send this process SIGTERM when its parent dies."""
    if sys.platform.startswith("linux"):
        import ctypes

        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)


def serve(shards: Connection, results: Connection, threads: int | None) -> None:
    """Play each shard sent on ``shards`` and answer on ``results``, until told to stop."""
    from rummy500.eval.shards import play_shard

    while True:
        try:
            shard = shards.recv()
        except (EOFError, OSError):
            return
        if shard is None:
            return
        try:
            answer = ("played", play_shard(shard, threads))
        except Exception as e:  # a fault of the program: the parent raises it as its own
            answer = ("raised", e)
        try:
            results.send(answer)
        except (BrokenPipeError, OSError):
            return


def main(argv: list[str]) -> None:
    signal.signal(signal.SIGTERM, _on_terminate)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()
    if os.getppid() != int(argv[3]):  # the parent died before the line above
        return
    shards = Connection(int(argv[0]), writable=False)
    results = Connection(int(argv[1]), readable=False)
    serve(shards, results, int(argv[2]) or None)


if __name__ == "__main__":
    main(sys.argv[1:])
