"""Checks every command makes on its arguments before any work starts.

Argument types for argparse (``positive_int``...), so a bad number is refused
with argparse's one-line message and exit code 2, and checks that an output
path can be written, so that a long run never ends in a crash on its last line.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path


class CommandParser(argparse.ArgumentParser):
    """argparse with a one-line refusal: ``prog: error: reason (see --help)``, exit code 2."""

    def error(self, message: str):  # noqa: D401 - argparse's hook
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _number(kind: type, text: str) -> int | float:
    try:
        return kind(text)
    except ValueError:
        what = "an integer" if kind is int else "a number"
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None


def positive_int(text: str) -> int:
    """An integer >= 1."""
    value = _number(int, text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1")
    return value


def non_negative_int(text: str) -> int:
    """An integer >= 0."""
    value = _number(int, text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} must be 0 or more")
    return value


MIN_BOOTSTRAP = 10
"""Fewest bootstrap resamples that give a rating interval at all."""


def bootstrap_count(text: str) -> int:
    """Bootstrap resamples for rating intervals: an integer >= ``MIN_BOOTSTRAP``."""
    value = _number(int, text)
    if value < MIN_BOOTSTRAP:
        raise argparse.ArgumentTypeError(
            f"{value}: intervals need at least {MIN_BOOTSTRAP} resamples")
    return value


def positive_float(text: str) -> float:
    """A finite number > 0."""
    value = _number(float, text)
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text} must be a number above 0")
    return value


def check_output_file(parser: argparse.ArgumentParser, path: str | None, flag: str) -> None:
    """Exit with a one-line reason unless ``path`` can be created or appended to."""
    if path is None:
        return
    target = Path(path)
    if target.is_dir():
        parser.error(f"{flag} {path}: is a folder; give a file name")
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        parser.error(f"{flag} {path}: folder {folder} does not exist")
    if target.exists() and not os.access(target, os.W_OK):
        parser.error(f"{flag} {path}: the file is not writable")
    if not target.exists() and not os.access(folder, os.W_OK | os.X_OK):
        parser.error(f"{flag} {path}: cannot create files in {folder}")


def check_output_dir(parser: argparse.ArgumentParser, path: str | None, flag: str) -> None:
    """Exit with a one-line reason unless ``path`` is (or can be made) a writable folder."""
    if path is None:
        return
    target = Path(path)
    if target.exists() and not target.is_dir():
        parser.error(f"{flag} {path}: exists and is not a folder")
    existing = target
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        parser.error(f"{flag} {path}: cannot write in {existing}")
