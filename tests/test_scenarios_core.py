"""Every scenario (shared conformance suite and our own rule cases) through the core's harness."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from scenario_support import CONFORMANCE, OWN_SCENARIOS, check_expect, load, scenario_files

from rummy_env.scenario import run_scenario


def test_conformance_folder_present() -> None:
    if not scenario_files(CONFORMANCE):
        pytest.skip(f"shared conformance scenarios not found at {CONFORMANCE} (a user's clone)")


@pytest.mark.parametrize("path", scenario_files(CONFORMANCE), ids=lambda p: p.stem)
def test_conformance_scenario(path: Path) -> None:
    scenario = load(path)
    check_expect(run_scenario(scenario), scenario["expect"])


@pytest.mark.parametrize("path", scenario_files(OWN_SCENARIOS), ids=lambda p: p.stem)
def test_own_rule_scenario(path: Path) -> None:
    scenario = load(path)
    check_expect(run_scenario(scenario), scenario["expect"])


def test_own_scenarios_exist() -> None:
    assert len(scenario_files(OWN_SCENARIOS)) >= 30


def _harness(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "rummy_env.scenario", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_harness_cli_prints_the_documented_json() -> None:
    path = OWN_SCENARIOS / "known_cards_follow_play.json"
    done = _harness(path)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    for key in (
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
    ):
        assert key in out
    check_expect(out, load(path)["expect"])


def test_harness_reports_illegal_action_and_exits_zero(tmp_path: Path) -> None:
    scenario = load(OWN_SCENARIOS / "known_cards_follow_play.json")
    scenario["actions"] = ["take 4", "discard KD"]
    path = tmp_path / "illegal.json"
    path.write_text(json.dumps(scenario))
    done = _harness(path)
    assert done.returncode == 0
    error = json.loads(done.stdout)["error"]
    assert error["index"] == 1 and error["action"] == "discard KD"
    assert "meld 9C 9H 9S" in error["message"]


MALFORMED = {
    "not_json": "{ this is not json",
    "not_an_object": "[1, 2, 3]",
    "unknown_card": json.dumps({"hands": [["9X"], ["2C"]], "stock": [], "discard": ["3D"]}),
    "card_twice_one_deck": json.dumps({"hands": [["9C"], ["9C"]], "discard": ["3D"]}),
    "unknown_rule_key": json.dumps({"rules": {"colour": "red"}, "hands": [[], []]}),
    "bad_meld": json.dumps(
        {
            "hands": [["2C"], ["3C"]],
            "discard": ["4D"],
            "melds": [{"cards": ["5H", "6H", "8H"], "by": [0, 0, 0]}],
        }
    ),
    "actions_not_texts": json.dumps(
        {"hands": [["2C"], ["3C"]], "discard": ["4D"], "actions": [1, 2]}
    ),
}


@pytest.mark.parametrize("name", MALFORMED)
def test_malformed_scenario_exits_nonzero_with_one_line(name: str, tmp_path: Path) -> None:
    path = tmp_path / f"{name}.json"
    path.write_text(MALFORMED[name])
    done = _harness(path)
    assert done.returncode != 0
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("scenario error:"), done.stderr
