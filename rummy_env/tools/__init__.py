"""The programs: the ``rummy500`` dispatcher and each subcommand's ``main``.

The only layer that may import every other one (engine, envs, agents,
training and evaluation).
"""
