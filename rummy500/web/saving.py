"""Saving a finished game's record to disk so that no stop of the server can lose or tear it."""

from __future__ import annotations

import os
from pathlib import Path

from rummy_env.core import GameRecord
from rummy_env.core.records import write_whole


def save_record(directory: str | Path, name: str, record: GameRecord) -> Path:
    """Write ``record`` as ``directory/name`` (one JSON line, the ``play --record`` format),
    whole or not at all (``write_whole``), and flush the folder's entry of it."""
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    final = write_whole(folder / name, (record.to_json() + "\n").encode("utf-8"))
    _sync_folder(folder)
    return final


def _sync_folder(folder: Path) -> None:
    """Flush the folder entry of the renamed file (a no-op where folders cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
