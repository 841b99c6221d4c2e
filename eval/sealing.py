"""Sealed matches: deals that no agent in another process can know.

An agent sees only its seat's view, but a deal is a function of the match's seed
(``rummy_env.core.deal``): an agent that knew or could guess the seed could rebuild
every hand and the stock from its own cards. A ``cmd:`` agent is another process,
perhaps someone else's program, so a match that seats one is sealed: its deal seed
and the root of the agents' seeds (``rummy500.eval.shards.agent_seed``) are drawn
from the operating system's entropy, 63 bits each (the engine keys each game with
64 bits, so no wider seed would make a search harder), and the agents' seeds are
independent of the deals. Both are printed and written in the report once the match
is over, and given back as ``--seed`` and ``--agent-seed`` they replay the match game
for game. A match whose seed was given (or is the day's, ``--daily``) is not sealed,
and the report says so. Agents that run inside the program (``py:``, plug-ins,
checkpoints) are code the operator trusts: they could read the process itself.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from rummy500.agents.outside import outside_spec


@dataclass(frozen=True)
class MatchSeeds:
    """A match's deal seed, the root of its agents' seeds, and whether both were drawn
    unseen (``sealed``)."""

    deal: int
    agents: int
    sealed: bool

    def report_fields(self) -> dict[str, int | bool]:
        """What a report records of them (``seed``, ``agent_seed``, ``sealed``): enough to
        replay the match with ``--seed`` and ``--agent-seed``."""
        return {"seed": self.deal, "agent_seed": self.agents, "sealed": self.sealed}


def sealed_seed() -> int:
    """A seed drawn from the operating system's entropy: 63 bits, any valid seed."""
    return secrets.randbits(63)


def seats_another_process(specs: Sequence[object]) -> bool:
    """Whether any of ``specs`` is a ``cmd:`` agent (a process of its own)."""
    return any(_kind(spec) == "cmd" for spec in specs)


def _kind(spec: object) -> str | None:
    """The outside kind of ``spec`` (``cmd``, ``py``...), None for any other (a malformed
    one too: making the agent refuses it, in one line)."""
    try:
        found = outside_spec(spec) if isinstance(spec, str) else None
    except ValueError:
        return None
    return found[0] if found else None


def match_seeds(
    specs: Sequence[object],
    deal: int | None = None,
    agents: int | None = None,
    default_deal: int = 0,
) -> MatchSeeds:
    """The seeds of a match seating ``specs``: those given as given; for a match that
    seats another process the rest drawn unseen (sealed when neither was given); else
    the deal seed ``default_deal`` and the agents' root equal to it."""
    if seats_another_process(specs):
        return MatchSeeds(
            sealed_seed() if deal is None else deal,
            sealed_seed() if agents is None else agents,
            sealed=deal is None and agents is None,
        )
    deal = default_deal if deal is None else deal
    return MatchSeeds(deal, deal if agents is None else agents, sealed=False)
