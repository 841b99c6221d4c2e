"""Rummy 500: a rule-exact, vectorized reinforcement-learning environment.

Entry points (imported lazily, so ``import rummy_env`` stays light):

* ``rummy_env.env(**config)`` / ``rummy_env.raw_env``: PettingZoo AEC env
  (``rummy_env/envs/aec.py``);
* ``rummy_env.parallel_env(**config)``: the same game in PettingZoo's parallel
  API, only the seat to play acts (``rummy_env/envs/parallel.py``);
* ``gymnasium.make("Rummy500-v1")`` / ``"Rummy500Hand-v1"``: single-agent
  Gymnasium env (``rummy_env/envs/gym_env.py``), also ``gymnasium.make_vec`` with
  ``vectorization_mode="vector_entry_point"`` for the batched version;
* ``rummy_env.envs.vector.RummyVectorEnv``: batched self-play for trainers.
"""

from __future__ import annotations

from typing import Any

__all__ = ["env", "parallel_env", "raw_env"]

GYM_IDS = {
    "Rummy500-v1": {"episode": "game"},
    "Rummy500Hand-v1": {"episode": "hand"},
}


def __getattr__(name: str) -> Any:
    if name in ("env", "raw_env"):
        from .envs import aec

        return getattr(aec, name)
    if name == "parallel_env":
        from .envs import parallel

        return parallel.parallel_env
    raise AttributeError(f"module 'rummy_env' has no attribute {name!r}")


def _register_gym_ids() -> None:
    try:
        import gymnasium
    except ImportError:  # gymnasium is a dependency; stay importable without it
        return
    for env_id, kwargs in GYM_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(
                id=env_id,
                entry_point="rummy_env.envs.gym_env:RummyGymEnv",
                vector_entry_point="rummy_env.envs.vector:RummySingleAgentVectorEnv",
                kwargs=dict(kwargs),
            )


_register_gym_ids()
