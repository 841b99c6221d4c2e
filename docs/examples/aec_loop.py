"""One hand of Rummy 500 in the PettingZoo AEC API, random legal actions."""

import numpy as np

import rummy_env

env = rummy_env.env(preset="standard", episode="hand", reward="points", render_mode="ansi")
env.reset(seed=42)
rng = np.random.default_rng(0)
returns = dict.fromkeys(env.possible_agents, 0.0)
for agent in env.agent_iter():
    obs, reward, terminated, truncated, info = env.last()
    returns[agent] += reward
    legal = np.flatnonzero(obs["action_mask"])
    env.step(None if terminated or truncated else int(rng.choice(legal)))
print(env.render(), returns, sep="\n")
