"""``rummy500 train``: self-play PPO from a config file, with key=value overrides.

Bad settings, a refused resume and a missing device end at once with one line
and exit code 2. Ctrl-C (SIGINT) or SIGTERM finishes the update under way,
saves ``last.pt``, prints the command that resumes the run and exits with
128 + the signal's number (130, 143).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rummy500.agents.base import AgentFailure
from rummy500.commands.arg_checks import CommandParser, output_dir_problem
from rummy500.commands.rules_args import rules_command_line
from rummy500.train.config import BACKENDS, load_config, recipe_names, recipe_path
from rummy500.train.config_checks import ConfigError
from rummy_env.core import Rules

if TYPE_CHECKING:
    from rummy500.train.ppo import TrainResult

USAGE_ERROR = 2
"""Exit code of a refused setting or resume."""


def eval_command(checkpoint: Path, rules: Rules) -> str:
    """The command that plays ``checkpoint`` against Sharp in every other seat under the
    rules it was trained for."""
    agents = [shlex.quote(f"ckpt:{checkpoint}")] + ["sharp"] * (rules.players - 1)
    return " ".join(["rummy500 eval --agents", *agents, *rules_command_line(rules)])


def _fail(message: str) -> int:
    """Print ``message`` as one line on stderr; the usage-error exit code."""
    print(f"rummy500 train: error: {message}", file=sys.stderr)
    return USAGE_ERROR


def main(argv: list[str] | None = None) -> int:
    parser = CommandParser(
        prog="rummy500 train",
        description="Train a policy by self-play PPO against a league of past selves and the "
        "heuristics. Logs to TensorBoard under runs/<run_name>/ and writes checkpoints "
        "there (last.pt, best.pt). Watch with: tensorboard --logdir runs",
        epilog="examples:\n  rummy500 train --config quickstart\n"
        "  rummy500 train --config selfplay num_envs=512 rules.players=3\n"
        "  rummy500 train --show-config quickstart > mine.yaml   # then: --config mine.yaml\n"
        "  rummy500 train --resume runs/RUN_NAME total_steps=2000000\n"
        "A resume uses the run's own config; only total_steps, max_minutes, the eval, "
        "checkpoint and progress settings, device and torch_threads may change.\n"
        "Ctrl-C saves last.pt after the update under way and prints how to resume.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--config",
        metavar="RECIPE",
        help="a YAML file of TrainConfig fields, or the name of a packaged recipe (--list-configs)",
    )
    parser.add_argument(
        "--list-configs", action="store_true", help="list the packaged recipes and exit"
    )
    parser.add_argument(
        "--show-config", metavar="RECIPE", help="print a recipe's YAML (to copy and edit) and exit"
    )
    parser.add_argument(
        "overrides",
        nargs="*",
        metavar="KEY=VALUE",
        help="override config fields, e.g. total_steps=200000 rules.players=3",
    )
    parser.add_argument(
        "--resume",
        metavar="RUN",
        help="continue a run (its folder, or its name under run_dir) from "
        "last.pt, with the config stored there",
    )
    parser.add_argument(
        "--device",
        choices=["auto", "cpu", "cuda"],
        help="where the network runs (default: the config's, auto)",
    )
    parser.add_argument(
        "--backend",
        choices=list(BACKENDS),
        default="builtin",
        help="builtin PPO (default) or Ray RLlib (pip install -e '.[rllib]'; "
        "config: rllib_selfplay)",
    )
    args = parser.parse_args(argv)
    if args.list_configs or args.show_config:
        return _show_recipes(args.show_config)
    if args.backend == "rllib":
        return _main_rllib(args)
    overrides = list(args.overrides)
    if args.device:
        overrides.append(f"device={args.device}")
    try:
        if args.resume:
            from rummy500.train.resume import resumed_config

            cfg = resumed_config(args.resume, args.config, overrides)
        else:
            cfg = load_config(args.config, overrides)
            check_run_dir(cfg.run_dir)
        from rummy500.train.ppo import TrainingDiverged, train

        if cfg.planned_steps != cfg.total_steps:
            print(
                f"total_steps={cfg.total_steps:,} runs as {cfg.planned_steps:,}: "
                f"{cfg.num_updates} whole rollouts of num_envs x num_steps = "
                f"{cfg.batch_per_update:,} agent-steps"
            )
        result = train(cfg, resume=args.resume)
    except ConfigError as e:
        return _fail(str(e))
    except TrainingDiverged as e:
        print(f"rummy500 train: {e}", file=sys.stderr)
        return 1
    except AgentFailure as e:  # a league member, the teacher or an evaluation opponent
        print(
            f"rummy500 train: {e}; the checkpoints written before are kept",
            file=sys.stderr,
        )
        return 1
    except OSError as e:  # a full disk, a folder made read-only under the run
        print(
            f"rummy500 train: cannot write {e.filename or 'the run'}: {e.strerror or e}; "
            "the checkpoints written before are kept",
            file=sys.stderr,
        )
        return 1
    except KeyboardInterrupt:
        print(
            "rummy500 train: stopped at once; the checkpoints already written are kept",
            file=sys.stderr,
        )
        return 130
    print(closing_summary(result, Rules.from_dict(cfg.rules)))
    return 0 if result.stopped_by is None else 128 + result.stopped_by


def closing_summary(result: TrainResult, rules: Rules) -> str:
    """What a finished run tells its user: why it stopped, the closing evaluation with its
    intervals, where its files are, and the commands to go on with."""
    run_dir, last = result.run_dir, result.run_dir / "last.pt"
    minutes = result.seconds / 60
    lines = [
        f"run ended: {result.stop_reason} at step {result.global_step:,} of "
        f"{result.planned_steps:,} ({result.updates} updates, {minutes:.1f} minutes, "
        f"{result.steps_per_second:,.0f} agent-steps/s)"
    ]
    if result.last_eval:
        games = int(next(iter(result.last_eval.values()))["games"])
        lines.append(
            f"evaluation at step {result.eval_step:,} ({games} duplicate games "
            "each, greedy play, 95% interval by deal):"
        )
        lines += [
            f"  vs {name}: win rate {s['win_rate']:.1%} ({s['win_lo']:.1%}-"
            f"{s['win_hi']:.1%}), points/hand {s['points_per_hand']:+.1f}"
            for name, s in result.last_eval.items()
        ]
    else:
        lines.append("evaluation: none (eval_opponents is empty)")
    if result.games_finished == 0:
        moves = result.global_step // max(1, result.updates)
        lines.append(
            f"  no game finished yet, so charts/episodic_return is empty: a game to "
            f"{rules.target} takes several hundred moves; charts/hand_return shows "
            f"the hands ({moves:,} agent-steps per update)"
        )
    lines += ["files:", f"  last.pt      {last}"]
    if (run_dir / "best.pt").exists():
        lines.append(f"  best.pt      {run_dir / 'best.pt'}  (the evaluations' best)")
    lines.append(f"  TensorBoard  {run_dir}  (tensorboard --logdir {run_dir.parent})")
    lines.append(
        f"  plot         {result.plot}"
        if result.plot is not None
        else f"  plot         none: {result.plot_missing}"
    )
    ckpt = shlex.quote(f"ckpt:{last}")
    lines += ["next:", f"  {eval_command(last, rules)} --games 400 --duplicate"]
    if result.stopped_by is not None or result.global_step < result.planned_steps:
        lines.append(
            f"  rummy500 train --resume {shlex.quote(str(run_dir))}      # go on to its total_steps"
        )
    from rummy500.eval.benchmark import TRACKS

    for players, track in TRACKS.items():  # a run under rules of no track is not offered one
        if rules == track.rules:
            table = "" if players == 2 else f" --players {players}"
            lines.append(f"  rummy500 benchmark {ckpt}{table}")
    lines += [
        f"  python -m rummy500.train.plots {shlex.quote(str(run_dir))}",
        f"  rummy500 serve --agents {ckpt} sharp      # play it in the browser",
    ]
    return "\n".join(lines)


def _show_recipes(name: str | None) -> int:
    """``--list-configs`` (each packaged recipe and its comment's first line) or
    ``--show-config NAME`` (the recipe's text)."""
    if name is not None:
        try:
            print(recipe_path(name).read_text(encoding="utf-8"), end="")
        except ConfigError as e:
            return _fail(str(e))
        return 0
    for recipe in recipe_names():
        first = recipe_path(recipe).read_text(encoding="utf-8").partition("\n")[0]
        print(f"{recipe:<18} {first.lstrip('# ') if first.startswith('#') else ''}")
    return 0


def check_run_dir(run_dir: str) -> None:
    """A one-line ``ConfigError`` unless ``run_dir`` is, or can be made, a folder to write in."""
    problem = output_dir_problem(run_dir)
    if problem:
        raise ConfigError(f"config: run_dir={run_dir}: {problem}")


def _main_rllib(args: argparse.Namespace) -> int:
    """``--backend rllib``: the RLlib trainer; ``--resume RUN`` continues RUN's RLlib
    checkpoint with the run's own config (overrides change it)."""
    try:
        import ray  # noqa: F401

        from rummy500.train.rllib_backend import (
            load_rllib_config,
            resumed_rllib_config,
            train_rllib,
        )
    except ImportError as e:
        return _fail(f"--backend rllib needs Ray RLlib: pip install -e '.[rllib]' ({e})")
    try:
        if args.resume:
            cfg = resumed_rllib_config(args.resume, args.overrides)
        else:
            cfg = load_rllib_config(args.config, args.overrides)
            check_run_dir(cfg.run_dir)
    except ConfigError as e:
        return _fail(str(e))
    if args.device == "cuda":
        cfg.num_gpus_per_learner = cfg.num_gpus_per_learner or 1
    try:
        out = train_rllib(cfg, resume=args.resume)
    except ConfigError as e:
        return _fail(str(e))
    except AgentFailure as e:  # an evaluation opponent
        print(
            f"rummy500 train: {e}; the checkpoints of its earlier evaluations are kept "
            "(continue it with --resume RUN)",
            file=sys.stderr,
        )
        return 1
    except KeyboardInterrupt:
        print(
            "rummy500 train: stopped; the run's last evaluation saved last.pt and rllib/ "
            "(continue it with --resume RUN)",
            file=sys.stderr,
        )
        return 130
    stages = ", ".join(f"{k} {v:.2f} s" for k, v in out["seconds_per_iteration"].items())
    print(
        f"run: {out['run_dir']}  steps: {out['global_step']:,}  "
        f"SPS: {out['steps_per_second']:,.0f} (learner decisions)  "
        f"moves/s: {out['moves_per_second']:,.0f} (every seat)  per iteration: {stages}"
    )
    for name, stats in out["last_eval"].items():
        print(
            f"  vs {name}: win rate {stats['win_rate']:.3f}, "
            f"points/hand {stats['points_per_hand']:+.1f}"
        )
    print(
        f"checkpoint: {out['checkpoint']}  (rummy500 eval --agents ckpt:{out['checkpoint']} sharp)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
