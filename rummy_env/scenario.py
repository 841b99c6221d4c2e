"""The conformance harness: play a scenario file through the vectorized core.

    python -m rummy_env.scenario FILE.json      (or: rummy500 scenario FILE.json)

prints the result as JSON (format: docs/rules.md, "Scenario positions"). It exits 0
when it ran the scenario, even if an action was illegal (reported in ``error``), and 2
with a one-line reason on stderr when the file itself is malformed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

from rummy_env.config import read_config_text
from rummy_env.core import (
    PositionError,
    action_layout,
    from_position,
    legal_mask,
    legal_texts,
    snapshot,
    step_inplace,
)

OUTPUT_KEYS = (
    "steps",
    "legal",
    "error",
    "to_play",
    "hands",
    "discard",
    "stock_size",
    "melds",
    "hand_over",
    "hand_scores",
    "totals",
    "game_over",
    "winner",
)


def run_scenario(scenario: dict[str, Any]) -> dict[str, Any]:
    """Play ``scenario["actions"]`` from its position; the harness output as a dict."""
    rules, state = from_position(scenario)
    actions = scenario.get("actions", [])
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise PositionError("actions must be a list of action texts")
    action_ids = action_layout(rules)
    steps: list[dict[str, Any]] = []
    error = None
    for i, text in enumerate(actions):
        mask = legal_mask(rules, state)
        legal = legal_texts(rules, state, 0, mask)
        steps.append({"action": text, "legal": legal})
        try:
            action = action_ids.parse(text)
            if not mask[0, action]:
                raise ValueError(f"{action_ids.text(action)!r} is not legal now; legal: {legal}")
        except ValueError as e:
            error = {"index": i, "action": text, "message": str(e)}
            break
        step_inplace(rules, state, np.array([action]), auto_deal=False, mask=mask)
    # The documented keys first, then the rest of the snapshot (phase, known cards...).
    snap = snapshot(rules, state, 0)
    out: dict[str, Any] = {"steps": steps, "error": error}
    out.update({k: snap[k] for k in OUTPUT_KEYS if k in snap})
    out.update({k: v for k, v in snap.items() if k not in out})
    return out


def load_scenario(path: str | Path) -> dict[str, Any]:
    """Read a scenario file; PositionError with a one-line reason if it is not usable JSON."""
    try:
        data = json.loads(read_config_text(path, "scenario"))
    except OSError as e:
        raise PositionError(f"cannot read {path}: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise PositionError(f"{path} is not valid JSON: {e.msg} at line {e.lineno}") from None
    except RecursionError:
        raise PositionError(f"{path} nests its JSON too deeply to be a scenario") from None
    except ValueError as e:  # too large, not UTF-8
        raise PositionError(str(e)) from None
    if not isinstance(data, dict):
        raise PositionError(f"{path} must hold a JSON object")
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="rummy500 scenario",
        description="Set up an exact position from a scenario JSON file, play its actions "
        "through the vectorized core and print the result as JSON.",
    )
    parser.add_argument("file", help="scenario file (format: docs/rules.md, 'Scenario positions')")
    args = parser.parse_args(argv)
    try:
        result = run_scenario(load_scenario(args.file))
    except (PositionError, NotImplementedError) as e:
        print(f"scenario error: {e}", file=sys.stderr)
        return 2
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # the reader left early (``| head``): end quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
