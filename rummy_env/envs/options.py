"""How every environment reads its configuration: the rules and the env options.

All envs (``aec``, ``gym_env``, ``vector``) take their rules the same
way, in this order of precedence:

* ``rules=Rules(...)``: a ready rules object (nothing else may be given with it);
* ``rules_file="path.yaml"``: a YAML mapping of rule flags (``rummy_env.config.rules_from_yaml``);
* ``preset="web"`` and/or any rule flag as a keyword (``players=3, target=250``),
  read with ``Rules.from_dict``: flags override the preset.

Env options are checked against their allowed values here, so every env raises
the same ``ValueError`` (naming the option and the allowed values) for a typo.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rummy_env.config import rules_from_yaml
from rummy_env.core import Rules
from rummy_env.core.rules import is_int

EPISODES = ("game", "hand")
"""``game``: an episode is a whole game to the target; ``hand``: hand 0 of a fresh game."""
REWARDS = ("win", "points", "points_diff", "chips")
"""See ``rummy_env.envs.episode`` for what each pays."""
TERMINAL_MASK_ACTION = 0
"""The one legal entry of a finished episode's mask (as pgx does): a masked sampler can
draw from it, and the env ignores what it draws."""
AUTORESETS = ("same_step", "next_step")
"""When a finished game's row gets a fresh game (``gymnasium.vector.AutoresetMode``)."""
ILLEGAL_ACTIONS = ("raise", "penalize")
"""``raise``: ValueError naming the legal texts; ``penalize``: the game ends, offender -1."""


def resolve_rules(
    rules: Rules | None = None,
    rules_file: str | Path | None = None,
    preset: str | None = None,
    **flags: Any,
) -> Rules:
    """The rules of an env from exactly one source (see the module docstring)."""
    if rules is not None:
        if rules_file is not None or preset is not None or flags:
            raise ValueError(
                "rules: give rules=Rules(...) alone, without preset, rules_file or rule flags"
            )
        if not isinstance(rules, Rules):
            raise ValueError(f"rules: expected a rummy_env.core.Rules, got {type(rules).__name__}")
        resolved = rules
    elif rules_file is not None:
        if preset is not None or flags:
            raise ValueError("rules: give rules_file alone (put preset and flags in the file)")
        resolved = rules_from_yaml(rules_file)
    else:
        config = dict(flags)
        if preset is not None:
            config["preset"] = preset
        resolved = Rules.from_dict(config)
    return resolved


def check_choice(name: str, value: Any, allowed: tuple) -> Any:
    """``value`` if it is one of ``allowed``; otherwise ValueError naming both."""
    if value not in allowed:
        raise ValueError(f"{name}={value!r} is not allowed; allowed: {list(allowed)}")
    return value


def check_pcr(pcr: Any) -> int:
    """The point chip ratio of the ``chips`` reward: an integer >= 1 (default 1)."""
    if not is_int(pcr) or pcr < 1:
        raise ValueError(f"pcr={pcr!r} is not allowed; allowed: an integer >= 1")
    return pcr


def check_num_envs(num_envs: Any) -> int:
    """The number of games a vector env plays side by side: an integer >= 1 (not a bool,
    a float such as 2.0 or a string such as "4")."""
    whole = not isinstance(num_envs, bool) and hasattr(type(num_envs), "__index__")
    if not whole or num_envs < 1:
        raise ValueError(f"num_envs={num_envs!r} is not allowed; allowed: an integer >= 1")
    return int(num_envs)


def check_seat(seat: Any, players: int) -> Any:
    """A learning seat: ``"random"`` or a seat number 0..P-1."""
    if not (seat == "random" or (isinstance(seat, int) and 0 <= seat < players)):
        raise ValueError(f"seat={seat!r} is not allowed; allowed: 0..{players - 1} or 'random'")
    return seat


def single_spaces(rules: Rules):
    """(observation Box, action Discrete) of one seat's decision under these rules."""
    import gymnasium as gym
    import numpy as np

    from rummy_env.core import action_layout, observation_bounds, observation_size

    low, high = observation_bounds(rules)
    obs = gym.spaces.Box(low, high, (observation_size(rules),), np.float32)
    return obs, gym.spaces.Discrete(action_layout(rules).size)


def configure(
    env: Any,
    rules: Rules | None,
    rules_file: str | Path | None,
    preset: str | None,
    episode: str,
    reward: str,
    illegal_action: str,
    render_mode: str | None,
    **flags: Any,
) -> None:
    """Check and set the options every single-game env shares: ``rules``, ``episode``,
    ``reward``, ``pcr`` (a keyword among ``flags``), ``illegal_action`` and
    ``render_mode`` (against ``env.metadata``)."""
    env.pcr = check_pcr(flags.pop("pcr", 1))
    env.rules = resolve_rules(rules, rules_file, preset, **flags)
    env.episode = check_choice("episode", episode, EPISODES)
    env.reward = check_choice("reward", reward, REWARDS)
    env.illegal_action = check_choice("illegal_action", illegal_action, ILLEGAL_ACTIONS)
    if render_mode is not None:
        check_choice("render_mode", render_mode, tuple(env.metadata["render_modes"]))
    env.render_mode = render_mode
