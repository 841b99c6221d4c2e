"""sb3-contrib's MaskablePPO on ``Rummy500Hand-v1``: one learner against random opponents.

MaskablePPO reads the legal actions from the env's ``action_masks()``; with
``illegal_action="raise"`` a single illegal action would stop the run.
"""

import gymnasium as gym
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks

import rummy_env  # noqa: F401  (registers the Gymnasium ids)

STEPS = 2048

env = gym.make("Rummy500Hand-v1", preset="web", illegal_action="raise")
model = MaskablePPO("MlpPolicy", env, n_steps=512, batch_size=128, n_epochs=2, seed=0)
model.learn(total_timesteps=STEPS)

# One greedy episode with the trained policy, masked the same way.
vec_env = model.get_env()
obs = vec_env.reset()
done = [False]
while not done[0]:
    action, _ = model.predict(obs, action_masks=get_action_masks(vec_env), deterministic=True)
    obs, reward, done, info = vec_env.step(action)
print(
    f"MaskablePPO: {model.num_timesteps} steps, no illegal action; "
    f"last episode's reward {reward[0]:+.2f}, winner seat {info[0]['winner']}"
)
