"""AgileRL: one DQN in self-play, stepping AgileRL's multi-agent vector env over
``rummy_env.parallel_env`` (only the seat to play acts; the others' actions are ignored).

Each env's seat to play is the agent whose ``action_mask`` row is non-zero; the
DQN picks its action under that mask, so no illegal action is ever played
(``illegal_action="raise"``). AgileRL pins ``pettingzoo<1.27`` and
``tensordict==0.13``: run this in an environment of its own.
"""

import numpy as np
import torch
from agilerl.algorithms import DQN
from agilerl.components.replay_buffer import ReplayBuffer
from agilerl.vector.pz_async_vec_env import AsyncPettingZooVecEnv
from tensordict import TensorDict

import rummy_env

NUM_ENVS, STEPS, LEARN_EVERY = 2, 1500, 4


def make_env():
    """One two-player hand of the ``web`` preset, in the parallel API."""
    return rummy_env.parallel_env(
        preset="web", episode="hand", reward="points_diff", illegal_action="raise"
    )


if __name__ == "__main__":
    env = make_env()
    agents = env.possible_agents
    observation_space = env.observation_space(agents[0])["observation"]
    dqn = DQN(
        observation_space,
        env.action_space(agents[0]),
        batch_size=64,
        lr=1e-3,
        learn_step=LEARN_EVERY,
        net_config={"head_config": {"hidden_size": [128]}},
    )
    memory = ReplayBuffer(max_size=10_000)
    envs = AsyncPettingZooVecEnv([make_env for _ in range(NUM_ENVS)])
    torch.manual_seed(0)
    obs, _ = envs.reset(seed=0)
    rows = np.arange(NUM_ENVS)
    episodes = 0
    for step in range(STEPS // NUM_ENVS):
        masks = np.stack([obs[a]["action_mask"] for a in agents], axis=1)  # [N, P, A]
        seat = masks.any(axis=2).argmax(axis=1)  # who plays
        state = np.stack([obs[a]["observation"] for a in agents], axis=1)[rows, seat]
        action = dqn.get_action(state, epsilon=0.1, action_mask=masks[rows, seat])
        actions = {a: np.where(seat == i, action, 0) for i, a in enumerate(agents)}
        obs, rewards, terminations, truncations, _ = envs.step(actions)
        reward = np.stack([rewards[a] for a in agents], axis=1)[rows, seat]
        done = np.stack([terminations[a] | truncations[a] for a in agents], axis=1).any(axis=1)
        next_state = np.stack([obs[a]["observation"] for a in agents], axis=1)[rows, seat]
        memory.add(
            TensorDict(
                {
                    "obs": state,
                    "action": action,
                    "reward": np.nan_to_num(reward).astype(np.float32),
                    "next_obs": next_state,
                    "done": done.astype(np.float32),
                },
                batch_size=[NUM_ENVS],
            )
        )
        episodes += int(done.sum())
        if len(memory) >= dqn.batch_size and step % LEARN_EVERY == 0:
            loss = dqn.learn(memory.sample(dqn.batch_size))
    envs.close()
    print(f"AgileRL DQN self-play: {STEPS} steps, {episodes} episodes, no illegal action")
