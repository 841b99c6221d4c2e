"""Training pieces: masked distribution, turn-based GAE, league, checkpoints, the CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from rummy500.agents.checkpoint import CheckpointMismatch, load_policy
from rummy500.agents.distributions import (
    LegalActions,
    MaskedCategorical,
    greedy_actions,
    masked_logits,
)
from rummy500.agents.torch_policy import ARCHITECTURES, TorchAgent, build_policy
from rummy500.train.advantages import turn_based_gae
from rummy500.train.config import load_config
from rummy500.train.league import SELF, League
from rummy500.train.run_folder import save_checkpoint
from rummy_env.core import (
    Decision,
    Rules,
    action_layout,
    encode,
    init,
    legal_mask,
    observation_size,
    player_view,
)

pytestmark = pytest.mark.slow


# ----------------------------------------------------------------------------- distribution
def test_masked_categorical_never_samples_illegal_actions() -> None:
    torch.manual_seed(0)
    logits = torch.randn(64, 30) * 5
    mask = torch.rand(64, 30) < 0.2
    mask[:, 7] = True
    dist = MaskedCategorical(logits, mask)
    samples = dist.sample((200,))  # [200, 64]
    assert mask.gather(1, samples.T).all()
    assert torch.allclose(dist.probs[~mask], torch.zeros(()))
    assert torch.allclose(dist.probs.sum(-1), torch.ones(64))


def test_masked_entropy_counts_legal_actions_only() -> None:
    logits = torch.zeros(3, 10)
    mask = torch.zeros(3, 10, dtype=torch.bool)
    mask[0, 4] = True  # one legal action: entropy 0
    mask[1, :2] = True  # two equal: log 2
    mask[2, :] = True  # ten equal: log 10
    entropy = MaskedCategorical(logits, mask).entropy()
    expected = torch.tensor([0.0, np.log(2), np.log(10)], dtype=torch.float32)
    assert torch.allclose(entropy, expected, atol=1e-6)


def test_masked_categorical_matches_torch_categorical_over_the_legal_actions() -> None:
    torch.manual_seed(1)
    logits = torch.randn(32, 40, requires_grad=True) * 3
    mask = torch.rand(32, 40) < 0.3
    mask[:, 0] = True
    ours = MaskedCategorical(logits, mask)
    theirs = torch.distributions.Categorical(logits=logits.masked_fill(~mask, -1e9))
    action = theirs.sample()
    assert torch.allclose(ours.log_prob(action), theirs.log_prob(action), atol=1e-5)
    assert torch.allclose(ours.entropy(), theirs.entropy(), atol=1e-5)
    assert torch.allclose(ours.probs, theirs.probs, atol=1e-6)
    (grad,) = torch.autograd.grad(ours.log_prob(action).sum(), logits)
    (expected,) = torch.autograd.grad(theirs.log_prob(action).sum(), logits)
    assert torch.allclose(grad, expected, atol=1e-5)


def test_legal_actions_packed_once_serve_every_minibatch() -> None:
    """The trainer packs a whole rollout's masks once and slices minibatches from it: each
    slice must give the full-width distribution's log-probs, entropy, mode and gradients."""
    torch.manual_seed(2)
    logits = (torch.randn(50, 40) * 3).requires_grad_(True)
    mask = torch.rand(50, 40) < 0.25
    mask[torch.arange(50), torch.randint(0, 40, (50,))] = True
    legal = LegalActions.of(mask)
    assert legal.index.shape[1] == int(mask.sum(1).max())
    rows = torch.randperm(50)[:20]
    part = legal.rows(rows)
    assert part.index.shape[1] == int(mask[rows].sum(1).max())
    ours = MaskedCategorical(logits[rows], legal=part)
    theirs = torch.distributions.Categorical(logits=logits[rows].masked_fill(~mask[rows], -1e9))
    action = theirs.sample()
    assert torch.allclose(ours.log_prob(action), theirs.log_prob(action), atol=1e-5)
    assert torch.allclose(ours.entropy(), theirs.entropy(), atol=1e-5)
    assert torch.equal(ours.mode(), theirs.probs.argmax(-1))
    (grad,) = torch.autograd.grad((ours.log_prob(action) + ours.entropy()).sum(), logits)
    (expected,) = torch.autograd.grad((theirs.log_prob(action) + theirs.entropy()).sum(), logits)
    assert torch.allclose(grad, expected, atol=1e-5)
    illegal = (~mask[rows]).float().argmax(-1)  # an action illegal in its row
    assert (ours.log_prob(illegal) == torch.finfo(torch.float32).min).all()


def test_bfloat16_passes_keep_the_categorical_and_the_weights_float32() -> None:
    """``precision=bfloat16`` runs the network's products in bfloat16: the categorical, the
    value and the gradients the optimizer sees stay float32 and close to float32's."""
    from rummy500.train.precision import network_precision

    rules = Rules()
    state = init(rules, seed=5, batch_size=64)
    mask = torch.as_tensor(legal_mask(rules, state))
    obs = torch.as_tensor(encode(rules, player_view(rules, state)))
    policy = build_policy("mlp", rules, obs.shape[1], mask.shape[1])
    action, logprob, entropy, value = policy.get_action_and_value(obs, mask)
    with network_precision("bfloat16", torch.device("cpu")):
        _, logprob16, entropy16, value16 = policy.get_action_and_value(obs, mask, action)
    for exact, rounded in ((logprob, logprob16), (entropy, entropy16), (value, value16)):
        assert rounded.dtype == torch.float32
        assert torch.allclose(exact, rounded, atol=0.05), (exact - rounded).abs().max()
    (logprob16.mean() + value16.mean()).backward()
    assert all(
        p.grad is not None and p.grad.dtype == torch.float32 and p.grad.isfinite().all()
        for p in policy.parameters()
    )


def test_auto_precision_takes_bfloat16_where_the_cpu_has_it() -> None:
    """``precision=auto`` is bfloat16 exactly where the CPU lists bfloat16 instructions."""
    from rummy500.train.precision import resolved_precision

    cpuinfo = Path("/proc/cpuinfo")
    if not cpuinfo.exists():
        pytest.skip("no /proc/cpuinfo to read the CPU's instruction sets from")
    flags = set(cpuinfo.read_text().split())
    native = bool(flags & {"avx512_bf16", "amx_bf16"})
    assert resolved_precision("auto", torch.device("cpu")) == ("bfloat16" if native else "float32")
    assert resolved_precision("float32", torch.device("cpu")) == "float32"


def test_masked_categorical_rejects_an_empty_row() -> None:
    with pytest.raises(ValueError, match="no legal action"):
        MaskedCategorical(torch.zeros(2, 4), torch.tensor([[True] * 4, [False] * 4]))


def test_greedy_actions_are_the_argmax_of_the_masked_logits_ties_included() -> None:
    rng = np.random.default_rng(3)
    logits = rng.integers(-3, 3, (400, 40)).astype(np.float32)  # many ties
    mask = rng.random((400, 40)) < 0.3
    mask[np.arange(400), rng.integers(0, 40, 400)] = True
    expected = masked_logits(torch.from_numpy(logits), torch.from_numpy(mask)).argmax(dim=-1)
    assert (greedy_actions(logits, mask) == expected.numpy()).all()
    mask[7] = False
    with pytest.raises(ValueError, match="no legal action"):
        greedy_actions(logits, mask)


# ----------------------------------------------------------------------------- advantages
def test_gae_follows_each_seats_own_chain() -> None:
    """Two seats alternate in one game; seat 0 decides at t=0, 2; seat 1 at t=1, 3."""
    gamma, lam = 0.9, 0.8
    values = np.array([[1.0], [2.0], [3.0], [4.0]], np.float32)
    rewards = np.array([[0.5], [0.0], [1.0], [-1.0]], np.float32)
    next_step = np.array([[2], [3], [-1], [-1]])
    dones = np.array([[False], [False], [True], [False]])
    bootstrap = np.array([[0.0], [0.0], [0.0], [10.0]], np.float32)
    learner = np.ones((4, 1), bool)
    adv, ret = turn_based_gae(rewards, values, dones, next_step, bootstrap, learner, gamma, lam)
    a2 = 1.0 - 3.0  # terminal: r - V
    a0 = 0.5 + gamma * 3.0 - 1.0 + gamma * lam * a2
    a3 = -1.0 + gamma * 10.0 - 4.0  # bootstrapped at the rollout's end
    a1 = 0.0 + gamma * 4.0 - 2.0 + gamma * lam * a3
    assert np.allclose(adv[:, 0], [a0, a1, a2, a3], atol=1e-6)
    assert np.allclose(ret, adv + values)


def test_gae_ignores_non_learner_steps() -> None:
    adv, ret = turn_based_gae(
        np.ones((2, 2), np.float32),
        np.full((2, 2), 0.5, np.float32),
        np.zeros((2, 2), bool),
        np.full((2, 2), -1),
        np.zeros((2, 2), np.float32),
        np.array([[True, False], [False, False]]),
        0.99,
        0.95,
    )
    assert adv[0, 0] == pytest.approx(0.5)
    assert (adv[[0, 1, 1], [1, 0, 1]] == 0).all() and ret[1, 1] == 0


# ----------------------------------------------------------------------------- league
class _Fixed:
    name = "fixed"

    def act(self, decision):  # pragma: no cover - never called here
        raise AssertionError


def test_league_draws_the_members_the_learner_loses_to_most() -> None:
    league = League(self_play=0.0)
    league.add("easy", _Fixed())
    league.add("hard", _Fixed())
    for _ in range(200):
        league.record(np.array([[SELF, 0], [1, SELF]]), np.array([True, False]))
    assert league.win_rate[0] > 0.95 and league.win_rate[1] < 0.05
    draws = league.draw(5000, np.random.default_rng(0))
    assert (draws == 1).mean() > 0.9


def test_league_self_play_share_and_snapshot_limit() -> None:
    league = League(self_play=0.3, max_snapshots=2)
    league.add("casual", _Fixed())
    for i in range(4):
        league.add(f"snap{i}", _Fixed(), is_snapshot=True)
    assert league.names == ["casual", "snap2", "snap3"]
    draws = league.draw(20000, np.random.default_rng(1))
    assert abs((draws == SELF).mean() - 0.3) < 0.02


# ----------------------------------------------------------------------------- checkpoints
@pytest.mark.parametrize("arch", ARCHITECTURES)
def test_checkpoint_round_trip_and_refusal(arch, tmp_path: Path) -> None:
    rules = Rules()
    policy = build_policy(arch, rules, observation_size(rules), action_layout(rules).size)
    path = save_checkpoint(
        tmp_path / "c.pt",
        policy,
        arch=arch,
        arch_kwargs={},
        rules=rules,
        config={"note": "test"},
        global_step=123,
    )
    loaded, payload = load_policy(path, rules)
    assert payload["global_step"] == 123
    for key, value in policy.state_dict().items():
        assert torch.equal(value, loaded.state_dict()[key])
    with pytest.raises(CheckpointMismatch, match="other rules"):
        load_policy(path, Rules.from_dict({"preset": "web"}))
    state = init(rules, 0, 8)
    decision = Decision(rules, legal_mask(rules, state), player_view(rules, state))
    actions = TorchAgent(loaded, rules).act(decision)
    assert decision.mask[np.arange(8), actions].all()


def test_checkpoint_with_another_observation_version_is_refused(tmp_path: Path) -> None:
    rules = Rules()
    policy = build_policy("mlp", rules, observation_size(rules), action_layout(rules).size)
    path = save_checkpoint(
        tmp_path / "c.pt", policy, arch="mlp", arch_kwargs={}, rules=rules, config={}, global_step=0
    )
    payload = torch.load(path, weights_only=True)
    payload["obs_version"] = -1
    torch.save(payload, path)
    with pytest.raises(CheckpointMismatch, match="observation version"):
        load_policy(path)


# ----------------------------------------------------------------------------- config + CLI
@pytest.mark.parametrize(
    "name",
    [
        "quickstart",
        "quickstart_cards",
        "selfplay",
        "selfplay_4p",
        "improve_champion",
        "champion_vs_sharp",
        "champion_4p",
    ],
)
def test_shipped_recipes_load(name: str) -> None:
    root = Path(__file__).resolve().parents[1]
    cfg = load_config(root / "configs" / "train" / f"{name}.yaml")
    assert cfg.exp_name == name


def test_config_rejects_unknown_keys() -> None:
    with pytest.raises(ValueError, match="unknown key"):
        load_config(None, ["learning_rat=0.1"])
    with pytest.raises(ValueError, match="players"):
        load_config(None, ["rules.players=12"])


def test_train_cli_smoke_run_logs_and_checkpoints(tmp_path: Path) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    root = Path(__file__).resolve().parents[1]
    cmd = [
        sys.executable,
        "-m",
        "rummy500.cli",
        "train",
        "--config",
        str(root / "configs/train/quickstart.yaml"),
        "total_steps=4096",
        "num_envs=32",
        "num_steps=32",
        "eval_every=2",
        "eval_games=4",
        "checkpoint_every=2",
        "snapshot_every=2",
        "rules.target=60",
        "eval_opponents=[random, casual]",
        f"run_dir={tmp_path}",
        "progress=false",
        "torch_threads=1",
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=root)
    assert done.returncode == 0, done.stderr[-3000:]
    (run,) = list(tmp_path.iterdir())
    events = EventAccumulator(str(run))
    events.Reload()
    tags = set(events.Tags()["scalars"])
    for tag in (
        "charts/SPS",
        "charts/episodic_return",
        "losses/policy_loss",
        "losses/value_loss",
        "losses/entropy",
        "losses/approx_kl",
        "losses/clipfrac",
        "losses/explained_variance",
        "losses/old_approx_kl",
        "losses/grad_norm",
        "eval/vs_random/win_rate",
        "eval/vs_random/win_lo",
        "eval/vs_random/win_hi",
        "eval/vs_casual/win_rate",
        "eval/vs_random/points_per_hand",
    ):
        assert tag in tags, tag
    last = events.Scalars("time/update_share")[-1].step
    shares = {
        tag: e.value
        for tag in tags
        if tag.startswith("time/")
        for e in events.Scalars(tag)
        if e.step == last
    }
    assert {
        "time/learner_share",
        "time/opponents_share",
        "time/env_share",
        "time/update_share",
    } <= set(shares), shares
    assert abs(sum(shares.values()) - 1) < 1e-3 and min(shares.values()) >= 0, shares
    assert events.Tags()["tensors"] or events.Tags().get("text"), "hyperparameter table missing"
    from rummy500.train.plots import plot_learning_curves

    png = plot_learning_curves(run, tmp_path / "curves.png")
    assert png.stat().st_size > 10_000
    done = subprocess.run(
        [sys.executable, "-m", "rummy500.train.plots", str(run)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert (run / "learning_curves.png").stat().st_size > 10_000  # in the run, not the cwd
    assert not (tmp_path / "learning_curves.png").exists()
    rules = Rules.from_dict({"target": 60})
    policy, payload = load_policy(run / "last.pt", rules)
    state = init(rules, 3, 4)
    decision = Decision(rules, legal_mask(rules, state), player_view(rules, state))
    assert decision.mask[np.arange(4), TorchAgent(policy, rules).act(decision)].all()


def test_the_curves_of_a_folder_not_there_are_refused_in_one_line(tmp_path, capsys):
    from rummy500.train.plots import main

    with pytest.raises(SystemExit) as stop:
        main([str(tmp_path / "no_such_run")])
    assert stop.value.code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1].endswith("no such run folder")


def test_the_curves_clock_runs_on_past_the_data():
    """The plot's minutes axis maps steps to minutes inside the run as np.interp does, and
    beyond it along the end segments, so its ticks past the data do not pile up."""
    from rummy500.train.plots import interp_extended

    steps, minutes = np.array([1e6, 2e6, 4e6]), np.array([1.0, 2.0, 3.0])
    inside = np.array([1e6, 1.5e6, 3e6, 4e6])
    np.testing.assert_allclose(
        interp_extended(inside, steps, minutes), np.interp(inside, steps, minutes)
    )
    np.testing.assert_allclose(interp_extended([0.0, 6e6], steps, minutes), [0.0, 4.0])
    assert interp_extended(5e6, steps, minutes).shape == ()


def test_the_curves_clock_leaves_out_a_pause_between_stop_and_resume():
    """A run stopped, then resumed ten minutes later, is plotted against the minutes it ran;
    a long gap with no resume in it (a slow evaluation) is training time."""
    from rummy500.train.plots import running_minutes

    steady = np.arange(0.0, 120.0, 2.0)  # a scalar every 2 s for two minutes
    resumed = np.concatenate([steady, steady[-1] + 600.0 + steady])
    minutes = running_minutes(resumed, resumes=np.array([steady[-1] + 599.0]))
    np.testing.assert_allclose(minutes[: steady.size], steady / 60)
    assert minutes[-1] == pytest.approx((2 * steady.size - 1) * 2.0 / 60)
    assert running_minutes(resumed, resumes=np.array([]))[-1] == pytest.approx(
        (resumed[-1] - resumed[0]) / 60
    )
