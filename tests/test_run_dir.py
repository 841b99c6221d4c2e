"""Run folders are never shared, even by runs started in the same second."""

from __future__ import annotations

from pathlib import Path

from rummy500.train.run_folder import create_run_dir


def test_two_runs_with_one_name_get_two_folders(tmp_path: Path) -> None:
    first = create_run_dir(tmp_path, "exp", 1)
    second = create_run_dir(tmp_path, "exp", 1)
    assert first != second and first.is_dir() and second.is_dir()
    assert first.name.startswith("rummy500__exp__1__")
