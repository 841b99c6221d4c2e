"""The one-game path: a lone game's mask, observation and common steps in plain Python.

At B = 1 the batched engine's per-call costs dominate, so a lone game driven by
``Games(..., one_game=True)`` (the AEC, Parallel and Gymnasium envs, the web table, the
terminal game) takes this path. It implements only what it is fastest at and
hands every other case to the batched engine:

* ``mask.legal_mask_one``: the draw and play steps of rules without jokers
  (``mask.supports``); any other phase or rules, ``legal_mask``;
* ``step.step_one``: draws, takes and plain discards (``rummy_env.core.step`` calls it
  for a lone live game and steps everything else batched);
* ``observe.observe_one``: the observation, from a table part kept while the table
  stands (``kept``);
* ``kept.OneGameMask`` and ``kept.OneGameObserver``: the mask and the observation of
  one game with what its table accepts and shows kept between steps, keyed like the
  batched cache (``rummy_env.core._table_cache.table_key_one``).

It is private to the project and proven equal to the batched engine, not sharing its
code: ``tests/test_one_game_path.py`` walks every value of every rule flag in
``Rules``' own table, at 2 and 4 players, and plays whole games through it beside the
batched engine, bit for bit.
"""

from .kept import OneGameMask, OneGameObserver

__all__ = ["OneGameMask", "OneGameObserver"]
