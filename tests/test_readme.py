"""The README and the documentation site: the examples run as written, the site builds.

Every ```python block of the README runs; in the README and the docs, every block
marked runnable (a line ``<!-- runnable -->`` just above it) runs too, from an empty
folder with the package installed. ``mkdocs build --strict`` fails on a broken link
or reference.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
PAGES = sorted((ROOT / "docs").rglob("*.md"))
BLOCKS = re.findall(r"```python\n(.*?)```", README, flags=re.S)
RUNNABLE = [
    (path, kind, code)
    for path in [ROOT / "README.md", *PAGES]
    for kind, code in re.findall(
        r"<!-- runnable -->\n```(bash|python)\n(.*?)```", path.read_text(), flags=re.S
    )
]


def test_the_readme_is_a_front_door() -> None:
    assert len(README.splitlines()) <= 250
    assert len(BLOCKS) >= 4
    for page in re.findall(r"\]\((docs/[^)#]+)", README):
        assert (ROOT / page).is_file(), page


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_example_runs(code: str, tmp_path: Path) -> None:
    script = tmp_path / "example.py"
    script.write_text(code)
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]


def test_some_blocks_of_the_docs_are_runnable() -> None:
    assert len(RUNNABLE) >= 5


@pytest.mark.parametrize(
    ("path", "kind", "code"),
    RUNNABLE,
    ids=[f"{p.relative_to(ROOT)}-{i}" for i, (p, _, _) in enumerate(RUNNABLE)],
)
def test_a_runnable_block_runs(path: Path, kind: str, code: str, tmp_path: Path) -> None:
    command = [sys.executable, "-c", code] if kind == "python" else ["bash", "-ec", code]
    path_with_ours = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
        env={**os.environ, "PATH": path_with_ours},
    )
    assert done.returncode == 0, f"{path.name}:\n{code}\n{done.stderr[-3000:]}"


def test_the_docs_speak_only_of_this_repository() -> None:
    for page in [ROOT / "README.md", *PAGES]:
        text = page.read_text()
        for outside in (
            "../shared",
            "RULES.md",
            "conformance/",
            "seed 000",
            "seed 001",
            "seed 004",
        ):
            assert outside not in text, f"{page.name} names {outside}"
        assert not re.search(r"\b(commit|target) [0-9a-f]{7}\b", text), page.name


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    if shutil.which("mkdocs") is None and not _has_module("mkdocs"):
        pytest.skip("mkdocs is not installed (pip install -e '.[docs]')")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stderr[-5000:]
    built = {
        p.relative_to(tmp_path / "site").as_posix() for p in (tmp_path / "site").rglob("index.html")
    }
    for page in (
        "rules/index.html",
        "envs/gymnasium/index.html",
        "api/index.html",
        "write-an-agent/index.html",
        "results/index.html",
    ):
        assert page in built, page


def _has_module(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


@pytest.mark.parametrize("page", ["envs/gymnasium.md", "envs/pettingzoo.md"])
def test_the_env_pages_give_every_presets_sizes(page: str) -> None:
    from rummy_env.core import Rules, action_layout, observation_size

    number = r" \| ([\d,]+)"
    rows = re.findall(
        rf"^\| (`\w+`(?:, `\w+`)*){number * 4} \|$", (ROOT / "docs" / page).read_text(), flags=re.M
    )
    named = [name for presets, *_ in rows for name in re.findall(r"`(\w+)`", presets)]
    assert sorted(named) == ["jokers", "standard", "tournament", "web"], rows
    for presets, *sizes in rows:
        for name in re.findall(r"`(\w+)`", presets):
            rules = [Rules.preset_named(name, players=p) for p in (2, 3, 4)]
            assert [int(s.replace(",", "")) for s in sizes] == [
                *(observation_size(r) for r in rules),
                action_layout(rules[0]).size,
            ], name


def test_the_protocol_page_types_every_view_key() -> None:
    from rummy500.agents.seat_text import view_data
    from rummy_env.core import Rules, init, player_view

    page = (ROOT / "docs" / "write-an-agent.md").read_text()
    typed = re.findall(r"^\| `(\w+)` \| (?:int|string|list|card|bool)[^|]* \| ", page, flags=re.M)
    rules = Rules()
    data = view_data(rules, player_view(rules, init(rules, seed=0, batch_size=1)), 0)
    assert sorted(typed) == sorted(data), set(typed) ^ set(data)
