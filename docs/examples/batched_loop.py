"""1024 self-play games stepped together, random legal actions, same-step autoreset."""

import numpy as np

from rummy_env.core import Rules, sample_legal
from rummy_env.envs.vector import RummyVectorEnv

env = RummyVectorEnv(Rules.preset_named("web"), num_envs=1024, seed=0, reward="win")
obs, mask, seat = env.reset()
rng = np.random.default_rng(0)
for _ in range(200):
    obs, mask, seat, rewards, terminated, truncated, info = env.step(sample_legal(mask, rng))
print(obs.shape, rewards.shape, "finished games:", info["episode"]["game"].size)
