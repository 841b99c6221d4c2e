"""A process agent (rummy500-agent/1) that plays from the words alone: each request's
``text`` and the texts of its legal moves, never its ``view``.

    python tests/text_only_agent.py LOG

It reads its hand and the card values from the text, melds and lays off whenever it
may, calls every rummy call, draws from the stock, and discards its costliest card,
answering with the move's text. It appends every request it gets, as received, to
LOG (one JSON line each), so a test can hold each text against the request's data.
A text it cannot read (no hand, no card values, a legal discard of a card the text
does not put in its hand) makes it exit with status 1 and the reason on stderr.
"""

import json
import re
import sys

PREFERRED = ("meld", "layoff", "swap", "call", "done", "draw", "end", "take")
"""Kinds of move in the order this agent likes them; a discard comes last."""


def fail(reason):
    print(f"text-only agent: {reason}", file=sys.stderr)
    sys.exit(1)


def card_values(text):
    """Points per rank (and the joker in hand) as the text's card-values line states."""
    line = re.search(r"^- Card values: (.*)$", text, re.M)
    if line is None:
        fail("the text states no card values")
    words = line.group(1)
    values = {"A": int(re.match(r"A (\d+)", words).group(1))}
    values.update(dict.fromkeys("KQJT", int(re.search(r"K Q J T (\d+) each", words).group(1))))
    flat = re.search(r"2 to 9 (\d+) each", words)
    for rank in "23456789":
        values[rank] = int(flat.group(1)) if flat else int(rank)
    joker = re.search(r"a joker (\d+)|a joker in hand (\d+)", words)
    values["JK"] = int(next(g for g in joker.groups() if g)) if joker else 0
    return values


def hand(text):
    found = re.search(r"^Your hand \((\d+) cards?\): (.*)\.$", text, re.M)
    if found is None:
        fail("the text states no hand")
    cards = [] if found.group(2).startswith("empty") else found.group(2).split()
    if len(cards) != int(found.group(1)):
        fail(f"the hand's count {found.group(1)} is not its {len(cards)} cards")
    return cards


def choose(request):
    text, moves = request["text"], [move["text"] for move in request["legal"]]
    values, held = card_values(text), hand(text)
    discards = [move.split()[1] for move in moves if move.startswith("discard")]
    if not set(discards) <= set(held):
        fail(f"legal discards {discards} outside the hand the text gives {held}")
    for kind in PREFERRED:
        for move in moves:
            if move.split()[0] == kind:
                return move
    return "discard " + max(discards, key=lambda card: values["JK" if card == "JK" else card[0]])


log = open(sys.argv[1], "a")
for line in sys.stdin:
    message = json.loads(line)
    if "hello" in message:
        print(json.dumps({"name": "text-only"}), flush=True)
        continue
    log.write(line)
    log.flush()
    print(json.dumps({"action": choose(message)}), flush=True)
