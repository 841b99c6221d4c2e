"""rummy500: agents, training, evaluation and the programs around the ``rummy_env`` game.

``rummy_env`` is the environment (the engine and its PettingZoo, Gymnasium and
batched interfaces); everything built on it lives here:

* ``rummy500.agents``: the built-in players and the agent registry;
* ``rummy500.train``: self-play PPO with a league, checkpoints and plots;
* ``rummy500.eval``: the arena, ratings, the ladder and tournaments;
* ``rummy500.configs``: the training recipes and rules files that ship with the package;
* ``rummy500.cli``, ``rummy500.commands`` and ``rummy500.web``: the ``rummy500`` command.
"""
