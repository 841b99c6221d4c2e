"""MkDocs hook: lay out the import names for the API reference before the build.

The repository keeps its fixed folders (``agents/``, ``train/``, ...) beside the
top-level ``rummy500/`` and pyproject.toml maps them under it (``rummy500.agents``, ...). The
reference generator reads sources by import name from folders, so this hook
mirrors the mapping as links under ``build/api_sources`` (one link per folder, a
real folder only where a package holds mapped subpackages) and the Python handler
reads from there.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # the [test] extra installs tomli on Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
TREE = ROOT / "build" / "api_sources"


def lay_out() -> None:
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    mapping = {name: name for name in setuptools["packages"] if "." not in name}
    mapping |= setuptools["package-dir"]
    shutil.rmtree(TREE, ignore_errors=True)
    for name, folder in sorted(mapping.items()):
        target = TREE.joinpath(*name.split("."))
        holds_mapped = any(other.startswith(name + ".") for other in mapping)
        target.parent.mkdir(parents=True, exist_ok=True)
        if holds_mapped:  # its own files one by one, beside the mapped subpackages
            target.mkdir()
            for entry in (ROOT / folder).iterdir():
                if entry.name != "__pycache__":
                    (target / entry.name).symlink_to(entry)
        else:
            target.symlink_to(ROOT / folder, target_is_directory=True)


def on_startup(command: str, dirty: bool) -> None:  # noqa: ARG001 - the hook's signature
    lay_out()
