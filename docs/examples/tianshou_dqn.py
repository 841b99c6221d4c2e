"""Tianshou 2 DQN for ``player_0`` against a masked random ``player_1`` (the shape of
Tianshou's tic-tac-toe example), on the PettingZoo AEC env.

Tianshou's ``PettingZooEnv`` passes the observation's ``action_mask`` to the
policies as ``obs.mask``; DQN's greedy and epsilon-random choices both respect
it, and the env's fixed numeric ``info`` goes into the replay buffer as is.
"""

import numpy as np
import torch
from tianshou.algorithm import (
    DQN,
    MARLRandomDiscreteMaskedOffPolicyAlgorithm,
    MultiAgentOffPolicyAlgorithm,
)
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

import rummy_env


def make_env() -> PettingZooEnv:
    """One two-player hand of the ``web`` preset; an illegal action would raise."""
    return PettingZooEnv(
        rummy_env.env(preset="web", episode="hand", reward="points_diff", illegal_action="raise")
    )


env = make_env()
observation_shape = env.observation_space["observation"].shape
net = Net(state_shape=observation_shape, action_shape=env.action_space.n, hidden_sizes=[128])
learner = DQN(
    policy=DiscreteQLearningPolicy(
        model=net, action_space=env.action_space, eps_training=0.1, eps_inference=0.05
    ),
    optim=AdamOptimizerFactory(lr=1e-4),
    gamma=0.99,
    n_step_return_horizon=3,
    target_update_freq=200,
)
opponent = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[learner, opponent], env=env)

np.random.seed(0)
torch.manual_seed(0)
train_envs = DummyVectorEnv([make_env for _ in range(4)])
test_envs = DummyVectorEnv([make_env for _ in range(2)])
train_envs.seed(0)
test_envs.seed(1)
train_collector = Collector[CollectStats](
    algorithm, train_envs, VectorReplayBuffer(5000, len(train_envs)), exploration_noise=True
)
test_collector = Collector[CollectStats](algorithm, test_envs, exploration_noise=True)
train_collector.reset()
train_collector.collect(n_step=128)
result = algorithm.run_training(
    OffPolicyTrainerParams(
        training_collector=train_collector,
        test_collector=test_collector,
        max_epochs=1,
        epoch_num_steps=1000,
        collection_step_num_env_steps=20,
        test_step_num_episodes=1,
        batch_size=64,
        update_step_num_gradient_steps_per_sample=0.1,
        test_in_training=False,
        show_progress=False,
        multi_agent_return_reduction=lambda rewards: rewards[:, 0],
    )
)
print(f"Tianshou DQN: {result.train_step} env steps collected in training, no illegal action")
