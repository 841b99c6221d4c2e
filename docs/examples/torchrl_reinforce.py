"""TorchRL: a masked policy-gradient (REINFORCE) self-play learner on the PettingZoo AEC env.

``PettingZooWrapper(..., use_mask=True)`` groups both seats as ``players``;
``("players", "mask")`` says which seat acts and ``("players", "action_mask")``
holds its legal actions, which ``MaskedCategorical`` never leaves
(``illegal_action="raise"``). Only the acting seat's decisions are trained on.
"""

import torch
from tensordict.nn import TensorDictModule
from torch import nn
from torchrl.collectors import Collector
from torchrl.envs import PettingZooWrapper
from torchrl.modules import MaskedCategorical, ProbabilisticActor

import rummy_env

FRAMES_PER_BATCH, TOTAL_FRAMES = 500, 1000

env = PettingZooWrapper(
    env=rummy_env.env(preset="web", episode="hand", reward="points_diff", illegal_action="raise"),
    use_mask=True,
    categorical_actions=True,
    group_map={"players": ["player_0", "player_1"]},
)
env.set_seed(0)
torch.manual_seed(0)
obs_dim = env.observation_spec["players", "observation", "observation"].shape[-1]
n_actions = env.full_action_spec["players", "action"].space.n
net = nn.Sequential(nn.Linear(obs_dim, 128), nn.Tanh(), nn.Linear(128, n_actions))
logits = TensorDictModule(
    net, in_keys=[("players", "observation", "observation")], out_keys=[("players", "logits")]
)
policy = ProbabilisticActor(
    logits,
    in_keys={"logits": ("players", "logits"), "mask": ("players", "action_mask")},
    out_keys=[("players", "action")],
    distribution_class=MaskedCategorical,
    return_log_prob=True,
    log_prob_key=("players", "log_prob"),
)
optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
collector = Collector(env, policy, frames_per_batch=FRAMES_PER_BATCH, total_frames=TOTAL_FRAMES)

frames = 0
for batch in collector:
    acting = batch["players", "mask"]  # [T, 2]
    reward = batch["next", "players", "reward"].squeeze(-1)  # [T, 2]
    done = batch["next", "done"].reshape(-1).float()  # [T]
    reward_to_go = torch.zeros_like(reward)  # undiscounted, within each episode
    following = torch.zeros(reward.shape[1])
    for t in reversed(range(reward.shape[0])):
        following = reward[t] + following * (1.0 - done[t])
        reward_to_go[t] = following
    log_prob = policy.get_dist(batch.clone()).log_prob(batch["players", "action"])
    loss = -(log_prob * reward_to_go)[acting].mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    frames += batch.numel()
    print(f"{frames} frames: loss {loss.item():+.4f}, episodes ended {int(done.sum())}")
collector.shutdown()
print(f"TorchRL REINFORCE: {frames} frames, no illegal action")
