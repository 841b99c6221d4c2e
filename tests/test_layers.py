"""The layers of the tree: every import points down (engine < envs < players < ...).

Walks every module's import statements, function-local ones included, and
fails on an arrow that points up or sideways into a layer it may not use.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest
from package_layout import ROOT, TOP_LEVEL, module_name, source_files

# Layer of a project module, found by the longest matching prefix; lowest first.
LAYERS = {
    "rummy_env.core": 0,  # the engine
    "rummy_env.reference": 1,  # the rule book in code
    "rummy_env": 2,  # the package's front door (env ids) and config reading
    "rummy_env.config": 2,
    "rummy_env.envs": 2,  # the interfaces
    "rummy_env.scenario": 2,  # the conformance harness runs the engine alone
    "rummy500.agents": 3,  # players
    "rummy500.configs": 3,  # recipes and rules files (data)
    "rummy500.eval": 4,  # measurement
    "rummy500.train": 5,  # learning
    "rummy500": 6,  # programs: may import everything
}
LAYER_NAMES = ["engine", "reference", "interfaces", "players", "evaluation", "training", "programs"]
# What each layer may import from outside the project (besides the standard library).
THIRD_PARTY = {
    0: {"numpy"},
    1: {"numpy"},
    2: {"numpy", "gymnasium", "pettingzoo", "yaml"},
    3: {"numpy", "torch", "sb3_contrib"},  # sb3_contrib: only for sb3: specs, imported then
    4: {"numpy", "torch", "tqdm", "matplotlib", "ray"},  # ray: only for --ray matches
    5: {
        "numpy",
        "torch",
        "tqdm",
        "matplotlib",
        "yaml",
        "ray",
        "gymnasium",
        "pettingzoo",
        "tensorboard",
    },
    6: None,  # anything
}
# Players may not use the interfaces, measurement may not use the interfaces either:
# the arena runs on the engine.
FORBIDDEN = {3: {2}, 4: {2}}


def layer_of(module: str) -> int | None:
    parts = module.split(".")
    for i in range(len(parts), 0, -1):
        prefix = ".".join(parts[:i])
        if prefix in LAYERS:
            return LAYERS[prefix]
    return None


def imports_of(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module) for every import in the file."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append((node.lineno, target))
    return found


@pytest.mark.parametrize("path", source_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_point_down(path: Path) -> None:
    own = layer_of(module_name(path))
    assert own is not None, f"{path}: module belongs to no layer; add it to LAYERS"
    wrong = []
    for line, target in imports_of(path):
        top = target.split(".")[0]
        if top in TOP_LEVEL:
            other = layer_of(target)
            if other is None or other > own or other in FORBIDDEN.get(own, ()):
                wrong.append(
                    f"line {line}: {LAYER_NAMES[own]} imports {target} "
                    f"({'unknown' if other is None else LAYER_NAMES[other]})"
                )
        elif top not in sys.stdlib_module_names and top != "__future__":
            allowed = THIRD_PARTY[own]
            if allowed is not None and top not in allowed:
                wrong.append(f"line {line}: {LAYER_NAMES[own]} imports {top}")
    assert not wrong, f"{path.relative_to(ROOT)}: " + "; ".join(wrong)


def test_the_check_resolves_relative_imports() -> None:
    """The walker resolves relative imports, so an upward one cannot hide."""
    module = ROOT / "rummy_env" / "core" / "masks.py"
    assert "rummy_env.core.state" in {t for _, t in imports_of(module)}
    assert layer_of("rummy_env.envs.aec") > layer_of("rummy_env.core.masks")
    assert layer_of("rummy500.cli") == len(LAYER_NAMES) - 1


def test_the_engine_contract_is_small_and_documented() -> None:
    """``rummy_env.core.__all__``: at most about 60 names, each with a docstring of its own
    (functions, classes) or named in the contract's listing (constants)."""
    import rummy_env.core as core

    assert len(core.__all__) <= 60
    listing = core.__doc__
    for name in core.__all__:
        obj = getattr(core, name)
        if callable(obj):
            assert (obj.__doc__ or "").strip(), f"{name} has no docstring"
        assert f"``{name}``" in listing, f"{name} is missing from the contract's listing"


ENGINE = "rummy_env.core"


def private_engine_imports(source: str, module: str) -> list[str]:
    """'line n: name' for each of the engine's private modules (``rummy_env.core._*``)
    that the source of ``module`` imports, in any form (``import``, ``from ... import``,
    relative)."""
    package = module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            names = [f"{target}.{alias.name}" for alias in node.names]
        for name in names:
            parts = name.split(".")
            if name.startswith(ENGINE + ".") and parts[2].startswith("_"):
                found.append(f"line {node.lineno}: {'.'.join(parts[:3])}")
    return list(dict.fromkeys(found))


@pytest.mark.parametrize(
    "path",
    [p for p in source_files() if not (module_name(p) + ".").startswith(ENGINE + ".")],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_only_the_engine_imports_its_private_modules(path: Path) -> None:
    """The table cache and the one-game path (``rummy_env.core._*``) are the engine's
    own: everything above drives games through ``rummy_env.core.Games``."""
    wrong = private_engine_imports(path.read_text(), module_name(path))
    assert not wrong, f"{path.relative_to(ROOT)}: " + "; ".join(wrong)


def test_the_private_import_check_sees_every_form() -> None:
    """Each way of naming a private module is caught; the public contract is not."""
    caught = private_engine_imports(
        "from rummy_env.core._table_cache import TableCache\n"
        "from rummy_env.core import _one_game, Games\n"
        "import rummy_env.core._one_game.kept\n"
        "from ..core._one_game import OneGameMask\n"
        "from rummy_env.core import Games, legal_mask\n",
        "rummy_env.envs.vector",
    )
    assert caught == [
        "line 1: rummy_env.core._table_cache",
        "line 2: rummy_env.core._one_game",
        "line 3: rummy_env.core._one_game",
        "line 4: rummy_env.core._one_game",
    ]
    assert private_engine_imports(
        "from rummy_env.core._one_game import OneGameMask, OneGameObserver\n", "rummy500.web.live"
    ) == ["line 1: rummy_env.core._one_game"]
