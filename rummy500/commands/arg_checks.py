"""Checks every command makes on its arguments before any work starts.

Argument types for argparse (``positive_int``...), so a bad number is refused
with argparse's one-line message and exit code 2, and checks that an output
path can be written, so that a long run never ends in a crash on its last line.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Callable
from pathlib import Path

from rummy_env.core import check_seed


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


def seed_number(text: str) -> int:
    """A seed: an integer in the engine's one range, 0..2**63-1."""
    try:
        return check_seed(_number(int, text))
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def port_number(text: str) -> int:
    """A TCP port, 0 to 65535 (0: any free one)."""
    value = _number(int, text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a port (0 to 65535)")
    return value


MIN_BOOTSTRAP = 10
"""Fewest bootstrap resamples that give a rating interval at all."""


def bootstrap_count(text: str) -> int:
    """Bootstrap resamples for rating intervals: an integer >= ``MIN_BOOTSTRAP``."""
    value = _number(int, text)
    if value < MIN_BOOTSTRAP:
        raise argparse.ArgumentTypeError(
            f"{value}: intervals need at least {MIN_BOOTSTRAP} resamples"
        )
    return value


def positive_float(text: str) -> float:
    """A finite number > 0."""
    value = _number(float, text)
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text} must be a number above 0")
    return value


def _cannot_create_in(folder: Path) -> str | None:
    """Why no file can be made in ``folder`` (tried for real: permission bits do not bind
    root, and some file systems refuse every new file), or None."""
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as e:
        return f"cannot create files in {folder} ({e.strerror or e})"
    return None


def _problem_at(path: str, problem_of: Callable[[Path], str | None]) -> str | None:
    """``problem_of`` the absolute ``path`` with its links followed; a path that cannot be
    looked at (a folder on the way that may not be entered) is a problem too."""
    try:
        return problem_of(Path(path).resolve())
    except OSError as e:
        return f"cannot reach it ({e.strerror or e})"


def output_file_problem(path: str) -> str | None:
    """Why ``path`` cannot be created or appended to (one line), or None."""
    return _problem_at(path, _file_problem)


def _file_problem(target: Path) -> str | None:
    """``output_file_problem`` of an absolute path with its links followed."""
    if target.is_dir():
        return "is a folder; give a file name"
    folder = target.parent if str(target.parent) else Path(".")
    if folder.exists() and not folder.is_dir():
        return f"{folder} is a file, not a folder"
    if not folder.is_dir():
        return f"folder {folder} does not exist"
    if not target.exists():
        return _cannot_create_in(folder)
    try:
        with open(target, "a"):  # appending nothing changes nothing
            pass
    except OSError as e:
        return f"the file is not writable ({e.strerror or e})"
    return None


def output_dir_problem(path: str) -> str | None:
    """Why ``path`` is not, and cannot be made, a folder to write in (one line), or None."""
    return _problem_at(path, _dir_problem)


def _dir_problem(target: Path) -> str | None:
    """``output_dir_problem`` of an absolute path with its links followed."""
    if target.exists() and not target.is_dir():
        return "exists and is not a folder"
    existing = target
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        return f"{existing} is a file, not a folder"
    return _cannot_create_in(existing)


def check_output_file(parser: argparse.ArgumentParser, path: str | None, flag: str) -> None:
    """Exit with a one-line reason unless ``path`` can be created or appended to."""
    problem = None if path is None else output_file_problem(path)
    if problem:
        parser.error(f"{flag} {path}: {problem}")


def check_output_dir(parser: argparse.ArgumentParser, path: str | None, flag: str) -> None:
    """Exit with a one-line reason unless ``path`` is (or can be made) a writable folder."""
    problem = None if path is None else output_dir_problem(path)
    if problem:
        parser.error(f"{flag} {path}: {problem}")
