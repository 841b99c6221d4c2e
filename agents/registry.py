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

The ``oracle`` sees hidden cards, so it is no agent: the arena's programs build it
(``rummy500.eval.oracle``), and every other program refuses it here.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from collections.abc import Callable
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from rummy500.agents.base import Agent
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

PLUGIN_GROUP = "rummy500.agents"
"""Entry-point group of installed agent plug-ins: name = the agent's name, value = its
factory ``(rules, seed) -> agent``."""

OUTSIDE = re.compile(r"^(ckpt|py|sb3|cmd)(?:\[([^\]]*)\])?:(.*)$", re.S | re.I)
"""``KIND[OPTIONS]:TARGET`` of the specs that name something outside the registry."""
OPTIONS = {"ckpt": (), "py": (), "sb3": ("sample",), "cmd": ("timeout",)}
"""The options each outside kind takes in its brackets."""


def outside_spec(spec: str) -> tuple[str, dict[str, str], str] | None:
    """(kind, options, target) of ``ckpt:``, ``py:``, ``sb3:`` and ``cmd:`` specs (``cmd[
    timeout=5]:./bot``), None for any other spec; a ValueError naming a bad option."""
    match = OUTSIDE.match(spec.strip())
    if match is None:
        return None
    kind, text, target = match.group(1).lower(), match.group(2), match.group(3).strip()
    options = {}
    for item in filter(None, (part.strip() for part in (text or "").split(","))):
        key, _, value = item.partition("=")
        if key.strip() not in OPTIONS[kind]:
            takes = ", ".join(OPTIONS[kind]) or "none"
            raise ValueError(f"{kind}: unknown option {key.strip()!r} (options: {takes})")
        options[key.strip()] = value.strip()
    if not target:
        raise ValueError(f"{kind}: needs {EXAMPLES[kind]}")
    return kind, options, target


EXAMPLES = {"ckpt": "a path, e.g. ckpt:runs/RUN/last.pt",
            "py": "a module and a name, e.g. py:my_bots:make_agent",
            "sb3": "a model file, e.g. sb3:maskable_ppo.zip",
            "cmd": "a command, e.g. cmd:'python my_bot.py'"}


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


def plugins() -> dict[str, Any]:
    """Installed plug-ins: lower-cased name -> entry point of the ``rummy500.agents`` group."""
    return {ep.name.lower(): ep for ep in entry_points(group=PLUGIN_GROUP)}


def load_checkpoint_agent(path: str, rules: Rules, seed: int) -> Agent:
    """``ckpt:PATH``: a trained policy from a checkpoint file, acting greedily.

    The checkpoint must have been trained under these rules and this
    observation version (``rummy500.agents.checkpoint.load_policy`` checks both). Any
    problem comes back as a ``ValueError`` naming the path, or
    ``NotImplementedError`` when torch or the training package is missing; a file
    of another kind says what it looks like and which spec plays it.
    """
    try:
        from rummy500.agents.checkpoint import load_policy
        from rummy500.agents.torch_policy import TorchAgent
    except ImportError as e:
        raise NotImplementedError(
            f"ckpt:{path}: checkpoint agents need torch ({e}); "
            f"use one of {sorted(BUILTIN)}") from None
    check_file(path, "ckpt")
    from rummy500.agents.sb3_agent import is_sb3_archive

    if is_sb3_archive(path):
        raise ValueError(f"ckpt:{path}: this is a Stable-Baselines3 model archive, not a "
                         f"rummy500 checkpoint: play it with sb3:{path}")
    try:
        policy, _ = load_policy(path, rules)
    except ValueError as e:  # CheckpointMismatch and friends
        raise ValueError(f"ckpt:{path}: {e}") from None
    except Exception as e:  # a corrupt file can raise almost anything
        raise ValueError(f"ckpt:{path}: cannot read the checkpoint ({e})") from None
    return TorchAgent(policy, rules, name=f"ckpt:{path}", greedy=True, seed=seed)


def check_file(path: str, kind: str) -> None:
    """A one-line ValueError unless ``path`` is a file (a folder: an RLlib checkpoint?)."""
    target = Path(path)
    if target.is_dir():
        hint = (" (an RLlib checkpoint folder? rummy500 train --backend rllib exports "
                "last.pt beside it, which ckpt: plays)" if kind == "ckpt" else "")
        raise ValueError(f"{kind}:{path}: a folder, not a model file{hint}")
    if not target.is_file():
        raise ValueError(f"{kind}:{path}: no such file")


def python_factory(target: str) -> Callable[[Rules, int], Any]:
    """``py:MODULE:NAME``: the object NAME (dotted inside the module) of MODULE, imported
    from the working folder or the installed packages; a one-line ValueError otherwise."""
    module_name, sep, attribute = target.rpartition(":")
    if not sep or not module_name or not attribute:
        raise ValueError(f"py:{target}: name a module and a factory or class, "
                         "e.g. py:my_bots:make_agent")
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        found: Any = importlib.import_module(module_name)
    except ImportError as e:
        raise ValueError(f"py:{target}: cannot import {module_name!r} ({e})") from None
    except Exception as e:  # the user's module raised while importing
        raise ValueError(f"py:{target}: importing {module_name!r} raised "
                         f"{type(e).__name__}: {e}") from None
    for part in attribute.split("."):
        if not hasattr(found, part):
            raise ValueError(f"py:{target}: module {module_name!r} has no {attribute!r}")
        found = getattr(found, part)
    if not callable(found):
        raise ValueError(f"py:{target}: {attribute!r} is a {type(found).__name__}, not a "
                         "factory (rules, seed) -> agent or a class")
    return found


def built_by(factory: Callable[[Rules, int], Any], rules: Rules, seed: int, spec: str) -> Agent:
    """The agent ``factory(rules, seed)`` makes, checked: it has ``act``; it gets ``spec`` as
    its name when it has none."""
    try:
        agent = factory(rules, seed)
    except Exception as e:  # the user's code
        raise ValueError(f"{spec}: making the agent raised {type(e).__name__}: {e}") from None
    if not callable(getattr(agent, "act", None)):
        raise ValueError(f"{spec}: made a {type(agent).__name__}, which is no agent (an agent "
                         "has act(decision) -> one action id per game)")
    if not isinstance(getattr(agent, "name", None), str):
        try:
            agent.name = spec
        except AttributeError:
            raise ValueError(f"{spec}: the agent has no name and takes none") from None
    return agent


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
            _seconds(options.get("timeout"), 1.0)
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


def check_command(command: str) -> None:
    """A one-line ValueError unless ``command`` splits and its program can be found."""
    import shlex
    import shutil

    try:
        argv = shlex.split(command)
    except ValueError as e:
        raise ValueError(f"cmd:{command}: cannot split the command ({e})") from None
    if not argv:
        raise ValueError(f"cmd: needs {EXAMPLES['cmd']}")
    if shutil.which(argv[0]) is None:
        raise ValueError(f"cmd:{command}: no program {argv[0]!r} (not on PATH, or not an "
                         "executable file)")


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
        return ProcessAgent(target, rules, seed, timeout=_seconds(options.get("timeout"),
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


def _seconds(text: str | None, default: float) -> float:
    """A positive number of seconds from an option's text."""
    if text is None:
        return default
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < float("inf"):
        raise ValueError(f"cmd: timeout={text} must be a positive number of seconds")
    return value
