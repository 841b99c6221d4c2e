"""Agents from outside the project: how their specs read, and how each is loaded.

``KIND[OPTIONS]:TARGET`` specs (``ckpt:``, ``py:``, ``sb3:``, ``cmd:``) and installed
plug-ins (entry points in the group ``rummy500.agents``). Each loader checks what it is
given and refuses it in one line (a ``ValueError``) before any game: a module that
does not import, a name that is no factory, a factory that makes no agent, a file that
is not there or not what its spec says, a program not found. The registry
(``rummy500.agents.registry``) dispatches to them.
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
from rummy500.agents.checked import checked
from rummy_env.core import Rules

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


EXAMPLES = {
    "ckpt": "a path, e.g. ckpt:runs/RUN/last.pt",
    "py": "a module and a name, e.g. py:my_bots:make_agent",
    "sb3": "a model file, e.g. sb3:maskable_ppo.zip",
    "cmd": "a command, e.g. cmd:'python my_bot.py'",
}


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
            f"ckpt:{path}: checkpoint agents need torch ({e}); use a built-in agent such as sharp"
        ) from None
    check_file(path, "ckpt")
    from rummy500.agents.sb3_agent import is_sb3_archive

    if is_sb3_archive(path):
        raise ValueError(
            f"ckpt:{path}: this is a Stable-Baselines3 model archive, not a "
            f"rummy500 checkpoint: play it with sb3:{path}"
        )
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
        hint = (
            " (an RLlib checkpoint folder? rummy500 train --backend rllib exports "
            "last.pt beside it, which ckpt: plays)"
            if kind == "ckpt"
            else ""
        )
        raise ValueError(f"{kind}:{path}: a folder, not a model file{hint}")
    if not target.is_file():
        raise ValueError(f"{kind}:{path}: no such file")


def python_factory(target: str) -> Callable[[Rules, int], Any]:
    """``py:MODULE:NAME``: the object NAME (dotted inside the module) of MODULE, imported
    from the working folder or the installed packages; a one-line ValueError otherwise."""
    module_name, sep, attribute = target.rpartition(":")
    if not sep or not module_name or not attribute:
        raise ValueError(
            f"py:{target}: name a module and a factory or class, e.g. py:my_bots:make_agent"
        )
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        found: Any = importlib.import_module(module_name)
    except ImportError as e:
        raise ValueError(f"py:{target}: cannot import {module_name!r} ({e})") from None
    except Exception as e:  # the user's module raised while importing
        raise ValueError(
            f"py:{target}: importing {module_name!r} raised {type(e).__name__}: {e}"
        ) from None
    for part in attribute.split("."):
        if not hasattr(found, part):
            raise ValueError(f"py:{target}: module {module_name!r} has no {attribute!r}")
        found = getattr(found, part)
    if not callable(found):
        raise ValueError(
            f"py:{target}: {attribute!r} is a {type(found).__name__}, not a "
            "factory (rules, seed) -> agent or a class"
        )
    return found


def built_by(factory: Callable[[Rules, int], Any], rules: Rules, seed: int, spec: str) -> Agent:
    """The agent ``factory(rules, seed)`` makes, checked: it has ``act``; it gets ``spec`` as
    its name when it has none; its answers are checked at every decision
    (``rummy500.agents.checked``)."""
    try:
        agent = factory(rules, seed)
    except (Exception, SystemExit) as e:  # the user's code
        raise ValueError(f"{spec}: making the agent raised {type(e).__name__}: {e}") from None
    if not callable(getattr(agent, "act", None)):
        raise ValueError(
            f"{spec}: made a {type(agent).__name__}, which is no agent (an agent "
            "has act(decision) -> one action id per game)"
        )
    if not isinstance(getattr(agent, "name", None), str):
        try:
            agent.name = spec
        except AttributeError:
            raise ValueError(f"{spec}: the agent has no name and takes none") from None
    return checked(agent)


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
        raise ValueError(
            f"cmd:{command}: no program {argv[0]!r} (not on PATH, or not an executable file)"
        )


def timeout_seconds(text: str | None, default: float) -> float:
    """A positive number of seconds from an option's text, at most ``MAX_TIMEOUT``."""
    from rummy500.agents.process_agent import MAX_TIMEOUT

    if text is None:
        return default
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= MAX_TIMEOUT:
        raise ValueError(
            f"cmd: timeout={text[:40]} must be a number of seconds above 0 and "
            f"at most {MAX_TIMEOUT:g}"
        )
    return value
