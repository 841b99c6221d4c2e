"""What callers hand the envs, checked once: action ids, batches of actions, seeds.

An action is an integer id: a Python int, a numpy integer scalar, a 0-d integer
array (or tensor), or an integral float such as ``3.0``. Anything else (``2.9``,
``"0"``, ``True``, a list) is a ``ValueError`` with a one-line message, never a
silent cast. A batch of actions is an array of exactly ``(B,)`` such ids. A seed
is ``None`` or a non-negative integer.

>>> action_id(np.int64(7)), action_id(np.array(3)), action_id(2.0)
(7, 3, 2)
>>> action_id(2.9)
Traceback (most recent call last):
ValueError: action 2.9 (float) is not an action id: expected an integer
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rummy_env.core import check_seed as core_check_seed


def _shown(value: Any) -> str:
    """A one-line description of ``value`` for an error message."""
    if isinstance(value, np.ndarray) and value.ndim > 0:
        return f"array of shape {value.shape} and dtype {value.dtype}"
    text = repr(value).replace("\n", " ")
    text = text if len(text) <= 60 else text[:57] + "..."
    return f"{text} ({type(value).__name__})"


def _integral(array: np.ndarray) -> bool:
    """Whether every element is an integer: an integer dtype, or finite floats without fraction."""
    if array.dtype.kind in "iu":
        return True
    if array.dtype.kind == "f":
        return bool(np.isfinite(array).all() and (array == np.round(array)).all())
    return False


def action_id(action: Any) -> int:
    """The integer action id in ``action`` (see the module docstring); ValueError otherwise."""
    array = np.asarray(action)
    if array.ndim == 0 and _integral(array):
        return int(array)
    raise ValueError(f"action {_shown(action)} is not an action id: expected an integer")


def action_batch(actions: Any, num_envs: int) -> np.ndarray:
    """int64 [B]: one action id per game; ValueError for another shape or non-integers."""
    array = np.asarray(actions)
    if array.shape != (num_envs,):
        raise ValueError(
            f"actions: expected shape ({num_envs},), one action id per game; got {_shown(actions)}"
        )
    if not _integral(array):
        raise ValueError(f"actions: expected integer action ids; got {_shown(actions)}")
    return array.astype(np.int64)


def check_seed(seed: Any) -> int | None:
    """``seed`` as an int (or None); a ValueError unless it is None or an integer in the
    engine's seed range (``rummy_env.core.check_seed``)."""
    return None if seed is None else core_check_seed(seed)
