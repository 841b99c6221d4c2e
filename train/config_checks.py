"""Checks of a config's values against its dataclass: one line naming the key and what is allowed.

Types come from the field annotations (``bool``, ``int``, ``float``, ``str``,
``list[...]``, ``dict[str, ...]``): a bool is not an int, an int is fine for a
float, text is not a number (except a number YAML leaves as text, like
``3e-4``), and a single text is a one-element list. Ranges and choices come
from small per-config tables (``TrainConfig`` and ``RLlibConfig`` each have
theirs). The network's keyword arguments are checked against its constructor.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import re
import typing
from dataclasses import dataclass
from typing import Any

from rummy_env.core.rules import is_int

_YAML_TEXT_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)[eE][-+]?\d+")
"""Numbers like ``3e-4`` that YAML 1.1 reads as text (no dot before the exponent)."""


class ConfigError(ValueError):
    """A setting that cannot run; the message is one line naming the key and what is allowed."""


@dataclass(frozen=True)
class Range:
    """Allowed numbers: ``low <= v <= high`` (``low < v`` with ``low_open``); None: no bound.
    For a list field, every item must lie in the range."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False

    def allows(self, value: float) -> bool:
        """Whether ``value`` lies in the range."""
        if self.low is not None and not (value > self.low if self.low_open else value >= self.low):
            return False
        return self.high is None or value <= self.high

    def __str__(self) -> str:
        if self.low is not None and self.high is not None:
            return f"from {self.low:g} to {self.high:g}"
        if self.low is not None:
            return f"{'>' if self.low_open else '>='} {self.low:g}"
        return f"<= {self.high:g}"


def _type_name(kind: Any) -> str:
    """How an annotation reads in a message: ``a whole number``, ``a list of text``, ..."""
    origin = typing.get_origin(kind)
    if origin is list:
        (item,) = typing.get_args(kind)
        plural = {bool: "true/false values", int: "whole numbers", float: "numbers", str: "texts"}
        return f"a list of {plural.get(item, str(item))}"
    if origin is dict:
        return "a mapping {key: value, ...}"
    return {bool: "true or false", int: "a whole number", float: "a number", str: "text"}.get(
        kind, str(kind)
    )


def _checked(name: str, value: Any, kind: Any) -> Any:
    """``value`` as a ``kind`` (int -> float, text -> [text]), or a ConfigError."""
    origin = typing.get_origin(kind)
    if origin is list:
        (item,) = typing.get_args(kind)
        if isinstance(value, str) and item is str:
            return [value]
        if isinstance(value, list):
            return [_checked(name, v, item) for v in value]
    elif origin is dict:
        if isinstance(value, dict) and all(isinstance(k, str) for k in value):
            return value
    elif kind is bool:
        if isinstance(value, bool):
            return value
    elif kind is int:
        if is_int(value):
            return value
    elif kind is float:
        if isinstance(value, str) and _YAML_TEXT_NUMBER.fullmatch(value):
            value = float(value)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            return float(value)
    elif kind is str:
        if isinstance(value, str):
            return value
    elif kind is Any:
        return value
    raise ConfigError(f"config: {name}={value!r} is not allowed; allowed: {_type_name(kind)}")


def check_fields(
    config: Any, ranges: dict[str, Range], choices: dict[str, tuple[str, ...]]
) -> None:
    """Check every field of the dataclass ``config`` (normalising it in place: int -> float,
    text -> [text]); raise a ConfigError naming the first bad key."""
    hints = typing.get_type_hints(type(config))
    for f in dataclasses.fields(config):
        value = _checked(f.name, getattr(config, f.name), hints[f.name])
        setattr(config, f.name, value)
        numbers = value if isinstance(value, list) else [value]
        if f.name in ranges and not all(ranges[f.name].allows(v) for v in numbers):
            raise ConfigError(
                f"config: {f.name}={value!r} is not allowed; allowed: "
                f"{_type_name(hints[f.name])} {ranges[f.name]}"
            )
        if f.name in choices and value not in choices[f.name]:
            raise ConfigError(
                f"config: {f.name}={value!r} is not allowed; allowed: {', '.join(choices[f.name])}"
            )


def check_network(arch: str, arch_kwargs: dict[str, Any], rules: Any) -> None:
    """Refuse ``arch_kwargs`` the network's constructor does not take, or cannot build with."""
    from rummy500.agents.torch_policy import build_policy
    from rummy_env.core import action_layout, observation_size

    sizes = (observation_size(rules), action_layout(rules).size)
    try:
        network = type(build_policy(arch, rules, *sizes))
    except ValueError as e:
        raise ConfigError(f"config: {e}") from None
    positional = {"self", "rules", "obs_dim", "n_actions"}
    allowed = [p for p in inspect.signature(network.__init__).parameters if p not in positional]
    unknown = sorted(set(arch_kwargs) - set(allowed))
    if unknown:
        raise ConfigError(
            f"config: arch_kwargs has unknown key(s) {unknown} for arch={arch}; allowed: {allowed}"
        )
    try:
        build_policy(arch, rules, *sizes, **arch_kwargs)
    except Exception as e:  # any failure to build is a bad value of the user's
        reason = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise ConfigError(
            f"config: arch_kwargs={arch_kwargs!r} cannot build the {arch} network: {reason}"
        ) from None
