"""A plain CleanRL-style PPO loop with action masks on the batched Gymnasium env.

``gymnasium.make_vec("Rummy500Hand-v1")`` gives ``RummySingleAgentVectorEnv``:
one learner per game against random opponents, same-step autoreset, and the
learners' legal actions in ``info["action_mask"]`` at every step. Illegal
actions get -inf logits, so none is ever sampled (``illegal_action="raise"``).
"""

import gymnasium as gym
import numpy as np
import torch
from torch import nn

import rummy_env  # noqa: F401  (registers the Gymnasium ids)

NUM_ENVS, NUM_STEPS, ITERATIONS, EPOCHS = 16, 64, 3, 2
GAMMA, LAM, CLIP, LR = 0.99, 0.95, 0.2, 3e-4

envs = gym.make_vec(
    "Rummy500Hand-v1", num_envs=NUM_ENVS, preset="web", reward="points_diff", illegal_action="raise"
)
obs_dim, n_actions = envs.single_observation_space.shape[0], envs.single_action_space.n
torch.manual_seed(0)
trunk = nn.Sequential(nn.Linear(obs_dim, 128), nn.Tanh())
actor, critic = nn.Linear(128, n_actions), nn.Linear(128, 1)
params = [*trunk.parameters(), *actor.parameters(), *critic.parameters()]
optimizer = torch.optim.Adam(params, lr=LR)


def policy(obs: torch.Tensor, mask: torch.Tensor):
    """Masked action distribution and value of a batch of observations."""
    hidden = trunk(obs)
    logits = actor(hidden).masked_fill(~mask, -torch.inf)
    return torch.distributions.Categorical(logits=logits), critic(hidden).squeeze(-1)


obs_np, info = envs.reset(seed=0)
obs, mask = torch.as_tensor(obs_np), torch.as_tensor(info["action_mask"])
buffers = {name: [] for name in ("obs", "mask", "action", "logprob", "reward", "done", "value")}
for iteration in range(ITERATIONS):
    for values in buffers.values():
        values.clear()
    for _ in range(NUM_STEPS):
        with torch.no_grad():
            dist, value = policy(obs, mask)
            action = dist.sample()
        obs_np, reward, terminated, truncated, info = envs.step(action.numpy())
        for name, item in (
            ("obs", obs),
            ("mask", mask),
            ("action", action),
            ("logprob", dist.log_prob(action)),
            ("value", value),
            ("reward", torch.as_tensor(reward)),
            ("done", torch.as_tensor(terminated | truncated, dtype=torch.float32)),
        ):
            buffers[name].append(item)
        obs, mask = torch.as_tensor(obs_np), torch.as_tensor(info["action_mask"])
    batch = {name: torch.stack(values) for name, values in buffers.items()}
    with torch.no_grad():  # GAE; a finished game's next state belongs to a new game
        next_value = policy(obs, mask)[1]
        advantages = torch.zeros_like(batch["reward"])
        last = torch.zeros(NUM_ENVS)
        for t in reversed(range(NUM_STEPS)):
            following = next_value if t == NUM_STEPS - 1 else batch["value"][t + 1]
            live = 1.0 - batch["done"][t]
            delta = batch["reward"][t] + GAMMA * following * live - batch["value"][t]
            last = delta + GAMMA * LAM * live * last
            advantages[t] = last
        returns = advantages + batch["value"]
    flat = {name: values.flatten(0, 1) for name, values in batch.items()}
    flat_adv, flat_ret = advantages.flatten(), returns.flatten()
    for _ in range(EPOCHS):
        dist, value = policy(flat["obs"], flat["mask"])
        ratio = (dist.log_prob(flat["action"]) - flat["logprob"]).exp()
        adv = (flat_adv - flat_adv.mean()) / (flat_adv.std() + 1e-8)
        policy_loss = -torch.min(ratio * adv, ratio.clamp(1 - CLIP, 1 + CLIP) * adv).mean()
        loss = policy_loss + 0.5 * (value - flat_ret).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"iteration {iteration}: mean reward {flat['reward'].mean():+.4f}, loss {loss:.3f}")
envs.close()
steps = NUM_ENVS * NUM_STEPS * ITERATIONS
print(
    f"CleanRL-style PPO: {steps} steps, no illegal action "
    f"({int(np.asarray(batch['done']).sum())} episodes ended in the last rollout)"
)
