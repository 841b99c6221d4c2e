"""The agents a training config names, made or tried before the run's work starts.

A league member, a teacher or an evaluation opponent may be an outside agent (a
process, a module, a plug-in, another library's policy) that fails to start. Either
backend finds that out here, before a run folder exists or Ray starts, and reports it
as a one-line ``ConfigError`` naming the config key; an agent that fails later, in
the middle of a run, is an ``AgentFailure`` that the program reports in one line.
"""

from __future__ import annotations

from collections.abc import Iterable

from rummy500.agents.base import Agent, AgentFailure
from rummy500.agents.registry import describe, make_agent
from rummy_env.core import Rules

from .config_checks import ConfigError

MADE_ELSEWHERE = ("ckpt", "py", "sb3", "cmd", "plugin")
"""Kinds of agent whose making can fail for reasons the config's check cannot see."""


def config_agent(key: str | None, name: str, rules: Rules, seed: int) -> Agent:
    """The agent ``name`` that the config's ``key`` names; a one-line ``ConfigError`` when
    it cannot be made (an outside agent that does not start, a plug-in that fails to load),
    naming the key unless it is None (a program that named the agent itself)."""
    try:
        return make_agent(name, rules, seed)
    except (ValueError, AgentFailure) as e:
        raise ConfigError(str(e) if key is None else f"config: {key}: {e}") from None


def check_agents_start(key: str | None, names: Iterable[str], rules: Rules, seed: int) -> None:
    """Make, then close, each agent of ``names`` that comes from outside the project, so one
    that does not start is a ``ConfigError`` now rather than a failure in the run."""
    for name in names:
        if describe(name).kind in MADE_ELSEWHERE:
            agent = config_agent(key, name, rules, seed)
            close = getattr(agent, "close", None)
            if close is not None:
                close()


def check_eval_opponents_start(
    eval_opponents: Iterable[str], opponents: Iterable[str], rules: Rules, seed: int
) -> None:
    """``check_agents_start`` for the evaluation opponents that are not league members too
    (a member is started, and checked, as one: starting it again would cost its start-up
    twice)."""
    members = set(opponents)
    evaluated_only = [name for name in eval_opponents if name not in members]
    check_agents_start("eval_opponents", evaluated_only, rules, seed)
