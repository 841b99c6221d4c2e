"""PettingZoo's two standard AEC checks in one wrapper whose hot calls reach the env
directly.

``env()`` used to stack ``AssertOutOfBoundsWrapper`` inside ``OrderEnforcingWrapper``.
Every attribute a user loop reads through that stack (``last()`` alone reads six:
``agent_selection``, ``observe``, the rewards, terminations, truncations and infos)
walks two ``__getattr__`` hops, about a fifth of one game's step. ``CheckedAEC`` keeps
the same checks, with the same errors, in one ``OrderEnforcingWrapper`` subclass
(so PettingZoo's order-enforcing iterator and ``isinstance`` checks accept it) and
answers ``last``, ``agents`` and ``agent_selection`` from the env itself.
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils import wrappers


def _before_reset(name: str) -> AttributeError:
    """The error ``OrderEnforcingWrapper`` raises for ``name`` read before ``reset()``."""
    return AttributeError(f"{name} cannot be accessed before reset")


class CheckedAEC(wrappers.OrderEnforcingWrapper):
    """Call order enforced as by ``OrderEnforcingWrapper``, and each action asserted to be
    in its agent's action space as by ``AssertOutOfBoundsWrapper`` (same message)."""

    def step(self, action: Any) -> None:
        env = self.env
        if self._has_reset and env.agents:
            agent = env.agent_selection
            assert (
                action is None and (env.terminations[agent] or env.truncations[agent])
            ) or env.action_space(agent).contains(action), "action is not in action space"
        super().step(action)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            raise _before_reset("agent_selection")
        return self.env.last(observe)

    @property
    def agents(self) -> list[str]:
        if not self._has_reset:
            raise _before_reset("agents")
        return self.env.agents

    @property
    def agent_selection(self) -> str:
        if not self._has_reset:
            raise _before_reset("agent_selection")
        return self.env.agent_selection

    def __str__(self) -> str:
        return str(self.env)
