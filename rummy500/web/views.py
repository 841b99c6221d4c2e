"""What a viewer may see of one game, as JSON-able data for the page.

A live player's view is cut from ``player_view`` of their seat: their own hand,
the public table, and nothing of the other hands but their sizes and the cards
known to be in them. A face-up view (agents watched, or a replay) adds every
hand. Seats are absolute (0..P-1) in everything sent; the page arranges them.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from rummy_env.core import (
    JOKER,
    KIND_RUN,
    PHASE_NAMES,
    Rules,
    State,
    action_layout,
    card_text,
    count_texts,
    legal_mask,
    meld_cards,
    player_view,
)


def _melds(state: State) -> list[dict[str, Any]]:
    """The table's melds in the order they were laid: cards with who laid each."""
    out = []
    for m in range(int(state.n_melds[0])):
        texts, by = meld_cards(state, 0, m)
        out.append(
            {
                "kind": "run" if int(state.meld_kind[0, m]) == KIND_RUN else "set",
                "cards": [{"card": t, "by": b} for t, b in zip(texts, by)],
            }
        )
    return out


def _card_or_none(card: int) -> str | None:
    return card_text(int(card)) if card >= 0 else None


def hand_cards_used(text: str, hand: list[str]) -> list[str]:
    """The hand cards a move plays: the named naturals held, a joker for each one missing.

    >>> hand_cards_used("meld 5H 6H 7H", ["5H", "7H", "JK", "KS"])
    ['5H', 'JK', '7H']
    >>> hand_cards_used("draw", ["5H"])
    []
    """
    verb, *args = text.split()
    if verb not in ("meld", "layoff", "discard", "swap"):
        return []
    named = args if verb == "meld" else args[:1]
    left = Counter(hand)
    used = []
    for card in named:
        pick = card if left[card] > 0 else card_text(JOKER)
        left[pick] -= 1
        used.append(pick)
    return used


def legal_moves(rules: Rules, state: State, hand: list[str]) -> list[dict[str, Any]]:
    """Every legal move of the seat to act, from the engine's mask: text, verb, hand cards."""
    ids = action_layout(rules)
    moves = []
    for action in np.flatnonzero(legal_mask(rules, state)[0]):
        text = ids.text(int(action))
        moves.append({"text": text, "verb": text.split()[0], "uses": hand_cards_used(text, hand)})
    return moves


def seat_view(
    rules: Rules, state: State, seat: int, names: list[str], offer_moves: bool = True
) -> dict[str, Any]:
    """What ``seat`` may see of the game, with its legal moves when it is to act."""
    v = player_view(rules, state, np.array([seat]), np.array([0]))
    p = rules.players
    absolute = [(seat + k) % p for k in range(p)]
    seats = [None] * p
    for k, s in enumerate(absolute):
        seats[s] = {
            "name": names[s],
            "hand_size": int(v.hand_sizes[0, k]),
            "table_points": int(v.table_points[0, k]),
            "total": int(v.totals[0, k]),
            "known": count_texts(v.known[0, k]) if k else [],
            "hand": None,
        }
    hand = count_texts(v.hand[0])
    seats[seat]["hand"] = hand
    to_play = (seat + int(v.current_player[0])) % p
    view = _common(rules, state, names)
    view.update(
        {
            "viewer": seat,
            "seats": seats,
            "to_play": to_play,
            "dealer": (seat + int(v.dealer[0])) % p,
            "stock_size": int(v.stock_size[0]),
            "pile": [card_text(int(c)) for c in v.pile[0, : int(v.pile_size[0])]],
            "owed": _card_or_none(v.owed[0]),
            "no_discard": _card_or_none(v.no_discard[0]),
            "moves": (
                legal_moves(rules, state, hand)
                if offer_moves and to_play == seat and _live(state)
                else []
            ),
        }
    )
    return view


def face_up_view(rules: Rules, state: State, names: list[str]) -> dict[str, Any]:
    """The whole game with every hand shown (agents watched, or a replay); no moves offered."""
    view = seat_view(rules, state, 0, names, offer_moves=False)
    for s in range(rules.players):
        view["seats"][s]["hand"] = count_texts(state.hand[0, s])
    view["viewer"] = None
    return view


def hand_end_view(rules: Rules, ended: State) -> dict[str, Any]:
    """The hand just ended: its scores, the totals, who went out, the final table and
    every hand left (``hands``, which the view of a live player leaves out)."""
    went_out = int(ended.went_out[0])
    return {
        "hand": int(ended.hand_number[0]) + 1,
        "scores": ended.hand_scores[0].tolist(),
        "totals": ended.totals[0].tolist(),
        "went_out": went_out if went_out >= 0 else None,
        "melds": _melds(ended),
        "hand_sizes": ended.hand_size[0].tolist(),
        "hands": [count_texts(ended.hand[0, s]) for s in range(rules.players)],
    }


def _live(state: State) -> bool:
    return not bool(state.game_over[0])


def _common(rules: Rules, state: State, names: list[str]) -> dict[str, Any]:
    """The public facts of a game that any viewer sees the same way."""
    winner = int(state.winner[0])
    return {
        "rules": {
            "preset": rules.preset,
            "players": rules.players,
            "target": rules.target,
            "flags": rules.to_dict(),
        },
        "names": list(names),
        "hand_number": int(state.hand_number[0]) + 1,
        "turn": int(state.turn[0]) + 1,
        "phase": PHASE_NAMES[int(state.phase[0])],
        "melds": _melds(state),
        "game_over": bool(state.game_over[0]),
        "truncated": bool(state.truncated[0]),
        "winner": winner if winner >= 0 else None,
    }
