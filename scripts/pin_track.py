r"""Measure a benchmark track's pins: every reference's own card, and the pins they fix.

Plays each reference of the track at ``--players`` seats through the whole protocol
(``rummy500.eval.benchmark``) on the published deals of each ``--seed`` (the agents'
root the same number), writes each card to ``OUT/seed_S/card_NAME.json`` and ``.md``,
and prints each card's score against each reference, the pins the cards measure
together (``pins_from_cards``) and the rating each reference's cards give it at those
pins, as Markdown tables::

    python scripts/pin_track.py --players 4 --seed 20261206 20261207 20261208 20261209 \
        --workers 2 --out pins/

A card already in OUT (a run stopped part way) is read, not played again. The cards'
raw results do not depend on the pins the track holds today, only their ratings do.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from rummy500.agents.registry import make_agent
from rummy500.eval.benchmark import (
    benchmark,
    card_comparisons,
    card_markdown,
    fit_rating,
    pins_from_cards,
    track_for,
)
from rummy500.eval.report import to_json
from rummy500.eval.sealing import MatchSeeds
from rummy500.eval.shards import Workers
from rummy_env.core.records import write_whole


def reference_card(name: str, players: int, seed: int, level: str, workers: int, out: Path):
    """The card of reference ``name`` on the deals of ``seed`` (read from ``out`` when a
    run wrote it before)."""
    path = out / f"seed_{seed}" / f"card_{name.replace('@', '')}.json"
    if path.exists():
        return json.loads(path.read_text())
    track = track_for(players)
    agent = make_agent(name, track.rules, seed=1)
    agent.name = name
    card = benchmark(
        agent,
        level,
        progress=False,
        spec=name,
        workers=Workers(workers),
        seeds=MatchSeeds(seed, seed, sealed=False),
        track=track,
    )
    if card["stopped"]:
        raise SystemExit(f"pin_track: {name}'s card stopped: {card['stopped']}")
    path.parent.mkdir(parents=True, exist_ok=True)
    write_whole(path.with_suffix(".md"), card_markdown(card).encode())
    write_whole(path, to_json(card).encode())
    return json.loads(path.read_text())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=4, help="the track's table size")
    parser.add_argument(
        "--seed",
        type=int,
        nargs="+",
        required=True,
        help="the deals' (and agents') seed; more than one: a card of each reference "
        "on each, all of them fitted together",
    )
    parser.add_argument("--workers", type=int, default=1, help="worker processes")
    parser.add_argument("--quick", action="store_true", help="the quick level (a check)")
    parser.add_argument("--out", required=True, help="folder for the references' cards")
    args = parser.parse_args(argv)
    try:
        track = track_for(args.players)
    except ValueError as e:
        parser.error(str(e))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    level = "quick" if args.quick else "full"
    cards = [
        reference_card(name, args.players, seed, level, args.workers, out)
        for seed in args.seed
        for name in track.pinned
    ]
    pins = pins_from_cards(cards)
    names = list(track.pinned)
    seeds = ", ".join(map(str, args.seed))
    print(f"{track.protocol} ({level}), seeds {seeds}: the references' own cards")
    print()
    print("| card | seed | " + " | ".join(f"vs {name}" for name in names) + " | games |")
    print("| --- | ---: |" + " ---: |" * (len(names) + 1))
    for seed, card in zip(np.repeat(args.seed, len(names)), cards):
        scores = {row["reference"]: row["score"] for row in card["references"]}
        cells = " | ".join(f"{100 * scores[name]:.1f}%" for name in names)
        print(f"| {card['agent']} | {seed} | {cells} | {card['games']:,} |")
    print()
    print("| reference | pin | its cards' rating at the pins |")
    print("| --- | ---: | ---: |")
    pinned = np.array([pins[name] for name in names])
    won, compared = card_comparisons(cards, names)
    for a, name in enumerate(names):
        print(f"| {name} | {pins[name]:.0f} | {fit_rating(won[a], compared[a], pinned):.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
