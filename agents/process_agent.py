"""``cmd:COMMAND``: an agent in its own process, in any language, over JSON lines.

The arena starts COMMAND (split as a shell would, run without a shell) and talks
to it on its stdin and stdout, one JSON object per line each way (protocol
``rummy500-agent/1``, ``agents.seat_text``):

1. The arena says hello: ``{"protocol": ..., "hello": {"rules": {...}, "seed": S}}``;
   the agent answers one object, ``{}`` or ``{"batch": true}`` to get its decisions
   in batches, and may give itself a ``"name"``.
2. For each decision: ``{"protocol", "seat", "legal", "view", "text"}`` (the legal
   moves as ``{"id", "text"}``, the seat's view as data and in words), answered by
   ``{"action": ID}`` or ``{"action": "TEXT"}``. A batching agent gets
   ``{"protocol", "decisions": [...]}`` and answers ``{"actions": [...]}``.
3. At the end the arena closes the agent's stdin; the agent should exit.

A reply that is not JSON, names no legal move, or comes later than ``timeout``
seconds a decision, and a process that ends early, raise ``AgentFailure`` with one
line that says which and, for a dead process, its exit code and last stderr lines.
The process's stderr is its own log: kept, never mixed into the arena's output.
"""

from __future__ import annotations

import collections
import json
import os
import selectors
import shlex
import subprocess
import threading
import time
import weakref
from typing import Any

import numpy as np

from rummy_env.core import Decision, Rules, action_layout

from .base import AgentFailure
from .seat_text import PROTOCOL, decision_request

DEFAULT_TIMEOUT = 30.0
"""Seconds a decision may take by default (``cmd[timeout=S]:COMMAND`` changes it)."""
MAX_LINE = 1 << 20
"""Longest reply line read, in bytes: anything longer is a broken agent, not a move."""
STDERR_LINES = 5
"""Last stderr lines quoted when the process dies."""


class ProcessAgent:
    """An agent that is another process speaking the JSON-lines protocol above."""

    def __init__(self, command: str, rules: Rules, seed: int = 0,
                 timeout: float = DEFAULT_TIMEOUT, name: str | None = None) -> None:
        self.rules, self.timeout = rules, float(timeout)
        self.name = name or f"cmd:{command}"
        self._layout = action_layout(rules)
        try:
            argv = shlex.split(command)
        except ValueError as e:
            raise ValueError(f"cmd:{command}: cannot split the command ({e})") from None
        if not argv:
            raise ValueError("cmd: needs a command, e.g. cmd:'python my_bot.py'")
        try:
            self._process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                             stderr=subprocess.PIPE, bufsize=0)
        except OSError as e:
            raise ValueError(f"cmd:{command}: cannot start {argv[0]!r}: "
                             f"{e.strerror or e}") from None
        self._stderr: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        threading.Thread(target=self._keep_stderr, daemon=True).start()
        self._finalizer = weakref.finalize(self, _stop, self._process)
        self._buffer = b""
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._process.stdout, selectors.EVENT_READ)
        try:  # a failure before any game is a bad spec, refused like the others
            hello = self._ask({"protocol": PROTOCOL, "hello": {"rules": rules.to_dict(),
                                                               "seed": int(seed)}}, 1)
            if not isinstance(hello, dict):
                self._fail(f"its hello reply must be a JSON object, got {_short(hello)}")
        except AgentFailure as e:
            raise ValueError(str(e)) from None
        self.batch = hello.get("batch") is True
        if name is None and isinstance(hello.get("name"), str) and hello["name"].strip():
            self.name = hello["name"].strip()[:60]

    def act(self, decision: Decision) -> np.ndarray:
        requests = [decision_request(decision, i) for i in range(decision.size)]
        if self.batch:
            reply = self._ask({"protocol": PROTOCOL, "decisions": requests}, len(requests))
            actions = reply.get("actions") if isinstance(reply, dict) else None
            if not isinstance(actions, list) or len(actions) != len(requests):
                self._fail(f"a batch of {len(requests)} decisions must be answered by "
                           f'{{"actions": [{len(requests)} moves]}}, got {_short(reply)}')
        else:
            actions = []
            for request in requests:
                reply = self._ask(request, 1)
                if not isinstance(reply, dict) or "action" not in reply:
                    self._fail(f'a decision must be answered by {{"action": ID or TEXT}}, '
                               f"got {_short(reply)}")
                actions.append(reply["action"])
        return np.array([self._action_id(a, decision.mask[i]) for i, a in enumerate(actions)],
                        np.int64)

    def close(self) -> None:
        """Close the agent's stdin and let it exit (killed after a short grace)."""
        self._finalizer()

    # The protocol's plumbing -------------------------------------------------
    def _action_id(self, answer: Any, legal_row: np.ndarray) -> int:
        """The action id an answer names, if legal; AgentFailure otherwise."""
        if isinstance(answer, bool) or not isinstance(answer, (int, str)):
            self._fail(f"an action must be an id or a text, got {_short(answer)}")
        try:
            action = answer if isinstance(answer, int) else self._layout.parse(answer)
        except ValueError as e:
            self._fail(f"cannot read the move {answer!r} ({e})")
        if not 0 <= action < self._layout.size or not legal_row[action]:
            self._fail(self._layout.illegal_message(action, legal_row))
        return int(action)

    def _ask(self, message: dict[str, Any], decisions: int) -> Any:
        """Send one line, read one line within ``timeout`` seconds per decision."""
        line = json.dumps(message, separators=(",", ":")).encode() + b"\n"
        try:
            self._process.stdin.write(line)
            self._process.stdin.flush()
        except (BrokenPipeError, OSError):
            self._died()
        text = self._read_line(time.monotonic() + self.timeout * decisions)
        try:
            return json.loads(text)
        except (ValueError, RecursionError):
            self._fail(f"its reply is not JSON: {_short(text)}")

    def _read_line(self, deadline: float) -> str:
        while b"\n" not in self._buffer:
            if len(self._buffer) > MAX_LINE:
                self._fail(f"a reply line longer than {MAX_LINE:,} bytes")
            left = deadline - time.monotonic()
            if left <= 0 or not self._selector.select(left):
                if self._process.poll() is not None:
                    self._died()
                self._fail(f"no reply within {self.timeout:g} s a decision "
                           "(cmd[timeout=S]:... allows more)")
            chunk = os.read(self._process.stdout.fileno(), 65536)
            if not chunk:
                self._died()
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8", errors="replace")

    def _keep_stderr(self) -> None:
        for raw in self._process.stderr:
            self._stderr.append(raw.decode("utf-8", errors="replace").rstrip())

    def _died(self):
        try:
            code = self._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
        time.sleep(0.05)  # let the stderr reader take the last lines
        said = " | ".join(line for line in self._stderr if line)
        self._fail(f"the process ended (exit code {code})"
                   + (f"; its stderr ends: {said}" if said else ""))

    def _fail(self, what: str):
        self.close()
        raise AgentFailure(f"agent {self.name}: {what}")


def _short(value: Any, limit: int = 120) -> str:
    """A value as short text for a message."""
    text = value if isinstance(value, str) else json.dumps(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _stop(process: subprocess.Popen) -> None:
    """Close the process's stdin, give it a moment to exit, then end it."""
    try:
        process.stdin.close()
    except OSError:
        pass
    try:
        process.wait(timeout=2)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
