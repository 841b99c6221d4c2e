"""Saving a finished game's record to disk so that no stop of the server can lose or tear it."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from rummy_env.core import GameRecord, write_records


def save_record(directory: str | Path, name: str, record: GameRecord) -> Path:
    """Write ``record`` as ``directory/name`` (one JSON line, the ``play --record`` format).

    The line goes to a temporary file in the same folder, is flushed to disk and
    then renamed over the final name, so the file is either absent or whole.
    """
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".saving-", suffix=".jsonl", dir=folder)
    os.close(fd)
    try:
        write_records(tmp, [record], append=False)
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        final = folder / name
        os.replace(tmp, final)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
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
