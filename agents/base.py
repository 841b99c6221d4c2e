"""The one agent protocol: every agent acts on a batch of decisions.

An agent gets a ``rummy_env.core.Decision`` (for n games: what the acting seats
may see, nothing more) and returns one legal action id per game. The one
exception is a research bound, not an agent: a class that sets ``sees_hidden =
True`` (``rummy500.eval.oracle``) also gets the true games in ``Decision.hidden``, and only
the arena (``rummy500.eval.arena``) fills it.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from rummy_env.core import Decision
from rummy_env.core.names import printable_name


@runtime_checkable
class Agent(Protocol):
    """Anything with a name and ``act(decision) -> int64 [n]`` legal action ids."""

    name: str

    def act(self, decision: Decision) -> np.ndarray: ...


class AgentFailure(RuntimeError):
    """An agent could not decide: an outside agent (a process, a plug-in) crashed, answered
    wrongly or too late. The arena ends the match there and reports the games already
    finished; the message is one line that names the agent and what went wrong (what it
    quotes of the agent, its reply, stderr or exception, made printable)."""

    def __init__(self, message: str) -> None:
        super().__init__(printable_name(message, limit=2000))
