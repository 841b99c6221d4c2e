"""The rules an ``sb3:`` model was trained under, stamped into its archive.

Two rule sets can give a model the same spaces (``web`` and ``standard`` do), so the
spaces alone cannot tell a model trained on the wrong game. ``stamp_rules(path, rules)``
writes the rules and the observation version into the model's zip as one small JSON
entry, which Stable-Baselines3 ignores on load; ``sb3:PATH`` then refuses, in one line, a
match under other rules. An archive without the stamp is checked by its spaces only.

>>> import zipfile, tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "model.zip")
>>> zipfile.ZipFile(path, "w").close()
>>> stamp_rules(path, Rules.preset_named("web"))
>>> print(rules_mismatch(path, Rules()))  # doctest: +ELLIPSIS
it was trained under other rules: low_ace_value 15 (here 1), ace_high False (here True), ...
>>> rules_mismatch(path, Rules.preset_named("web")) is None
True
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

from rummy_env.core import OBS_VERSION, Rules

STAMP = "rummy500_rules.json"
"""The archive entry that holds the rules and the observation version."""


def stamp_rules(path: str | Path, rules: Rules) -> None:
    """Write ``rules`` and the observation version into the model archive at ``path``
    (after ``model.save(path)``), replacing an earlier stamp."""
    stamp = json.dumps({"rules": rules.to_dict(), "obs_version": OBS_VERSION}, sort_keys=True)
    with zipfile.ZipFile(path) as archive:
        if STAMP not in archive.namelist():
            with zipfile.ZipFile(path, "a") as out:
                out.writestr(STAMP, stamp)
            return
        entries = {name: archive.read(name) for name in archive.namelist() if name != STAMP}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for name, data in entries.items():
            out.writestr(name, data)
        out.writestr(STAMP, stamp)


def read_stamp(path: str | Path) -> dict[str, Any] | None:
    """The stamp of the archive at ``path``, None when it has none."""
    with zipfile.ZipFile(path) as archive:
        if STAMP not in archive.namelist() or archive.getinfo(STAMP).file_size > 64_000:
            return None
        return json.loads(archive.read(STAMP))


def rules_mismatch(path: str | Path, rules: Rules) -> str | None:
    """What differs between the rules stamped in the archive and ``rules``; None when they
    agree or the archive carries no stamp."""
    stamp = read_stamp(path)
    if stamp is None:
        return None
    if stamp.get("obs_version") != OBS_VERSION:
        return (
            f"it was trained on observation version {stamp.get('obs_version')}, this "
            f"version of the project encodes version {OBS_VERSION}"
        )
    try:
        trained = Rules.from_dict(stamp["rules"])
    except (KeyError, TypeError, ValueError) as e:
        return f"its rules stamp cannot be read ({e})"
    if trained == rules:
        return None
    mine, theirs = rules.to_dict(), trained.to_dict()
    differ = [f"{k} {theirs[k]} (here {mine[k]})" for k in mine if mine[k] != theirs[k]]
    return f"it was trained under other rules: {', '.join(differ)}"
