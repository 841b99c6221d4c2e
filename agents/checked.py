"""Agents whose code is not the project's, held to the agent protocol at every decision.

A ``py:`` agent, an installed plug-in or an object handed to ``rummy500.evaluate``
is a user's code. Whatever it does wrong inside a match (``act`` raises, even
``SystemExit``, answers
the wrong number of moves or something that is no action id, or plays an
illegal move) becomes an ``AgentFailure`` that names the agent and the fault in
one line. The arena then ends the match keeping every game finished before it,
and the programs print that line instead of a traceback (an illegal move would
otherwise reach the engine and end the program there, losing those games).
"""

from __future__ import annotations

import traceback
from pathlib import Path
from typing import Any

import numpy as np

from rummy500.agents.base import AgentFailure
from rummy_env.core import Decision, action_layout
from rummy_env.core.names import printable_name


class CheckedAgent:
    """``agent`` behind the protocol's checks; every other attribute is the agent's own."""

    def __init__(self, agent: Any) -> None:
        self.__dict__["wrapped"] = agent

    @property
    def name(self) -> str:
        """The agent's own name, made printable (it reaches terminals and reports)."""
        return printable_name(str(self.wrapped.name))

    @name.setter
    def name(self, value: str) -> None:
        self.wrapped.name = value

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self.__dict__["wrapped"], attribute)

    def act(self, decision: Decision) -> np.ndarray:
        legal = Decision(decision.rules, decision.mask.copy(), decision.view)  # judged on the
        try:  # mask as handed over, whatever the agent does
            answer = self.wrapped.act(decision)
        except AgentFailure:
            raise
        except (Exception, SystemExit) as e:  # the user's code (exiting ends the match only)
            raise AgentFailure(
                f"agent {self.name}: act raised {type(e).__name__}: {e}{raised_at(e)}"
            ) from None
        return checked_actions(self.name, answer, legal)


def checked(agent: Any) -> Any:
    """``agent`` held to the protocol (once: a checked agent is returned as it is)."""
    return agent if isinstance(agent, CheckedAgent) else CheckedAgent(agent)


def checked_actions(name: str, answer: Any, decision: Decision) -> np.ndarray:
    """int64 [n]: ``answer`` as one legal action id per decision; an ``AgentFailure``
    saying what is wrong otherwise."""
    try:
        actions = np.asarray(answer)
    except Exception as e:
        raise AgentFailure(
            f"agent {name}: act returned {type(answer).__name__}, which is no "
            f"array of action ids ({e})"
        ) from None
    if actions.dtype.kind not in "iu":
        raise AgentFailure(
            f"agent {name}: act must return integer action ids, got "
            f"{type(answer).__name__} of {actions.dtype}"
        )
    actions = actions.reshape(-1).astype(np.int64)
    if actions.size != decision.size:
        raise AgentFailure(
            f"agent {name}: act returned {actions.size} actions for "
            f"{decision.size} decisions (one per game)"
        )
    width = decision.mask.shape[1]
    inside = (actions >= 0) & (actions < width)
    legal = inside.copy()
    legal[inside] = decision.mask[np.flatnonzero(inside), actions[inside]]
    if not legal.all():
        row = int(np.flatnonzero(~legal)[0])
        message = action_layout(decision.rules).illegal_message(
            actions[row], decision.mask[row], f" in decision {row} of {decision.size}"
        )
        raise AgentFailure(f"agent {name}: {message}")
    return actions


def raised_at(error: BaseException) -> str:
    """`` (file.py:line)``: where the innermost frame of ``error`` was, for the one line."""
    frames = traceback.extract_tb(error.__traceback__)
    return f" ({Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
