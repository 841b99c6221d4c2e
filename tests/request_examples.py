"""One real request of the process protocol per preset, as the agent page shows them.

Each example is the first decision of a seeded game of random moves that shows what
its preset adds (a dig, a meld, a call window, a card owed), made by the code that
makes every request. The page's section between the two markers is written from
here, and a test checks that the page still matches what the code makes:

    .venv/bin/python tests/request_examples.py    # rewrites that section of the page
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

from rummy500.agents.seat_text import decision_request
from rummy_env.core import Decision, Rules, init, legal_mask, player_view, sample_legal, step

PAGE = Path(__file__).resolve().parents[1] / "docs" / "write-an-agent.md"
BEGIN, END = "<!-- requests: begin -->", "<!-- requests: end -->"


def _offers(*kinds: str) -> Callable[[dict], bool]:
    return lambda request: {m["text"].split()[0] for m in request["legal"]} >= set(kinds)


def _digs(request: dict) -> bool:
    return any(m["text"].startswith("take") and m["text"] != "take 1" for m in request["legal"])


EXAMPLES: dict[str, tuple[Rules, int, Callable[[dict], bool]]] = {
    "standard": (
        Rules.preset_named("standard"),
        1,
        lambda r: _digs(r) and any(r["view"]["known_cards"]),
    ),
    "web": (Rules.preset_named("web"), 1, _offers("meld", "layoff", "discard")),
    "jokers": (Rules.preset_named("jokers"), 1, lambda r: r["view"]["phase"] == "call"),
    "tournament": (
        Rules.preset_named("tournament", players=4),
        1,
        lambda r: r["view"]["owed"] is not None and r["view"]["phase"] == "play",
    ),
}
"""preset: (its rules, the game's seed, which decision to show)."""


def example_request(preset: str) -> dict:
    """The first request of the preset's seeded random game that its predicate picks."""
    rules, seed, wanted = EXAMPLES[preset]
    state, rng = init(rules, seed, batch_size=1), np.random.default_rng(seed)
    while not state.game_over[0]:
        mask = legal_mask(rules, state)
        request = decision_request(Decision(rules, mask, player_view(rules, state)), 0)
        if wanted(request):
            return request
        state = step(rules, state, sample_legal(mask, rng))
    raise ValueError(f"{preset}: the seeded game has no decision to show; change its seed")


def request_json(request: dict) -> str:
    """The request as valid JSON laid out to read: a line per legal move and view key."""
    legal = ",\n".join(f"   {json.dumps(move)}" for move in request["legal"])
    view = ",\n".join(f"   {json.dumps(k)}: {json.dumps(v)}" for k, v in request["view"].items())
    return (
        f'{{"protocol": {json.dumps(request["protocol"])}, "seat": {request["seat"]},\n'
        f' "legal": [\n{legal}\n ],\n "view": {{\n{view}\n }},\n'
        f' "text": {json.dumps(request["text"])}}}'
    )


def section() -> str:
    """The page's section of examples, markers included."""
    parts = [BEGIN]
    for preset, (rules, seed, _) in EXAMPLES.items():
        request = example_request(preset)
        parts += [
            f"### Preset `{preset}`",
            "",
            f"A {rules.players}-player game, seed {seed}, seat {request['seat']} in "
            f"phase `{request['view']['phase']}`. The request (sent as one line, laid out "
            "here to read):",
            "",
            "```json",
            request_json(request),
            "```",
            "",
            "Its `text`, printed:",
            "",
            "```text",
            request["text"],
            "```",
            "",
        ]
    return "\n".join(parts + [END])


def page_with_examples(page: str) -> str:
    """``page`` with its section of examples made afresh."""
    pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
    if not pattern.search(page):
        raise ValueError(f"{PAGE}: no section between {BEGIN} and {END}")
    return pattern.sub(lambda _: section(), page)


if __name__ == "__main__":
    PAGE.write_text(page_with_examples(PAGE.read_text()))
    print(f"wrote the example requests into {PAGE}", file=sys.stderr)
