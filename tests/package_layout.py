"""The repository's folders and the import names they install as, read from pyproject.toml.

One reading of ``[tool.setuptools]`` serves the layer test, the docstring test
and the packaging test, so a folder added to the mapping is seen by all three.
"""

from __future__ import annotations

import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the test extra installs tomli on Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
_SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
PACKAGES: list[str] = list(_SETUPTOOLS["packages"])
"""Every package the wheel installs."""
TOP_LEVEL = sorted({name.split(".")[0] for name in PACKAGES})
PACKAGE_DIRS: dict[str, Path] = {name: ROOT / name for name in TOP_LEVEL} | {
    name: ROOT / folder for name, folder in _SETUPTOOLS["package-dir"].items()
}
"""Import name of each top-level or mapped package -> its folder in the repository (a
top-level package lives in the folder of its own name)."""


def module_name(path: Path) -> str:
    """The import name of a source file, e.g. ``agents/sharp.py`` -> ``rummy500.agents.sharp``."""
    path = path.resolve()
    best = max(
        (folder for folder in PACKAGE_DIRS.values() if folder in path.parents),
        key=lambda folder: len(folder.parts),
    )
    package = next(name for name, folder in PACKAGE_DIRS.items() if folder == best)
    parts = list(path.relative_to(best).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([package, *parts])


def source_files() -> list[Path]:
    """Every Python file the wheel installs (each mapped folder, without the folders
    mapped to another package inside it)."""
    files = set()
    for name in PACKAGES:
        mapped = max(
            (m for m in PACKAGE_DIRS if name == m or name.startswith(m + ".")), key=len
        )  # the nearest mapped package: the folder is below it
        folder = PACKAGE_DIRS[mapped].joinpath(*name[len(mapped) :].split(".")[1:])
        files |= {p for p in folder.glob("*.py") if module_name(p).startswith(name)}
    return sorted(files)
