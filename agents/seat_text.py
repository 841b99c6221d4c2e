"""One seat's decision as plain data and as English, for agents outside the project.

A process agent (``cmd:``) or a language model gets, for each decision, what the
seat may see and nothing more, cut from ``Decision.view``:

* ``decision_request(decision, i)``: the JSON object of the process protocol
  (``protocol``, ``seat``, ``legal``, ``view``, ``text``);
* ``view_data``: the view as JSON-able data, seats absolute (0..P-1), cards as
  texts (``"10H"`` is ``"TH"``, the joker ``"JK"``, a joker on the table ``"JK=5H"``);
* ``view_words``: the same in sentences a person who knows card games but not this
  project can play from: the variant and its rules (``rules_words``), the view (with
  the cards the others know of the hand, the card at stake in a rummy call), the legal
  moves and what each kind of them means.

>>> from rummy_env.core import Decision, Rules, init, legal_mask, player_view
>>> rules = Rules()
>>> state = init(rules, seed=1, batch_size=1)
>>> decision = Decision(rules, legal_mask(rules, state), player_view(rules, state))
>>> request = decision_request(decision, 0)
>>> sorted(request)
['legal', 'protocol', 'seat', 'text', 'view']
>>> [move["text"] for move in request["legal"]][:2]
['draw', 'take 1']
>>> request["text"].splitlines()[0].split(". ")[0]
'Rummy 500 (preset standard), 2 players, first to 500 points'
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rummy_env.core import (
    KIND_RUN,
    PHASE_NAMES,
    Decision,
    PlayerView,
    Rules,
    action_layout,
    card_text,
    count_texts,
    meld_cards,
)

from .rules_words import counted, game_words, move_words, rules_words

PROTOCOL = "rummy500-agent/1"
"""Name and version of the process protocol; a change to any message's keys bumps it."""

PHASE_WORDS = {
    "draw": "Your turn: draw from the stock, or take cards from the pile.",
    "play": "Your turn goes on: meld, lay off, then discard (or go out).",
    "call": "A rummy call is open on {card}, the card just discarded (the top of the pile): "
    "call to take it and meld or lay it off at once, or pass.",
    "call_play": "You called: meld or lay off the called card, meld and lay off more if you "
    "like, then say done.",
}
"""What the seat must do in each phase an agent is asked in."""


def legal_moves(rules: Rules, mask_row: np.ndarray) -> list[dict[str, Any]]:
    """``[{"id": int, "text": str}]`` of the legal actions of one mask row, in id order."""
    layout = action_layout(rules)
    return [{"id": int(a), "text": layout.text(a)} for a in np.flatnonzero(mask_row)]


def _card(card: int) -> str | None:
    return card_text(int(card)) if card >= 0 else None


def view_data(rules: Rules, view: PlayerView, i: int) -> dict[str, Any]:
    """Row ``i`` of ``view`` as JSON-able data, every seat absolute."""
    p, me = rules.players, int(view.seat[i])

    def absolute(relative: int) -> int:
        return (me + int(relative)) % p

    def by_seat(values: np.ndarray) -> list:
        """A per-seat row (index 0 = me) in absolute seat order."""
        return [values[(s - me) % p].item() for s in range(p)]

    melds = []
    for m in range(int(view.n_melds[i])):
        texts, by = meld_cards(view, i, m)
        melds.append(
            {
                "kind": "run" if int(view.meld_kind[i, m]) == KIND_RUN else "set",
                "cards": [{"card": t, "by": absolute(b)} for t, b in zip(texts, by)],
            }
        )
    known = view.known[i]
    return {
        "seat": me,
        "players": p,
        "target": rules.target,
        "phase": PHASE_NAMES[int(view.phase[i])],
        "to_play": absolute(view.current_player[i]),
        "dealer": absolute(view.dealer[i]),
        "hand": count_texts(view.hand[i]),
        "pile": [card_text(int(c)) for c in view.pile[i, : int(view.pile_size[i])]],
        "stock_size": int(view.stock_size[i]),
        "melds": melds,
        "hand_sizes": by_seat(view.hand_sizes[i]),
        "known_cards": [count_texts(known[(s - me) % p]) for s in range(p)],
        "melded": by_seat(view.melded[i]),
        "table_points": by_seat(view.table_points[i]),
        "totals": by_seat(view.totals[i]),
        "owed": _card(view.owed[i]),
        "no_discard": _card(view.no_discard[i]),
        "taken": count_texts(view.taken[i].astype(np.int8)),
        "turn": int(view.turn[i]),
        "hand_number": int(view.hand_number[i]) + 1,
    }


def view_words(rules: Rules, data: dict[str, Any], legal: list[dict[str, Any]]) -> str:
    """``view_data``'s data, the game's rules and the legal moves in plain English: enough
    for a person who knows card games but not this project."""
    me, p = data["seat"], data["players"]
    lines = [
        game_words(rules) + f" You are seat {me}; seat {data['dealer']} deals this hand.",
        "The rules:",
    ]
    lines += [f"- {line}" for line in rules_words(rules)]
    lines += [
        f"Hand {data['hand_number']}, {counted(data['turn'], 'turn')} played. Totals: "
        + ", ".join(f"seat {s} {t}" for s, t in enumerate(data["totals"]))
        + ".",
        f"Your hand ({counted(len(data['hand']), 'card')}): {_cards(data['hand'])}"
        + (" (you are floating)" if rules.floating and not data["hand"] else "")
        + ".",
        f"The others know you hold: {' '.join(data['known_cards'][me])} (taken from the pile)."
        if data["known_cards"][me]
        else "The others know none of your cards.",
        f"Discard pile, oldest first ({counted(len(data['pile']), 'card')}): "
        f"{_cards(data['pile'])}" + ("; its top card is the last." if data["pile"] else "."),
        f"Stock: {counted(data['stock_size'], 'card')}.",
    ]
    for s in (s for s in range(p) if s != me):
        known = data["known_cards"][s]
        held = data["hand_sizes"][s]
        lines.append(
            f"Seat {s} holds {counted(held, 'card')}"
            + (" (floating)" if rules.floating and not held else "")
            + (f"; you all know it holds {' '.join(known)} (taken from the pile)" if known else "")
            + "."
        )
    if data["melds"]:
        lines.append("On the table:")
        for k, meld in enumerate(data["melds"], 1):
            cards = ", ".join(f"{c['card']} (seat {c['by']})" for c in meld["cards"])
            lines.append(f"  {k}. {meld['kind']}: {cards}")
    else:
        lines.append("Nothing is on the table yet.")
    lines.append(
        "Points on the table this hand: "
        + ", ".join(f"seat {s} {t}" for s, t in enumerate(data["table_points"]))
        + "."
    )
    if rules.layoff_requires_meld:
        lines.append(
            "You have melded this hand, so you may lay off."
            if data["melded"][me]
            else "You have not melded this hand yet, so you may not lay off."
        )
    if data["owed"]:
        lines.append(
            f"You must meld or lay off {data['owed']} first"
            + (
                " (or swap it for the joker that stands for it)"
                if rules.dig_swap and data["phase"] == "play"
                else ""
            )
            + "; until then you may not discard."
        )
    if rules.keep_taken and data["taken"]:
        lines.append(
            f"Taken from the pile this turn, so not to be discarded: {' '.join(data['taken'])}."
        )
    if data["no_discard"]:
        lines.append(f"You may not discard {data['no_discard']} this turn.")
    top = data["pile"][-1] if data["pile"] else None
    lines.append(PHASE_WORDS.get(data["phase"], f"Phase: {data['phase']}.").format(card=top))
    lines.append("Legal moves (answer with the id or the text):")
    lines += [
        f"  {move['id']}: {move['text']}{_taken_by(rules, move['text'], data['pile'])}"
        for move in legal
    ]
    meanings = move_words(rules)
    kinds = dict.fromkeys(move["text"].split()[0] for move in legal)
    lines.append("What these moves mean:")
    lines += [f"- {meanings[kind]}" for kind in kinds]
    return "\n".join(lines)


def _cards(texts: list[str]) -> str:
    return " ".join(texts) or "empty"


def _taken_by(rules: Rules, move: str, pile: list[str]) -> str:
    """The cards a ``take N`` move takes, named beside it, and the one it obliges to play."""
    verb, _, depth = move.partition(" ")
    if verb != "take":
        return ""
    cards = pile[-int(depth) :]
    if len(cards) > 1:
        return f" (takes {' '.join(cards)}; {cards[0]}, the deepest, must be played first)"
    if rules.top_card_must_meld:
        return f" (takes {cards[0]}, which must be played first)"
    return f" (takes {cards[0]})"


def decision_request(decision: Decision, i: int) -> dict[str, Any]:
    """The process protocol's request for decision ``i`` of ``decision``."""
    legal = legal_moves(decision.rules, decision.mask[i])
    data = view_data(decision.rules, decision.view, i)
    return {
        "protocol": PROTOCOL,
        "seat": data["seat"],
        "legal": legal,
        "view": data,
        "text": view_words(decision.rules, data, legal),
    }
