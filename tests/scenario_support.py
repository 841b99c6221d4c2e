"""Scenario files and their checks, shared by the tests of both engines.

Scenarios come from two folders: the shared conformance suite
(``../shared/conformance`` and its subfolders such as ``seed004/``, absent on a
user's clone) and this project's own rule cases (``tests/scenarios``). Both use
the format of the conformance README.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

CONFORMANCE = Path(__file__).resolve().parents[1].parent / "shared" / "conformance"
OWN_SCENARIOS = Path(__file__).resolve().parent / "scenarios"


def scenario_files(folder: Path) -> list[Path]:
    """Every scenario file in ``folder`` and its subfolders, sorted."""
    return sorted(folder.rglob("*.json")) if folder.is_dir() else []


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


def check_expect(result: dict[str, Any], expect: dict[str, Any]) -> None:
    """Compare the keys ``expect`` gives; legal lists as sets."""
    for key, want in expect.items():
        if key == "steps":
            assert [s["action"] for s in result["steps"]] == [s["action"] for s in want]
            for got, wanted in zip(result["steps"], want, strict=True):
                assert set(got["legal"]) == set(wanted["legal"]), got["action"]
        elif key == "legal":
            assert set(result["legal"]) == set(want)
        elif key == "legal_includes":
            assert set(want) <= set(result["legal"]), set(want) - set(result["legal"])
        elif key == "legal_excludes":
            assert not set(want) & set(result["legal"]), set(want) & set(result["legal"])
        elif key == "error_index":
            assert result["error"] is not None and result["error"]["index"] == want
        elif key == "error" and want is not None:
            assert result["error"] is not None
            assert {k: result["error"][k] for k in ("index", "action")} == {
                k: want[k] for k in ("index", "action")
            }
        else:
            assert result[key] == want, key


def position(
    hands: list[list[str]],
    stock: list[str],
    discard: list[str],
    actions: list[str],
    expect: dict[str, Any],
    melds: Sequence[tuple[list[str], list[int]]] = (),
    totals: list[int] | None = None,
    to_play: int = 0,
    **rules: Any,
) -> dict[str, Any]:
    """A scenario dict; ``rules`` are flags over the standard preset."""
    return {
        "rules": {"preset": "standard", **rules},
        "hands": hands,
        "stock": stock,
        "discard": discard,
        "melds": [{"cards": cards, "by": by} for cards, by in melds],
        "totals": totals or [0] * len(hands),
        "to_play": to_play,
        "actions": actions,
        "expect": expect,
    }


RUN_5H = (["5H", "6H", "7H"], [1, 1, 1])
HEARTS = ["AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH", "KH"]
