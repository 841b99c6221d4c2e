"""``rummy500 train``: self-play PPO from a config file, with key=value overrides."""

from __future__ import annotations

import argparse
import sys

from train.config import load_config


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="rummy500 train",
        description="Train a policy by self-play PPO against a league of past selves and the "
        "heuristics. Logs to TensorBoard under runs/<run_name>/ and writes checkpoints "
        "there (last.pt, best.pt). Watch with: tensorboard --logdir runs",
        epilog="examples:\n  rummy500 train --config configs/train/quickstart.yaml\n"
        "  rummy500 train --config configs/train/selfplay.yaml num_envs=512 rules.players=3\n"
        "  rummy500 train --config configs/train/quickstart.yaml --resume runs/RUN_NAME",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--config", help="YAML file of TrainConfig fields (train/config.py)")
    parser.add_argument("overrides", nargs="*", metavar="KEY=VALUE",
                        help="override config fields, e.g. total_steps=200000 rules.players=3")
    parser.add_argument("--resume", metavar="RUN",
                        help="continue a run (its folder, or its name under run_dir) from last.pt")
    parser.add_argument("--device", choices=["auto", "cpu", "cuda"],
                        help="where the network runs (default: the config's, auto)")
    parser.add_argument("--backend", choices=["builtin", "rllib"], default="builtin",
                        help="builtin PPO (default) or Ray RLlib (pip install -e '.[rllib]'; "
                        "config: configs/train/rllib_selfplay.yaml)")
    args = parser.parse_args(argv)
    if args.backend == "rllib":
        return _main_rllib(parser, args)
    overrides = list(args.overrides)
    if args.device:
        overrides.append(f"device={args.device}")
    try:
        cfg = load_config(args.config, overrides)
    except (OSError, ValueError) as e:
        parser.error(str(e))
    from train.ppo import train

    result = train(cfg, resume=args.resume)
    print(f"run: {result.run_dir}  steps: {result.global_step:,}  "
          f"updates: {result.updates}  SPS: {result.steps_per_second:,.0f}")
    for name, stats in result.last_eval.items():
        print(f"  vs {name}: win rate {stats['win_rate']:.3f}, "
              f"points/hand {stats['points_per_hand']:+.1f} ({stats['games']:.0f} games)")
    print(f"checkpoint: {result.run_dir / 'last.pt'}  (play it: rummy500 eval --agents "
          f"ckpt:{result.run_dir / 'best.pt'} sharp)")
    return 0


def _main_rllib(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:

    try:
        import ray  # noqa: F401

        from train.rllib_backend import load_rllib_config, train_rllib
    except ImportError as e:
        parser.error(f"--backend rllib needs Ray RLlib: pip install -e '.[rllib]' ({e})")
    try:
        cfg = load_rllib_config(args.config, args.overrides)
    except (OSError, ValueError) as e:
        parser.error(str(e))
    if args.device == "cuda":
        cfg.num_gpus_per_learner = cfg.num_gpus_per_learner or 1
    out = train_rllib(cfg)
    print(f"run: {out['run_dir']}  steps: {out['global_step']:,}  "
          f"SPS: {out['steps_per_second']:,.0f}")
    for name, stats in out["last_eval"].items():
        print(f"  vs {name}: win rate {stats['win_rate']:.3f}, "
              f"points/hand {stats['points_per_hand']:+.1f}")
    print(f"checkpoint: {out['checkpoint']}  (rummy500 eval --agents ckpt:{out['checkpoint']} "
          "sharp)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
