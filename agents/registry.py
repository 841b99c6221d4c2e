"""Agents by name: ``make_agent(spec, rules, seed)`` for every program, the arena and training.

Built in: ``random``, ``casual``, ``sharp``, ``expert`` (with a search budget:
``expert:worlds=16,horizon=30``, ``rummy500.agents.expert``) and ``champion`` (the
trained policy that ships with the package), each release of the last two also by its
number (``champion@1``, ``expert@1``: published numbers name these). From outside the
project:

* ``ckpt:PATH``: a policy trained here, from its checkpoint, played greedily;
* ``py:MODULE:NAME``: NAME in MODULE (the working folder or an installed package) is
  a factory ``(rules, seed) -> agent`` or a class taking ``(rules, seed)``;
* an installed plug-in's name: a package whose entry point in the group
  ``rummy500.agents`` names its factory;
* ``sb3:PATH`` (``sb3[sample]:PATH``): a MaskablePPO model trained on ``Rummy500-v1``;
* ``cmd:COMMAND`` (``cmd[timeout=S]:COMMAND``): a process in any language speaking the
  JSON-lines protocol of ``rummy500.agents.process_agent``.

How each outside form is read and loaded is ``rummy500.agents.outside``.

The ``oracle`` sees hidden cards, so it is no agent: the arena's programs build it
(``rummy500.eval.oracle``), and every other program refuses it here.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rummy500.agents.base import Agent
from rummy500.agents.outside import (
    built_by,
    check_command,
    check_file,
    load_checkpoint_agent,
    outside_spec,
    plugins,
    python_factory,
    timeout_seconds,
)
from rummy_env.core import Rules


def _random(rules: Rules, seed: int) -> Agent:
    from rummy500.agents.random_agent import RandomAgent

    return RandomAgent(seed)


def _casual(rules: Rules, seed: int) -> Agent:
    from rummy500.agents.casual import CasualAgent

    return CasualAgent(rules, seed)


def _sharp(rules: Rules, seed: int) -> Agent:
    from rummy500.agents.sharp import SharpAgent

    return SharpAgent(rules, seed)


def _champion(rules: Rules, seed: int) -> Agent:
    from rummy500.agents.champion import make_champion

    return make_champion(rules, seed)


def _expert(rules: Rules, seed: int, options: str = "") -> Agent:
    from rummy500.agents.expert import make_expert

    return make_expert(options, rules, seed)


BUILTIN: dict[str, Callable[[Rules, int], Agent]] = {
    "random": _random,
    "casual": _casual,
    "sharp": _sharp,
    "expert": _expert,
    "champion": _champion,
}
"""Name -> factory(rules, seed) of the built-in agents."""

SPEC_FORMS = (", ".join(BUILTIN) + ", expert:OPTIONS, champion@N, expert@N, ckpt:PATH, "
              "py:MODULE:NAME, sb3:PATH, "
              "cmd:COMMAND, or an installed plug-in's name")
"""Every form an agent spec takes, for the programs' help texts."""

NO_ORACLE = ("oracle: sees hidden cards, so only rummy500 eval and rummy500 ladder "
             "accept it")
"""Why a program outside the arena refuses the oracle."""


RELEASED = re.compile(r"^(champion|expert)@(\d+)$", re.I)
"""``champion@N`` and ``expert@N``: release N of the champion, and the expert (default
budget) guided by it; they stay playable when a later release ships."""


def released(spec: str) -> tuple[str, int] | None:
    """(``champion`` or ``expert``, release) of a versioned name, None for other specs; a
    ValueError naming the releases when N is not one."""
    match = RELEASED.match(spec.strip())
    if match is None:
        return None
    from rummy500.agents.champion import champion_versions

    version = int(match.group(2))
    if version not in champion_versions():
        raise ValueError(f"{spec.strip()}: no such release (releases: "
                         f"{', '.join(map(str, champion_versions()))})")
    return match.group(1).lower(), version


def is_oracle(spec: str) -> bool:
    """Whether ``spec`` names the oracle (``oracle`` or ``oracle:OPTIONS``)."""
    name = spec.strip().lower()
    return name == "oracle" or name.startswith("oracle:")


def check_spec(spec: str, forms: str = SPEC_FORMS) -> None:
    """Raise ``ValueError`` (one line) unless ``spec`` names an agent, before any work
    starts: names, options and files are checked and a ``py:`` factory is looked up, but
    nothing is built or loaded. ``forms`` is what the complaint about an unknown name lists."""
    outside = outside_spec(spec)
    if outside is not None:
        kind, options, target = outside
        if kind in ("ckpt", "sb3"):
            check_file(target, kind)
        elif kind == "py":
            python_factory(target)
        elif kind == "cmd":
            timeout_seconds(options.get("timeout"), 1.0)
            check_command(target)
        return
    if released(spec):
        return
    name = spec.strip().lower()
    if is_oracle(name):
        raise ValueError(NO_ORACLE)
    if name.startswith("expert:"):
        from rummy500.agents.expert import ExpertBudget

        ExpertBudget.parse(spec.strip()[len("expert:"):])
    elif name not in BUILTIN and name not in plugins():
        raise ValueError(f"unknown agent {spec!r}; known: {forms}")


def make_agent(spec: str, rules: Rules, seed: int = 0) -> Agent:
    """An agent from its spec: a built-in name, ``expert:OPTIONS``, ``ckpt:PATH``,
    ``py:MODULE:NAME``, ``sb3:PATH``, ``cmd:COMMAND`` or an installed plug-in's name."""
    outside = outside_spec(spec)
    if outside is not None:
        kind, options, target = outside
        if kind == "ckpt":
            return load_checkpoint_agent(target, rules, seed)
        if kind == "py":
            return built_by(python_factory(target), rules, seed, spec.strip())
        if kind == "sb3":
            from rummy500.agents.sb3_agent import SB3Agent

            return SB3Agent(target, rules, seed, sample="sample" in options)
        from rummy500.agents.process_agent import DEFAULT_TIMEOUT, ProcessAgent

        check_command(target)
        return ProcessAgent(target, rules, seed, timeout=timeout_seconds(options.get("timeout"),
                                                                   DEFAULT_TIMEOUT))
    release = released(spec)
    if release is not None:
        kind, version = release
        if kind == "champion":
            from rummy500.agents.champion import make_champion

            return make_champion(rules, seed, version)
        from rummy500.agents.expert import make_expert

        expert = make_expert("", rules, seed, champion=version)
        expert.name = f"expert@{version}"
        return expert
    name = spec.strip()
    if name.lower().startswith("expert:"):
        return _expert(rules, seed, name[len("expert:"):])
    check_spec(name)
    if name.lower() in BUILTIN:
        return BUILTIN[name.lower()](rules, seed)
    entry = plugins()[name.lower()]
    try:
        factory = entry.load()
    except Exception as e:  # the plug-in's own import failed
        raise ValueError(f"{name}: the plug-in {entry.value!r} cannot be loaded "
                         f"({type(e).__name__}: {e})") from None
    return built_by(factory, rules, seed, name)


