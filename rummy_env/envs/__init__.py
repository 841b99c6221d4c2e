"""The interfaces: PettingZoo AEC, Gymnasium single-agent and batched vector envs.

They sit on the engine (``rummy_env.core``) alone: options, episodes and
rewards, opponents for the single-agent envs, and text rendering live here too.
"""
