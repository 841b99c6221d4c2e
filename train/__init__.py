"""Training: self-play PPO with a league, TensorBoard logging and checkpoints,
and a Ray RLlib backend."""
