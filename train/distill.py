"""Expert iteration: the expert's searched choices distilled into its guide's network.

The expert (``agents/expert.py``) plays the champion's choice except where the
champion is unsure; there its search weighs the champion's likeliest actions in
sampled worlds, and that is what beats the champion two games in three.
``collect`` plays the expert against a list of opponents and keeps, for every
searched decision (and a share of the others), the observation, the legal mask,
the action it played and the champion's own choice. ``fit`` trains the
champion's network from the champion's weights, by cross-entropy, to play the
expert's action (``temperature`` 0, hard targets) or, where the search weighed
candidates, to spread its probability over them as ``softmax(gain / temperature)``
of their mean play-out gains (soft targets: what the search learnt of every
candidate, not only of the winner). The result is an ordinary checkpoint: play it with
``ckpt:PATH``, or train on from it with PPO (``init_from=PATH``).

    python -m rummy500.train.distill --games 200 --out runs/distill
    python -m rummy500.train.distill --labels runs/distill/labels.npz --out runs/distill2

Labels are written after every chunk of games, so an interrupted collection keeps
what it played; ``--labels`` fits from a saved file without playing again.
"""

from __future__ import annotations

import argparse
import dataclasses
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from rummy500.agents.base import Agent, Decision
from rummy500.agents.expert import ExpertAgent, select_view
from rummy500.agents.registry import make_agent
from rummy500.eval.arena import match_games, play_games
from rummy500.train.interrupt import STOP_SIGNALS
from rummy_env.core import Rules, check_seed, encode


@dataclass
class Labels:
    """Decisions of the expert: what it saw, what it might do, what it did."""

    obs: np.ndarray  # float32 [n, D]
    mask: np.ndarray  # bool [n, A]
    action: np.ndarray  # int64 [n]  the expert's action
    proposed: np.ndarray  # int64 [n]  the guide's own choice
    searched: np.ndarray  # bool [n]   the search weighed this decision
    candidates: np.ndarray  # int64 [n, C] the actions it weighed (-1: none; row [action] else)
    gains: np.ndarray  # float32 [n, C] their mean play-out gain over the guide's (-inf: none)

    @property
    def size(self) -> int:
        return self.action.shape[0]

    @property
    def changed(self) -> np.ndarray:
        """bool [n]: the search played another action than the guide's."""
        return self.action != self.proposed

    def save(self, path: Path) -> None:
        """Write to ``path`` (.npz) through a temporary file, so a crash leaves the old one."""
        tmp = path.with_name(path.name + ".tmp.npz")
        np.savez_compressed(tmp, **dataclasses.asdict(self))
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> Labels:
        """Labels from ``path``; a file written before the search's gains were kept loads
        with the played action as its one candidate (hard targets only)."""
        with np.load(path) as data:
            fields = {name: data[name] for name in data.files}
        if "candidates" not in fields:
            fields["candidates"] = fields["action"][:, None].astype(np.int64)
            fields["gains"] = np.zeros((fields["action"].shape[0], 1), np.float32)
        return cls(**{f.name: fields[f.name] for f in dataclasses.fields(cls)})

    @classmethod
    def concat(cls, parts: list[Labels]) -> Labels:
        return cls(
            **{
                f.name: np.concatenate([getattr(p, f.name) for p in parts])
                for f in dataclasses.fields(cls)
            }
        )

    def targets(self, temperature: float) -> np.ndarray:
        """float32 [n, C]: the probability each candidate should get: all on the action
        played (``temperature`` 0, or a decision not searched), else
        ``softmax(gain / temperature)`` over the searched candidates."""
        hard = (self.candidates == self.action[:, None]).astype(np.float32)
        hard /= hard.sum(axis=1, keepdims=True)
        if temperature <= 0:
            return hard
        scaled = np.where(np.isfinite(self.gains), self.gains / temperature, -np.inf)
        scaled -= scaled.max(axis=1, keepdims=True)
        soft = np.exp(scaled)
        soft /= soft.sum(axis=1, keepdims=True)
        return np.where(self.searched[:, None], soft, hard).astype(np.float32)


class LabellingExpert:
    """An agent: the expert, keeping its searched decisions and ``keep`` of the others."""

    def __init__(self, expert: ExpertAgent, keep: float, seed: int) -> None:
        self.expert, self.keep = expert, keep
        self.name = expert.name
        self.rng = np.random.default_rng([seed, 3])
        self.parts: list[Labels] = []

    def act(self, decision: Decision) -> np.ndarray:
        choice = self.expert.choose(decision)
        n = choice.action.shape[0]
        searched = np.zeros(n, bool)
        searched[choice.searched] = True
        rows = np.flatnonzero(searched | (self.rng.random(n) < self.keep))
        if rows.size:
            width = choice.candidates.shape[1]
            candidates = np.full((n, width), -1, np.int64)
            candidates[:, 0] = choice.action
            gains = np.full((n, width), -np.inf, np.float32)
            gains[:, 0] = 0.0
            candidates[choice.searched] = choice.candidates
            gains[choice.searched] = choice.gains
            view = select_view(decision.view, rows)
            self.parts.append(
                Labels(
                    obs=encode(decision.rules, view),
                    mask=decision.mask[rows],
                    action=choice.action[rows],
                    proposed=choice.proposed[rows],
                    searched=searched[rows],
                    candidates=candidates[rows],
                    gains=gains[rows],
                )
            )
        return choice.action

    def labels(self) -> Labels:
        return Labels.concat(self.parts)


def collect(
    rules: Rules,
    expert_spec: str,
    opponents: list[str],
    games: int,
    seed: int,
    out: Path,
    chunk: int = 50,
    keep: float = 0.1,
) -> Labels:
    """Play ``games`` duplicate games of the expert against each opponent, keeping its
    decisions; ``out`` is rewritten after every ``chunk`` games."""
    expert = make_agent(expert_spec, rules, seed)
    if not isinstance(expert, ExpertAgent):
        raise ValueError(f"distill: {expert_spec!r} is not an expert")
    labeller = LabellingExpert(expert, keep, seed)
    rivals: list[Agent] = [
        make_agent(name, rules, seed + 1 + i) for i, name in enumerate(opponents)
    ]
    first_deal = 0
    try:
        for played in range(0, games, chunk):
            n = min(chunk, games - played)
            for k, rival in enumerate(rivals):
                lineups, deals = match_games(
                    2, rules.players, n, duplicate=True, first_deal=first_deal
                )
                play_games(
                    rules, [labeller, rival], lineups, deals, seed + 1000 * k, progress=False
                ).raise_if_stopped("the collection")  # a signal, or an agent that failed
            first_deal += -(-n // 2)
            labels = labeller.labels()
            labels.save(out)
            print(
                f"distill: {played + n}/{games} games per opponent, {labels.size} "
                f"decisions kept ({labels.searched.sum()} searched, "
                f"{labels.changed.sum()} changed)",
                flush=True,
            )
    except KeyboardInterrupt:
        if labeller.parts:  # the decisions of the games under way are kept too
            labeller.labels().save(out)
        raise
    return labeller.labels()


def agreement(policy: torch.nn.Module, labels: Labels, rows: np.ndarray) -> float:
    """Share of ``rows`` where the network's likeliest action is the expert's."""
    if rows.size == 0:
        return float("nan")
    with torch.no_grad():
        chosen, *_ = policy.get_action_and_value(
            torch.as_tensor(labels.obs[rows]), torch.as_tensor(labels.mask[rows]), greedy=True
        )
    return float((chosen.numpy() == labels.action[rows]).mean())


def candidate_log_probs(policy: torch.nn.Module, labels: Labels, rows: np.ndarray) -> torch.Tensor:
    """float [r, C]: the policy's log-probability of each candidate of ``rows`` (0 where
    there is none; the targets put no weight there)."""
    obs = torch.as_tensor(labels.obs[rows])
    mask = torch.as_tensor(labels.mask[rows])
    logits = policy.logits_and_value(obs)[0].float()
    log_probs = torch.log_softmax(logits.masked_fill(~mask, torch.finfo(logits.dtype).min), dim=-1)
    candidates = torch.as_tensor(labels.candidates[rows])
    picked = log_probs.gather(-1, candidates.clamp(min=0))
    return picked.masked_fill(candidates < 0, 0.0)


def fit(
    policy: torch.nn.Module,
    labels: Labels,
    epochs: int,
    lr: float,
    seed: int,
    batch: int = 512,
    held_out: float = 0.1,
    temperature: float = 0.0,
) -> list[dict[str, float]]:
    """Train ``policy`` toward the expert's targets (``Labels.targets(temperature)``); per
    epoch, the loss and the held-out agreement on the decisions the search changed and on
    all of them."""
    rng = np.random.default_rng([seed, 4])
    targets = labels.targets(temperature)
    order = rng.permutation(labels.size)
    n_test = int(labels.size * held_out)
    test, train = order[:n_test], order[n_test:]
    test_changed = test[labels.changed[test]]
    optimizer = torch.optim.Adam(policy.parameters(), lr=lr)
    history = [
        {
            "epoch": 0,
            "loss": float("nan"),
            "agree_changed": agreement(policy, labels, test_changed),
            "agree_all": agreement(policy, labels, test),
        }
    ]
    for epoch in range(1, epochs + 1):
        policy.train()
        losses = []
        for start in range(0, train.size, batch):
            rows = train[start : start + batch]
            log_probs = candidate_log_probs(policy, labels, rows)
            loss = -(torch.as_tensor(targets[rows]) * log_probs).sum(dim=-1).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        rng.shuffle(train)
        policy.eval()
        history.append(
            {
                "epoch": epoch,
                "loss": float(np.mean(losses)),
                "agree_changed": agreement(policy, labels, test_changed),
                "agree_all": agreement(policy, labels, test),
            }
        )
    return history


class Stopped(KeyboardInterrupt):
    """Ctrl-C or SIGTERM while collecting (raised at once; the labels so far are saved)."""

    def __init__(self, number: int) -> None:
        super().__init__(number)
        self.number = number


def _stop(number: int, frame: object) -> None:
    raise Stopped(number)


def main(argv: list[str] | None = None) -> int:
    for number in STOP_SIGNALS:  # also where a shell left SIGINT ignored
        signal.signal(number, _stop)
    parser = argparse.ArgumentParser(
        prog="python -m rummy500.train.distill", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--out", required=True, help="folder for labels.npz and distilled.pt")
    parser.add_argument("--labels", help="fit from this labels.npz instead of playing games")
    parser.add_argument(
        "--players", type=int, default=2, help="seats (a champion ships for 2 and 4)"
    )
    parser.add_argument("--expert", default="expert", help="the expert's name with its budget")
    parser.add_argument("--opponents", nargs="+", default=["sharp", "champion"])
    parser.add_argument("--games", type=int, default=200, help="games against each opponent")
    parser.add_argument(
        "--keep", type=float, default=0.1, help="share of the unsearched decisions kept (0..1)"
    )
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument(
        "--temperature",
        type=float,
        default=0.0,
        help="soft targets: softmax(gain / T) over the searched candidates, "
        "T in points of play-out gain (0: the played action alone)",
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        check_seed(args.seed)
    except ValueError as e:
        parser.error(str(e))
    try:
        return run(args)
    except (ValueError, FileNotFoundError) as e:
        print(f"distill: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:
        number = e.number if isinstance(e, Stopped) else signal.SIGINT
        print(
            f"distill: {signal.Signals(number).name}: the decisions played so far are in "
            f"{Path(args.out) / 'labels.npz'} (fit them with --labels)",
            file=sys.stderr,
        )
        return 128 + number


def run(args: argparse.Namespace) -> int:
    from rummy500.agents.champion import champion_checkpoint
    from rummy500.agents.checkpoint import policy_from
    from rummy500.train.run_folder import save_checkpoint

    if (
        args.games < 1
        or args.epochs < 0
        or not 0 <= args.keep <= 1
        or args.lr <= 0
        or not args.temperature >= 0
    ):
        raise ValueError(
            "--games and --lr must be positive, --epochs and --temperature >= 0, --keep in 0..1"
        )
    rules = Rules.preset_named("standard", players=args.players)
    path, payload = champion_checkpoint(rules)  # refuses rules without a champion first
    if args.labels and not Path(args.labels).is_file():
        raise FileNotFoundError(f"--labels {args.labels} does not exist")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(args.seed)
    started = time.perf_counter()
    if args.labels:
        labels = Labels.load(Path(args.labels))
    else:
        labels = collect(
            rules,
            args.expert,
            args.opponents,
            args.games,
            args.seed,
            out / "labels.npz",
            keep=args.keep,
        )
    played = time.perf_counter() - started
    policy = policy_from(payload, path, rules)
    for row in fit(policy, labels, args.epochs, args.lr, args.seed, temperature=args.temperature):
        print(
            "distill: epoch {epoch}: loss {loss:.4f}, held-out agreement with the expert "
            "{agree_all:.3f} (where it changed the champion's choice: {agree_changed:.3f})".format(
                **row
            ),
            flush=True,
        )
    made_by = (
        f"rummy500.train.distill from {path.name}: {labels.size} decisions of {args.expert} "
        f"against {', '.join(args.opponents)}, {args.epochs} epochs at lr {args.lr}, "
        f"temperature {args.temperature}"
    )
    target = save_checkpoint(
        out / "distilled.pt",
        policy,
        arch=payload["arch"],
        arch_kwargs=payload["arch_kwargs"],
        rules=rules,
        config=vars(args),
        global_step=payload["global_step"],
        extra={"made_by": made_by},
    )
    print(f"distill: wrote {target} ({played / 60:.1f} min of play); play it with ckpt:{target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
