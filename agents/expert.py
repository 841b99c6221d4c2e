"""Expert: a search player that plays its doubtful choices out in sampled worlds.

A *guide* proposes and plays out; the search checks it. The guide is the
shipped ``champion`` when one is trained for the rules (and torch is
installed), else Sharp (``rummy500.agents.sharp``):

* champion guide: where the policy is unsure (its likeliest action has less
  than ``sure`` of the probability), its ``candidates`` likeliest actions of
  any kind (draws, digs, melds, discards) are compared; play-outs are the
  champion itself, greedily, in every seat.
* Sharp guide: where Sharp discards, its discard and the next best by a cheap
  prior (loose high cards first, see ``discard_prior``) are compared
  (``draws=1`` adds the draws); play-outs are a fast copy of Sharp.

Each comparison:

1. Determinize: ``rummy_env.core.sample_worlds`` deals the cards the seat
   cannot see (the other seats' unknown cards and the stock) at random,
   ``worlds`` times, keeping everything the seat sees as seen.
2. Play out: every (decision, candidate, world) triple starts with the
   candidate and is played on by the guide's rollout policy in every seat, all
   triples of the batch stepping together through the batched core, until the
   hand ends or ``horizon`` micro-steps have passed.
3. Score: the seat's hand score minus the mean of the other seats' (the score
   as if the hand ended now where the horizon cut it), plus ``win_bonus`` when
   the hand ends the game in the seat's favour (minus it when against). The
   worlds are shared by the candidates, so their luck cancels in the
   comparison; a candidate replaces the guide's choice only when its mean gain
   over it, world by world, exceeds ``trust`` standard errors (a hand's score
   swings by about 55 points from world to world).

Measured (docs/results.md, "The expert"): with the champion guide, searching
only its doubtful decisions is at least even with the champion against Sharp
and beats the champion itself two games in three; searching every discard
loses to the champion alone, and a learned-value leaf gains nothing. Play-outs cut at
20 micro-steps rather than 40 are as strong head to head and against Sharp at 1.7x
less time a decision: the rest of a hand adds more noise between the worlds than
signal between the candidates.

The budget is set in the name: ``expert`` is ``expert:worlds=8,candidates=3,
horizon=20,win_bonus=100,trust=1.0,draws=0,sure=0.9,guide=auto,rivals=mixed``; any of
these can be given, e.g. ``expert:worlds=32`` or ``expert:guide=sharp``. The agent
sees only the ``Decision`` (mask and the acting seat's view).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from rummy500.agents.cardsense import card_tables
from rummy500.agents.casual import protected_cards
from rummy500.agents.sharp import SharpAgent, SharpParams
from rummy_env.core import (
    PHASE_DRAW,
    PHASE_GAME_OVER,
    PHASE_HAND_OVER,
    PHASE_PLAY,
    Decision,
    Games,
    PlayerView,
    Rules,
    State,
    action_layout,
)
from rummy_env.core.worlds import provisional_scores, sample_worlds

if TYPE_CHECKING:
    from rummy500.agents.torch_policy import TorchAgent

ROLLOUT_PARAMS = SharpParams(stock_samples=1, candidates=2)
"""The rollout copy of Sharp: one stock sample, two meld candidates (cheaper per move)."""

GUIDES = ("auto", "champion", "sharp")
"""``auto``: the champion trained for the rules when one ships, else Sharp. A guide may also
be a trained network of one's own, ``ckpt:PATH`` (``CHECKPOINT_GUIDE``)."""

CHECKPOINT_GUIDE = "ckpt:"
"""``guide=ckpt:PATH``: the greedy policy of a checkpoint proposes and plays out, as the
champion does (the search over a network one has trained)."""

RIVALS = ("guide", "mixed")
"""Who plays the other seats in the play-outs (``ExpertBudget.rivals``)."""


@dataclass(frozen=True)
class ExpertBudget:
    """How much search each decision gets (set in the agent's name)."""

    worlds: int = 8
    """Sampled worlds per decision (shared by its candidates)."""
    candidates: int = 3
    """Actions compared per decision, the guide's choice included."""
    horizon: int = 20
    """Micro-steps each play-out runs at most before it is scored as it stands."""
    win_bonus: int = 100
    """Points added for a hand that ends the game won (taken off for one lost)."""
    trust: float = 1.0
    """Standard errors by which a candidate's mean gain must beat the guide's choice to
    replace it."""
    draws: int = 0
    """Sharp guide: 1 weighs the draws too (stock, top card, digs, ``end``). Off by default:
    measured against Sharp, play-outs judge its draws worse than it does itself."""
    sure: float = 0.9
    """Champion guide: decisions where the policy's likeliest action has at least this
    probability are not searched."""
    guide: str = "auto"
    """Who proposes and plays out: ``auto``, ``champion``, ``sharp`` (``GUIDES``) or
    ``ckpt:PATH``."""
    rivals: str = "mixed"
    """Who plays the other seats in the play-outs: ``mixed``, in every other world a fast
    copy of Sharp, so the search weighs a champion guide's choices against two kinds of
    opponent; or ``guide``, the guide as in the searching seat (about half the time; with
    the Sharp guide the two are the same)."""

    LIMITS = {
        "worlds": (2, 1024),
        "candidates": (2, 16),
        "horizon": (1, 1000),
        "win_bonus": (0, 10000),
        "trust": (0, 10),
        "draws": (0, 1),
        "sure": (0, 1),
        "guide": (*GUIDES, f"{CHECKPOINT_GUIDE}PATH"),
        "rivals": RIVALS,
    }

    @classmethod
    def parse(cls, options: str) -> ExpertBudget:
        """The budget of ``worlds=16,horizon=30`` (the text after ``expert:``)."""
        values: dict[str, float | str] = {}
        for item in filter(None, (part.strip() for part in options.split(","))):
            key, eq, text = item.partition("=")
            key, text = key.strip().lower(), text.strip()
            if not eq or key not in cls.LIMITS:
                raise ValueError(f"expert: bad option {item!r}; options are {cls.forms()}")
            kind = type(getattr(cls, key))
            if key == "guide" and text.lower().startswith(CHECKPOINT_GUIDE):
                if not text[len(CHECKPOINT_GUIDE) :].strip():
                    raise ValueError(
                        "expert: guide=ckpt: needs a path, e.g. guide=ckpt:runs/RUN/last.pt"
                    )
                values[key] = CHECKPOINT_GUIDE + text[len(CHECKPOINT_GUIDE) :].strip()
                continue
            if kind is str:
                if text.lower() not in (GUIDES if key == "guide" else cls.LIMITS[key]):
                    raise ValueError(
                        f"expert: {key} must be one of {', '.join(cls.LIMITS[key])}, got {text!r}"
                    )
                values[key] = text.lower()
                continue
            try:
                value = kind(text)
            except ValueError:
                what = "a number" if kind is float else "an integer"
                raise ValueError(f"expert: {key} must be {what}, got {text!r}") from None
            lo, hi = cls.LIMITS[key]
            if not lo <= value <= hi:
                raise ValueError(f"expert: {key}={value} is outside {lo}..{hi}")
            values[key] = value
        return cls(**values)

    @classmethod
    def forms(cls) -> str:
        """Every option and what it takes: ``worlds=N, ..., guide=auto|...|ckpt:PATH``."""
        return ", ".join(
            f"{k}={'|'.join(v) if isinstance(v[0], str) else 'N'}" for k, v in cls.LIMITS.items()
        )

    def spec(self) -> str:
        """The agent name that gives this budget (``expert`` for the default)."""
        changed = [
            f"{f.name}={getattr(self, f.name)}"
            for f in dataclasses.fields(self)
            if getattr(self, f.name) != f.default
        ]
        return "expert" + (":" + ",".join(changed) if changed else "")


@dataclass
class SearchStats:
    """What the search did over an expert's decisions, and how finely it could judge."""

    decisions: int = 0
    """Decisions the expert made."""
    searched: int = 0
    """Decisions the search weighed (the guide proposed more than one action)."""
    overridden: int = 0
    """Searched decisions where another action than the guide's was played."""
    compared: int = 0
    """Candidates weighed against the guide's choice."""
    gain_sd: float = 0.0
    """Sum over ``compared`` of the spread (standard deviation over the worlds) of the
    candidate's gain over the guide's choice, paired world by world."""

    def summary(self, worlds: int) -> dict[str, float]:
        """Shares of decisions searched and overridden, the mean paired spread of a gain
        (points per world) and the smallest mean gain ``worlds`` worlds tell from noise at
        two standard errors (``resolves``)."""
        spread = self.gain_sd / self.compared if self.compared else float("nan")
        return {
            "decisions": self.decisions,
            "searched": self.searched,
            "overridden": self.overridden,
            "compared": self.compared,
            "searched_share": self.searched / self.decisions if self.decisions else 0.0,
            "override_share": self.overridden / self.searched if self.searched else 0.0,
            "gain_sd": spread,
            "worlds": worlds,
            "resolves": 2.0 * spread / np.sqrt(worlds),
        }


def merge_search_summaries(summaries: list[dict | None]) -> dict | None:
    """One ``SearchStats.summary`` from the summaries of several copies of one search agent
    (the shards of a match, ``rummy500.eval.shards``); None where none of them searched."""
    given = [s for s in summaries if s is not None]
    if not given:
        return None
    stats = SearchStats()
    for s in given:
        stats.decisions += s["decisions"]
        stats.searched += s["searched"]
        stats.overridden += s["overridden"]
        stats.compared += s["compared"]
        stats.gain_sd += s["gain_sd"] * s["compared"] if s["compared"] else 0.0
    return stats.summary(given[0]["worlds"])


class Choice(NamedTuple):
    """What the expert chose for n decisions, and how."""

    action: np.ndarray
    """int64 [n]: the actions played."""
    proposed: np.ndarray
    """int64 [n]: the guide's own choices."""
    searched: np.ndarray
    """int64 [r]: the decisions the search weighed (the others play ``proposed``)."""
    candidates: np.ndarray
    """int64 [r, C]: the actions weighed in each searched decision (-1: no candidate)."""
    gains: np.ndarray
    """float64 [r, C]: each candidate's mean play-out gain over the guide's choice (its
    first candidate, gain 0), -inf where there is no candidate: the search's values, soft
    targets for distillation (train/distill.py)."""


def select_view(view: PlayerView, rows: np.ndarray) -> PlayerView:
    """The view of the decisions ``rows`` only."""
    return PlayerView(**{f.name: getattr(view, f.name)[rows] for f in dataclasses.fields(view)})


def discard_prior(card_values: np.ndarray, rules: Rules, hand: np.ndarray) -> np.ndarray:
    """float [n, 53]: how good each card looks to discard (loose cards, high values first)."""
    return card_values[None, :] - 100.0 * protected_cards(hand, rules)


class SharpGuide:
    """Sharp proposes; its discards (and, with ``draws=1``, its draws) are searched; a fast
    copy of Sharp plays out."""

    def __init__(self, rules: Rules, seed: int, budget: ExpertBudget) -> None:
        self.rules, self.budget = rules, budget
        self.prior = SharpAgent(rules, seed)
        self.rollout = SharpAgent(rules, seed + 1, ROLLOUT_PARAMS)
        self.layout = action_layout(rules)
        self.card_values = card_tables(rules).card_values.astype(np.float64)

    def propose(self, decision: Decision) -> np.ndarray:
        """int64 [n, C]: Sharp's choice, then the actions to weigh against it, -1 padded."""
        chosen = np.asarray(self.prior.act(decision), np.int64)
        ids, mask, view = self.layout, decision.mask, decision.view
        n, c = mask.shape[0], self.budget.candidates
        out = np.full((n, c), -1, np.int64)
        out[:, 0] = chosen
        rank = np.full(mask.shape, -np.inf)
        drawing = (view.phase == PHASE_DRAW) & bool(self.budget.draws)
        draw_ids = np.r_[ids.DRAW, ids.TAKE, ids.END, ids.TAKE + 1 : ids.MELD]
        rank[np.ix_(drawing, draw_ids)] = -np.arange(draw_ids.size, dtype=np.float64)
        discarding = (view.phase == PHASE_PLAY) & (chosen >= ids.DISCARD) & (chosen < ids.SWAP)
        if discarding.any():
            rank[discarding, ids.DISCARD : ids.SWAP] = discard_prior(
                self.card_values, self.rules, view.hand[discarding]
            )
        rank[~mask] = -np.inf
        rank[np.arange(n), chosen] = -np.inf
        order = np.argsort(-rank, axis=1, kind="stable")[:, : c - 1]
        ok = np.take_along_axis(rank, order, axis=1) > -np.inf
        out[:, 1:] = np.where(ok, order, -1)
        return out


class PolicyGuide:
    """A trained policy (the champion) proposes its likeliest actions where it is unsure, and
    plays out greedily in every seat."""

    MIN_PROBABILITY = 0.02
    """Actions the policy gives less than this are never searched."""

    def __init__(self, policy: TorchAgent, budget: ExpertBudget) -> None:
        self.policy, self.budget = policy, budget
        self.rollout = policy  # greedy: the same choices in the play-outs as in the proposals

    def propose(self, decision: Decision) -> np.ndarray:
        """int64 [n, C]: the policy's likeliest action first, then the next likeliest where
        the policy is unsure, -1 padded."""
        probs = self.policy.probabilities(decision)
        order = np.argsort(-probs, axis=1, kind="stable")[:, : self.budget.candidates]
        ranked = np.take_along_axis(probs, order, axis=1)
        ok = ranked >= self.MIN_PROBABILITY
        ok[ranked[:, 0] >= self.budget.sure, 1:] = False
        ok[:, 0] = True
        return np.where(ok, order, -1)


def make_guide(
    rules: Rules, seed: int, budget: ExpertBudget, champion: int | None = None
) -> SharpGuide | PolicyGuide:
    """The guide the budget names; ``auto`` takes the champion of these rules (release
    ``champion``, default the latest) when one ships and torch imports, else Sharp."""
    if budget.guide.startswith(CHECKPOINT_GUIDE):
        from rummy500.agents.outside import load_checkpoint_agent

        path = budget.guide[len(CHECKPOINT_GUIDE) :]
        try:
            return PolicyGuide(load_checkpoint_agent(path, rules, seed), budget)
        except (ValueError, NotImplementedError) as e:
            raise ValueError(f"expert: guide={e}") from None
    if budget.guide != "sharp":
        try:
            from rummy500.agents.champion import make_champion

            return PolicyGuide(make_champion(rules, seed, champion), budget)
        except (ValueError, ImportError) as e:
            if budget.guide == "champion":
                raise ValueError(f"expert: guide=champion: {e}") from None
    return SharpGuide(rules, seed, budget)


class ExpertAgent:
    """Determinized search over a guide's play-outs (see the module docstring)."""

    def __init__(
        self,
        rules: Rules,
        seed: int = 0,
        budget: ExpertBudget | None = None,
        champion: int | None = None,
    ):
        self.rules = rules
        self.budget = budget or ExpertBudget()
        self.name = self.budget.spec()
        self.guide = make_guide(rules, seed, self.budget, champion)
        mixed = self.budget.rivals == "mixed" and isinstance(self.guide, PolicyGuide)
        self.rival = SharpAgent(rules, seed + 3, ROLLOUT_PARAMS) if mixed else None
        self.rng = np.random.default_rng([seed, 2])
        self.stats = SearchStats()

    def search_summary(self) -> dict[str, float]:
        """``SearchStats.summary`` of every decision so far (the arena's report shows it)."""
        return self.stats.summary(self.budget.worlds)

    def act(self, decision: Decision) -> np.ndarray:
        return self.choose(decision).action

    def choose(self, decision: Decision) -> Choice:
        """The guide's choice, replaced by the search's where the guide proposed more than
        one action."""
        candidates = self.guide.propose(decision)
        action = candidates[:, 0].copy()
        rows = np.flatnonzero((candidates >= 0).sum(axis=1) >= 2)
        gains = np.zeros((rows.size, candidates.shape[1]))
        if rows.size:
            action[rows], gains = self.search(decision, rows, candidates[rows])
        self.stats.decisions += action.size
        self.stats.searched += rows.size
        self.stats.overridden += int((action[rows] != candidates[rows, 0]).sum())
        return Choice(action, candidates[:, 0], rows, candidates[rows], gains)

    # ------------------------------------------------------------------ search
    def search(
        self, decision: Decision, rows: np.ndarray, candidates: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """(int64 [r]: the candidate of each decision in ``rows`` with the best mean play-out,
        float64 [r, C]: each candidate's mean gain over the first, -inf where none)."""
        r, c = candidates.shape
        w = self.budget.worlds
        view = select_view(decision.view, rows)
        worlds = self.deal_worlds(decision, rows, view)
        row = np.repeat(np.arange(r), c * w)
        cand = np.tile(np.repeat(np.arange(c), w), r)
        world = np.tile(np.arange(w), r * c)
        first = candidates[row, cand]
        keep = np.flatnonzero(first >= 0)
        games = Games.of(
            self.rules, worlds.select(row[keep] * w + world[keep]), auto_deal=False
        )  # the tables kept from one micro-step to the next
        games.step(first[keep])
        value = np.zeros(r * c * w)
        value[keep] = self.play_out(
            games, view.seat[row[keep]].astype(np.int64), world[keep] % 2 == 1
        )
        value = value.reshape(r, c, w)
        gain = value - value[:, :1]  # paired with the guide's choice world by world
        mean = gain.mean(axis=2)
        spread = gain.std(axis=2) / np.sqrt(max(w - 1, 1))
        weighed = candidates[:, 1:] >= 0
        self.stats.compared += int(weighed.sum())
        self.stats.gain_sd += float(spread[:, 1:][weighed].sum()) * np.sqrt(w)  # sd over worlds
        mean[candidates < 0] = -np.inf
        best = np.argmax(mean, axis=1)
        at = np.arange(r)
        sure = mean[at, best] > self.budget.trust * spread[at, best]
        return candidates[at, np.where(sure, best, 0)], mean

    def deal_worlds(self, decision: Decision, rows: np.ndarray, view: PlayerView) -> State:
        """``worlds`` complete games per decision of ``rows`` (world w of the i-th at row
        i * worlds + w), dealt at random from what its seat sees (``view``)."""
        return sample_worlds(self.rules, view, self.budget.worlds, self.rng)

    def play_out(self, games: Games, me: np.ndarray, odd_world: np.ndarray) -> np.ndarray:
        """float [B]: the value for seat ``me[b]`` of playing game b of ``games`` on to the
        hand's end (with ``rivals=mixed``, Sharp plays the other seats of the ``odd_world``
        games)."""
        rules = self.rules
        value = np.zeros(games.state.batch_size)
        index = np.arange(games.state.batch_size)  # original row of each row still playing
        for _ in range(self.budget.horizon + 1):
            state = games.state
            over = (state.phase == PHASE_HAND_OVER) | (state.phase == PHASE_GAME_OVER)
            if over.any():
                done = np.flatnonzero(over)
                value[index[done]] = self.score(state, done, me[index[done]], finished=True)
                live = np.flatnonzero(~over)
                games.keep(live)
                state, index = games.state, index[live]
            if state.batch_size == 0:
                return value
            mask = games.mask()
            view = games.view()
            if self.rival is None:
                actions = self.guide.rollout.act(Decision(rules=rules, mask=mask, view=view))
            else:
                theirs = odd_world[index] & (state.current_player != me[index])
                actions = np.empty(state.batch_size, np.int64)
                for agent, rows in (
                    (self.guide.rollout, np.flatnonzero(~theirs)),
                    (self.rival, np.flatnonzero(theirs)),
                ):
                    if rows.size:
                        actions[rows] = agent.act(
                            Decision(rules=rules, mask=mask[rows], view=select_view(view, rows))
                        )
            games.step(actions)
        state = games.state
        all_rows = np.arange(state.batch_size)
        value[index] = self.score(state, all_rows, me[index], finished=False)
        return value

    def score(self, state: State, rows: np.ndarray, me: np.ndarray, finished: bool) -> np.ndarray:
        """float [r]: my hand score minus the others' mean, plus the game's win or loss bonus."""
        p = self.rules.players
        if finished:
            scores = state.hand_scores[rows].astype(np.float64)
        else:
            scores = provisional_scores(self.rules, state.select(rows)).astype(np.float64)
        mine = scores[np.arange(rows.size), me]
        value = mine - (scores.sum(axis=1) - mine) / (p - 1)
        if finished:
            winner = state.winner[rows]
            lost = (winner >= 0) & (winner != me)
            value += self.budget.win_bonus * ((winner == me) * 1.0 - lost)
        return value


def make_expert(
    options: str, rules: Rules, seed: int = 0, champion: int | None = None
) -> ExpertAgent:
    """The expert with the budget of ``options`` (the text after ``expert:``; '' = default),
    guided by champion release ``champion`` (default the latest): ``expert@N`` is the
    default budget over ``champion@N``."""
    return ExpertAgent(rules, seed, ExpertBudget.parse(options), champion)
