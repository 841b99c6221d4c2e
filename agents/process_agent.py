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
The process's stderr is its own log: never mixed into the arena's output, and only its
last ``STDERR_BYTES`` kept (a process writing without end cannot fill the arena's
memory). The process leads a process group of its own: closing the agent ends the whole
group, so nothing it started outlives the match, and a Ctrl-C at the terminal reaches
the arena alone (which then closes the agent).
"""

from __future__ import annotations

import json
import os
import selectors
import shlex
import signal
import subprocess
import threading
import time
import weakref
from typing import Any

import numpy as np

from rummy_env.core import Decision, Rules, action_layout
from rummy_env.core.names import printable_name

from .base import AgentFailure
from .seat_text import PROTOCOL, decision_request

DEFAULT_TIMEOUT = 30.0
"""Seconds a decision may take by default (``cmd[timeout=S]:COMMAND`` changes it)."""
MAX_TIMEOUT = 3600.0
"""Most seconds ``timeout`` may give one decision."""
MAX_LINE = 1 << 20
"""Longest reply line read, in bytes: anything longer is a broken agent, not a move."""
STDERR_LINES = 5
"""Last stderr lines quoted when the process dies."""
STDERR_BYTES = 4096
"""The tail of the process's stderr kept for those lines, in bytes."""
WAIT_STEP = 60.0
"""Longest single wait for a reply, in seconds (a batch's deadline can be far away)."""


class ProcessAgent:
    """An agent that is another process speaking the JSON-lines protocol above."""

    def __init__(
        self,
        command: str,
        rules: Rules,
        seed: int = 0,
        timeout: float = DEFAULT_TIMEOUT,
        name: str | None = None,
    ) -> None:
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
            self._process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                start_new_session=True,
            )
        except OSError as e:
            raise ValueError(
                f"cmd:{command}: cannot start {argv[0]!r}: {e.strerror or e}"
            ) from None
        self._stderr = bytearray()
        threading.Thread(target=self._keep_stderr, daemon=True).start()
        self._finalizer = weakref.finalize(self, _stop, self._process)
        self._buffer = b""
        self._failure: str | None = None
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._process.stdout, selectors.EVENT_READ)
        try:  # a failure before any game is a bad spec, refused like the others
            hello = self._ask(
                {"protocol": PROTOCOL, "hello": {"rules": rules.to_dict(), "seed": int(seed)}}, 1
            )
            if not isinstance(hello, dict):
                self._fail(f"its hello reply must be a JSON object, got {_short(hello)}")
        except AgentFailure as e:
            raise ValueError(str(e)) from None
        self.batch = hello.get("batch") is True
        if name is None and isinstance(hello.get("name"), str) and hello["name"].strip():
            self.name = printable_name(hello["name"])

    def act(self, decision: Decision) -> np.ndarray:
        if self._failure is not None:  # a failed process is not asked again
            raise AgentFailure(self._failure)
        requests = [decision_request(decision, i) for i in range(decision.size)]
        if self.batch:
            reply = self._ask({"protocol": PROTOCOL, "decisions": requests}, len(requests))
            actions = reply.get("actions") if isinstance(reply, dict) else None
            if not isinstance(actions, list) or len(actions) != len(requests):
                self._fail(
                    f"a batch of {len(requests)} decisions must be answered by "
                    f'{{"actions": [{len(requests)} moves]}}, got {_short(reply)}'
                )
        else:
            actions = []
            for request in requests:
                reply = self._ask(request, 1)
                if not isinstance(reply, dict) or "action" not in reply:
                    self._fail(
                        f'a decision must be answered by {{"action": ID or TEXT}}, '
                        f"got {_short(reply)}"
                    )
                actions.append(reply["action"])
        return np.array(
            [self._action_id(a, decision.mask[i]) for i, a in enumerate(actions)], np.int64
        )

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
            if left <= 0:
                self._fail(
                    f"no reply within {self.timeout:g} s a decision "
                    "(cmd[timeout=S]:... allows more)"
                )
            if not self._selector.select(min(left, WAIT_STEP)):
                continue
            chunk = os.read(self._process.stdout.fileno(), 65536)
            if not chunk:
                self._died()
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8", errors="replace")

    def _keep_stderr(self) -> None:
        """Read the process's stderr to its end, keeping its last ``STDERR_BYTES``."""
        pipe = self._process.stderr
        try:
            while chunk := os.read(pipe.fileno(), 65536):
                self._stderr += chunk
                del self._stderr[:-STDERR_BYTES]
        finally:
            pipe.close()

    def _stderr_tail(self) -> str:
        """The last ``STDERR_LINES`` non-empty lines of stderr, joined by `` | ``."""
        lines = bytes(self._stderr).decode("utf-8", errors="replace").splitlines()
        return " | ".join([line.strip()[:200] for line in lines if line.strip()][-STDERR_LINES:])

    def _died(self):
        try:
            code = self._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
        time.sleep(0.05)  # let the stderr reader take the last lines
        said = self._stderr_tail()
        self._fail(
            f"the process ended (exit code {code})" + (f"; its stderr ends: {said}" if said else "")
        )

    def _fail(self, what: str):
        self.close()
        self._failure = f"agent {self.name}: {what}"
        raise AgentFailure(self._failure)


def _short(value: Any, limit: int = 120) -> str:
    """A value as short text for a message."""
    text = value if isinstance(value, str) else json.dumps(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _stop(process: subprocess.Popen) -> None:
    """Close the process's stdin, give it a moment to exit, then end its whole process
    group (whatever it started that is still running, or the process itself)."""
    try:
        process.stdin.close()
    except OSError:
        pass
    try:
        process.wait(timeout=2)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # the group is gone already
    process.wait()
    process.stdout.close()  # stderr: its reader closes it at its end
