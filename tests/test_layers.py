"""The layers of the tree: every import points down (engine < envs < players < ...).

Walks every module's import statements, function-local ones included, and
fails on an arrow that points up or sideways into a layer it may not use.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("rummy_env", "agents", "train", "eval")

# Layer of a project module, found by the longest matching prefix; lowest first.
LAYERS = {
    "rummy_env.core": 0,        # the engine
    "rummy_env.reference": 1,   # the rule book in code
    "rummy_env": 2,             # the package's front door (env ids) and config reading
    "rummy_env.config": 2,
    "rummy_env.envs": 2,        # the interfaces
    "agents": 3,                # players
    "eval": 4,                  # measurement
    "train": 5,                 # learning
    "rummy_env.tools": 6,       # programs: may import everything
    "rummy_env.web": 6,         # the browser table, a program too
    "rummy_env.scenario": 6,
}
LAYER_NAMES = ["engine", "reference", "interfaces", "players", "evaluation", "training",
               "programs"]
# What each layer may import from outside the project (besides the standard library).
THIRD_PARTY = {
    0: {"numpy"},
    1: {"numpy"},
    2: {"numpy", "gymnasium", "pettingzoo", "yaml"},
    3: {"numpy", "torch"},
    4: {"numpy", "torch", "tqdm", "matplotlib"},
    5: {"numpy", "torch", "tqdm", "matplotlib", "yaml", "ray", "gymnasium", "pettingzoo",
        "tensorboard"},
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


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


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


def project_files() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


@pytest.mark.parametrize("path", project_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_point_down(path: Path) -> None:
    own = layer_of(module_name(path))
    assert own is not None, f"{path}: module belongs to no layer; add it to LAYERS"
    wrong = []
    for line, target in imports_of(path):
        top = target.split(".")[0]
        if top in PACKAGES:
            other = layer_of(target)
            if other is None or other > own or other in FORBIDDEN.get(own, ()):
                wrong.append(f"line {line}: {LAYER_NAMES[own]} imports {target} "
                             f"({'unknown' if other is None else LAYER_NAMES[other]})")
        elif top not in sys.stdlib_module_names and top != "__future__":
            allowed = THIRD_PARTY[own]
            if allowed is not None and top not in allowed:
                wrong.append(f"line {line}: {LAYER_NAMES[own]} imports {top}")
    assert not wrong, f"{path.relative_to(ROOT)}: " + "; ".join(wrong)


def test_the_check_resolves_relative_imports() -> None:
    """The walker resolves relative imports, so an upward one cannot hide."""
    module = ROOT / "rummy_env" / "core" / "masks.py"
    assert ("rummy_env.core.state" in {t for _, t in imports_of(module)})
    assert layer_of("rummy_env.envs.aec") > layer_of("rummy_env.core.masks")
    assert layer_of("rummy_env.tools.cli") == len(LAYER_NAMES) - 1
