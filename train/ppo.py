"""Self-play PPO for Rummy 500, readable top to bottom (after CleanRL's ppo.py).

One rollout steps ``num_envs`` games ``num_steps`` times through the batched
self-play interface. In each game the learner holds one seat (all seats under
pure self-play) and league members the others (train/league.py). Only the
learner's decisions are trained on; each seat's rewards and advantages follow
its own chain of decisions (train/advantages.py). The update is the usual
clipped PPO with a masked categorical (illegal actions are never sampled, and
the stored masks are re-applied when log-probs are recomputed).

Logged to TensorBoard under ``runs/<run_name>/``: ``charts/SPS``,
``charts/episodic_return`` (the learner's return over each finished game: a game to
500 is several hundred moves, so a short run may log none), ``charts/hand_return`` (the
learner's reward at each finished hand, logged from the first hands on),
``charts/learning_rate``, ``losses/*`` (means over the
update's minibatches, ``old_approx_kl`` included),
``eval/vs_<name>/win_rate`` (``/win_lo``, ``/win_hi``: its 95% interval) and
``/points_per_hand``, ``league/*``, ``time/<stage>_share`` (the part of the wall time
spent in the learner's forward passes, the opponents, the env, the update and
evaluation, since the previous update's log; train/stage_timer.py), and the
hyperparameters as a text table. Checkpoints: ``last.pt``, ``best.pt`` (best
mean evaluation win rate) and the last few numbered ones; each also holds what a
resumed run needs to go on as the same run (train/run_state.py). ``resume``
continues a run from its ``last.pt`` after the checks of train/resume.py. On
SIGINT or SIGTERM the update under way finishes, ``last.pt`` is saved and the
result says which signal stopped the run (train/interrupt.py).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn, optim

from rummy500.agents.distributions import LegalActions
from rummy500.agents.registry import make_agent
from rummy500.agents.torch_policy import TorchAgent, build_policy
from rummy500.agents.widen import widen
from rummy_env.envs.vector import RummyVectorEnv

from . import run_state
from .advantages import turn_based_gae
from .checkpoint import save_checkpoint
from .config import TrainConfig
from .config_checks import ConfigError
from .evaluation import evaluate
from .interrupt import StopOnSignal
from .league import SELF, League
from .precision import network_precision, resolved_precision
from .resume import open_run
from .run_dir import create_run_dir
from .seats import SeatControl
from .stage_timer import StageTimer
from .warm_start import initial_weights


@dataclass
class TrainResult:
    """What a run did: its folder, steps, updates, speed, last evaluation and, when a signal
    stopped it early, that signal's number."""

    run_dir: Path
    global_step: int
    updates: int
    steps_per_second: float
    last_eval: dict[str, dict[str, float]]
    stopped_by: int | None = None
    games_finished: int = 0
    """Games played to their end in this process (``charts/episodic_return`` logs them)."""


def pick_device(name: str) -> torch.device:
    """The torch device for ``auto``, ``cpu`` or ``cuda``; a ConfigError when CUDA is asked
    for and torch sees none."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise ConfigError("config: device=cuda is not available: torch sees no CUDA device; "
                          "allowed here: auto, cpu")
    return torch.device(name)


class Rollout:
    """Buffers of one rollout, [T, B] per field; rows where ``learner`` is False are unused.
    Observations are kept compact (uint8 codes and float32 numbers, a quarter of the
    bytes) and widened per minibatch (agents/widen.py)."""

    def __init__(self, t: int, b: int, obs_dim: int, number_dim: int, n_actions: int,
                 device: torch.device):
        self.codes = torch.zeros((t, b, obs_dim), dtype=torch.uint8, device=device)
        self.numbers = torch.zeros((t, b, number_dim), device=device)
        self.masks = torch.zeros((t, b, n_actions), dtype=torch.bool, device=device)
        self.actions = torch.zeros((t, b), dtype=torch.long, device=device)
        self.logprobs = torch.zeros((t, b), device=device)
        self.values = np.zeros((t, b), np.float32)
        self.rewards = np.zeros((t, b), np.float32)
        self.dones = np.zeros((t, b), bool)
        self.learner = np.zeros((t, b), bool)
        self.next_step = np.full((t, b), -1, np.int64)
        self.bootstrap = np.zeros((t, b), np.float32)

    def clear(self) -> None:
        for arr in (self.values, self.rewards, self.bootstrap):
            arr[:] = 0.0
        self.dones[:] = False
        self.learner[:] = False
        self.next_step[:] = -1


def train(cfg: TrainConfig, resume: str | Path | None = None) -> TrainResult:
    """Train by ``cfg``, or continue the run ``resume`` (its folder or name under
    ``cfg.run_dir``); a ConfigError before any work when the device or the resume is refused."""
    # ------------------------------------------------------------------ set-up
    device = pick_device(cfg.device)
    precision = resolved_precision(cfg.precision, device)
    run_dir, payload = open_run(resume, cfg) if resume is not None else (None, None)
    from torch.utils.tensorboard import SummaryWriter
    from tqdm import tqdm

    rules = cfg.game_rules
    warm_start = None if payload is not None else initial_weights(cfg.init_from, rules,
                                                                  cfg.arch, cfg.arch_kwargs,
                                                                  cfg.init_rules == "any")
    if cfg.torch_threads:
        torch.set_num_threads(cfg.torch_threads)
    torch.manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)

    env = RummyVectorEnv(rules, cfg.num_envs, seed=cfg.seed, reward=cfg.reward, episode="game",
                         compact=True)
    b, p, t_len = cfg.num_envs, rules.players, cfg.num_steps
    obs_dim, n_actions = env.observation_size, env.num_actions
    batch_per_update, num_updates = cfg.batch_per_update, cfg.num_updates

    def new_network() -> nn.Module:
        """A freshly initialised network of the config's architecture, on ``device``."""
        return build_policy(cfg.arch, rules, obs_dim, n_actions, **cfg.arch_kwargs).to(device)

    def frozen_member(name: str, weights: dict[str, torch.Tensor], seed: int) -> TorchAgent:
        """A league member playing a frozen copy of the learner with ``weights``."""
        frozen = new_network()
        frozen.load_state_dict(weights)
        return TorchAgent(frozen.eval(), rules, name, device=device, seed=seed)

    policy = new_network()
    if warm_start is not None:
        policy.load_state_dict(warm_start)
    optimizer = optim.Adam(policy.parameters(), lr=cfg.learning_rate, eps=1e-5)
    league = League(self_play=cfg.self_play, max_snapshots=cfg.max_snapshots)
    for name in cfg.opponents:
        league.add(name, make_agent(name, rules, cfg.seed))
    obs_np, mask_np, seat = env.reset(seed=cfg.seed)
    seating = SeatControl(league, b, p, rng, mixed=cfg.mixed_tables)

    global_step, best_score = 0, -1.0
    if payload is not None:
        policy.load_state_dict(payload["state_dict"])
        optimizer.load_state_dict(payload["extra"]["optimizer"])
        global_step = int(payload["global_step"])
        best_score = float(payload["extra"]["best_score"])
        obs_np, mask_np, seat = run_state.restore(
            payload["extra"]["run_state"], league, seating, env, rng, device,
            snapshot=lambda name, weights: frozen_member(name, weights, cfg.seed),
            heuristic=lambda name: make_agent(name, rules, cfg.seed))
    else:
        run_dir = create_run_dir(cfg.run_dir, cfg.exp_name, cfg.seed)
    # Updates are counted from the steps done, so a resumed run ends at the same step.
    first_update = global_step // batch_per_update + 1
    writer = SummaryWriter(str(run_dir), purge_step=global_step if payload else None)
    if payload is None:
        settings = {**cfg.to_dict(), "precision": f"{cfg.precision} ({precision} on {device})"}
        table = "\n".join(f"|{k}|{v}|" for k, v in settings.items())
        writer.add_text("hyperparameters", f"|param|value|\n|-|-|\n{table}")

    def checkpoint(path: Path, update: int) -> None:
        save_checkpoint(path, policy, arch=cfg.arch, arch_kwargs=cfg.arch_kwargs, rules=rules,
                        config=cfg.to_dict(), global_step=global_step,
                        extra={"optimizer": optimizer.state_dict(), "update": update,
                               "best_score": best_score,
                               "run_state": run_state.capture(league, seating, env, rng,
                                                              device)})

    buf = Rollout(t_len, b, obs_dim, obs_np.numbers.shape[1], n_actions, device)
    clock = StageTimer()
    last_eval: dict[str, dict[str, float]] = {}
    start_time, start_step = time.time(), global_step
    bar = tqdm(total=num_updates * batch_per_update, initial=global_step, unit="step",
               disable=not cfg.progress, dynamic_ncols=True)
    update, games_finished = first_update - 1, 0
    with StopOnSignal() as stop, writer, bar:
        for update in range(first_update, num_updates + 1):
            if cfg.anneal_lr:
                frac = 1.0 - (update - 1.0) / num_updates
                optimizer.param_groups[0]["lr"] = frac * cfg.learning_rate
            buf.clear()
            seating.new_rollout()

            # -------------------------------------------------------------- rollout
            for t in range(t_len):
                global_step += b
                actor = seating.controllers(seat)
                learn = np.flatnonzero(actor == SELF)
                actions = np.zeros(b, np.int64)
                if learn.size:
                    with clock("learner"):
                        codes_t = torch.as_tensor(obs_np.codes[learn], device=device)
                        numbers_t = torch.as_tensor(obs_np.numbers[learn], device=device)
                        obs_t = widen(rules, codes_t, numbers_t)
                        mask_t = torch.as_tensor(mask_np[learn], device=device)
                        with torch.no_grad(), network_precision(precision, device):
                            action, logprob, _, value = policy.get_action_and_value(obs_t,
                                                                                    mask_t)
                        actions[learn] = action.cpu().numpy()
                        buf.codes[t, learn] = codes_t
                        buf.numbers[t, learn] = numbers_t
                        buf.masks[t, learn] = mask_t
                        buf.actions[t, learn] = action
                        buf.logprobs[t, learn] = logprob
                        buf.values[t, learn] = value.cpu().numpy()
                        buf.learner[t, learn] = True
                        seating.decide(t, learn, seat[learn], buf.next_step)
                with clock("opponents"):
                    for j in np.unique(actor[actor != SELF]):
                        rows = np.flatnonzero(actor == j)
                        decision = env.decision(rows, obs_np.take(rows))
                        actions[rows] = league.agents[j].act(decision)

                with clock("env"):
                    obs_np, mask_np, seat, rewards, terminated, truncated, info = env.step(actions)

                seating.credit(rewards, buf.rewards)
                hands = np.flatnonzero(info["hand_ended"])
                if hands.size:
                    hand_return = rewards[hands][seating.learner_seats()[hands]]
                    writer.add_scalar("charts/hand_return", float(hand_return.mean()),
                                      global_step)
                finished = info["episode"]["game"]
                games_finished += finished.size
                if finished.size:
                    returns = seating.finish(finished, info["episode"]["winner"], buf.dones)
                    writer.add_scalar("charts/episodic_return", float(returns.mean()), global_step)
                    writer.add_scalar("charts/episodic_length",
                                      float(info["episode"]["length"].mean()), global_step)

            # Bootstrap every chain still pending from that seat's current observation.
            g, s = seating.open_chains()
            if g.size:
                with torch.no_grad(), network_precision(precision, device):
                    boot = policy.get_value(torch.as_tensor(env.observations(s, g), device=device))
                buf.bootstrap[seating.pending[g, s], g] = boot.cpu().numpy()
            advantages, returns = turn_based_gae(buf.rewards, buf.values, buf.dones, buf.next_step,
                                                 buf.bootstrap, buf.learner, cfg.gamma,
                                                 cfg.gae_lambda)

            # -------------------------------------------------------------- PPO update
            update_start = time.perf_counter()
            ti, bi = np.nonzero(buf.learner)
            # The learner's samples as rows of the flattened rollout; a minibatch's observations
            # are picked from there (index_select), never copied out of the rollout as a whole.
            sample_rows = torch.as_tensor(ti * b + bi, device=device)
            all_codes, all_numbers = buf.codes.view(-1, obs_dim), buf.numbers.flatten(0, 1)
            b_legal = LegalActions.of(buf.masks.view(-1, n_actions).index_select(0, sample_rows))
            b_actions = buf.actions.view(-1).index_select(0, sample_rows)
            b_logprobs = buf.logprobs.view(-1).index_select(0, sample_rows)
            b_adv = torch.as_tensor(advantages[ti, bi], device=device)
            b_returns = torch.as_tensor(returns[ti, bi], device=device)
            b_values = torch.as_tensor(buf.values[ti, bi], device=device)
            n_samples = ti.size
            # Each minibatch's losses and statistics; the update logs their means.
            stats: dict[str, list[float]] = {k: [] for k in (
                "policy_loss", "value_loss", "entropy", "old_approx_kl", "approx_kl", "clipfrac",
                "grad_norm")}
            for _epoch in range(cfg.update_epochs):
                order = torch.randperm(n_samples, device=device)
                # Equal minibatches (no tiny remainder batch with a noisy gradient).
                for mb in torch.tensor_split(order, min(cfg.num_minibatches, max(1, n_samples))):
                    mb_rows = sample_rows[mb]
                    mb_obs = widen(rules, all_codes.index_select(0, mb_rows),
                                   all_numbers.index_select(0, mb_rows))
                    with network_precision(precision, device):
                        _, newlogprob, entropy, newvalue = policy.get_action_and_value(
                            mb_obs, None, b_actions[mb], legal=b_legal.rows(mb))
                    logratio = newlogprob - b_logprobs[mb]
                    ratio = logratio.exp()
                    with torch.no_grad():
                        stats["old_approx_kl"].append((-logratio).mean().item())
                        stats["approx_kl"].append(((ratio - 1) - logratio).mean().item())
                        stats["clipfrac"].append(
                            ((ratio - 1.0).abs() > cfg.clip_coef).float().mean().item())
                    mb_adv = b_adv[mb]
                    if cfg.norm_adv and mb.numel() > 1:
                        mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                    pg_loss = torch.max(-mb_adv * ratio, -mb_adv * torch.clamp(
                        ratio, 1 - cfg.clip_coef, 1 + cfg.clip_coef)).mean()
                    if cfg.clip_vloss:
                        v_clipped = b_values[mb] + torch.clamp(newvalue - b_values[mb],
                                                               -cfg.clip_coef, cfg.clip_coef)
                        v_loss = 0.5 * torch.max((newvalue - b_returns[mb]) ** 2,
                                                 (v_clipped - b_returns[mb]) ** 2).mean()
                    else:
                        v_loss = 0.5 * ((newvalue - b_returns[mb]) ** 2).mean()
                    entropy_loss = entropy.mean()
                    loss = pg_loss - cfg.ent_coef * entropy_loss + cfg.vf_coef * v_loss
                    optimizer.zero_grad()
                    loss.backward()
                    grad_norm = nn.utils.clip_grad_norm_(policy.parameters(), cfg.max_grad_norm)
                    optimizer.step()
                    stats["grad_norm"].append(grad_norm.item())  # before the clip
                    stats["policy_loss"].append(pg_loss.item())
                    stats["value_loss"].append(v_loss.item())
                    stats["entropy"].append(entropy_loss.item())
                if cfg.target_kl and stats["approx_kl"][-1] > cfg.target_kl:
                    break

            clock.seconds["update"] += time.perf_counter() - update_start

            # -------------------------------------------------------------- logging
            y_pred, y_true = b_values.cpu().numpy(), b_returns.cpu().numpy()
            var_y = np.var(y_true)
            explained_var = np.nan if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y
            sps = (global_step - start_step) / max(1e-9, time.time() - start_time)
            writer.add_scalar("charts/learning_rate", optimizer.param_groups[0]["lr"], global_step)
            writer.add_scalar("charts/SPS", sps, global_step)
            writer.add_scalar("charts/learner_samples", n_samples, global_step)
            for name, values in stats.items():
                writer.add_scalar(f"losses/{name}", float(np.mean(values)), global_step)
            writer.add_scalar("losses/explained_variance", explained_var, global_step)
            for stage, share in clock.shares().items():
                writer.add_scalar(f"time/{stage}_share", share, global_step)
            clock.reset()
            for name, rate in league.stats().items():
                writer.add_scalar(f"league/{name}/learner_win_rate", rate, global_step)
            writer.add_scalar("league/members", len(league.agents), global_step)

            if cfg.snapshot_every and update % cfg.snapshot_every == 0:
                name = f"snapshot_{update}"
                league.add(name, frozen_member(name, policy.state_dict(), cfg.seed + update),
                           is_snapshot=True)
            if cfg.eval_every and (update % cfg.eval_every == 0 or update == num_updates):
                eval_start = time.perf_counter()
                last_eval = evaluate(rules, policy, cfg.eval_opponents, cfg.eval_games,
                                     seed=cfg.seed + 10_000 + update, device=device)
                for name, stats in last_eval.items():
                    for key, value in stats.items():
                        writer.add_scalar(f"eval/vs_{name}/{key}", value, global_step)
                clock.seconds["evaluation"] += time.perf_counter() - eval_start
                score = float(np.mean([s["win_rate"] for s in last_eval.values()]))
                if score > best_score:
                    best_score = score
                    checkpoint(run_dir / "best.pt", update)
            out_of_time = cfg.max_minutes and time.time() - start_time > 60 * cfg.max_minutes
            stopping = stop.requested or out_of_time
            if update % cfg.checkpoint_every == 0 or update == num_updates:
                checkpoint(run_dir / "last.pt", update)
                if cfg.keep_checkpoints:
                    checkpoint(run_dir / f"step_{global_step:012d}.pt", update)
                    for old in sorted(run_dir.glob("step_*.pt"))[:-cfg.keep_checkpoints]:
                        old.unlink()
            elif stopping:
                checkpoint(run_dir / "last.pt", update)
            bar.update(batch_per_update)
            shown: dict[str, Any] = {"SPS": f"{sps:,.0f}"}
            shown.update({f"vs_{k}": f"{v['win_rate']:.2f}" for k, v in last_eval.items()})
            bar.set_postfix(shown)
            if stopping:
                break

    return TrainResult(run_dir, global_step, update,
                       (global_step - start_step) / max(1e-9, time.time() - start_time),
                       last_eval, stop.signal_number, games_finished)
