"""Learning curves from a run's TensorBoard event files, drawn with matplotlib.

    python -m train.plots runs/<run_name> --out learning_curves.png
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def read_scalars(run_dir: str | Path) -> dict[str, list[tuple[int, float]]]:
    """{tag: [(step, value), ...]} of every scalar in the run's event files."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(run_dir), size_guidance={"scalars": 0})
    events.Reload()
    return {tag: [(e.step, e.value) for e in events.Scalars(tag)]
            for tag in events.Tags()["scalars"]}


def plot_learning_curves(run_dir: str | Path, out: str | Path) -> Path:
    """Win rate against each evaluation opponent (left) and the losses (right) over steps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scalars = read_scalars(run_dir)
    win_tags = sorted(t for t in scalars if t.startswith("eval/") and t.endswith("/win_rate"))
    if not win_tags:
        raise ValueError(f"{run_dir}: no eval/*/win_rate scalars to plot")
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    for tag in win_tags:
        steps, values = zip(*scalars[tag])
        left.plot(steps, values, marker="o", ms=3, label=tag.split("/")[1].replace("vs_", "vs "))
    left.axhline(0.5, color="grey", lw=0.8, ls="--")
    left.set(title="learner win rate (duplicate games)", xlabel="agent steps", ylim=(0, 1.02))
    left.legend()
    for tag in ("losses/value_loss", "losses/entropy", "losses/approx_kl"):
        if tag in scalars:
            steps, values = zip(*scalars[tag])
            right.plot(steps, values, label=tag.split("/")[1])
    right.set(title="losses", xlabel="agent steps", yscale="log")
    right.legend()
    fig.tight_layout()
    out = Path(out)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m train.plots",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("run_dir", help="a run folder under runs/")
    parser.add_argument("--out", default="learning_curves.png", help="PNG to write")
    args = parser.parse_args(argv)
    try:
        print(plot_learning_curves(args.run_dir, args.out))
    except ValueError as e:
        parser.error(str(e))
    return 0


if __name__ == "__main__":
    sys.exit(main())
