r"""Release 3 of the two-player champion, made again: ``champion@2`` trained on in stages.

Each stage is a run of the ``champion_vs_sharp`` recipe on one torch thread with
bfloat16 products, started from the stage before it and with its own league
(docs/results.md, "The third champion"). A stage's ``last.pt`` is copied to
``OUT/NAME.pt`` when the stage ends; a stage whose file is already there is skipped, so
a chain stopped part way goes on from its last whole stage::

    python scripts/champion3.py --out runs/champion3            # 2.3 hours on one core
    python scripts/champion3.py --out /tmp/chain --scale 0.0005  # every stage, tiny: a try

``--scale 1`` runs the stages with the seeds, leagues and budgets that made release 3
(``agents/champions/v3/standard_2p.pt``, its last stage's weights without the
optimizer's state).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from rummy500.commands.train import main as train_main
from rummy_env.core.records import write_whole


@dataclass(frozen=True)
class Stage:
    """One run of the chain: where it starts, its seed, its budget and its league. A league
    member or start ``stage:NAME`` is an earlier stage's network."""

    name: str
    init_from: str
    seed: int
    total_steps: int
    opponents: tuple[str, ...]
    learning_rate: float = 0.0003


STAGES = (
    Stage("A", "champion@2", 81, 45_000_000, ("sharp", "sharp", "champion@1", "champion@2")),
    Stage(
        "D", "stage:A", 84, 25_000_000, ("sharp", "sharp", "champion@1", "champion@2", "stage:A")
    ),
    Stage("G", "stage:D", 87, 18_000_000, ("sharp", "sharp", "sharp", "champion@2")),
    Stage("H", "stage:G", 88, 22_000_000, ("sharp", "sharp", "sharp", "champion@2"), 0.0001),
    Stage("I", "stage:H", 89, 20_000_000, ("sharp",) * 5 + ("champion@2",), 0.0001),
)
"""The chain, in order: the champion line in the first leagues lifts the head-to-head,
then leagues more and more of Sharp lift the Sharp figure while keeping it, the last two
stages at a third of the learning rate."""

RECIPE = "champion_vs_sharp"
COMMON = (
    "torch_threads=1",
    "precision=auto",
    "self_play=0.2",
    "max_minutes=0",
    "eval_every=0",
    "eval_opponents=[]",
    "checkpoint_every=50",
    "progress=false",
)
"""Overrides every stage shares: one thread (a seeded run repeats), no time limit and no
in-run evaluation (each stage ends on its steps and is measured on its own deals)."""


def stage_overrides(stage: Stage, out: Path, scale: float) -> list[str]:
    """The ``key=value`` overrides of one stage's ``rummy500 train`` run."""

    def resolve(spec: str) -> str:
        return str(out / f"{spec[len('stage:') :]}.pt") if spec.startswith("stage:") else spec

    league = ", ".join(
        f"ckpt:{resolve(m)}" if m.startswith("stage:") else m for m in stage.opponents
    )
    return [
        f"init_from={resolve(stage.init_from)}",
        f"seed={stage.seed}",
        f"total_steps={max(1, round(stage.total_steps * scale))}",
        f"learning_rate={stage.learning_rate}",
        f"opponents=[{league}]",
        f"run_dir={out / 'runs' / stage.name}",
        *COMMON,
    ]


def run_chain(out: Path, scale: float) -> int:
    """Train every stage not yet done, in order; 0 once the last stage's file exists."""
    for stage in STAGES:
        done = out / f"{stage.name}.pt"
        if done.exists():
            print(f"stage {stage.name}: {done} is there, skipped")
            continue
        print(f"stage {stage.name}: from {stage.init_from}, {stage.total_steps * scale:,.0f} steps")
        status = train_main(["--config", RECIPE, *stage_overrides(stage, out, scale)])
        if status != 0:
            print(f"stage {stage.name} stopped (exit {status}); run the script again to redo it")
            return status
        runs = sorted(
            (out / "runs" / stage.name).glob("*/last.pt"), key=lambda p: p.stat().st_mtime
        )
        write_whole(done, runs[-1].read_bytes())  # whole or absent, even on a full disk
    print(f"release 3's network: {out / (STAGES[-1].name + '.pt')}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="folder for the stages")
    parser.add_argument(
        "--scale",
        type=float,
        default=1.0,
        help="fraction of every stage's agent-steps (1: the release's own)",
    )
    args = parser.parse_args(argv)
    if not 0 < args.scale <= 1:
        parser.error(f"--scale {args.scale} must be above 0 and at most 1")
    if args.out.exists() and not args.out.is_dir():
        parser.error(f"--out {args.out} is a file, not a folder")
    try:
        args.out.mkdir(parents=True, exist_ok=True)
        return run_chain(args.out, args.scale)
    except OSError as e:  # a full disk or a read-only folder: finished stages are kept
        print(
            f"champion3: cannot write {e.filename or args.out}: {e.strerror or e}", file=sys.stderr
        )
        return 1


if __name__ == "__main__":
    sys.exit(main())
