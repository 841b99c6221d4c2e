"""The ``rummy500`` subcommands, one module each with a ``main(argv)``.

The only layer that may import every other one (engine, envs, agents,
training and evaluation).
"""
