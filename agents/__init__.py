"""Agents: the batched agent protocol, heuristic baselines (random, casual, sharp)
and torch policies."""
