"""Learning curves from a run's TensorBoard event files, drawn with matplotlib.

    python -m rummy500.train.plots runs/<run_name>     # writes runs/<run_name>/learning_curves.png

Top: the learner's win rate against each evaluation opponent, with its 95%
interval as a band, over agent-steps (wall-clock minutes on the top axis); a run
with no evaluation yet shows its returns there instead. Below: the returns, the
speed and each loss on its own panel and scale, raw and smoothed: whatever the
run has logged.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike

PLOTS_EXTRA = "pip install 'rummy500[plots]'"
"""How to get matplotlib, the one thing the figures need beyond the package."""

RETURN_TAGS = ("charts/episodic_return", "charts/hand_return")
"""The learner's returns, drawn on top when a run has no evaluation yet."""

LOSS_PANELS = (
    ("charts/hand_return", "return per hand", "linear"),
    ("charts/episodic_return", "return per game", "linear"),
    ("charts/SPS", "agent-steps per second", "linear"),
    ("losses/policy_loss", "policy loss", "linear"),
    ("losses/value_loss", "value loss", "log"),
    ("losses/entropy", "entropy", "linear"),
    ("losses/approx_kl", "approx. KL (and old)", "log"),
    ("losses/clipfrac", "clip fraction", "linear"),
    ("losses/explained_variance", "explained variance", "linear"),
)


class MissingMatplotlib(ImportError):
    """matplotlib is not installed: the message says how to install it."""


def read_scalars(run_dir: str | Path) -> dict[str, list[tuple[int, float, float]]]:
    """{tag: [(step, value, wall time), ...]} of every scalar in the run's event files."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(run_dir), size_guidance={"scalars": 0})
    events.Reload()
    return {
        tag: [(e.step, e.value, e.wall_time) for e in events.Scalars(tag)]
        for tag in events.Tags()["scalars"]
    }


def smooth(values: np.ndarray, weight: float = 0.9) -> np.ndarray:
    """TensorBoard's exponential smoothing, debiased at the start."""
    out, level = np.empty(len(values)), 0.0
    for i, v in enumerate(values):
        level = weight * level + (1 - weight) * v
        out[i] = level / (1 - weight ** (i + 1))
    return out


def interp_extended(x: ArrayLike, xp: np.ndarray, fp: np.ndarray) -> np.ndarray:
    """``np.interp``, continued past both ends along the first and last segments (a
    secondary axis asks for ticks beyond the data; clamped, they would pile up at its
    ends)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.atleast_1d(np.interp(x, xp, fp)).astype(np.float64)
    flat = np.atleast_1d(x)
    lo, hi = flat < xp[0], flat > xp[-1]
    y[lo] = fp[0] + (flat[lo] - xp[0]) * (fp[1] - fp[0]) / (xp[1] - xp[0])
    y[hi] = fp[-1] + (flat[hi] - xp[-1]) * (fp[-1] - fp[-2]) / (xp[-1] - xp[-2])
    return y.reshape(x.shape)


def resume_times(run_dir: str | Path) -> np.ndarray:
    """Unix times at which the run was resumed: the creation times in the names of its
    event files (``events.out.tfevents.<time>.<host>...``), all but the first."""
    stamps = (f.name.split(".")[3:4] for f in Path(run_dir).glob("events.out.tfevents.*"))
    times = sorted(int(s[0]) for s in stamps if s and s[0].isdigit())
    return np.array(times[1:], dtype=np.float64)


def running_minutes(wall: np.ndarray, resumes: np.ndarray) -> np.ndarray:
    """Minutes the run was running at each of the sorted wall times ``wall``: a gap between
    two scalars in which the run was resumed (a time of ``resumes``) counts as the usual
    spacing, not as training time."""
    gaps = np.diff(wall)
    if gaps.size == 0:
        return np.zeros_like(wall)
    usual = float(np.median(gaps))
    after = np.searchsorted(wall, np.asarray(resumes, np.float64), side="left")
    paused = np.zeros(gaps.size, bool)
    paused[after[(after > 0) & (after < wall.size)] - 1] = True  # the gap that holds it
    gaps = np.where(paused, usual, gaps)
    return np.concatenate([[0.0], np.cumsum(gaps)]) / 60


def _series(scalars: dict, tag: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    steps, values, wall = (np.array(x, dtype=np.float64) for x in zip(*scalars[tag]))
    return steps, values, wall


def _draw_win_rates(top, scalars: dict, win_tags: list[str]) -> None:
    """The learner's win rate against each evaluation opponent, its interval as a band."""
    for tag in win_tags:
        steps, rate, wall = _series(scalars, tag)
        label = tag.split("/")[1].replace("vs_", "vs ")
        (line,) = top.plot(steps, rate, marker="o", ms=3, label=label)
        base = tag[: -len("win_rate")]
        if base + "win_lo" in scalars and base + "win_hi" in scalars:
            _, lo, _ = _series(scalars, base + "win_lo")
            _, hi, _ = _series(scalars, base + "win_hi")
            if lo.size == steps.size:
                top.fill_between(steps, lo, hi, color=line.get_color(), alpha=0.15, lw=0)
    top.axhline(0.5, color="grey", lw=0.8, ls="--")
    top.set(
        title="learner win rate, duplicate games (band: 95% interval)",
        xlabel="agent steps",
        ylabel="win rate",
        ylim=(0, 1.02),
    )
    top.legend(loc="lower right", ncol=min(4, len(win_tags)), fontsize=9)


def _draw_returns(top, scalars: dict) -> None:
    """The learner's returns, raw and smoothed, for a run with no evaluation yet."""
    for tag in RETURN_TAGS:
        if tag in scalars:
            steps, values, _ = _series(scalars, tag)
            (raw,) = top.plot(steps, values, alpha=0.25, lw=0.8)
            top.plot(
                steps,
                smooth(values),
                color=raw.get_color(),
                lw=1.6,
                label=tag.split("/")[1].replace("_", " "),
            )
    top.set(
        title="learner return (no evaluation yet: they come every eval_every updates "
        "and at the end)",
        xlabel="agent steps",
        ylabel="return",
    )
    if top.get_legend_handles_labels()[0]:
        top.legend(loc="lower right", fontsize=9)


def plot_learning_curves(run_dir: str | Path, out: str | Path) -> Path:
    """Write the figure described in the module docstring; returns its path."""
    try:  # no pyplot: a notebook's backend stays its own
        from matplotlib.figure import Figure
    except ImportError:
        raise MissingMatplotlib(f"drawing the curves needs matplotlib: {PLOTS_EXTRA}") from None

    if not Path(run_dir).is_dir():
        raise ValueError(f"{run_dir}: no such run folder")
    scalars = read_scalars(run_dir)
    win_tags = sorted(t for t in scalars if t.startswith("eval/") and t.endswith("/win_rate"))
    panels = [p for p in LOSS_PANELS if p[0] in scalars]
    if not win_tags and not panels:
        raise ValueError(f"{run_dir}: no TensorBoard scalars to plot yet")
    cols = 3
    rows = 1 + -(-len(panels) // cols)
    fig = Figure(figsize=(13, 3.6 * rows))
    grid = fig.add_gridspec(rows, cols, height_ratios=[1.4] + [1] * (rows - 1))
    top = fig.add_subplot(grid[0, :])
    if win_tags:
        _draw_win_rates(top, scalars, win_tags)
    else:
        _draw_returns(top, scalars)
    # Minutes of running since the run's first scalar, read off the densest series (one
    # per update); a stop and resume's pause is left out.
    densest = max(scalars, key=lambda tag: len(scalars[tag]))
    at, _, wall = _series(scalars, "charts/SPS" if "charts/SPS" in scalars else densest)
    first = min(w for events in scalars.values() for _, _, w in events)
    minutes = running_minutes(np.concatenate([[first], wall]), resume_times(run_dir))[1:]
    if at.size > 1 and np.all(np.diff(at) > 0) and np.all(np.diff(minutes) > 0):
        top.secondary_xaxis(
            "top",
            functions=(
                lambda s: interp_extended(s, at, minutes),
                lambda m: interp_extended(m, minutes, at),
            ),
        ).set_xlabel("wall-clock minutes")
    for k, (tag, title, scale) in enumerate(panels):
        ax = fig.add_subplot(grid[1 + k // cols, k % cols])
        extra = ["losses/old_approx_kl"] if tag == "losses/approx_kl" else []
        for t in [tag, *extra]:
            if t not in scalars:
                continue
            steps, values, _ = _series(scalars, t)
            if scale == "log":
                values = np.maximum(np.abs(values), 1e-12)
            (raw,) = ax.plot(steps, values, alpha=0.25, lw=0.8)
            ax.plot(steps, smooth(values), color=raw.get_color(), lw=1.6, label=t.split("/")[1])
        ax.set(title=title, xlabel="agent steps", yscale=scale)
        if extra:
            ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    out = Path(out)
    fig.savefig(out, dpi=110)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m rummy500.train.plots", description=__doc__.split("\n")[0]
    )
    parser.add_argument("run_dir", help="a run folder under runs/")
    parser.add_argument(
        "--out", help="PNG to write (default: learning_curves.png in the run folder)"
    )
    args = parser.parse_args(argv)
    out = args.out or Path(args.run_dir) / "learning_curves.png"
    try:
        print(plot_learning_curves(args.run_dir, out))
    except (ValueError, MissingMatplotlib) as e:
        parser.error(str(e))
    return 0


if __name__ == "__main__":
    sys.exit(main())
