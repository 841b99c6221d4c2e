"""Agents by spec: ``make_agent(spec, rules, seed)`` for every program, the arena and training.

Built in (``BUILTIN``, weakest first): ``random``, ``casual``, ``sharp``, ``champion``
(the trained policy that ships with the package) and ``expert`` (with a search budget:
``expert:worlds=16,horizon=30``, ``rummy500.agents.expert``), each release of the last
two also by its number (``champion@1``, ``expert@1``: published numbers name these).
From outside the project:

* ``ckpt:PATH``: a policy trained here, from its checkpoint, played greedily;
* ``py:MODULE:NAME``: NAME in MODULE (the working folder or an installed package) is
  a factory ``(rules, seed) -> agent`` or a class taking ``(rules, seed)``;
* an installed plug-in's name: a package whose entry point in the group
  ``rummy500.agents`` names its factory;
* ``sb3:PATH`` (``sb3[sample]:PATH``): a MaskablePPO model trained on ``Rummy500-v1``;
* ``cmd:COMMAND`` (``cmd[timeout=S]:COMMAND``): a process in any language speaking the
  JSON-lines protocol of ``rummy500.agents.process_agent``.

How each outside form is read and loaded is ``rummy500.agents.outside``.

A spec is read once, by ``describe``, into an ``AgentSpec``: its kind and what making
it needs. ``check_spec`` and ``make_agent`` take that description (or the text, and
describe it) and look its kind up in ``KINDS``: a new kind of spec is one branch of
``describe`` and one ``Kind`` there.

The ``oracle`` sees hidden cards, so it is no agent: ``describe`` knows its spec, the
arena's programs build it (``rummy500.eval.oracle``), and every other program refuses
it here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

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


def _expert(rules: Rules, seed: int) -> Agent:
    from rummy500.agents.expert import make_expert

    return make_expert("", rules, seed)


@dataclass(frozen=True)
class BuiltIn:
    """A built-in agent: how it is made, and what it is."""

    make: Callable[[Rules, int], Agent]
    """Its factory ``(rules, seed) -> agent``."""
    kind: str
    """``heuristic`` (rules of thumb, fast), ``trained`` (a shipped network: only under the
    rules it was trained for) or ``search`` (play-outs, under any rules)."""


BUILTIN: dict[str, BuiltIn] = {
    "random": BuiltIn(_random, "heuristic"),
    "casual": BuiltIn(_casual, "heuristic"),
    "sharp": BuiltIn(_sharp, "heuristic"),
    "champion": BuiltIn(_champion, "trained"),
    "expert": BuiltIn(_expert, "search"),
}
"""The built-in agents by name, weakest first: the one list every program offers."""

HEURISTICS = tuple(name for name, agent in BUILTIN.items() if agent.kind == "heuristic")
"""The rule-of-thumb agents, weakest first."""

ANY_RULES = tuple(name for name, agent in BUILTIN.items() if agent.kind != "trained")
"""The built-in agents that play under every rule set, weakest first."""

SPEC_FORMS = (
    ", ".join(BUILTIN) + ", expert:OPTIONS, champion@N, expert@N, ckpt:PATH, "
    "py:MODULE:NAME, sb3:PATH, "
    "cmd:COMMAND, or an installed plug-in's name"
)
"""Every form an agent spec takes, for the programs' help texts."""

NO_ORACLE = "oracle: sees hidden cards, so only rummy500 eval and rummy500 ladder accept it"
"""Why a program outside the arena refuses the oracle."""


RELEASED = re.compile(r"^(champion|expert)@(\d+)$", re.I)
"""``champion@N`` and ``expert@N``: release N of the champion, and the expert (default
budget) guided by it; they stay playable when a later release ships."""


@dataclass(frozen=True)
class AgentSpec:
    """One agent spec, read: the kind of agent it names and what making it needs."""

    text: str
    """The spec as written (stripped): the name of an agent that has none of its own."""
    kind: str
    """``builtin``, ``expert`` (with a budget), ``release``, ``plugin``, ``oracle``, or an
    outside kind: ``ckpt``, ``py``, ``sb3``, ``cmd``."""
    name: str = ""
    """The built-in's or plug-in's name, or ``champion``/``expert`` of a release."""
    version: int = 0
    """The release of ``champion@N`` and ``expert@N``."""
    options: Any = None
    """The expert's ``ExpertBudget``, the oracle's option text, an outside kind's options
    (``cmd``: ``timeout`` in seconds) or a plug-in's entry point."""
    target: str = ""
    """An outside kind's path, module or command."""

    @property
    def searches(self) -> bool:
        """Whether the agent searches at each decision (the expert, of any budget or
        release, and the oracle): far costlier a decision than the other built-ins."""
        return self.kind in ("expert", "oracle") or self.name == "expert"


def describe(spec: str, forms: str = SPEC_FORMS) -> AgentSpec:
    """``spec`` read into an ``AgentSpec``; a one-line ``ValueError`` for a name nobody knows
    (listing ``forms``), a release that does not exist or options that do not parse."""
    text = spec.strip()
    outside = outside_spec(text)
    if outside is not None:
        kind, options, target = outside
        if kind == "cmd":
            from rummy500.agents.process_agent import DEFAULT_TIMEOUT

            options = {"timeout": timeout_seconds(options.get("timeout"), DEFAULT_TIMEOUT)}
        return AgentSpec(text, kind, options=options, target=target)
    name = text.lower()
    release = RELEASED.match(text)
    if release is not None:
        from rummy500.agents.champion import champion_versions

        version = int(release.group(2))
        if version not in champion_versions():
            raise ValueError(
                f"{text}: no such release (releases: {', '.join(map(str, champion_versions()))})"
            )
        return AgentSpec(text, "release", release.group(1).lower(), version)
    if name == "oracle" or name.startswith("oracle:"):
        return AgentSpec(text, "oracle", options=text[len("oracle:") :])
    if name.startswith("expert:"):
        from rummy500.agents.expert import ExpertBudget

        return AgentSpec(text, "expert", options=ExpertBudget.parse(text[len("expert:") :]))
    if name in BUILTIN:
        return AgentSpec(text, "builtin", name)
    entry = plugins().get(name)
    if entry is None:
        raise ValueError(f"unknown agent {spec!r}; known: {forms}")
    return AgentSpec(text, "plugin", name, options=entry)


@dataclass(frozen=True)
class Kind:
    """What a kind of spec does: its checks before any work, and the making."""

    check: Callable[[AgentSpec], None]
    """Raise a one-line ``ValueError`` unless the agent can be made (loading nothing)."""
    make: Callable[[AgentSpec, Rules, int], Agent]
    """The agent, under ``rules`` with ``seed``."""


def _ready(spec: AgentSpec) -> None:
    """Nothing to check past ``describe``."""


def _refuse_oracle(spec: AgentSpec, *_: Any) -> Agent:
    raise ValueError(NO_ORACLE)


def _make_expert(spec: AgentSpec, rules: Rules, seed: int) -> Agent:
    from rummy500.agents.expert import ExpertAgent

    return ExpertAgent(rules, seed, spec.options)


def _make_release(spec: AgentSpec, rules: Rules, seed: int) -> Agent:
    if spec.name == "champion":
        from rummy500.agents.champion import make_champion

        return make_champion(rules, seed, spec.version)
    from rummy500.agents.expert import make_expert

    expert = make_expert("", rules, seed, champion=spec.version)
    expert.name = f"expert@{spec.version}"
    return expert


def _make_plugin(spec: AgentSpec, rules: Rules, seed: int) -> Agent:
    try:
        factory = spec.options.load()
    except Exception as e:  # the plug-in's own import failed
        raise ValueError(
            f"{spec.text}: the plug-in {spec.options.value!r} cannot be loaded "
            f"({type(e).__name__}: {e})"
        ) from None
    return built_by(factory, rules, seed, spec.text)


def _check_model_file(spec: AgentSpec) -> None:
    check_file(spec.target, spec.kind)


def _make_checkpoint(spec: AgentSpec, rules: Rules, seed: int) -> Agent:
    return load_checkpoint_agent(spec.target, rules, seed)


def _look_up_factory(spec: AgentSpec) -> None:
    python_factory(spec.target)


def _make_from_factory(spec: AgentSpec, rules: Rules, seed: int) -> Agent:
    return built_by(python_factory(spec.target), rules, seed, spec.text)


def _make_sb3(spec: AgentSpec, rules: Rules, seed: int) -> Agent:
    from rummy500.agents.sb3_agent import SB3Agent

    return SB3Agent(spec.target, rules, seed, sample="sample" in spec.options)


def _find_program(spec: AgentSpec) -> None:
    check_command(spec.target)


def _make_process(spec: AgentSpec, rules: Rules, seed: int) -> Agent:
    from rummy500.agents.process_agent import ProcessAgent

    return ProcessAgent(spec.target, rules, seed, timeout=spec.options["timeout"])


def _make_builtin(spec: AgentSpec, rules: Rules, seed: int) -> Agent:
    return BUILTIN[spec.name].make(rules, seed)


KINDS: dict[str, Kind] = {
    "builtin": Kind(_ready, _make_builtin),
    "expert": Kind(_ready, _make_expert),
    "release": Kind(_ready, _make_release),
    "plugin": Kind(_ready, _make_plugin),
    "oracle": Kind(_refuse_oracle, _refuse_oracle),
    "ckpt": Kind(_check_model_file, _make_checkpoint),
    "py": Kind(_look_up_factory, _make_from_factory),
    "sb3": Kind(_check_model_file, _make_sb3),
    "cmd": Kind(_find_program, _make_process),
}
"""Each kind of spec ``describe`` reads: how it is checked and made."""


def check_spec(spec: str | AgentSpec, forms: str = SPEC_FORMS) -> None:
    """Raise ``ValueError`` (one line) unless ``spec`` names an agent, before any work
    starts: names, options and files are checked and a ``py:`` factory is looked up, but
    nothing is built or loaded. ``forms`` is what the complaint about an unknown name lists."""
    described = describe(spec, forms) if isinstance(spec, str) else spec
    KINDS[described.kind].check(described)


def make_agent(spec: str | AgentSpec, rules: Rules, seed: int = 0) -> Agent:
    """The agent ``spec`` names (its text, or its description), checked first."""
    described = describe(spec) if isinstance(spec, str) else spec
    kind = KINDS[described.kind]
    kind.check(described)
    return kind.make(described, rules, seed)
