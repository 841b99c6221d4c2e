"""Oracle: the expert's search played in worlds dealt from the true game.

A research bound, never a fair player, so it lives with the arena and not
among the agents: it sees the cards its seat cannot (``Decision.hidden``,
which only the arena fills, and only for agents whose ``sees_hidden`` is
True), and measures what the expert's search would gain from knowing them.
``sees=hands`` deals every world with the other seats' true hands and the
stock reshuffled: the most that inference about the opponents' hands could
give the search. ``sees=0.5`` shows each of those hidden cards with that
chance (afresh at every decision) and deals the rest at random, as the expert
does: how the gain grows with partial knowledge. ``sees=all`` keeps the
stock's true order too, so each play-out is the game's real future (under
the play-out policies).

    rummy500 eval --agents oracle:sees=hands,guide=sharp sharp --preset web --duplicate

The rest of the name is the expert's budget (``rummy500.agents.expert``):
``oracle:sees=hands,worlds=32`` searches as ``expert:worlds=32`` does.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from rummy500.agents.base import Agent
from rummy500.agents.expert import ExpertAgent, ExpertBudget
from rummy500.agents.registry import SPEC_FORMS, check_spec, describe, make_agent
from rummy_env.core import Decision, PlayerView, Rules, State
from rummy_env.core.view import relative_order
from rummy_env.core.worlds import fresh_deal_keys, sample_worlds, shuffle_prefixes

SEES = ("hands", "all")
"""What the oracle's worlds keep of the true game (``sees=``), besides a share of the other
hands' hidden cards (``sees=0.5``)."""

ARENA_FORMS = SPEC_FORMS + ", oracle[:OPTIONS] (sees hidden cards: a bound, not a player)"
"""Every form an agent spec takes in the arena's programs (``eval``, ``ladder``)."""


def parse_sees(text: str) -> str:
    """``hands``, ``all`` or a share strictly between 0 and 1 (written as Python writes the
    number, so ``0.50`` and ``.5`` name one agent); a one-line ``ValueError`` otherwise."""
    sees = text.strip().lower()
    if sees in SEES:
        return sees
    try:
        share = float(sees)
    except ValueError:
        share = -1.0
    if not 0.0 < share < 1.0:
        raise ValueError(
            f"oracle: sees must be one of {', '.join(SEES)} or a share between 0 "
            f"and 1, got {text.strip()!r}"
        )
    return repr(share)


def parse_oracle(options: str) -> tuple[str, ExpertBudget]:
    """(sees, budget) of ``sees=hands,worlds=16`` (the text after ``oracle:``)."""
    sees, rest = "hands", []
    for item in filter(None, (part.strip() for part in options.split(","))):
        key, _, text = item.partition("=")
        if key.strip().lower() == "sees":
            sees = parse_sees(text)
        else:
            rest.append(item)
    try:
        return sees, ExpertBudget.parse(",".join(rest))
    except ValueError as e:
        raise as_oracle_error(e) from None


def as_oracle_error(error: ValueError) -> ValueError:
    """The expert's one-line complaint about a budget, told of the oracle (whose options
    also take ``sees=``)."""
    text = str(error).replace("expert:", "oracle:", 1)
    return ValueError(text.replace("; options are ", "; options are sees=hands|all|SHARE, ", 1))


def shuffle_stock(state: State, rng: np.random.Generator) -> None:
    """Put each game's stock cards in a fresh random order (in place)."""
    state.stock[:] = shuffle_prefixes(state.stock, state.stock_size, rng)


class OracleAgent(ExpertAgent):
    """The expert's search, its worlds dealt from the true games (see the module docstring)."""

    sees_hidden = True
    """Asks the arena for ``Decision.hidden``."""

    def __init__(
        self, rules: Rules, seed: int = 0, sees: str = "hands", budget: ExpertBudget | None = None
    ):
        super().__init__(rules, seed, budget)
        self.sees = sees
        expert_name = self.budget.spec()
        options = [f"sees={sees}"] if sees != "hands" else []
        if ":" in expert_name:
            options.append(expert_name.split(":", 1)[1])
        self.name = "oracle" + (":" + ",".join(options) if options else "")

    def deal_worlds(self, decision: Decision, rows: np.ndarray, view: PlayerView) -> State:
        """The true game of each decision of ``rows``, ``worlds`` times (stock reshuffled in
        each unless ``sees=all``; with a share, only that share of the other hands' hidden
        cards kept), with fresh deal keys for later hands."""
        if decision.hidden is None:
            raise ValueError(
                "oracle: no hidden cards given; it plays in the arena only "
                "(rummy500 eval, rummy500 ladder)"
            )
        truth = decision.hidden.select(rows)
        if self.sees not in SEES:
            return self.partly_seen_worlds(truth, view, float(self.sees))
        worlds = truth.select(np.repeat(np.arange(rows.size), self.budget.worlds))
        if self.sees == "hands":
            shuffle_stock(worlds, self.rng)
        worlds.key[:] = fresh_deal_keys(worlds.batch_size, self.rng)
        return worlds

    def partly_seen_worlds(self, truth: State, view: PlayerView, share: float) -> State:
        """Worlds dealt as the expert deals them from ``view``, with each hidden card of the
        other hands in ``truth`` shown beforehand with chance ``share``; the worlds' public
        knowledge stays the view's (the play-outs see no more than the seat does)."""
        n, p, w = view.size, self.rules.players, self.budget.worlds
        seats = relative_order(p, view.seat)  # absolute seat of each relative seat
        held = truth.hand[np.arange(n)[:, None], seats].astype(np.int64)  # [n, P, 53]
        shown = view.known.astype(np.int64)
        shown[:, 1:] += self.rng.binomial(held[:, 1:] - shown[:, 1:], share)
        seen = dataclasses.replace(view, known=shown.astype(view.known.dtype))
        worlds = sample_worlds(self.rules, seen, w, self.rng)
        worlds.known[np.arange(n * w)[:, None], np.repeat(seats, w, axis=0)] = np.repeat(
            view.known, w, axis=0
        )
        return worlds


def make_oracle(options: str, rules: Rules, seed: int = 0) -> OracleAgent:
    """The oracle of ``options`` (the text after ``oracle:``; '' = sees=hands, the expert's
    default budget)."""
    sees, budget = parse_oracle(options)
    try:
        return OracleAgent(rules, seed, sees, budget)
    except ValueError as e:  # e.g. guide=champion under rules no champion plays
        raise as_oracle_error(e) from None


def check_arena_spec(spec: str) -> None:
    """``rummy500.agents.registry.check_spec``, the oracle's options accepted too (one-line
    ``ValueError``)."""
    described = describe(spec, forms=ARENA_FORMS)
    if described.kind == "oracle":
        parse_oracle(described.options)
    else:
        check_spec(described)


def make_arena_agent(spec: str, rules: Rules, seed: int = 0) -> Agent:
    """``rummy500.agents.registry.make_agent``, or the oracle where ``spec`` names it: for programs
    that play through the arena, which hands it the true games."""
    described = describe(spec, forms=ARENA_FORMS)
    if described.kind == "oracle":
        return make_oracle(described.options, rules, seed)
    return make_agent(described, rules, seed)
