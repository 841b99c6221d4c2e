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
resumed run needs to go on as the same run (train/resume.py). ``resume``
continues a run from its ``last.pt`` after the checks of train/resume.py. On
SIGINT or SIGTERM the update under way finishes, ``last.pt`` is saved and the
result says which signal stopped the run (train/interrupt.py). However a run ends (its
steps done, ``max_minutes``, a signal), it closes with an evaluation against its
``eval_opponents`` and draws its learning curves (``learning_curves.png``, train/plots.py)
where matplotlib is installed.
"""

from __future__ import annotations

import signal
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn, optim

from rummy500.agents.base import Agent, AgentFailure
from rummy500.agents.distributions import LegalActions, MaskedCategorical
from rummy500.agents.torch_policy import TorchAgent, build_policy
from rummy500.agents.widen import widen
from rummy_env.core import CompactObservation, Rules
from rummy_env.envs.vector import RummyVectorEnv

from .advantages import turn_based_gae
from .config import TrainConfig
from .config_agents import check_eval_opponents_start, config_agent
from .config_checks import ConfigError
from .evaluation import evaluate
from .hand_prediction import HandPredictor
from .interrupt import StopOnSignal
from .kickstart import teacher_weight
from .league import SELF, League, SeatControl
from .oracle_critic import OracleCritic, hidden_cards, hidden_size
from .precision import network_precision, resolved_precision
from .resume import capture, open_run, restore
from .run_folder import create_run_dir, lock_run, save_checkpoint
from .stage_timer import StageTimer
from .warm_start import initial_weights


@dataclass
class TrainResult:
    """What a run did: its folder, steps, updates, speed, closing evaluation, why it ended
    (with the signal's number when a signal stopped it) and its plot."""

    run_dir: Path
    global_step: int
    updates: int
    steps_per_second: float
    last_eval: dict[str, dict[str, float]]
    stopped_by: int | None = None
    games_finished: int = 0
    """Games played to their end in this process (``charts/episodic_return`` logs them)."""
    stop_reason: str = ""
    """Why the run ended: its steps were done, ``max_minutes`` was reached, or a signal."""
    planned_steps: int = 0
    """Agent-steps the config asked for, in whole rollouts."""
    eval_step: int = -1
    """Agent-step of ``last_eval`` (the closing evaluation), -1 when none ran."""
    seconds: float = 0.0
    """Wall time of this process's part of the run."""
    plot: Path | None = None
    """The learning curves drawn at the end (``learning_curves.png``), None without one."""
    plot_missing: str = ""
    """Why ``plot`` is None."""


def pick_device(name: str) -> torch.device:
    """The torch device for ``auto``, ``cpu`` or ``cuda``; a ConfigError when CUDA is asked
    for and torch sees none."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise ConfigError(
            "config: device=cuda is not available: torch sees no CUDA device; "
            "allowed here: auto, cpu"
        )
    return torch.device(name)


class Rollout:
    """Buffers of one rollout, [T, B] per field; rows where ``learner`` is False are unused.
    Observations are kept compact (uint8 codes and float32 numbers, a quarter of the
    bytes) and widened per minibatch (agents/widen.py)."""

    def __init__(
        self,
        t: int,
        b: int,
        obs_dim: int,
        number_dim: int,
        n_actions: int,
        device: torch.device,
        hidden_dim: int = 0,
    ):
        self.codes = torch.zeros((t, b, obs_dim), dtype=torch.uint8, device=device)
        self.hidden = torch.zeros((t, b, hidden_dim), dtype=torch.uint8, device=device)
        """The whole deal at each decision (``oracle_critic.hidden_cards``), for the oracle
        critic and the hand prediction; width 0 in a run with neither."""
        self.numbers = torch.zeros((t, b, number_dim), device=device)
        self.masks = torch.zeros((t, b, n_actions), dtype=torch.bool, device=device)
        self.actions = torch.zeros((t, b), dtype=torch.long, device=device)
        self.teacher_actions = torch.zeros((t, b), dtype=torch.long, device=device)
        """The teacher's choice at each learner decision (``teacher``: train/kickstart.py)."""
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


class TrainingDiverged(RuntimeError):
    """The update produced a non-finite loss or weight: training stops before anything is
    written, and the run's checkpoints stay those of its last good update."""

    def __init__(self, what: str, run_dir: Path) -> None:
        last = run_dir / "last.pt"
        kept = (
            f"{last} keeps the last good update"
            if last.exists()
            else "no checkpoint had been written yet"
        )
        super().__init__(
            f"training diverged: {what}; nothing was written, {kept} (a smaller "
            "learning_rate may help)"
        )


@dataclass
class Run:
    """Everything a run carries from one update to the next: a checkpoint saves it all
    (``save``) and ``start_run`` builds it fresh or from a resumed run's ``last.pt``."""

    cfg: TrainConfig
    rules: Rules
    device: torch.device
    precision: str
    run_dir: Path
    env: RummyVectorEnv
    policy: nn.Module
    optimizer: optim.Optimizer
    league: League
    seating: SeatControl
    rng: np.random.Generator
    obs: CompactObservation
    mask: np.ndarray
    seat: np.ndarray
    critic: OracleCritic | None = None
    """The oracle critic (``critic: oracle``); None: the policy's value head serves."""
    hands: HandPredictor | None = None
    """The auxiliary hand prediction (``hand_coef`` > 0); None: no such target."""
    teacher: Agent | None = None
    """The agent the policy is kickstarted toward (``teacher``); None: no teacher."""
    global_step: int = 0
    best_score: float = -1.0
    lock: Any = None
    """The run folder's lock (train/run_folder.py), held while the run lives."""

    def frozen_member(self, name: str, weights: dict[str, torch.Tensor], seed: int) -> TorchAgent:
        """A league member playing a frozen copy of the learner with ``weights``."""
        frozen = new_network(self.cfg, self.rules, self.env, self.device)
        frozen.load_state_dict(weights)
        return TorchAgent(frozen.eval(), self.rules, name, device=self.device, seed=seed)

    @property
    def teacher_weight(self) -> float:
        """The teacher's weight now (train/kickstart.py); 0 without a teacher."""
        if self.teacher is None:
            return 0.0
        cfg = self.cfg
        return teacher_weight(
            cfg.teacher_coef, cfg.teacher_until, self.global_step, cfg.total_steps
        )

    @property
    def deal_width(self) -> int:
        """Width of the whole deal the run records at each decision: ``hidden_size`` where
        the oracle critic or the hand prediction reads it, else 0."""
        return 0 if self.critic is None and self.hands is None else hidden_size(self.rules)

    def values(
        self,
        obs: torch.Tensor,
        seats: np.ndarray,
        rows: np.ndarray,
        policy_values: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(values [n], the whole deal uint8 [n, deal_width]) of seat ``seats[i]``'s
        decision in game ``rows[i]``, ``obs`` its observations: the oracle critic's values
        where the run has one, else ``policy_values`` (or the policy's value head)."""
        if self.deal_width:
            deal = hidden_cards(self.rules, self.env.state, seats, rows)
            hidden = torch.as_tensor(deal, device=self.device)
        else:
            hidden = torch.zeros((rows.size, 0), dtype=torch.uint8, device=self.device)
        if self.critic is not None:
            return self.critic(obs, hidden), hidden
        values = self.policy.get_value(obs) if policy_values is None else policy_values
        return values, hidden

    def save(self, path: Path, update: int) -> None:
        """A checkpoint of the weights and of all a resumed run needs to go on as this one;
        ``TrainingDiverged`` instead when a weight is not finite, so no checkpoint ever
        holds one."""
        weights = {
            **self.policy.state_dict(),
            **{
                f"{name}.{k}": w
                for name, part in (("critic", self.critic), ("hands", self.hands))
                if part is not None
                for k, w in part.state_dict().items()
            },
        }
        broken = [
            name
            for name, w in weights.items()
            if w.is_floating_point() and not torch.isfinite(w).all()
        ]
        if broken:
            raise TrainingDiverged(
                f"weights {broken[0]} are not finite at step {self.global_step:,}", self.run_dir
            )
        save_checkpoint(
            path,
            self.policy,
            arch=self.cfg.arch,
            arch_kwargs=self.cfg.arch_kwargs,
            rules=self.rules,
            config=self.cfg.to_dict(),
            global_step=self.global_step,
            extra={
                "optimizer": self.optimizer.state_dict(),
                "update": update,
                "best_score": self.best_score,
                "critic": None if self.critic is None else self.critic.state_dict(),
                "hands": None if self.hands is None else self.hands.state_dict(),
                "run_state": capture(self.league, self.seating, self.env, self.rng, self.device),
            },
        )


def new_network(
    cfg: TrainConfig, rules: Rules, env: RummyVectorEnv, device: torch.device
) -> nn.Module:
    """A freshly initialised network of the config's architecture, on ``device``."""
    return build_policy(
        cfg.arch, rules, env.observation_size, env.num_actions, **cfg.arch_kwargs
    ).to(device)


def start_run(cfg: TrainConfig, resume: str | Path | None) -> Run:
    """The run ``cfg`` describes, fresh or continued from ``resume``'s ``last.pt``; a
    ConfigError before any work when the device, the warm start or the resume is refused."""
    device = pick_device(cfg.device)
    precision = resolved_precision(cfg.precision, device)
    run_dir, payload, lock = open_run(resume, cfg) if resume is not None else (None, None, None)
    rules = cfg.game_rules
    warm_start = (
        None
        if payload is not None
        else initial_weights(
            cfg.init_from, rules, cfg.arch, cfg.arch_kwargs, cfg.init_rules == "any"
        )
    )
    if cfg.torch_threads:
        torch.set_num_threads(cfg.torch_threads)
    torch.manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    env = RummyVectorEnv(
        rules, cfg.num_envs, seed=cfg.seed, reward=cfg.reward, episode="game", compact=True
    )
    policy = new_network(cfg, rules, env, device)
    if warm_start is not None:
        policy.load_state_dict(warm_start)
    critic = None
    if cfg.critic == "oracle":
        critic = OracleCritic(env.observation_size, hidden_size(rules)).to(device)
    hands = HandPredictor(policy.trunk_out).to(device) if cfg.hand_coef > 0 else None
    trained = [p for part in (policy, critic, hands) if part is not None for p in part.parameters()]
    optimizer = optim.Adam(trained, lr=cfg.learning_rate, eps=1e-5)
    league = League(self_play=cfg.self_play, max_snapshots=cfg.max_snapshots)
    for name in cfg.opponents:
        league.add(name, config_agent("opponents", name, rules, cfg.seed))
    check_eval_opponents_start(cfg.eval_opponents, cfg.opponents, rules, cfg.seed)
    obs, mask, seat = env.reset(seed=cfg.seed)
    seating = SeatControl(league, cfg.num_envs, rules.players, rng, mixed=cfg.mixed_tables)
    run = Run(
        cfg,
        rules,
        device,
        precision,
        run_dir,
        env,
        policy,
        optimizer,
        league,
        seating,
        rng,
        obs,
        mask,
        seat,
        critic=critic,
        hands=hands,
        teacher=config_agent("teacher", cfg.teacher, rules, cfg.seed) if cfg.teacher else None,
        lock=lock,
    )
    if payload is None:
        run.run_dir = create_run_dir(cfg.run_dir, cfg.exp_name, cfg.seed)
        run.lock = lock_run(run.run_dir)
        return run
    policy.load_state_dict(payload["state_dict"])
    if critic is not None:
        critic.load_state_dict(payload["extra"]["critic"])
    if hands is not None:
        hands.load_state_dict(payload["extra"]["hands"])
    optimizer.load_state_dict(payload["extra"]["optimizer"])
    run.global_step = int(payload["global_step"])
    run.best_score = float(payload["extra"]["best_score"])
    run.obs, run.mask, run.seat = restore(
        payload["extra"]["run_state"],
        league,
        seating,
        env,
        rng,
        device,
        snapshot=lambda name, weights: run.frozen_member(name, weights, cfg.seed),
        heuristic=lambda name: config_agent("opponents", name, rules, cfg.seed),
    )
    return run


def train(cfg: TrainConfig, resume: str | Path | None = None) -> TrainResult:
    """Train by ``cfg``, or continue the run ``resume`` (its folder or name under
    ``cfg.run_dir``); a ConfigError before any work when the device or the resume is refused.
    The run folder's lock is let go when training ends, however it ends, so that the same
    process may resume the run at once (not when the collector frees the lock's file)."""
    run = start_run(cfg, resume)
    try:
        return train_run(run, resume)
    finally:
        if run.lock is not None:
            run.lock.close()


def train_run(run: Run, resume: str | Path | None) -> TrainResult:
    """The training loop of ``run`` (``train``), to its step budget, ``max_minutes`` or a
    stop signal, then its closing evaluation and summary."""
    # ------------------------------------------------------------------ set-up
    from torch.utils.tensorboard import SummaryWriter
    from tqdm import tqdm

    cfg = run.cfg
    first_update = run.global_step // cfg.batch_per_update + 1  # a resumed run ends on time
    writer = SummaryWriter(str(run.run_dir), purge_step=run.global_step if resume else None)
    if resume is None:
        settings = {
            **cfg.to_dict(),
            "precision": f"{cfg.precision} ({run.precision} on {run.device})",
        }
        table = "\n".join(f"|{k}|{v}|" for k, v in settings.items())
        writer.add_text("hyperparameters", f"|param|value|\n|-|-|\n{table}")
    buf = Rollout(
        cfg.num_steps,
        cfg.num_envs,
        run.env.observation_size,
        run.obs.numbers.shape[1],
        run.env.num_actions,
        run.device,
        run.deal_width,
    )
    clock = StageTimer()
    last_eval: dict[str, dict[str, float]] = {}
    start_time, start_step = time.time(), run.global_step
    bar = tqdm(
        total=cfg.planned_steps,
        initial=run.global_step,
        unit="step",
        disable=not cfg.progress,
        dynamic_ncols=True,
    )
    update, games_finished, eval_step = first_update - 1, 0, -1
    with StopOnSignal() as stop, writer, bar:
        for update in range(first_update, cfg.num_updates + 1):
            if cfg.anneal_lr:
                frac = 1.0 - (update - 1.0) / cfg.num_updates
                run.optimizer.param_groups[0]["lr"] = frac * cfg.learning_rate

            # -------------------------------------------------------------- rollout
            games_finished += collect_rollout(run, buf, clock, writer)
            advantages, returns = bootstrap_and_gae(run, buf)

            # -------------------------------------------------------------- PPO update
            with clock("update"):
                stats = ppo_update(run, buf, advantages, returns)

            # -------------------------------------------------------------- logging
            sps = (run.global_step - start_step) / max(1e-9, time.time() - start_time)
            writer.add_scalar(
                "charts/learning_rate", run.optimizer.param_groups[0]["lr"], run.global_step
            )
            writer.add_scalar("charts/SPS", sps, run.global_step)
            for name, value in stats.items():
                writer.add_scalar(name, value, run.global_step)
            for stage, share in clock.shares().items():
                writer.add_scalar(f"time/{stage}_share", share, run.global_step)
            clock.reset()
            for name, rate in run.league.stats().items():
                writer.add_scalar(f"league/{name}/learner_win_rate", rate, run.global_step)
            writer.add_scalar("league/members", len(run.league.agents), run.global_step)

            # -------------------------------------------------- evaluation and checkpoints
            if cfg.snapshot_every and update % cfg.snapshot_every == 0:
                snapshot = f"snapshot_{update}"
                run.league.add(
                    snapshot,
                    run.frozen_member(snapshot, run.policy.state_dict(), cfg.seed + update),
                    is_snapshot=True,
                )
            out_of_time = cfg.max_minutes and time.time() - start_time > 60 * cfg.max_minutes
            stopping = stop.requested or bool(out_of_time)
            final = stopping or update == cfg.num_updates
            if stopping:  # kept even if a second signal cuts the closing evaluation short
                run.save(run.run_dir / "last.pt", update)
            periodic = cfg.eval_every and update % cfg.eval_every == 0
            if cfg.eval_opponents and (final or periodic):
                if final:
                    bar.set_postfix_str(
                        "closing evaluation against " + ", ".join(cfg.eval_opponents)
                    )
                with clock("evaluation"):
                    try:
                        last_eval = evaluate_and_log(run, update, writer)
                    except AgentFailure:  # the update is whole: keep it for a resume
                        run.save(run.run_dir / "last.pt", update)
                        raise
                eval_step = run.global_step
            if update % cfg.checkpoint_every == 0 or final:
                run.save(run.run_dir / "last.pt", update)
            if cfg.keep_checkpoints and (
                update % cfg.checkpoint_every == 0 or update == cfg.num_updates
            ):
                run.save(run.run_dir / f"step_{run.global_step:012d}.pt", update)
                for old in sorted(run.run_dir.glob("step_*.pt"))[: -cfg.keep_checkpoints]:
                    old.unlink()
            bar.update(cfg.batch_per_update)
            shown: dict[str, Any] = {"SPS": f"{sps:,.0f}"}
            shown.update({f"vs_{k}": f"{v['win_rate']:.2f}" for k, v in last_eval.items()})
            bar.set_postfix(shown)
            if stopping:
                break

    if stop.requested:
        stop_reason = f"stopped by {signal.Signals(stop.signal_number).name}"
    elif run.global_step < cfg.planned_steps:
        stop_reason = f"max_minutes={cfg.max_minutes:g} reached"
    else:
        stop_reason = "its steps were done"
    return TrainResult(
        run.run_dir,
        run.global_step,
        update,
        (run.global_step - start_step) / max(1e-9, time.time() - start_time),
        last_eval,
        stop.signal_number,
        games_finished,
        stop_reason,
        cfg.planned_steps,
        eval_step,
        time.time() - start_time,
        *draw_curves(run.run_dir),
    )


def evaluate_and_log(run: Run, update: int, writer: Any) -> dict[str, dict[str, float]]:
    """Play the learner against each evaluation opponent (train/evaluation.py), log the
    results under ``eval/vs_<name>/`` and keep ``best.pt`` when the mean win rate is the
    best so far."""
    cfg = run.cfg
    results = evaluate(
        run.rules,
        run.policy,
        cfg.eval_opponents,
        cfg.eval_games,
        seed=cfg.seed + 10_000 + update,
        device=run.device,
        workers=cfg.eval_workers,
    )
    for opponent, result in results.items():
        for key, value in result.items():
            writer.add_scalar(f"eval/vs_{opponent}/{key}", value, run.global_step)
    score = float(np.mean([r["win_rate"] for r in results.values()]))
    if score > run.best_score:
        run.best_score = score
        run.save(run.run_dir / "best.pt", update)
    return results


def draw_curves(run_dir: Path) -> tuple[Path | None, str]:
    """(the learning-curve figure written in the run folder, "") or (None, why not): a
    run's plot is drawn at its end when matplotlib is installed (the ``plots`` extra)."""
    from .plots import MissingMatplotlib, plot_learning_curves

    try:
        return plot_learning_curves(run_dir, run_dir / "learning_curves.png"), ""
    except MissingMatplotlib as e:
        return None, str(e)
    except ValueError as e:  # nothing logged yet to draw
        return None, str(e)


def collect_rollout(run: Run, buf: Rollout, clock: StageTimer, writer: Any) -> int:
    """Step every game ``num_steps`` times: the learner acts where it holds the seat to play
    (its samples go to ``buf``), the league's members elsewhere. Logs each finished hand's
    and game's return; returns the number of games finished."""
    rules, env, seating, device = run.rules, run.env, run.seating, run.device
    b = run.cfg.num_envs
    buf.clear()
    seating.new_rollout()
    finished_games = 0
    for t in range(run.cfg.num_steps):
        run.global_step += b
        actor = seating.controllers(run.seat)
        learn = np.flatnonzero(actor == SELF)
        actions = np.zeros(b, np.int64)
        if learn.size:
            with clock("learner"):
                codes_t = torch.as_tensor(run.obs.codes[learn], device=device)
                numbers_t = torch.as_tensor(run.obs.numbers[learn], device=device)
                obs_t = widen(rules, codes_t, numbers_t)
                mask_t = torch.as_tensor(run.mask[learn], device=device)
                with torch.no_grad(), network_precision(run.precision, device):
                    action, logprob, _, value = run.policy.get_action_and_value(obs_t, mask_t)
                    value, hidden = run.values(obs_t, run.seat[learn], learn, value)
                buf.hidden[t, learn] = hidden
                actions[learn] = action.cpu().numpy()
                buf.codes[t, learn] = codes_t
                buf.numbers[t, learn] = numbers_t
                buf.masks[t, learn] = mask_t
                buf.actions[t, learn] = action
                buf.logprobs[t, learn] = logprob
                buf.values[t, learn] = value.cpu().numpy()
                buf.learner[t, learn] = True
                seating.decide(t, learn, run.seat[learn], buf.next_step)
            if run.teacher is not None and run.teacher_weight > 0:
                with clock("teacher"):
                    decision = env.decision(learn, run.obs.take(learn))
                    buf.teacher_actions[t, learn] = torch.as_tensor(
                        run.teacher.act(decision), device=device
                    )
        with clock("opponents"):
            for j in np.unique(actor[actor != SELF]):
                rows = np.flatnonzero(actor == j)
                decision = env.decision(rows, run.obs.take(rows))
                actions[rows] = run.league.agents[j].act(decision)

        with clock("env"):
            run.obs, run.mask, run.seat, rewards, _, _, info = env.step(actions)

        seating.credit(rewards, buf.rewards)
        hands = np.flatnonzero(info["hand_ended"])
        if hands.size:
            hand_return = rewards[hands][seating.learner_seats()[hands]]
            writer.add_scalar("charts/hand_return", float(hand_return.mean()), run.global_step)
        finished = info["episode"]["game"]
        finished_games += finished.size
        if finished.size:
            returns = seating.finish(finished, info["episode"]["winner"], buf.dones)
            writer.add_scalar("charts/episodic_return", float(returns.mean()), run.global_step)
            writer.add_scalar(
                "charts/episodic_length", float(info["episode"]["length"].mean()), run.global_step
            )
    return finished_games


def bootstrap_and_gae(run: Run, buf: Rollout) -> tuple[np.ndarray, np.ndarray]:
    """(advantages, returns) [T, B] of the rollout: every decision chain still open is
    bootstrapped from its seat's current observation, then each seat's GAE."""
    g, s = run.seating.open_chains()
    if g.size:
        with torch.no_grad(), network_precision(run.precision, run.device):
            obs = torch.as_tensor(run.env.observations(s, g), device=run.device)
            boot, _ = run.values(obs, s, g)
        buf.bootstrap[run.seating.pending[g, s], g] = boot.cpu().numpy()
    return turn_based_gae(
        buf.rewards,
        buf.values,
        buf.dones,
        buf.next_step,
        buf.bootstrap,
        buf.learner,
        run.cfg.gamma,
        run.cfg.gae_lambda,
    )


def ppo_update(
    run: Run, buf: Rollout, advantages: np.ndarray, returns: np.ndarray
) -> dict[str, float]:
    """The clipped PPO update on the learner's samples of the rollout; the update's
    ``losses/*`` and ``charts/learner_samples`` (means over its minibatches)."""
    cfg, policy, device = run.cfg, run.policy, run.device
    obs_dim, n_actions, b = run.env.observation_size, run.env.num_actions, cfg.num_envs
    ti, bi = np.nonzero(buf.learner)
    # The learner's samples as rows of the flattened rollout; a minibatch's observations
    # are picked from there (index_select), never copied out of the rollout as a whole.
    sample_rows = torch.as_tensor(ti * b + bi, device=device)
    all_codes, all_numbers = buf.codes.view(-1, obs_dim), buf.numbers.flatten(0, 1)
    all_hidden = buf.hidden.flatten(0, 1)
    b_legal = LegalActions.of(buf.masks.view(-1, n_actions).index_select(0, sample_rows))
    b_actions = buf.actions.view(-1).index_select(0, sample_rows)
    b_logprobs = buf.logprobs.view(-1).index_select(0, sample_rows)
    teaching = run.teacher_weight
    b_teacher = buf.teacher_actions.view(-1).index_select(0, sample_rows) if teaching else None
    b_adv = torch.as_tensor(advantages[ti, bi], device=device)
    b_returns = torch.as_tensor(returns[ti, bi], device=device)
    b_values = torch.as_tensor(buf.values[ti, bi], device=device)
    n_samples = ti.size
    minibatch: dict[str, list[float]] = {
        k: []
        for k in (
            "policy_loss",
            "value_loss",
            "entropy",
            "old_approx_kl",
            "approx_kl",
            "clipfrac",
            "grad_norm",
            *(() if run.hands is None else ("hand_loss",)),
            *(() if teaching == 0 else ("teacher_loss",)),
        )
    }
    for _epoch in range(cfg.update_epochs):
        order = torch.randperm(n_samples, device=device)
        # Equal minibatches (no tiny remainder batch with a noisy gradient).
        for mb in torch.tensor_split(order, min(cfg.num_minibatches, max(1, n_samples))):
            mb_rows = sample_rows[mb]
            mb_obs = widen(
                run.rules, all_codes.index_select(0, mb_rows), all_numbers.index_select(0, mb_rows)
            )
            mb_deal = all_hidden.index_select(0, mb_rows)
            with network_precision(run.precision, device):
                logits, newvalue, features = policy.heads(mb_obs)
                dist = MaskedCategorical(logits, legal=b_legal.rows(mb))
                newlogprob, entropy = dist.log_prob(b_actions[mb]), dist.entropy()
                if run.critic is not None:
                    newvalue = run.critic(mb_obs, mb_deal)
                hand_loss = (
                    None if run.hands is None else run.hands.loss(run.rules, features, mb_deal)
                )
            logratio = newlogprob - b_logprobs[mb]
            ratio = logratio.exp()
            with torch.no_grad():
                minibatch["old_approx_kl"].append((-logratio).mean().item())
                minibatch["approx_kl"].append(((ratio - 1) - logratio).mean().item())
                minibatch["clipfrac"].append(
                    ((ratio - 1.0).abs() > cfg.clip_coef).float().mean().item()
                )
            mb_adv = b_adv[mb]
            if cfg.norm_adv and mb.numel() > 1:
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
            pg_loss = torch.max(
                -mb_adv * ratio, -mb_adv * torch.clamp(ratio, 1 - cfg.clip_coef, 1 + cfg.clip_coef)
            ).mean()
            if cfg.clip_vloss:
                v_clipped = b_values[mb] + torch.clamp(
                    newvalue - b_values[mb], -cfg.clip_coef, cfg.clip_coef
                )
                v_loss = (
                    0.5
                    * torch.max(
                        (newvalue - b_returns[mb]) ** 2, (v_clipped - b_returns[mb]) ** 2
                    ).mean()
                )
            else:
                v_loss = 0.5 * ((newvalue - b_returns[mb]) ** 2).mean()
            entropy_loss = entropy.mean()
            loss = pg_loss - cfg.ent_coef * entropy_loss + cfg.vf_coef * v_loss
            if hand_loss is not None:
                loss = loss + cfg.hand_coef * hand_loss
                minibatch["hand_loss"].append(hand_loss.item())
            if b_teacher is not None:
                teacher_loss = -dist.log_prob(b_teacher[mb]).float().mean()
                loss = loss + teaching * teacher_loss
                minibatch["teacher_loss"].append(teacher_loss.item())
            run.optimizer.zero_grad()
            loss.backward()
            grad_norm = nn.utils.clip_grad_norm_(
                [p for group in run.optimizer.param_groups for p in group["params"]],
                cfg.max_grad_norm,
            )
            if not (torch.isfinite(loss) and torch.isfinite(grad_norm)):
                raise TrainingDiverged(
                    f"the loss or its gradient is not finite at step "
                    f"{run.global_step:,} (learning_rate="
                    f"{run.optimizer.param_groups[0]['lr']:g})",
                    run.run_dir,
                )
            run.optimizer.step()
            minibatch["grad_norm"].append(grad_norm.item())  # before the clip
            minibatch["policy_loss"].append(pg_loss.item())
            minibatch["value_loss"].append(v_loss.item())
            minibatch["entropy"].append(entropy_loss.item())
        if cfg.target_kl and minibatch["approx_kl"][-1] > cfg.target_kl:
            break
    y_pred, y_true = b_values.cpu().numpy(), b_returns.cpu().numpy()
    var_y = np.var(y_true)
    explained_var = np.nan if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y
    return {
        "charts/learner_samples": float(n_samples),
        **{f"losses/{k}": float(np.mean(v)) for k, v in minibatch.items()},
        "losses/explained_variance": float(explained_var),
    }
