"""Every ``>>>`` example in the package's docstrings runs and gives what it shows.

The modules are imported by their installed names (``rummy500.agents.sharp``,
not ``agents.sharp`` from the folder), so the examples run against the package a user gets.
"""

from __future__ import annotations

import doctest
import importlib

import pytest
from package_layout import module_name, source_files

MODULES = [
    module_name(path) for path in source_files() if ">>>" in path.read_text(encoding="utf-8")
]


def test_some_modules_hold_examples() -> None:
    assert len(MODULES) >= 10


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner(verbose=False)
    failures = []
    for test in finder.find(module, name):
        result = runner.run(test, out=failures.append)
        assert result.attempted or not test.examples
    assert runner.failures == 0, "".join(failures)
