"""One seat's decision as plain data and as English, for agents outside the project.

A process agent (``cmd:``) or a language model gets, for each decision, what the
seat may see and nothing more, cut from ``Decision.view``:

* ``decision_request(decision, i)``: the JSON object of the process protocol
  (``protocol``, ``seat``, ``legal``, ``view``, ``text``);
* ``view_data``: the view as JSON-able data, seats absolute (0..P-1), cards as
  texts (``"10H"`` is ``"TH"``, the joker ``"JK"``, a joker on the table ``"JK=5H"``);
* ``view_words``: the same in sentences a person can read.

>>> from rummy_env.core import Decision, Rules, init, legal_mask, player_view
>>> rules = Rules()
>>> state = init(rules, seed=1, batch_size=1)
>>> decision = Decision(rules, legal_mask(rules, state), player_view(rules, state))
>>> request = decision_request(decision, 0)
>>> sorted(request)
['legal', 'protocol', 'seat', 'text', 'view']
>>> [move["text"] for move in request["legal"]][:2]
['draw', 'take 1']
>>> request["text"].splitlines()[0]
'Rummy 500, 2 players, first to 500 points. You are seat 0; seat 1 deals this hand.'
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

PROTOCOL = "rummy500-agent/1"
"""Name and version of the process protocol; a change to any message's keys bumps it."""

PHASE_WORDS = {
    "draw": "Draw: from the stock, or take cards from the pile.",
    "play": "Play: meld, lay off, then discard (or go out).",
    "call": "A Rummy call is open: call it, or pass.",
    "call_play": "You called Rummy: meld or lay off the card, then say done.",
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
        melds.append({"kind": "run" if int(view.meld_kind[i, m]) == KIND_RUN else "set",
                      "cards": [{"card": t, "by": absolute(b)} for t, b in zip(texts, by)]})
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


def view_words(data: dict[str, Any], legal: list[dict[str, Any]]) -> str:
    """``view_data``'s data and the legal moves in plain English."""
    me, p = data["seat"], data["players"]
    others = [s for s in range(p) if s != me]
    lines = [
        f"Rummy 500, {p} players, first to {data['target']} points. "
        f"You are seat {me}; seat {data['dealer']} deals this hand.",
        f"Hand {data['hand_number']}, turn {data['turn']}. Totals: "
        + ", ".join(f"seat {s} {t}" for s, t in enumerate(data["totals"])) + ".",
        f"Your hand ({len(data['hand'])} cards): {' '.join(data['hand']) or 'empty'}.",
        f"Discard pile, oldest first ({len(data['pile'])} cards): "
        f"{' '.join(data['pile']) or 'empty'}; its top card is the last.",
        f"Stock: {data['stock_size']} cards.",
    ]
    for s in others:
        known = data["known_cards"][s]
        lines.append(f"Seat {s} holds {data['hand_sizes'][s]} cards"
                     + (f", among them {' '.join(known)} (taken from the pile)" if known else "")
                     + ".")
    if data["melds"]:
        lines.append("On the table:")
        for k, meld in enumerate(data["melds"], 1):
            cards = ", ".join(f"{c['card']} (seat {c['by']})" for c in meld["cards"])
            lines.append(f"  {k}. {meld['kind']}: {cards}")
    else:
        lines.append("Nothing is on the table yet.")
    lines.append("Points on the table this hand: "
                 + ", ".join(f"seat {s} {t}" for s, t in enumerate(data["table_points"])) + ".")
    if data["owed"]:
        lines.append(f"You must meld or lay off {data['owed']} (taken from the pile) this turn.")
    if data["no_discard"]:
        lines.append(f"You may not discard {data['no_discard']} this turn.")
    lines.append(PHASE_WORDS.get(data["phase"], f"Phase: {data['phase']}."))
    lines.append("Legal moves (answer with the id or the text):")
    lines += [f"  {move['id']}: {move['text']}" for move in legal]
    return "\n".join(lines)


def decision_request(decision: Decision, i: int) -> dict[str, Any]:
    """The process protocol's request for decision ``i`` of ``decision``."""
    legal = legal_moves(decision.rules, decision.mask[i])
    data = view_data(decision.rules, decision.view, i)
    return {"protocol": PROTOCOL, "seat": data["seat"], "legal": legal, "view": data,
            "text": view_words(data, legal)}
